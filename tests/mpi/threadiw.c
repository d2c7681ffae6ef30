/*
 * threadiw.c - MPI_THREAD_MULTIPLE: four threads of each rank post an
 * MPI_File_iwrite_at of a block of their own and hand the request to the
 * main thread, which completes them all with one MPI_Waitall (ROMIO
 * writes with aio_write in the posting thread, and its MPI_Waitall calls
 * aio_error and aio_return in the main thread); then MPI_File_close,
 * MPI_Barrier, MPI_File_open, and each rank reads its neighbour's blocks.
 *
 *   threadiw ok FILE     as above: session at both layers
 *   threadiw late FILE   the barrier before the MPI_Waitall: at the MPI-IO
 *                        layer the writes last until the wait, after the
 *                        barrier (a race); at the POSIX layer ROMIO's
 *                        messages in MPI_File_close and _open order them
 *
 * Each rank prints "rank R read N".
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define NT 4
#define BS 4096

static int rank;
static MPI_File fh;
static MPI_Request rq[NT];
static char bufs[NT][BS];

static void *post(void *arg)
{
	int t = (int)(long)arg;

	memset(bufs[t], 'A' + rank * NT + t, BS);
	MPI_File_iwrite_at(fh, (MPI_Offset)(rank * NT + t) * BS, bufs[t], BS, MPI_CHAR, &rq[t]);
	return NULL;
}

int main(int argc, char **argv)
{
	static char b[NT * BS];
	int provided, size, late, n, t;
	pthread_t th[NT];
	MPI_Status st, sts[NT];

	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 3 || provided < MPI_THREAD_MULTIPLE)
		MPI_Abort(MPI_COMM_WORLD, 2);
	late = strcmp(argv[1], "late") == 0;
	MPI_File_open(MPI_COMM_WORLD, argv[2], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
	for (t = 0; t < NT; t++)
		pthread_create(&th[t], NULL, post, (void *)(long)t);
	for (t = 0; t < NT; t++)
		pthread_join(th[t], NULL);
	if (late)
		MPI_Barrier(MPI_COMM_WORLD);
	MPI_Waitall(NT, rq, sts);
	MPI_File_close(&fh);
	if (!late)
		MPI_Barrier(MPI_COMM_WORLD);
	MPI_File_open(MPI_COMM_WORLD, argv[2], MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
	MPI_File_read_at(fh, (MPI_Offset)((rank + 1) % size) * NT * BS, b, NT * BS, MPI_CHAR, &st);
	MPI_Get_count(&st, MPI_CHAR, &n);
	MPI_File_close(&fh);
	printf("rank %d read %d\n", rank, n);
	MPI_Finalize();
	return 0;
}
