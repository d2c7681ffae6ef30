/*
 * stdoutlog - a rank's standard output put on a file.  Rank 0 points
 * stdout at FILE (freopen) and writes its log there with the calls a
 * compiler makes of printf: printf with conversions, puts (printf of a
 * line without any), putchar (printf of one character), vprintf; then it
 * closes the file by pointing stdout at /dev/null.  Rank 1 reads FILE:
 *
 *   barrier  after a barrier (session)
 *   nosync   0.3 s later, nothing between (a race)
 *
 *   stdoutlog MODE FILE
 *
 * Rank 1 prints the bytes it read.
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void logf_(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

int main(int argc, char **argv)
{
	char got[256];
	int rank, sync;
	size_t n;
	FILE *f;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc != 3)
		MPI_Abort(MPI_COMM_WORLD, 2);
	sync = strcmp(argv[1], "barrier") == 0;
	if (rank == 0) {
		if (!freopen(argv[2], "w", stdout))
			MPI_Abort(MPI_COMM_WORLD, 1);
		printf("step %d of %d\n", 1, 2);
		puts("checkpoint written");
		putchar('.');
		putchar('\n');
		logf_("%s %d\n", "residual", 7);
		if (!freopen("/dev/null", "w", stdout))
			MPI_Abort(MPI_COMM_WORLD, 1);
	}
	if (sync)
		MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1) {
		if (!sync)
			usleep(300000);
		if (!(f = fopen(argv[2], "r")))
			MPI_Abort(MPI_COMM_WORLD, 1);
		n = fread(got, 1, sizeof(got) - 1, f);
		fclose(f);
		got[n] = 0;
		fputs(got, stderr);
	}
	MPI_Finalize();
	return 0;
}
