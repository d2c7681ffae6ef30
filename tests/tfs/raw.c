/*
 * raw - read-after-write across MPI ranks with plain POSIX calls, for
 * tests/tfs.bats under libtfs-posix.so.  usage: raw FILE SYNC
 * Rank 0 overwrites the first 8 bytes of FILE with "NEWNEWNE", then
 * synchronises as SYNC says (none, fsync, close); after a barrier every
 * other rank (reopening first when SYNC is close) reads them and prints
 * "rank R read XXXXXXXX".
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[9] = "";
	int rank, fd;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc != 3) {
		fprintf(stderr, "usage: raw file none|fsync|close\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		perror(argv[1]);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		if (pwrite(fd, "NEWNEWNE", 8, 0) != 8)
			perror("pwrite");
		if (!strcmp(argv[2], "fsync") && fsync(fd) < 0)
			perror("fsync");
		if (!strcmp(argv[2], "close")) {
			close(fd);
			fd = open(argv[1], O_RDWR);
		}
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank != 0) {
		if (!strcmp(argv[2], "close")) {
			close(fd);
			fd = open(argv[1], O_RDWR);
		}
		if (pread(fd, buf, 8, 0) != 8)
			perror("pread");
		printf("rank %d read %s\n", rank, buf);
		fflush(stdout);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	close(fd);
	MPI_Finalize();
	return 0;
}
