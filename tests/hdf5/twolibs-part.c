/*
 * twolibs-part.c - one half of tests/hdf5/twolibs.c: a shared object that
 * writes and reads back a small dataset through the HDF5 library it is
 * linked with.  Built twice, against two HDF5 libraries (MPICH's and the
 * serial one), and each loaded RTLD_LOCAL: as h5py's parallel HDF5 and
 * the serial one NetCDF links live in one Python process.
 */
#include <hdf5.h>

int part_write_read(const char *path, int base)
{
	hsize_t dims[1] = { 8 };
	int out[8], in[8], i, ok;
	hid_t f, s, d;

	for (i = 0; i < 8; i++)
		out[i] = base + i;
	if ((f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)) < 0)
		return -1;
	s = H5Screate_simple(1, dims, NULL);
	d = H5Dcreate2(f, "x", H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	ok = d >= 0 && H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) >= 0;
	H5Dclose(d);
	H5Sclose(s);
	H5Fclose(f);
	if (!ok || (f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0)
		return -1;
	d = H5Dopen2(f, "x", H5P_DEFAULT);
	ok = d >= 0 && H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, in) >= 0;
	H5Dclose(d);
	H5Fclose(f);
	for (i = 0; ok && i < 8; i++)
		ok = in[i] == out[i];
	return ok ? 0 : -1;
}
