/*
 * sameline - after MPI_Init each process writes one line, "rank R of N",
 * at offset 0 of FILE and prints it.  Started by a launcher of its own MPI
 * library the ranks race; started as singletons at once (two in the
 * background of a job script, or by a launcher of another MPI library,
 * which makes each process a world of one) the processes race too.
 *
 *   sameline FILE
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char line[64];
	int rank, size, fd, n;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc != 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	n = snprintf(line, sizeof(line), "rank %d of %d\n", rank, size);
	fd = open(argv[1], O_WRONLY | O_CREAT, 0644);
	if (fd < 0 || pwrite(fd, line, (size_t)n, 0) != n)
		MPI_Abort(MPI_COMM_WORLD, 1);
	close(fd);
	fputs(line, stdout);
	MPI_Finalize();
	return 0;
}
