/*
 * persist - ranks 0 and 1 exchange one int twice through the same pair
 * of persistent requests (MPI_Send_init, MPI_Recv_init, then MPI_Startall
 * and MPI_Waitall twice), free them, then exchange once more with
 * MPI_Isend/MPI_Irecv, which get the freed ids back.
 */
#include <mpi.h>
#include <stdio.h>

static void unset(MPI_Status *st, int n)
{
	int i;

	for (i = 0; i < n; i++)
		st[i].MPI_SOURCE = st[i].MPI_TAG = -9;
}

int main(int argc, char **argv)
{
	int rank, peer, out, in = -1, i;
	MPI_Request rq[2];
	MPI_Status st[2];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	peer = 1 - rank;
	MPI_Send_init(&out, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &rq[0]);
	MPI_Recv_init(&in, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &rq[1]);
	for (i = 0; i < 2; i++) {
		out = 10 * rank + i;
		MPI_Startall(2, rq);
		unset(st, 2);
		MPI_Waitall(2, rq, st);
		printf("%d: round %d got %d\n", rank, i, in);
	}
	MPI_Request_free(&rq[0]);
	MPI_Request_free(&rq[1]);
	MPI_Irecv(&in, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, &rq[0]);
	MPI_Isend(&out, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, &rq[1]);
	unset(st, 2);
	MPI_Waitall(2, rq, st);
	MPI_Finalize();
	return 0;
}
