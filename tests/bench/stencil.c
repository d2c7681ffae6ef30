/*
 * stencil - a 2-D 5-point stencil's communication: the ranks form a
 * Cartesian grid without wrap-around, and each iteration every rank posts
 * an MPI_Irecv and an MPI_Isend to each of its four neighbours (or
 * MPI_PROC_NULL at the edges) and completes them with MPI_Waitall.
 * With a second argument K, every K-th iteration also checkpoints: the
 * ranks open stencil.ck.0 or .1 in turn (MPI_File_open), each writes its
 * block (MPI_File_write_at_all) and they close it, as a simulation does.
 *
 *   stencil [iterations [K]]      (default 10, no checkpoints)
 */
#include <mpi.h>
#include <stdlib.h>

#define N 256	/* halo width, in doubles */

int main(int argc, char **argv)
{
	static double out[4][N], in[4][N], state[4 * N];
	int dims[2] = { 0, 0 }, periods[2] = { 0, 0 }, nb[4], size, rank, it, d, iters, every;
	MPI_Request req[8];
	MPI_Comm grid;
	MPI_File fh;

	MPI_Init(&argc, &argv);
	iters = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 10;
	every = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 0;
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Dims_create(size, 2, dims);
	MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
	MPI_Comm_rank(grid, &rank);
	MPI_Cart_shift(grid, 0, 1, &nb[0], &nb[1]);
	MPI_Cart_shift(grid, 1, 1, &nb[2], &nb[3]);
	for (it = 0; it < iters; it++) {
		for (d = 0; d < 4; d++)
			MPI_Irecv(in[d], N, MPI_DOUBLE, nb[d], 0, grid, &req[d]);
		for (d = 0; d < 4; d++) {
			out[d][0] = rank + it;
			MPI_Isend(out[d], N, MPI_DOUBLE, nb[d], 0, grid,
				  &req[4 + d]);
		}
		MPI_Waitall(8, req, MPI_STATUSES_IGNORE);
		if (every > 0 && it % every == every - 1) {
			state[0] = it;
			MPI_File_open(grid, (it / every) % 2 ? "stencil.ck.1" : "stencil.ck.0",
				      MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
			MPI_File_write_at_all(fh, (MPI_Offset)rank * (MPI_Offset)sizeof(state),
					      state, 4 * N, MPI_DOUBLE, MPI_STATUS_IGNORE);
			MPI_File_close(&fh);
		}
	}
	MPI_Comm_free(&grid);
	MPI_Finalize();
	return 0;
}
