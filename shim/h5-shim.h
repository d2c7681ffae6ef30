/*
 * h5-shim.h - what the HDF5 wrappers (h5-wrappers.gen.c) use on top of
 * shim.h and mpi-shim.h: symbolic identifiers, dimensions, callbacks.
 *
 * The shim never links libhdf5: the wrappers find the library's functions
 * with dlsym when the program first calls them, and shim/h5.c finds the
 * few it calls itself (and the predefined identifiers) the same way, so a
 * program without HDF5 loads no HDF5 library.
 */
#ifndef TG_H5_SHIM_H
#define TG_H5_SHIM_H

#include "mpi-shim.h"

#include <hdf5.h>

/* Encoded symbolic id of identifier @id (a TG_K_HID value, see calltab.h):
 * a predefined identifier by its number, 0 and negative ones as such, the
 * program's by an id of a pool per identifier type, taken on first sight. */
uint64_t tg_h5_enc(hid_t id) TG_HIDDEN;

/*
 * The definition of HDF5 function @name that the caller at return address
 * @ra would have reached: in the dependencies of the object the call came
 * from, where a process has two HDF5 libraries, each loaded out of the
 * global scope (h5py's parallel one and the serial one NetCDF links), and
 * the shim's one wrapper takes both libraries' callers; @dflt (the first
 * library's, tg_real()) where the caller's object has none of its own.
 * Remembered by call site.  Sets the thread's caller, which the shim's own
 * calls into the library follow (shim/h5.c).
 */
void *tg_h5_real(const char *name, const void *ra, void *dflt) TG_HIDDEN;

/* @id was closed: its pool id is free again, unless the library still
 * knows it (its reference count was raised). */
void tg_h5_closed(hid_t id) TG_HIDDEN;

/* H5close: every identifier is gone, and the predefined ones change. */
void tg_h5_reset(void) TG_HIDDEN;

/* Rank of dataspace @space, of dataset @dset's dataspace; 0 when it is not
 * a valid one.  Ask the library without tracing it or touching its error
 * stack's output. */
int tg_h5_rank(hid_t space) TG_HIDDEN;
int tg_h5_dset_rank(hid_t dset) TG_HIDDEN;

/* A TG_K_HSIZEARR: NULL, or @n elements of @a. */
void tg_h5_put_dims(struct tg_call *c, const hsize_t *a, long n) TG_HIDDEN;

/* After the real call: errno is kept for the record when the call set it;
 * otherwise the program's errno from before (@e0) is restored.  Returns
 * whether the call set errno. */
static inline int tg_h5_errno(struct tg_call *c, int e0)
{
	if (c->err)
		return 1;
	c->err = e0;
	return 0;
}

/* A callback the program gave a traced call: the library calls a
 * trampoline (tg_h5cb_<its type>) with this as its user data, which runs
 * the program's function as a call made inside the traced one (@level is
 * its depth), so the HDF5 calls it makes are recorded. */
struct tg_h5cb {
	void (*fn)(void);
	void *data;
	unsigned level;
};

herr_t tg_h5cb_H5L_iterate_t(hid_t group, const char *name, const H5L_info_t *info,
			     void *data) TG_HIDDEN;
herr_t tg_h5cb_H5O_iterate_t(hid_t obj, const char *name, const H5O_info_t *info,
			     void *data) TG_HIDDEN;
herr_t tg_h5cb_H5A_operator2_t(hid_t loc, const char *name, const H5A_info_t *info,
			       void *data) TG_HIDDEN;
herr_t tg_h5cb_H5G_iterate_t(hid_t group, const char *name, void *data) TG_HIDDEN;
herr_t tg_h5cb_H5D_operator_t(void *elem, hid_t type, unsigned ndim, const hsize_t *point,
			      void *data) TG_HIDDEN;

#endif
