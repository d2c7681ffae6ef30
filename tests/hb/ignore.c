/*
 * ignore - wildcard receives completed with MPI_STATUS_IGNORE or
 * MPI_STATUSES_IGNORE, one round per completion call: MPI_Recv, Wait,
 * Test, Waitany, Testany, Waitall, Testall, Waitsome, Testsome,
 * Request_get_status, Sendrecv, and a Waitall of two.  In each round rank
 * 0 posts the receive from MPI_ANY_SOURCE with MPI_ANY_TAG, then tells one
 * rank to send, so one message at a time can match; the program never
 * sees a source or a tag, the trace must.
 */
#include <mpi.h>
#include <stdio.h>

#define ROUNDS 12

static int size, go = 1;

/* Tell the next sender to go (round-robin over ranks 1..size-1). */
static void tell(int round)
{
	MPI_Send(&go, 1, MPI_INT, 1 + round % (size - 1), 0, MPI_COMM_WORLD);
}

static void receiver(void)
{
	MPI_Request rq[2];
	int v[2], flag, idx, out, ids[2], r;

	for (r = 0; r < ROUNDS; r++) {
		if (r == 0) {
			tell(r);
			MPI_Recv(v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			continue;
		}
		if (r == 10) {
			MPI_Sendrecv(&go, 1, MPI_INT, 1 + r % (size - 1), 0, v, 1, MPI_INT,
				     MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			continue;
		}
		MPI_Irecv(v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[0]);
		if (r == 11)
			MPI_Irecv(v + 1, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
				  &rq[1]);
		tell(r);
		if (r == 11)
			tell(r + 1);
		flag = 0;
		switch (r) {
		case 1: MPI_Wait(rq, MPI_STATUS_IGNORE); break;
		case 2: while (!flag) MPI_Test(rq, &flag, MPI_STATUS_IGNORE); break;
		case 3: MPI_Waitany(1, rq, &idx, MPI_STATUS_IGNORE); break;
		case 4: while (!flag) MPI_Testany(1, rq, &idx, &flag, MPI_STATUS_IGNORE); break;
		case 5: MPI_Waitall(1, rq, MPI_STATUSES_IGNORE); break;
		case 6: while (!flag) MPI_Testall(1, rq, &flag, MPI_STATUSES_IGNORE); break;
		case 7: MPI_Waitsome(1, rq, &out, ids, MPI_STATUSES_IGNORE); break;
		case 8:
			for (out = 0; out == 0;)
				MPI_Testsome(1, rq, &out, ids, MPI_STATUSES_IGNORE);
			break;
		case 9:
			while (!flag)
				MPI_Request_get_status(rq[0], &flag, MPI_STATUS_IGNORE);
			MPI_Wait(rq, MPI_STATUS_IGNORE);
			break;
		case 11: MPI_Waitall(2, rq, MPI_STATUSES_IGNORE); break;
		}
	}
}

int main(int argc, char **argv)
{
	int rank, r, n = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size < 2) {
		fprintf(stderr, "ignore: run on 2 or more ranks\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	if (rank == 0) {
		receiver();
	} else {
		for (r = 0; r <= ROUNDS; r++)	/* round 11 tells two senders */
			if (1 + r % (size - 1) == rank)
				n++;
		for (r = 0; r < n; r++) {
			MPI_Recv(&go, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(&rank, 1, MPI_INT, 0, 100 + rank, MPI_COMM_WORLD);
		}
	}
	MPI_Finalize();
	return 0;
}
