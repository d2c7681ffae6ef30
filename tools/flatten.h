/*
 * flatten.h - MPI datatypes as byte extents: the #type definitions of a
 * trace (tangram-text(5)) turned into the list of (offset, length) blocks of
 * one instance, and a file view's data bytes mapped to file extents.
 */
#ifndef TG_FLATTEN_H
#define TG_FLATTEN_H

#include <stddef.h>
#include <stdint.h>

struct tg_flat;
struct tg_types;

struct tg_extent {
	uint64_t off, len;
};

/* The datatypes of one process: the predefined ones by name, the derived
 * ones as their #type lines define them. */
struct tg_types *tg_types_new(void);

/* Free @ts and every type it made (NULL: nothing). */
void tg_types_free(struct tg_types *ts);

/*
 * Take one "#type\trank=R\tid=ID\tcombiner=...\tints=[..]\taints=[..]\ttypes=[..]"
 * line (id reused: the new definition replaces the old; what was got of
 * the old one stays valid until tg_types_free).  Returns 0, or -1 if the
 * line is malformed.  A type that cannot be placed (built from an unknown
 * type, arrays that do not fit its combiner, offsets past 64 bits, more
 * blocks than the bounds allow) is defined as unplaceable: tg_types_get
 * gives NULL for it and tg_types_why its reason.
 */
int tg_types_define(struct tg_types *ts, const char *line);

/* The type named @name (MPI_INT, t3, ...), or NULL if it is unknown or
 * cannot be placed. */
struct tg_flat *tg_types_get(struct tg_types *ts, const char *name);

/* Why tg_types_get gives NULL for @name ("unknown type", "malformed
 * darray", "too many blocks", ...), or NULL if it does not. */
const char *tg_types_why(struct tg_types *ts, const char *name);

/* Bytes of data in one instance. */
uint64_t tg_flat_size(const struct tg_flat *f);

/*
 * Map the data bytes [@from, @from + @n) of a file view (displacement @disp,
 * filetype @ft tiled by its extent) to file extents, at most @max of them
 * into @ex.  Returns how many were written; call again from where they end
 * for the rest.  0 if @ft holds no data, or if the next byte cannot be
 * placed: a negative file offset (a negative displacement or lb in the
 * filetype) or one past 2^63 - 1; the bytes from there are unplaced.
 */
size_t tg_flat_map(const struct tg_flat *ft, uint64_t disp, uint64_t from, uint64_t n,
		   struct tg_extent *ex, size_t max);

#endif
