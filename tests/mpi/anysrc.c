/*
 * anysrc - rank 0 receives from MPI_ANY_SOURCE with MPI_ANY_TAG, first
 * with MPI_Recv, then with MPI_Irecv + MPI_Wait.  Rank r sends its rank
 * with tag 10 + r (blocking round) and 20 + r (nonblocking round), each
 * time only after rank 0 told it to go, so that one message at a time can
 * match and the trace is the same on every run.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size, i, v, go = 1;
	MPI_Request rq;
	MPI_Status st;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (rank == 0) {
		for (i = 1; i < size; i++) {
			MPI_Send(&go, 1, MPI_INT, i, 0, MPI_COMM_WORLD);
			MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
			printf("recv from %d tag %d: %d\n", st.MPI_SOURCE, st.MPI_TAG, v);
		}
		for (i = 1; i < size; i++) {
			MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq);
			MPI_Send(&go, 1, MPI_INT, i, 0, MPI_COMM_WORLD);
			MPI_Wait(&rq, &st);
			printf("irecv from %d tag %d: %d\n", st.MPI_SOURCE, st.MPI_TAG, v);
		}
	} else {
		MPI_Recv(&go, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &st);
		MPI_Send(&rank, 1, MPI_INT, 0, 10 + rank, MPI_COMM_WORLD);
		MPI_Recv(&go, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &st);
		MPI_Send(&rank, 1, MPI_INT, 0, 20 + rank, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
