/*
 * kinds.h - what each argument kind (enum tg_kind) is in every form a
 * record takes: one row of operations per kind, used by the .rec reader
 * and writer (rec.c), the .cfg signature codec (cfgsig.c) and the text and
 * JSON forms (kindtext.c).  Adding a kind is adding a row to tg_kinds
 * (kinds.c) and its functions, next to the state each form keeps.
 *
 * The operations of one form share a context whose type only that form's
 * file knows; a row holds them as pointers.  A NULL operation means the
 * kind has no such form (TG_K_VOID is never an argument).
 */
#ifndef TG_KINDS_H
#define TG_KINDS_H

#include <stddef.h>
#include <stdint.h>

#include "calltab.h"

struct tg_val;
struct tg_recin;	/* rec.c: a call payload being decoded */
struct tg_sigenc;	/* cfgsig.c: a signature being encoded */
struct tg_sigdec;	/* cfgsig.c: a signature being decoded */
struct tg_sigrd;	/* cfgsig.c: words being read */
struct tg_sb;		/* sb.h: text being built */
struct json_t;		/* jansson */

struct tg_kindops {
	const char *name;	/* as calls.tab spells it */
	/* the elements an array value of the kind holds per count (tg_val.arr
	 * points to i * arr of them), 0 if it is not an array */
	uint8_t arr;
	/* tangram-rec(5): write the value at @p (room for 3 varints plus
	 * one per array element), @sid the id of a string argument; read it */
	unsigned char *(*rec_put)(unsigned char *p, const struct tg_val *v, uint64_t sid);
	int (*rec_get)(struct tg_recin *in, struct tg_val *v);
	/* tangram-cfg(5): the words of argument @i of the record, back, skip */
	int (*sig_put)(struct tg_sigenc *e, int i, const struct tg_val *v);
	int (*sig_get)(struct tg_sigdec *d, int i, struct tg_val *v);
	int (*sig_skip)(struct tg_sigrd *rd, int sub);
	/* tangram-text(5): the value as a call line shows it, and as JSON
	 * (trace-decode -j); kindtext.c */
	void (*txt_put)(struct tg_sb *b, int sub, const struct tg_val *v);
	struct json_t *(*json_put)(int sub, const struct tg_val *v);
};

/* The row of kind @k (0 <= k < TG_K_COUNT). */
extern const struct tg_kindops tg_kinds[TG_K_COUNT];

/* ---- the operations, by form (rows of tg_kinds) ---------------------------- */

/* rec.c */
unsigned char *tg_rk_put_s(unsigned char *p, const struct tg_val *v, uint64_t sid);
unsigned char *tg_rk_put_u(unsigned char *p, const struct tg_val *v, uint64_t sid);
unsigned char *tg_rk_put_str(unsigned char *p, const struct tg_val *v, uint64_t sid);
unsigned char *tg_rk_put_stat(unsigned char *p, const struct tg_val *v, uint64_t sid);
unsigned char *tg_rk_put_uarr(unsigned char *p, const struct tg_val *v, uint64_t sid);
unsigned char *tg_rk_put_sarr(unsigned char *p, const struct tg_val *v, uint64_t sid);
unsigned char *tg_rk_put_hsizes(unsigned char *p, const struct tg_val *v, uint64_t sid);
unsigned char *tg_rk_put_iostatus(unsigned char *p, const struct tg_val *v, uint64_t sid);
unsigned char *tg_rk_put_status(unsigned char *p, const struct tg_val *v, uint64_t sid);
unsigned char *tg_rk_put_statuses(unsigned char *p, const struct tg_val *v, uint64_t sid);
int tg_rk_get_s(struct tg_recin *in, struct tg_val *v);
int tg_rk_get_u(struct tg_recin *in, struct tg_val *v);
int tg_rk_get_str(struct tg_recin *in, struct tg_val *v);
int tg_rk_get_stat(struct tg_recin *in, struct tg_val *v);
int tg_rk_get_uarr(struct tg_recin *in, struct tg_val *v);
int tg_rk_get_sarr(struct tg_recin *in, struct tg_val *v);
int tg_rk_get_hsizes(struct tg_recin *in, struct tg_val *v);
int tg_rk_get_iostatus(struct tg_recin *in, struct tg_val *v);
int tg_rk_get_status(struct tg_recin *in, struct tg_val *v);
int tg_rk_get_statuses(struct tg_recin *in, struct tg_val *v);
int tg_rk_get_flock(struct tg_recin *in, struct tg_val *v);

/* cfgsig.c */
int tg_sk_put_plain(struct tg_sigenc *e, int i, const struct tg_val *v);
int tg_sk_put_int(struct tg_sigenc *e, int i, const struct tg_val *v);
int tg_sk_put_str(struct tg_sigenc *e, int i, const struct tg_val *v);
int tg_sk_put_stat(struct tg_sigenc *e, int i, const struct tg_val *v);
int tg_sk_put_arr(struct tg_sigenc *e, int i, const struct tg_val *v);
int tg_sk_put_hsizes(struct tg_sigenc *e, int i, const struct tg_val *v);
int tg_sk_put_mpih(struct tg_sigenc *e, int i, const struct tg_val *v);
int tg_sk_put_mpiharr(struct tg_sigenc *e, int i, const struct tg_val *v);
int tg_sk_put_status(struct tg_sigenc *e, int i, const struct tg_val *v);
int tg_sk_put_statuses(struct tg_sigenc *e, int i, const struct tg_val *v);
int tg_sk_put_iostatus(struct tg_sigenc *e, int i, const struct tg_val *v);
int tg_sk_put_fd(struct tg_sigenc *e, int i, const struct tg_val *v);
int tg_sk_put_buf(struct tg_sigenc *e, int i, const struct tg_val *v);
int tg_sk_get_plain(struct tg_sigdec *d, int i, struct tg_val *v);
int tg_sk_get_int(struct tg_sigdec *d, int i, struct tg_val *v);
int tg_sk_get_str(struct tg_sigdec *d, int i, struct tg_val *v);
int tg_sk_get_stat(struct tg_sigdec *d, int i, struct tg_val *v);
int tg_sk_get_arr(struct tg_sigdec *d, int i, struct tg_val *v);
int tg_sk_get_hsizes(struct tg_sigdec *d, int i, struct tg_val *v);
int tg_sk_get_mpih(struct tg_sigdec *d, int i, struct tg_val *v);
int tg_sk_get_mpiharr(struct tg_sigdec *d, int i, struct tg_val *v);
int tg_sk_get_status(struct tg_sigdec *d, int i, struct tg_val *v);
int tg_sk_get_statuses(struct tg_sigdec *d, int i, struct tg_val *v);
int tg_sk_get_iostatus(struct tg_sigdec *d, int i, struct tg_val *v);
int tg_sk_get_fd(struct tg_sigdec *d, int i, struct tg_val *v);
int tg_sk_get_buf(struct tg_sigdec *d, int i, struct tg_val *v);
int tg_sk_skip_plain(struct tg_sigrd *rd, int sub);
int tg_sk_skip_int(struct tg_sigrd *rd, int sub);
int tg_sk_skip_str(struct tg_sigrd *rd, int sub);
int tg_sk_skip_stat(struct tg_sigrd *rd, int sub);
int tg_sk_skip_arr(struct tg_sigrd *rd, int sub);
int tg_sk_skip_hsizes(struct tg_sigrd *rd, int sub);
int tg_sk_skip_mpih(struct tg_sigrd *rd, int sub);
int tg_sk_skip_mpiharr(struct tg_sigrd *rd, int sub);
int tg_sk_skip_status(struct tg_sigrd *rd, int sub);
int tg_sk_skip_statuses(struct tg_sigrd *rd, int sub);
int tg_sk_skip_iostatus(struct tg_sigrd *rd, int sub);
int tg_sk_skip_pair(struct tg_sigrd *rd, int sub);
int tg_sk_skip_fd(struct tg_sigrd *rd, int sub);


/* kindtext.c */
void tg_tk_int(struct tg_sb *b, int sub, const struct tg_val *v);
void tg_tk_uint(struct tg_sb *b, int sub, const struct tg_val *v);
void tg_tk_fd(struct tg_sb *b, int sub, const struct tg_val *v);
void tg_tk_oflags(struct tg_sb *b, int sub, const struct tg_val *v);
void tg_tk_hex(struct tg_sb *b, int sub, const struct tg_val *v);
void tg_tk_whence(struct tg_sb *b, int sub, const struct tg_val *v);
void tg_tk_fcntl(struct tg_sb *b, int sub, const struct tg_val *v);
void tg_tk_mode(struct tg_sb *b, int sub, const struct tg_val *v);
void tg_tk_stream(struct tg_sb *b, int sub, const struct tg_val *v);
void tg_tk_dir(struct tg_sb *b, int sub, const struct tg_val *v);
void tg_tk_buf(struct tg_sb *b, int sub, const struct tg_val *v);
void tg_tk_str(struct tg_sb *b, int sub, const struct tg_val *v);
void tg_tk_stat(struct tg_sb *b, int sub, const struct tg_val *v);
void tg_tk_flock(struct tg_sb *b, int sub, const struct tg_val *v);
void tg_tk_ints(struct tg_sb *b, int sub, const struct tg_val *v);
void tg_tk_mpih(struct tg_sb *b, int sub, const struct tg_val *v);
void tg_tk_mpiharr(struct tg_sb *b, int sub, const struct tg_val *v);
void tg_tk_iostatus(struct tg_sb *b, int sub, const struct tg_val *v);
void tg_tk_status(struct tg_sb *b, int sub, const struct tg_val *v);
void tg_tk_statuses(struct tg_sb *b, int sub, const struct tg_val *v);
void tg_tk_hid(struct tg_sb *b, int sub, const struct tg_val *v);
void tg_tk_enum(struct tg_sb *b, int sub, const struct tg_val *v);
void tg_tk_dims(struct tg_sb *b, int sub, const struct tg_val *v);
struct json_t *tg_jk_int(int sub, const struct tg_val *v);
struct json_t *tg_jk_uint(int sub, const struct tg_val *v);
struct json_t *tg_jk_fd(int sub, const struct tg_val *v);
struct json_t *tg_jk_oflags(int sub, const struct tg_val *v);
struct json_t *tg_jk_hex(int sub, const struct tg_val *v);
struct json_t *tg_jk_whence(int sub, const struct tg_val *v);
struct json_t *tg_jk_fcntl(int sub, const struct tg_val *v);
struct json_t *tg_jk_mode(int sub, const struct tg_val *v);
struct json_t *tg_jk_stream(int sub, const struct tg_val *v);
struct json_t *tg_jk_dir(int sub, const struct tg_val *v);
struct json_t *tg_jk_buf(int sub, const struct tg_val *v);
struct json_t *tg_jk_str(int sub, const struct tg_val *v);
struct json_t *tg_jk_stat(int sub, const struct tg_val *v);
struct json_t *tg_jk_flock(int sub, const struct tg_val *v);
struct json_t *tg_jk_ints(int sub, const struct tg_val *v);
struct json_t *tg_jk_mpih(int sub, const struct tg_val *v);
struct json_t *tg_jk_mpiharr(int sub, const struct tg_val *v);
struct json_t *tg_jk_iostatus(int sub, const struct tg_val *v);
struct json_t *tg_jk_status(int sub, const struct tg_val *v);
struct json_t *tg_jk_statuses(int sub, const struct tg_val *v);
struct json_t *tg_jk_hid(int sub, const struct tg_val *v);
struct json_t *tg_jk_enum(int sub, const struct tg_val *v);
struct json_t *tg_jk_dims(int sub, const struct tg_val *v);
/* @s as a JSON string (bytes that are not UTF-8 as U+FFFD; NULL as null). */
struct json_t *tg_jstr(const char *s);
/* An encoded MPI handle of kind @sub: "MPI_INT", "c3", or the raw value. */
const char *tg_mpih_str(char *buf, size_t cap, int sub, uint64_t enc);

#endif
