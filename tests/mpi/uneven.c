/*
 * uneven - an uneven decomposition: each rank writes its own file with
 * write(2), 20 times 1000 + 100 * rank bytes, a barrier after each write.
 * The ranks do the same thing with other byte counts.
 *
 *   uneven PREFIX          (writes PREFIX.RANK, removed at the end)
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char buf[1 << 16];
	char path[4096];
	int rank, i, fd;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc != 2 || rank > 500)
		MPI_Abort(MPI_COMM_WORLD, 2);
	snprintf(path, sizeof(path), "%s.%d", argv[1], rank);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
		MPI_Abort(MPI_COMM_WORLD, 2);
	for (i = 0; i < 20; i++) {
		if (write(fd, buf, (size_t)(1000 + 100 * rank)) < 0)
			MPI_Abort(MPI_COMM_WORLD, 2);
		MPI_Barrier(MPI_COMM_WORLD);
	}
	close(fd);
	unlink(path);
	MPI_Finalize();
	return 0;
}
