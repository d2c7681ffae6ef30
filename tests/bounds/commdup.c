/*
 * commdup - N (first argument, default 10000) rounds of MPI_Comm_dup and
 * MPI_Comm_free of MPI_COMM_WORLD, with an MPI_Allreduce on each new
 * communicator, for tests/bounds.bats; rank 0 prints the sum of the last
 * round, every rank its peak resident memory on stderr ("VmHWM N", KiB).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	long n, i;
	int rank, sum = 0, one = 1;
	char line[256];
	FILE *f;

	MPI_Init(&argc, &argv);
	n = argc > 1 ? atol(argv[1]) : 10000;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (i = 0; i < n; i++) {
		MPI_Comm c;

		MPI_Comm_dup(MPI_COMM_WORLD, &c);
		if (i % 100 == 0)
			MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c);
		MPI_Comm_free(&c);
	}
	if (rank == 0)
		printf("%ld communicators, sum %d\n", n, sum);
	f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "VmHWM:", 6) == 0)
			fprintf(stderr, "VmHWM %ld\n", atol(line + 6));
	if (f)
		fclose(f);
	MPI_Finalize();
	return 0;
}
