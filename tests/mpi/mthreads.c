/*
 * mthreads - MPI_THREAD_MULTIPLE: NT threads (first argument, default 4)
 * per rank; thread i exchanges N (second argument, default 10) messages of
 * tag i with the same thread of the partner rank (rank ^ 1) by
 * MPI_Sendrecv, all threads at once.  Run on an even number of ranks.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, n = 10;

static void *worker(void *arg)
{
	int tag = (int)(long)arg, i, out, in;

	for (i = 0; i < n; i++) {
		out = rank * 1000 + tag * 100 + i;
		MPI_Sendrecv(&out, 1, MPI_INT, rank ^ 1, tag, &in, 1, MPI_INT, rank ^ 1,
			     tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		if (in != (rank ^ 1) * 1000 + tag * 100 + i)
			return (void *)1;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[64];
	int provided, nt = argc > 1 ? atoi(argv[1]) : 4, i, bad = 0;
	void *res;

	if (argc > 2)
		n = atoi(argv[2]);
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	if (provided < MPI_THREAD_MULTIPLE || nt < 1 || nt > 64)
		MPI_Abort(MPI_COMM_WORLD, 2);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (i = 0; i < nt; i++)
		pthread_create(&th[i], NULL, worker, (void *)(long)i);
	for (i = 0; i < nt; i++) {
		pthread_join(th[i], &res);
		bad |= res != NULL;
	}
	printf("%d: %s\n", rank, bad ? "wrong data" : "ok");
	MPI_Finalize();
	return bad;
}
