/*
 * bufappend.c - appends through buffered streams reach the file where it
 * ends when they are flushed, not where it ended at the fprintf (3 ranks):
 *
 *   rank 0: fopen(FILE, "a"), fprintf a 56-byte line (it stays in the
 *           stream's buffer); barrier 1
 *   rank 1: after barrier 1, fopen(FILE, "a"), fprintf an 11-byte line,
 *           fclose (it lands at byte 0); barrier 2
 *   rank 2: after barrier 2, reads the first line (rank 1's, closed
 *           before barrier 2: session); barrier 3
 *   rank 0: after barrier 3, fclose (its line lands at bytes 11-67)
 *
 * Rank 2 prints "rank 2 read LINE".
 *
 *   bufappend FILE
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	int rank;
	char b[128] = "";
	FILE *f = NULL, *g;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc < 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	if (rank == 0) {
		remove(argv[1]);
		if (!(f = fopen(argv[1], "a")))
			MPI_Abort(MPI_COMM_WORLD, 1);
		fprintf(f, "%055d\n", 0);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1 && (g = fopen(argv[1], "a"))) {
		fprintf(g, "BBBBBBBBBB\n");
		fclose(g);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 2 && (g = fopen(argv[1], "r"))) {
		if (!fgets(b, sizeof(b), g))
			strcpy(b, "(nothing)\n");
		fclose(g);
		printf("rank 2 read %s", b);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		fclose(f);
	MPI_Finalize();
	return 0;
}
