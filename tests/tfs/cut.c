/*
 * cut - a truncate another process sees: rank 0 writes 4096 bytes of
 * FILE, fsyncs and closes it; every rank opens it; rank 0 cuts it to 1060
 * and fsyncs; then every rank prints the size fstat gives and how many
 * bytes a pread at 2000, past the new end, returns (0 on a local disk).
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[4096], in[16];
	struct stat st;
	int rank, fd;
	ssize_t n;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc < 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	memset(buf, 'x', sizeof(buf));
	if (rank == 0) {
		fd = open(argv[1], O_CREAT | O_RDWR | O_TRUNC, 0644);
		if (fd < 0 || pwrite(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf) ||
		    fsync(fd) < 0 || close(fd) < 0)
			MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if ((fd = open(argv[1], O_RDWR)) < 0)
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0 && (ftruncate(fd, 1060) < 0 || fsync(fd) < 0))
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Barrier(MPI_COMM_WORLD);
	if (fstat(fd, &st) < 0)
		MPI_Abort(MPI_COMM_WORLD, 1);
	n = pread(fd, in, sizeof(in), 2000);
	printf("rank %d: size %lld, read past the end %zd\n", rank, (long long)st.st_size, n);
	close(fd);
	MPI_Finalize();
	return 0;
}
