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

/* A struct flock's l_type: "F_RDLCK", "F_WRLCK", "F_UNLCK"; NULL if unknown. */
const char *tg_locktype_name(int64_t t);

/* "ENOENT"...; NULL if unknown. */
const char *tg_errno_name(int e);

/* Predefined MPI handles (generated from MPICH's mpi.h). */
struct tg_mpiname {
	uint8_t kind;		/* enum tg_mpih */
	uint32_t val;
	const char *name;
};
extern const struct tg_mpiname tg_mpi_names[];
extern const char *const tg_mpi_combiners[];
extern const unsigned tg_mpi_ncombiners;

/* "MPI_INT", "MPI_COMM_WORLD"... for predefined handle @val of @kind; NULL
 * if unknown. */
const char *tg_mpi_handle_name(int kind, uint32_t val);

/* "MPI_COMBINER_VECTOR"...; NULL if unknown. */
const char *tg_mpi_combiner_name(int64_t c);

/* Letter that prefixes the symbolic ids of handle kind @kind ("c3"). */
char tg_mpi_handle_letter(int kind);

#endif
