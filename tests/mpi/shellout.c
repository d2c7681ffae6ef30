/*
 * shellout - rank 0 has a shell write the file ARGV[1] (system(): a fork'd
 * child without an MPI rank), then all ranks meet at a barrier and rank 1
 * reads the file.  The child's write and the read are ordered by the
 * clocks (the graph knows ranks only), and verify-io says so.
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char cmd[4096], b[64];
	int rank, fd;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc < 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	if (rank == 0) {
		snprintf(cmd, sizeof(cmd), "printf 'written by a shell\\n' > '%s'", argv[1]);
		if (system(cmd) != 0)
			MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1) {
		fd = open(argv[1], O_RDONLY);
		if (fd < 0 || read(fd, b, sizeof(b)) != 19)
			MPI_Abort(MPI_COMM_WORLD, 1);
		close(fd);
		printf("rank 1 read %.18s\n", b);
	}
	MPI_Finalize();
	return 0;
}
