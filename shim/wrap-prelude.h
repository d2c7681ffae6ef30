/*
 * wrap-prelude.h - what every wrapper file includes first.  The wrappers
 * define functions that glibc also declares, so glibc must not turn them
 * into inline functions or fortified macros in this translation unit.
 */
#ifndef TG_WRAP_PRELUDE_H
#define TG_WRAP_PRELUDE_H

#undef _FORTIFY_SOURCE
#ifndef __NO_INLINE__
#define __NO_INLINE__ 1
#endif
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define _LARGEFILE64_SOURCE 1

#include <aio.h>
#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utime.h>

#include "shim.h"

#endif
