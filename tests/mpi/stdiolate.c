/*
 * stdiolate.c - a rank writes a line to a fully buffered stdio stream
 * (fopen "w", fprintf), then all meet at a barrier, and only 200 ms later
 * does it fclose the stream, which is when the bytes reach the file; the
 * other rank opens and reads the file right after the barrier (it reads
 * nothing).  Nothing orders the fclose before the read: a race.
 *
 *   stdiolate WRITER FILE   (2 ranks; WRITER 0 or 1)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, writer;
	char buf[128] = "";
	FILE *f = NULL, *g;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc < 3)
		MPI_Abort(MPI_COMM_WORLD, 2);
	writer = atoi(argv[1]);
	if (rank == writer) {
		if (!(f = fopen(argv[2], "w")))
			MPI_Abort(MPI_COMM_WORLD, 1);
		fprintf(f, "hello from rank %d\n", rank);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank != writer && (g = fopen(argv[2], "r"))) {
		if (!fgets(buf, sizeof(buf), g))
			snprintf(buf, sizeof(buf), "(nothing)\n");
		fclose(g);
		printf("rank %d read %s", rank, buf);
	}
	if (rank == writer) {
		usleep(200000);
		fclose(f);
	}
	MPI_Finalize();
	return 0;
}
