/*
 * h5sites - the time of an HDF5 call made from 128 call sites of a shared
 * library against the time of one made from one site (tests/bench/run).
 *
 *   h5sites many|one ITERS
 *
 * Prints "SITES NS" : nanoseconds per call, 128 * ITERS calls.
 */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

long h5sites_many(hid_t id, long iters);
long h5sites_one(hid_t id, long iters);

int main(int argc, char **argv)
{
	struct timespec a, b;
	long iters, s;
	hid_t p;

	if (argc != 3 || (iters = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: h5sites many|one ITERS\n");
		return 2;
	}
	p = H5Pcreate(H5P_DATASET_XFER);
	clock_gettime(CLOCK_MONOTONIC, &a);
	s = strcmp(argv[1], "many") == 0 ? h5sites_many(p, iters) : h5sites_one(p, iters);
	clock_gettime(CLOCK_MONOTONIC, &b);
	H5Pclose(p);
	(void)s;	/* (the calls' results, kept so that they are made) */
	printf("%s %.1f\n", argv[1],
	       ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) /
		       (double)(iters * 128));
	return 0;
}
