/*
 * persist - persistent requests: each MPI_Startall posts a new send and
 * receive from the same two requests; then MPI_Start one by one, the
 * receive before the send.
 *
 *   ranks 0, 1: Send_init Recv_init, twice { A<i> Startall Waitall B<i> },
 *               Request_free x2, Recv_init Send_init C Start Start Wait
 *               Wait D
 */
#include <mpi.h>
#include <stdio.h>

#include "mark.h"

int main(int argc, char **argv)
{
	int rank, peer, out = 0, in = 0, i;
	char name[8];
	MPI_Request rq[2];
	MPI_Status st[2];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	peer = 1 - rank;
	MPI_Send_init(&out, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &rq[0]);
	MPI_Recv_init(&in, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &rq[1]);
	for (i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "A%d", i);
		mark(name);
		MPI_Startall(2, rq);
		MPI_Waitall(2, rq, st);
		snprintf(name, sizeof(name), "B%d", i);
		mark(name);
	}
	MPI_Request_free(&rq[0]);
	MPI_Request_free(&rq[1]);
	MPI_Recv_init(&in, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, &rq[1]);
	MPI_Send_init(&out, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, &rq[0]);
	mark("C");
	MPI_Start(&rq[1]);
	MPI_Start(&rq[0]);
	MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
	MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
	mark("D");
	MPI_Request_free(&rq[0]);
	MPI_Request_free(&rq[1]);
	MPI_Finalize();
	return 0;
}
