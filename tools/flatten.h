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

/* Take one "#type\trank=R\tid=ID\tcombiner=...\tints=[..]\taints=[..]\ttypes=[..]"
 * line (id reused: the new definition replaces the old).  Returns 0, or -1
 * if the line is malformed.  A type built from an unknown type or an
 * unsupported combiner (darray, F90 types) is left undefined. */
int tg_types_define(struct tg_types *ts, const char *line);

/* The type named @name (MPI_INT, t3, ...), or NULL if unknown. */
struct tg_flat *tg_types_get(struct tg_types *ts, const char *name);

/* Bytes of data in one instance. */
uint64_t tg_flat_size(const struct tg_flat *f);

/*
 * Map the data bytes [@from, @from + @n) of a file view (displacement @disp,
 * filetype @ft tiled by its extent) to file extents, at most @max of them
 * into @ex.  Returns how many were written; call again from where they end
 * for the rest.  0 if @ft holds no data.
 */
size_t tg_flat_map(const struct tg_flat *ft, uint64_t disp, uint64_t from, uint64_t n,
		   struct tg_extent *ex, size_t max);

#endif
