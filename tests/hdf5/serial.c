/*
 * serial.c - a small serial HDF5 program with known calls: a file, a
 * group, a 6 x 8 dataset written through two hyperslab selections, an
 * attribute of each kind, then the file read back, with an H5Dopen2 that
 * fails.  Prints the sum of what it read, and whether errno stayed what
 * the program set across HDF5 calls that do not set it.
 * Usage: serial FILE
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <hdf5.h>

#define CHECK(x)                                                  \
	do {                                                      \
		if ((x) < 0) {                                    \
			fprintf(stderr, "serial: %s failed\n", #x); \
			exit(1);                                  \
		}                                                 \
	} while (0)

int main(int argc, char **argv)
{
	hsize_t dims[2] = { 6, 8 }, mdims[2] = { 2, 4 }, got[2], gotmax[2];
	hsize_t start[2] = { 2, 4 }, count[2] = { 2, 4 };
	hsize_t start2[2] = { 0, 0 }, stride2[2] = { 4, 4 }, count2[2] = { 2, 2 },
		block2[2] = { 1, 2 };
	int buf[2][4], all[6][8], i, j;
	long sum = 0;
	double scale = 0.5;
	hid_t file, group, space, mspace, dset, sattr, attr, str, bad;
	int kept;

	if (argc != 2) {
		fputs("usage: serial FILE\n", stderr);
		return 2;
	}
	for (i = 0; i < 2; i++)
		for (j = 0; j < 4; j++)
			buf[i][j] = 10 * i + j + 1;

	CHECK(file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
	CHECK(group = H5Gcreate2(file, "grid", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
	CHECK(space = H5Screate_simple(2, dims, NULL));
	CHECK(dset = H5Dcreate2(group, "values", H5T_NATIVE_INT, space, H5P_DEFAULT,
				H5P_DEFAULT, H5P_DEFAULT));
	CHECK(mspace = H5Screate_simple(2, mdims, mdims));
	CHECK(H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL));
	CHECK(H5Dwrite(dset, H5T_NATIVE_INT, mspace, space, H5P_DEFAULT, buf));
	CHECK(H5Sselect_hyperslab(space, H5S_SELECT_SET, start2, stride2, count2, block2));
	CHECK(H5Dwrite(dset, H5T_NATIVE_INT, mspace, space, H5P_DEFAULT, buf));
	CHECK(H5Sget_simple_extent_dims(space, got, gotmax));
	CHECK(H5Sclose(mspace));

	CHECK(sattr = H5Screate(H5S_SCALAR));
	CHECK(attr = H5Acreate2(dset, "scale", H5T_NATIVE_DOUBLE, sattr, H5P_DEFAULT, H5P_DEFAULT));
	CHECK(H5Awrite(attr, H5T_NATIVE_DOUBLE, &scale));
	CHECK(H5Aclose(attr));
	CHECK(str = H5Tcopy(H5T_C_S1));
	errno = EDOM;
	CHECK(H5Tset_size(str, 7));
	kept = errno == EDOM;
	CHECK(attr = H5Acreate2(group, "units", str, sattr, H5P_DEFAULT, H5P_DEFAULT));
	CHECK(H5Awrite(attr, str, "kelvin"));
	CHECK(H5Aclose(attr));
	CHECK(H5Tclose(str));
	CHECK(H5Sclose(sattr));
	CHECK(H5Sclose(space));
	CHECK(H5Dclose(dset));
	CHECK(H5Gclose(group));
	CHECK(H5Fclose(file));

	CHECK(file = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT));
	CHECK(H5Lexists(file, "grid", H5P_DEFAULT));
	CHECK(dset = H5Dopen2(file, "/grid/values", H5P_DEFAULT));
	errno = ERANGE;
	H5E_BEGIN_TRY {
		bad = H5Dopen2(file, "missing", H5P_DEFAULT);
	} H5E_END_TRY;
	kept = kept && bad < 0 && errno == ERANGE;
	CHECK(space = H5Dget_space(dset));
	CHECK(H5Dread(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, all));
	CHECK(H5Sclose(space));
	CHECK(H5Dclose(dset));
	CHECK(H5Fclose(file));
	for (i = 0; i < 6; i++)
		for (j = 0; j < 8; j++)
			sum += all[i][j];
	printf("%llu x %llu, sum %ld, errno %s\n", (unsigned long long)got[0],
	       (unsigned long long)got[1], sum, kept ? "kept" : "changed");
	return 0;
}
