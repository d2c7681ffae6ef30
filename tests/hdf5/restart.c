/*
 * restart.c - a checkpoint and its restart as a parallel HDF5 code writes
 * them: every rank writes its block of rows of a chunked 2-D dataset
 * ("field", one chunk per rank) with a collective H5Dwrite, the ranks
 * append one value each to an extendible 1-D dataset ("steps") in two
 * rounds of H5Dset_extent, and a file attribute records the step; the
 * file is closed.  After a barrier the file is opened again and every rank
 * reads the rows of the next rank and the whole of "steps" with
 * independent reads, and checks every value.  Rank 0 prints one line.
 * Usage: restart FILE [ROWS]   (ROWS rows of 64 ints per rank, default 4)
 */
#include <stdio.h>
#include <stdlib.h>

#include <hdf5.h>
#include <mpi.h>

#define COLS 64

#define CHECK(x)                                                        \
	do {                                                            \
		if ((x) < 0) {                                          \
			fprintf(stderr, "restart: %s failed\n", #x);    \
			MPI_Abort(MPI_COMM_WORLD, 1);                   \
		}                                                       \
	} while (0)

static int value(int rank, int i)
{
	return rank * 100000 + i;
}

static hid_t open_file(const char *path, int create)
{
	hid_t fapl, file;

	CHECK(fapl = H5Pcreate(H5P_FILE_ACCESS));
	CHECK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
	CHECK(H5Pset_all_coll_metadata_ops(fapl, 1));
	CHECK(H5Pset_coll_metadata_write(fapl, 1));
	if (create)
		file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	else
		file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
	CHECK(file);
	CHECK(H5Pclose(fapl));
	return file;
}

/* Append one int per rank to the 1-D dataset @d, now @n long. */
static void append(hid_t d, hsize_t n, int rank, int size, int v, hid_t dxpl)
{
	hsize_t len = n + (hsize_t)size, start = n + (hsize_t)rank, one = 1;
	hid_t fs, ms;

	CHECK(H5Dset_extent(d, &len));
	CHECK(fs = H5Dget_space(d));
	CHECK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &one, NULL));
	CHECK(ms = H5Screate_simple(1, &one, NULL));
	CHECK(H5Dwrite(d, H5T_NATIVE_INT, ms, fs, dxpl, &v));
	CHECK(H5Sclose(ms));
	CHECK(H5Sclose(fs));
}

int main(int argc, char **argv)
{
	hsize_t dims[2], start[2], count[2], chunk[2], zero = 0, unlim = H5S_UNLIMITED, four = 4;
	hid_t file, space, mspace, dset, steps, dcpl, dxpl, aspace, attr;
	int rank, size, next, rows = 4, i, bad = 0, step = 7, got_step = 0, *buf, *in, *st;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 2 || argc > 3 || (argc == 3 && (rows = atoi(argv[2])) < 1)) {
		if (rank == 0)
			fputs("usage: restart FILE [ROWS]\n", stderr);
		MPI_Finalize();
		return 2;
	}
	next = (rank + 1) % size;
	buf = malloc(sizeof(int) * (size_t)rows * COLS);
	in = malloc(sizeof(int) * (size_t)rows * COLS);
	st = malloc(sizeof(int) * 2 * (size_t)size);
	if (!buf || !in || !st)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (i = 0; i < rows * COLS; i++)
		buf[i] = value(rank, i);

	/* the checkpoint */
	file = open_file(argv[1], 1);
	dims[0] = (hsize_t)size * (hsize_t)rows;
	dims[1] = COLS;
	chunk[0] = (hsize_t)rows;
	chunk[1] = COLS;
	CHECK(space = H5Screate_simple(2, dims, NULL));
	CHECK(dcpl = H5Pcreate(H5P_DATASET_CREATE));
	CHECK(H5Pset_chunk(dcpl, 2, chunk));
	CHECK(dset = H5Dcreate2(file, "field", H5T_NATIVE_INT, space, H5P_DEFAULT, dcpl,
				H5P_DEFAULT));
	CHECK(H5Pclose(dcpl));
	start[0] = (hsize_t)rank * (hsize_t)rows;
	start[1] = 0;
	count[0] = (hsize_t)rows;
	count[1] = COLS;
	CHECK(H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL));
	CHECK(mspace = H5Screate_simple(2, count, NULL));
	CHECK(dxpl = H5Pcreate(H5P_DATASET_XFER));
	CHECK(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE));
	CHECK(H5Dwrite(dset, H5T_NATIVE_INT, mspace, space, dxpl, buf));
	CHECK(H5Sclose(mspace));
	CHECK(H5Sclose(space));
	CHECK(H5Dclose(dset));

	CHECK(space = H5Screate_simple(1, &zero, &unlim));
	CHECK(dcpl = H5Pcreate(H5P_DATASET_CREATE));
	CHECK(H5Pset_chunk(dcpl, 1, &four));
	CHECK(steps = H5Dcreate2(file, "steps", H5T_NATIVE_INT, space, H5P_DEFAULT, dcpl,
				 H5P_DEFAULT));
	CHECK(H5Pclose(dcpl));
	CHECK(H5Sclose(space));
	append(steps, 0, rank, size, rank, dxpl);
	append(steps, (hsize_t)size, rank, size, 1000 + rank, dxpl);
	CHECK(H5Dclose(steps));

	CHECK(aspace = H5Screate(H5S_SCALAR));
	CHECK(attr = H5Acreate2(file, "step", H5T_NATIVE_INT, aspace, H5P_DEFAULT, H5P_DEFAULT));
	CHECK(H5Awrite(attr, H5T_NATIVE_INT, &step));
	CHECK(H5Aclose(attr));
	CHECK(H5Sclose(aspace));
	CHECK(H5Pclose(dxpl));
	CHECK(H5Fclose(file));

	MPI_Barrier(MPI_COMM_WORLD);

	/* the restart: the next rank's rows, and every step */
	file = open_file(argv[1], 0);
	CHECK(attr = H5Aopen(file, "step", H5P_DEFAULT));
	CHECK(H5Aread(attr, H5T_NATIVE_INT, &got_step));
	CHECK(H5Aclose(attr));
	CHECK(dset = H5Dopen2(file, "field", H5P_DEFAULT));
	CHECK(space = H5Dget_space(dset));
	start[0] = (hsize_t)next * (hsize_t)rows;
	CHECK(H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL));
	CHECK(mspace = H5Screate_simple(2, count, NULL));
	CHECK(H5Dread(dset, H5T_NATIVE_INT, mspace, space, H5P_DEFAULT, in));
	CHECK(H5Sclose(mspace));
	CHECK(H5Sclose(space));
	CHECK(H5Dclose(dset));
	CHECK(steps = H5Dopen2(file, "steps", H5P_DEFAULT));
	CHECK(H5Dread(steps, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, st));
	CHECK(H5Dclose(steps));
	CHECK(H5Fclose(file));

	bad += got_step != step;
	for (i = 0; i < rows * COLS; i++)
		bad += in[i] != value(next, i);
	for (i = 0; i < size; i++)
		bad += st[i] != i || st[size + i] != 1000 + i;
	MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("restart: %d ranks x %d rows: %s\n", size, rows,
		       bad ? "WRONG VALUES" : "every value read back");
	free(buf);
	free(in);
	free(st);
	MPI_Finalize();
	return bad ? 1 : 0;
}
