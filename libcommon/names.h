/*
 * names.h - symbolic names of the constants that appear in traces: open
 * flags, whence values, fcntl commands, errno values.  Used when records are
 * printed; they name the values of this machine's headers.
 */
#ifndef TG_NAMES_H
#define TG_NAMES_H

#include <stddef.h>
#include <stdint.h>

/* Write "O_WRONLY|O_CREAT|O_TRUNC" for @flags into @buf (cap bytes). */
void tg_oflags_str(char *buf, size_t cap, uint64_t flags);

/* "SEEK_SET"...; NULL if unknown. */
const char *tg_whence_name(int64_t w);

/* "F_GETFL"...; NULL if unknown. */
const char *tg_fcntl_name(int64_t cmd);

/* "ENOENT"...; NULL if unknown. */
const char *tg_errno_name(int e);

#endif
