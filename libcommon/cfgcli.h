/*
 * cfgcli.h - the command-line pieces trace-compress and trace-merge share.
 */
#ifndef TG_CFGCLI_H
#define TG_CFGCLI_H

#include <stdint.h>

struct tg_cfg;

/* -t NAME: the timing mode (enum in cfg.h); exits 2 on an unknown name. */
int tg_cfgcli_timing(const char *s);

/* -e ERROR: a relative error such as 0.05, in millionths; exits 2 if out
 * of [0.000001, 10]. */
uint32_t tg_cfgcli_error(const char *s);

/* Write @c to @out (standard output if NULL) as @writer.  Returns @status,
 * or 2 after reporting the error; a closed pipe ends quietly. */
int tg_cfgcli_write(struct tg_cfg *c, const char *out, const char *writer, int status);

#endif
