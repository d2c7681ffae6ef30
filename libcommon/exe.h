/*
 * exe.h - whether the preloaded tracer can get into a program at all.
 *
 * LD_PRELOAD works through the dynamic linker: a statically linked program
 * has none (unless it was linked with libtangram.a, whose objects carry a
 * section named ".tangram"), and the dynamic linker of a set-user-ID or
 * set-group-ID program that changes the user ignores preloads named by
 * path.  trace-run and the tracer's exec wrappers say so before such a
 * program starts, instead of leaving a trace without it.
 *
 * Only system calls are made (syscall(2)), so the tracer can use these
 * functions without recording them.
 */
#ifndef TG_EXE_H
#define TG_EXE_H

#include <stddef.h>

enum tg_exe {
	TG_EXE_OK,	/* dynamically linked, traced statically, not ELF (a
			 * script: its interpreter is checked when it runs),
			 * or unreadable (the exec will say) */
	TG_EXE_STATIC,	/* statically linked, without the tracer */
	TG_EXE_SECURE,	/* set-user-ID or set-group-ID to another user */
};

/* What keeps the tracer out of the program in file @path. */
enum tg_exe tg_exe_check(const char *path);

/* The file execvp(3) would run for @name (searched on @pathvar, the value
 * of PATH, or the C library's default when NULL) into @out of @n bytes:
 * 0, or -1 when there is none. */
int tg_exe_find(const char *name, const char *pathvar, char *out, size_t n);

#endif
