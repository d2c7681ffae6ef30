/*
 * twolibs - two HDF5 libraries in one process: loads the two shared
 * objects named on its command line (tests/hdf5/twolibs-part.c built
 * against each library) with RTLD_LOCAL, and has each write and read back
 * a file through its own library.  Prints "PART: ok" or "PART: failed".
 *
 * usage: twolibs PART1.so PART2.so
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int i, rc = 0;

	for (i = 1; i < argc; i++) {
		void *h = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
		int (*part)(const char *, int);
		char path[64];
		if (!h || !(part = (int (*)(const char *, int))dlsym(h, "part_write_read"))) {
			fprintf(stderr, "twolibs: %s\n", dlerror());
			return 2;
		}
		snprintf(path, sizeof(path), "part%d.h5", i);
		if (part(path, 100 * i) == 0) {
			printf("%d: ok\n", i);
		} else {
			printf("%d: failed\n", i);
			rc = 1;
		}
	}
	return rc;
}
