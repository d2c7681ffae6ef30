/*
 * waits - three rounds of the same requests between ranks 0 and 1:
 * MPI_Waitall over two receives and a send, MPI_Waitany over two
 * receives of which rank 1 sends the second first, MPI_Testsome over
 * three receives of which two have arrived, then MPI_Wait on the third.
 * Rank 1 sends only when rank 0 says go (tag 6), and rank 0 tests only
 * after a later message from rank 1 (tag 10) arrived, so which request
 * completes when is the same on every run.  Statuses start as
 * {-9,-9}: MPICH leaves the source and tag of a send's status alone.
 */
#include <mpi.h>
#include <stdio.h>

#define ROUNDS 3

static void unset(MPI_Status *st, int n)
{
	int i;

	for (i = 0; i < n; i++)
		st[i].MPI_SOURCE = st[i].MPI_TAG = -9;
}

static void receiver(void)
{
	int a = 0, b = 0, c = 0, x = 0, go = 1, done, idx, n, ix[3];
	MPI_Request rq[3];
	MPI_Status st[3];

	MPI_Irecv(&a, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &rq[0]);
	MPI_Irecv(&b, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &rq[1]);
	MPI_Isend(&x, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, &rq[2]);
	unset(st, 3);
	MPI_Waitall(3, rq, st);

	MPI_Irecv(&a, 1, MPI_INT, 1, 4, MPI_COMM_WORLD, &rq[0]);
	MPI_Irecv(&b, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &rq[1]);
	MPI_Send(&go, 1, MPI_INT, 1, 6, MPI_COMM_WORLD);
	unset(st, 1);
	MPI_Waitany(2, rq, &idx, &st[0]);
	MPI_Send(&go, 1, MPI_INT, 1, 6, MPI_COMM_WORLD);
	MPI_Waitany(2, rq, &idx, &st[0]);

	MPI_Irecv(&a, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &rq[0]);
	MPI_Irecv(&b, 1, MPI_INT, 1, 8, MPI_COMM_WORLD, &rq[1]);
	MPI_Irecv(&c, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, &rq[2]);
	MPI_Send(&go, 1, MPI_INT, 1, 6, MPI_COMM_WORLD);
	MPI_Recv(&done, 1, MPI_INT, 1, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Testsome(3, rq, &n, ix, st);
	MPI_Send(&go, 1, MPI_INT, 1, 6, MPI_COMM_WORLD);
	MPI_Wait(&rq[1], &st[0]);
}

static void sender(void)
{
	int v = 1, go;
	MPI_Request rq[3];
	MPI_Status st[3];

	MPI_Isend(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &rq[0]);
	MPI_Isend(&v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &rq[1]);
	MPI_Irecv(&go, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, &rq[2]);
	unset(st, 3);
	MPI_Waitall(3, rq, st);

	MPI_Recv(&go, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Send(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
	MPI_Recv(&go, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Send(&v, 1, MPI_INT, 0, 4, MPI_COMM_WORLD);

	MPI_Recv(&go, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Send(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
	MPI_Send(&v, 1, MPI_INT, 0, 9, MPI_COMM_WORLD);
	MPI_Send(&v, 1, MPI_INT, 0, 10, MPI_COMM_WORLD);
	MPI_Recv(&go, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Send(&v, 1, MPI_INT, 0, 8, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
	int rank, i;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (i = 0; i < ROUNDS; i++)
		if (rank == 0)
			receiver();
		else if (rank == 1)
			sender();
	MPI_Finalize();
	return 0;
}
