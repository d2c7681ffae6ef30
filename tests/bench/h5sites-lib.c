/*
 * h5sites-lib - HDF5 calls from many call sites of a shared library, as
 * libnetcdf makes them: the tracer finds which library a call's caller
 * reached once per call site (shim/h5.c, tg_h5_real).  Built as a shared
 * library for tests/bench/h5sites.c.
 */
#include <hdf5.h>

#define C1 s += H5Iget_type(id);
#define C8 C1 C1 C1 C1 C1 C1 C1 C1
#define C64 C8 C8 C8 C8 C8 C8 C8 C8

/* 128 call sites, each called @iters times */
long h5sites_many(hid_t id, long iters)
{
	long s = 0, i;

	for (i = 0; i < iters; i++) {
		C64 C64
	}
	return s;
}

/* one call site, called 128 * @iters times */
long h5sites_one(hid_t id, long iters)
{
	long s = 0, i;

	for (i = 0; i < iters * 128; i++) {
		C1
	}
	return s;
}
