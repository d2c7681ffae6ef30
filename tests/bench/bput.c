/*
 * bput - what PnetCDF's bput_varn tests do to MPI-IO, for timing the
 * analysis of a run with many small nonblocking requests on one variable:
 *
 *   bput FILE [requests] [rows]     (defaults 400 and 64)
 *
 * The variable is a 2D int array of 256 rows by 64 columns in FILE.  Every
 * rank sets one view over it: 16 stripes of 4 columns, each stripe a
 * column of the array read row by row, so that a request on a few rows of
 * a stripe is as many separate 16-byte pieces of the file.  Each rank then
 * posts @requests MPI_File_iwrite_at of @rows rows each, request j on
 * stripe j % 16 from row (j / 16) * 8 % 192, shifted by 4 rows on odd
 * ranks, and waits for them all at once: the ranks write many of the same
 * bytes, and so do a rank's own requests, with no synchronisation.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NY 256
#define NX 64
#define W 4
#define NSTRIPE (NX / W)

int main(int argc, char **argv)
{
	int nreq = argc > 2 ? atoi(argv[2]) : 400, rows = argc > 3 ? atoi(argv[3]) : 64;
	int rank, j, bad = 0, *buf;
	MPI_Datatype col, stripe;
	MPI_Request *req;
	MPI_Status *st;
	MPI_File fh;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc < 2 || nreq < 1 || rows < 1 || rows > NY - 64) {
		if (rank == 0)
			fprintf(stderr, "usage: bput FILE [requests] [rows <= %d]\n", NY - 64);
		MPI_Finalize();
		return 2;
	}
	buf = malloc((size_t)nreq * (size_t)rows * W * sizeof(int));
	req = malloc((size_t)nreq * sizeof(*req));
	st = malloc((size_t)nreq * sizeof(*st));
	if (!buf || !req || !st)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (j = 0; j < nreq * rows * W; j++)
		buf[j] = rank * 1000000 + j;
	/* one stripe: NY rows of W ints, NX ints apart; stripes side by side */
	MPI_Type_vector(NY, W, NX, MPI_INT, &col);
	MPI_Type_create_resized(col, 0, W * (MPI_Aint)sizeof(int), &stripe);
	MPI_Type_commit(&stripe);
	MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
		      &fh);
	MPI_File_set_view(fh, 0, MPI_INT, stripe, "native", MPI_INFO_NULL);
	for (j = 0; j < nreq; j++) {
		int s = j % NSTRIPE, r0 = (j / NSTRIPE) * 8 % (NY - 64) + (rank % 2) * 4;
		MPI_Offset at = (MPI_Offset)s * NY * W + (MPI_Offset)r0 * W;
		MPI_File_iwrite_at(fh, at, buf + (size_t)j * rows * W, rows * W, MPI_INT, &req[j]);
	}
	bad |= MPI_Waitall(nreq, req, st) != MPI_SUCCESS;
	MPI_File_close(&fh);
	MPI_Type_free(&stripe);
	MPI_Type_free(&col);
	free(buf);
	free(req);
	free(st);
	MPI_Finalize();
	return bad;
}
