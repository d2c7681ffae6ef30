/*
 * dlh5 - a program whose HDF5 library is not in the global scope, as
 * under Python's h5py: the main program links no HDF5; it loads a part
 * (this file built with -DPART into a shared object that links libhdf5)
 * with dlopen(RTLD_LOCAL) and runs it.  The part writes 8 ints into a
 * dataset of FILE, closes, reopens, reads them and prints them.
 *   cc -DPART -shared -fPIC -o libdlh5.so dlh5.c -lhdf5
 *   cc -o dlh5 dlh5.c -ldl
 *   ./dlh5 ./libdlh5.so FILE
 */
#include <stdio.h>

#ifdef PART
#include <hdf5.h>

int part_main(const char *path)
{
	hsize_t n = 8;
	hid_t f, s, d;
	int out[8], in[8] = { 0 }, i;

	for (i = 0; i < 8; i++)
		out[i] = 10 * i;
	if ((f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)) < 0 ||
	    (s = H5Screate_simple(1, &n, NULL)) < 0 ||
	    (d = H5Dcreate2(f, "d", H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0 ||
	    H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0 ||
	    H5Dclose(d) < 0 || H5Sclose(s) < 0 || H5Fclose(f) < 0)
		return 1;
	if ((f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0 ||
	    (d = H5Dopen2(f, "d", H5P_DEFAULT)) < 0 ||
	    H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, in) < 0 ||
	    H5Dclose(d) < 0 || H5Fclose(f) < 0)
		return 1;
	for (i = 0; i < 8; i++)
		printf("%d%c", in[i], i < 7 ? ' ' : '\n');
	return 0;
}
#else
#include <dlfcn.h>

int main(int argc, char **argv)
{
	void *part;
	int (*run)(const char *);

	if (argc != 3) {
		fprintf(stderr, "usage: dlh5 PART FILE\n");
		return 2;
	}
	if (!(part = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL)) ||
	    !(run = (int (*)(const char *))dlsym(part, "part_main"))) {
		fprintf(stderr, "dlh5: %s\n", dlerror());
		return 2;
	}
	return run(argv[2]);
}
#endif
