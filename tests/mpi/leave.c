/*
 * leave - files a process leaves open to its end (tests/runs.bats):
 *   leave write   each rank writes a line into leave.RANK with stdio and
 *                 never closes it: exit flushes and closes the stream
 *   leave read    each rank reads the line of leave.(RANK+1 mod size)
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	char name[32], line[32] = "";
	int rank, size;
	FILE *f;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc == 2 && strcmp(argv[1], "write") == 0) {
		snprintf(name, sizeof(name), "leave.%d", rank);
		if (!(f = fopen(name, "w")) || fprintf(f, "rank %d\n", rank) < 0)
			MPI_Abort(MPI_COMM_WORLD, 1);
	} else {
		snprintf(name, sizeof(name), "leave.%d", (rank + 1) % size);
		if (!(f = fopen(name, "r")) || !fgets(line, sizeof(line), f))
			MPI_Abort(MPI_COMM_WORLD, 1);
		fclose(f);
		printf("%d: %s", rank, line);
	}
	MPI_Finalize();
	return 0;
}
