/*
 * flash - the checkpoint pattern of FLASH: a parallel HDF5 file (MPI-IO
 * driver) written dataset by dataset, each a collective write of every
 * rank's slab, with H5Fflush after each dataset and H5Fclose at the end.
 * The library's metadata is written at every flush, by whichever rank the
 * metadata cache gives it to.  Arguments: the file, the number of
 * datasets (default 3).
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1024

int main(int argc, char **argv)
{
	int rank, size, i, nds = argc > 2 ? atoi(argv[2]) : 3;
	double buf[N];
	hid_t fapl, file, dxpl;
	hsize_t dims[1], start[1], count[1];
	char name[32];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (i = 0; i < N; i++)
		buf[i] = rank * N + i;
	fapl = H5Pcreate(H5P_FILE_ACCESS);
	H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
	file = H5Fcreate(argc > 1 ? argv[1] : "flash.h5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	dxpl = H5Pcreate(H5P_DATASET_XFER);
	H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
	dims[0] = (hsize_t)N * (hsize_t)size;
	start[0] = (hsize_t)N * (hsize_t)rank;
	count[0] = N;
	for (i = 0; i < nds; i++) {
		hid_t fs = H5Screate_simple(1, dims, NULL), ms = H5Screate_simple(1, count, NULL);
		hid_t ds;
		snprintf(name, sizeof(name), "var%d", i);
		ds = H5Dcreate2(file, name, H5T_NATIVE_DOUBLE, fs, H5P_DEFAULT, H5P_DEFAULT,
				H5P_DEFAULT);
		H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
		H5Dwrite(ds, H5T_NATIVE_DOUBLE, ms, fs, dxpl, buf);
		H5Dclose(ds);
		H5Sclose(ms);
		H5Sclose(fs);
		H5Fflush(file, H5F_SCOPE_GLOBAL);
	}
	H5Pclose(dxpl);
	H5Pclose(fapl);
	H5Fclose(file);
	MPI_Finalize();
	return 0;
}
