/*
 * pclosewait - a rank's pclose() waits for the command that wrote a file,
 * and a barrier after it orders that write before another rank's read.
 * Rank 0 first runs a few quick commands through popen() and pclose()
 * (their pcloses, one signature, make its mean duration short), then
 * "sleep 0.02; cat > FILE" through popen(), feeds it 500 bytes and
 * pcloses it; a barrier; rank 1 reads FILE and prints how many bytes it
 * got.  The cat's close, its exit, the pclose, the barrier, rank 1's
 * open: session.
 *
 *   pclosewait FILE
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char cmd[4096], buf[600];
	int rank, i, fd;
	ssize_t n = -1;
	FILE *p;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc < 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	if (rank == 0) {
		for (i = 0; i < 16; i++)
			if ((p = popen("true", "r")))
				pclose(p);
		snprintf(cmd, sizeof(cmd), "sleep 0.02; cat > '%s'", argv[1]);
		if (!(p = popen(cmd, "w")))
			MPI_Abort(MPI_COMM_WORLD, 1);
		for (i = 0; i < 50; i++)
			fputs("abcdefghij", p);
		pclose(p);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1) {
		if ((fd = open(argv[1], O_RDONLY)) >= 0) {
			n = read(fd, buf, sizeof(buf));
			close(fd);
		}
		printf("%zd bytes\n", n);
	}
	MPI_Finalize();
	return 0;
}
