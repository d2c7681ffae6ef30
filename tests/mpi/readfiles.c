/*
 * readfiles.c - every rank reads the files named on its command line,
 * the same files on every rank, between MPI_Init and MPI_Finalize.
 *
 * usage: readfiles FILE...
 */
#include <fcntl.h>
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[64];
	int i, fd;

	MPI_Init(&argc, &argv);
	for (i = 1; i < argc; i++) {
		if ((fd = open(argv[i], O_RDONLY)) < 0)
			MPI_Abort(MPI_COMM_WORLD, 1);
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	}
	MPI_Finalize();
	return 0;
}
