/*
 * mpi-bench - cost of the tracer per MPI call: N MPI_Comm_rank and M
 * MPI_Allreduce of one int, timed inside the program (MPI_Init and the
 * trace's final flush do not count).  Prints, from rank 0, the slowest
 * rank's ns per call: "comm_rank NS" and "allreduce NS".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000000;
	long m = argc > 2 ? strtol(argv[2], NULL, 10) : 100000;
	double t0, t1, t2, mine[2], worst[2];
	int rank, x = 1, y, r;
	long i;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	for (i = 0; i < n; i++)
		MPI_Comm_rank(MPI_COMM_WORLD, &r);
	t1 = MPI_Wtime();
	for (i = 0; i < m; i++)
		MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	t2 = MPI_Wtime();
	mine[0] = (t1 - t0) * 1e9 / (double)n;
	mine[1] = (t2 - t1) * 1e9 / (double)m;
	MPI_Reduce(mine, worst, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("comm_rank %.1f\nallreduce %.1f\n", worst[0], worst[1]);
	MPI_Finalize();
	return 0;
}
