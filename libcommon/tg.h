/*
 * tg.h - definitions shared by every Tangram program and library.
 *
 * Exit codes are named here once; every tool and man page uses them.
 */
#ifndef TG_H
#define TG_H

#include <stdint.h>
#include <stddef.h>

#define TG_EXIT_OK      0	/* success */
#define TG_EXIT_FINDING 1	/* a finding the user asked to fail on */
#define TG_EXIT_ERROR   2	/* bad usage, bad input, I/O error */

#define TG_VERSION "0.1.0"

/* Layers of the call table, fixed forever (they are written in traces). */
enum tg_layer {
	TG_LAYER_POSIX = 0,
	TG_LAYER_STDIO = 1,
	TG_LAYER_MPI = 2,
	TG_LAYER_MPIIO = 3,
	TG_LAYER_HDF5 = 4,
	TG_LAYER_COUNT
};

/* Name of layer @l ("posix", ...), or "?" when out of range. */
const char *tg_layer_name(int l);

/* Layer number of @name, or -1. */
int tg_layer_parse(const char *name);

#endif
