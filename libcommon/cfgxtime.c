/*
 * cfgxtime.c - the exact times of the anchored calls of a stream whose
 * times are aggregate (tangram-cfg(5), XTIME): which calls they are, how
 * the encoder keeps them and how a cursor reads them back.
 *
 * Aggregate times are rebuilt from mean gaps, so the order of two
 * processes' calls by their times is lost; the analysis needs it for a
 * few kinds of calls only (record locks, the calls that make a process,
 * MPI-IO's shared file pointer) and for every call of a process without
 * an MPI rank, which nothing but clocks orders against the others.
 * Those few keep their start and duration; the stencil of a regular code
 * has none, and its trace does not grow.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cfg.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "cfgint.h"
#include "funcid.gen.h"
#include "varint.h"
#include "banned.h"

/* The shared-pointer calls that move no bytes, so that no role of theirs
 * says what they are: the ones that do are known by their roles' offsets
 * (TG_OFF_SHARED, TG_OFF_ORDERED). */
static const uint16_t shared_ids[] = {
	TG_FN_MPI_File_seek_shared,
	TG_FN_MPI_File_get_position_shared,
	TG_FN_MPI_File_read_ordered_end,
	TG_FN_MPI_File_write_ordered_end,
};

/* An fcntl command that takes or drops a record lock (the GETLK ones ask
 * only, and the other commands are not about locks). */
static int setlk_cmd(int64_t cmd)
{
	return cmd == F_SETLK || cmd == F_SETLKW || cmd == F_OFD_SETLK || cmd == F_OFD_SETLKW;
}

int tg_xtime_wanted(const struct tg_rec *r, int nested_mpi)
{
	const struct tg_calldesc *d = r->call;
	size_t i;

	if (r->type != TG_REC_CALL || !d)
		return 0;
	/* a file collective with no MPI call in it: its library talks out
	 * of the tracer's sight (Open MPI's OMPIO; ROMIO's messages are
	 * recorded inside its calls), and hb-build orders its members by
	 * their times (a member that returned before another called waited
	 * for nobody).  Not a nonblocking one, which ends at its wait, nor
	 * MPI_File_close, which OMPIO ends with a barrier (and which every
	 * program makes: each stream would carry an XTIME for it). */
	if (d->hb && !nested_mpi &&
	    (d->hb->kind == TG_MK_FCOLL || d->hb->kind == TG_MK_FBEGIN ||
	     d->hb->kind == TG_MK_FEND))
		return 1;
	for (i = 0; i < d->nio; i++) {
		const struct tg_iorole *io = &d->io[i];
		switch (io->op) {
		case TG_IO_LOCK:
			/* fcntl has the role whatever its command */
			if (io->a >= 0 && d->args[io->a].kind == TG_K_FCNTL)
				return setlk_cmd(r->args[io->a].i);
			return 1;
		case TG_IO_FORK:
		case TG_IO_SPAWN:
		case TG_IO_EXEC:
		case TG_IO_REAP:	/* (its end after the child's, exact) */
			return 1;
		case TG_IO_READ:
		case TG_IO_WRITE:
			if (io->off == TG_OFF_SHARED || io->off == TG_OFF_ORDERED)
				return 1;
			break;
		}
	}
	for (i = 0; i < sizeof(shared_ids) / sizeof(shared_ids[0]); i++)
		if (d->id == shared_ids[i])
			return 1;
	return 0;
}

/* ---- encoding -------------------------------------------------------------- */

/*
 * The payload is three columns of as many values, without byte counts:
 * the calls between one anchored call and the one before, the starts and
 * the durations.  Each start is taken from the end of the anchored call
 * before, as lossless form 1 takes a gap: where every call is anchored
 * (a process without a rank) that is the idle time alone, and values of
 * a kind deflate better together (a fifth less for a million calls).
 */
int tg_xtenc_put(struct tg_xtenc *e, uint64_t call, const struct tg_rec *r)
{
	if (tg_bytes_uvar(&e->skip, call - e->next) < 0 ||
	    tg_bytes_svar(&e->start, (int64_t)(r->tstart - e->end)) < 0 ||
	    tg_bytes_uvar(&e->dur, r->dur) < 0)
		return -1;
	e->next = call + 1;
	e->end = r->tstart + r->dur;
	e->n++;
	return 0;
}

int tg_xtenc_finish(struct tg_xtenc *e, struct tg_cstream *s)
{
	struct tg_bytes *b = &e->skip;

	if (!e->n)
		return 0;
	if (tg_bytes_put(b, e->start.b, e->start.n) < 0 || tg_bytes_put(b, e->dur.b, e->dur.n) < 0)
		return -1;
	/* as a section is stored: deflated when that is smaller */
	if (b->n > 64 && tg_cfg_deflate(b->b, b->n, &s->xz, &s->xzlen) == 0 && s->xzlen < b->n) {
		s->xzlib = 1;
	} else {
		free(s->xz);
		s->xz = b->b;
		s->xzlen = b->n;
		s->xzlib = 0;
		b->b = NULL;
	}
	s->xraw = b->n;
	s->nx = e->n;
	return 0;
}

void tg_xtenc_release(struct tg_xtenc *e)
{
	tg_bytes_release(&e->skip);
	tg_bytes_release(&e->start);
	tg_bytes_release(&e->dur);
	memset(e, 0, sizeof(*e));
}

/* ---- decoding -------------------------------------------------------------- */

/* Read the next anchor into d->next, d->start, d->dur; none left:
 * d->next is UINT64_MAX.  0, or -1 when it is malformed. */
static int xtdec_read(struct tg_xtdec *d)
{
	uint64_t skip, dur;
	int64_t gap;

	if (!d->left) {
		d->next = UINT64_MAX;
		return 0;
	}
	if (tg_get_uvar(&d->p, d->pst, &skip) < 0 || tg_get_svar(&d->pst, d->pdu, &gap) < 0 ||
	    tg_get_uvar(&d->pdu, d->end, &dur) < 0)
		return -1;
	/* calls in order, each one of the stream's */
	if (skip >= d->calls || d->from > d->calls - 1 - skip)
		return -1;
	d->next = d->from + skip;
	d->from = d->next + 1;
	d->start = d->start + d->dur + (uint64_t)gap;
	d->dur = dur;
	d->left--;
	return 0;
}

/* Skip @n varints from *@pp; -1 when they run past @end. */
static int skip_vars(const unsigned char **pp, const unsigned char *end, uint64_t n)
{
	uint64_t v;

	while (n--)
		if (tg_get_uvar(pp, end, &v) < 0)
			return -1;
	return 0;
}

int tg_xtdec_open(struct tg_xtdec *d, const struct tg_cstream *s)
{
	memset(d, 0, sizeof(*d));
	d->next = UINT64_MAX;
	if (!s->nx)
		return 0;
	if (s->xzlib) {
		if (tg_cfg_inflate(s->xz, s->xzlen, s->xraw, &d->raw) < 0)
			return -1;
		d->p = d->raw;
	} else {
		if (s->xraw != s->xzlen)
			return -1;
		d->p = s->xz;
	}
	d->end = d->p + s->xraw;
	d->left = s->nx;
	d->calls = s->v.calls;
	/* the columns: each as many values as there are anchors, the last
	 * ending where the payload does */
	d->pst = d->p;
	if (skip_vars(&d->pst, d->end, s->nx) < 0)
		return -1;
	d->pdu = d->pst;
	if (skip_vars(&d->pdu, d->end, s->nx) < 0)
		return -1;
	{
		const unsigned char *q = d->pdu;
		if (skip_vars(&q, d->end, s->nx) < 0 || q != d->end)
			return -1;
	}
	return xtdec_read(d);
}

int tg_xtdec_step(struct tg_xtdec *d)
{
	return xtdec_read(d);
}

void tg_xtdec_release(struct tg_xtdec *d)
{
	free(d->raw);
	memset(d, 0, sizeof(*d));
}

int tg_xtime_check(const struct tg_cstream *s)
{
	struct tg_xtdec d;
	int rc;

	if ((rc = tg_xtdec_open(&d, s)) == 0)
		while (d.next != UINT64_MAX && (rc = xtdec_read(&d)) == 0)
			;
	tg_xtdec_release(&d);
	return rc;
}
