/*
 * testloop - an application's own polling loops: rank 1 sleeps 200 ms and
 * sends one int to rank 0, which has posted MPI_Irecv and calls MPI_Test
 * until it completes; then rank 1 sleeps 100 ms and sends another, which
 * rank 0 waits for with MPI_Iprobe before it receives it.  Rank 0 prints
 * how many MPI_Test and MPI_Iprobe calls it made.
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	MPI_Request req;
	MPI_Status st;
	int rank, v = 42, in = 0, done = 0, found = 0;
	long tests = 0, probes = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		MPI_Irecv(&in, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &req);
		while (!done) {
			MPI_Test(&req, &done, &st);
			tests++;
		}
		while (!found) {
			MPI_Iprobe(1, 8, MPI_COMM_WORLD, &found, &st);
			probes++;
		}
		MPI_Recv(&in, 1, MPI_INT, 1, 8, MPI_COMM_WORLD, &st);
		printf("tests=%ld value=%d\nprobes=%ld\n", tests, in, probes);
	} else if (rank == 1) {
		usleep(200000);
		MPI_Send(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
		usleep(100000);
		MPI_Send(&v, 1, MPI_INT, 0, 8, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
