/*
 * iwview - a nonblocking write through a file view of many pieces: each
 * rank writes 2,048 ints, one of every two of its own file (FILE.RANK,
 * opened on MPI_COMM_SELF), with MPI_File_iwrite and waits, then reads
 * the file back with MPI_File_read_at (ordered by its own wait).  Open MPI's OMPIO submits one
 * POSIX AIO request a piece, from an array of aiocbs it grows and moves
 * while it submits: aio_return finds a request at another address.
 */
#include <mpi.h>
#include <stdio.h>

#define N 2048

int main(int argc, char **argv)
{
	int rank, size, buf[N], back[N], i, bad = 0;
	char name[4096];
	MPI_Datatype vec;
	MPI_Request req;
	MPI_File fh;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (i = 0; i < N; i++)
		buf[i] = rank * N + i;
	snprintf(name, sizeof(name), "%s.%d", argc > 1 ? argv[1] : "iwview.dat", rank);
	MPI_Type_vector(N, 1, 2, MPI_INT, &vec);
	MPI_Type_commit(&vec);
	MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
	MPI_File_set_view(fh, 0, MPI_INT, vec, "native", MPI_INFO_NULL);
	MPI_File_iwrite(fh, buf, N, MPI_INT, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_File_read_at(fh, 0, back, N, MPI_INT, MPI_STATUS_IGNORE);
	for (i = 0; i < N; i++)
		bad |= back[i] != buf[i];
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_File_close(&fh);
	printf("rank %d: %s\n", rank, bad ? "bad" : "ok");
	MPI_Type_free(&vec);
	MPI_Finalize();
	return bad;
}
