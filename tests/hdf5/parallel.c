/*
 * parallel.c - parallel HDF5: every rank writes its block of rows of one
 * (2 x ranks) x 8 dataset with a collective H5Dwrite, through the MPI-IO
 * driver (H5Pset_fapl_mpio, H5Pset_dxpl_mpio with H5FD_MPIO_COLLECTIVE);
 * then rank 0 reads the dataset back and prints its sum.
 * Usage: parallel FILE [WRITES]   (WRITES collective writes, default 1)
 */
#include <stdio.h>
#include <stdlib.h>

#include <hdf5.h>
#include <mpi.h>

#define ROWS 2
#define COLS 8

#define CHECK(x)                                                        \
	do {                                                            \
		if ((x) < 0) {                                          \
			fprintf(stderr, "parallel: %s failed\n", #x);   \
			MPI_Abort(MPI_COMM_WORLD, 1);                   \
		}                                                       \
	} while (0)

int main(int argc, char **argv)
{
	hsize_t dims[2], start[2], count[2] = { ROWS, COLS };
	hid_t fapl, file, space, mspace, dset, dxpl;
	int rank, size, i, n = 1, buf[ROWS][COLS], *all;
	long sum = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 2 || argc > 3 || (argc == 3 && (n = atoi(argv[2])) < 1)) {
		if (rank == 0)
			fputs("usage: parallel FILE [WRITES]\n", stderr);
		MPI_Finalize();
		return 2;
	}
	for (i = 0; i < ROWS * COLS; i++)
		buf[i / COLS][i % COLS] = rank * 100 + i;
	dims[0] = (hsize_t)size * ROWS;
	dims[1] = COLS;
	start[0] = (hsize_t)rank * ROWS;
	start[1] = 0;

	CHECK(fapl = H5Pcreate(H5P_FILE_ACCESS));
	CHECK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
	CHECK(file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
	CHECK(H5Pclose(fapl));
	CHECK(space = H5Screate_simple(2, dims, NULL));
	CHECK(dset = H5Dcreate2(file, "field", H5T_NATIVE_INT, space, H5P_DEFAULT,
				H5P_DEFAULT, H5P_DEFAULT));
	CHECK(mspace = H5Screate_simple(2, count, NULL));
	CHECK(H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL));
	CHECK(dxpl = H5Pcreate(H5P_DATASET_XFER));
	CHECK(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE));
	for (i = 0; i < n; i++)
		CHECK(H5Dwrite(dset, H5T_NATIVE_INT, mspace, space, dxpl, buf));
	CHECK(H5Pclose(dxpl));
	CHECK(H5Sclose(mspace));
	CHECK(H5Sclose(space));
	CHECK(H5Dclose(dset));
	CHECK(H5Fclose(file));

	if (rank == 0) {
		all = malloc(sizeof(int) * (size_t)size * ROWS * COLS);
		CHECK(file = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT));
		CHECK(dset = H5Dopen2(file, "field", H5P_DEFAULT));
		CHECK(H5Dread(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, all));
		CHECK(H5Dclose(dset));
		CHECK(H5Fclose(file));
		for (i = 0; i < size * ROWS * COLS; i++)
			sum += all[i];
		printf("%d ranks, sum %ld\n", size, sum);
		free(all);
	}
	MPI_Finalize();
	return 0;
}
