/*
 * waw - write after write across MPI ranks with plain POSIX calls, for
 * tests/tfs.bats under libtfs-posix.so.  usage: waw FILE
 * Every rank first writes its letter at byte 64 + rank (so each is a
 * writer of the file with writes not yet attached), then rank 0 writes
 * 16 bytes "ffff..." at 0, and after a barrier each rank r of 1..3
 * writes four digits r at 4r, over rank 0's bytes.  After a barrier and
 * the closes, rank 0 reads the 16 bytes back and prints them: under
 * POSIX consistency the later writes win, "ffff111122223333" at 4 ranks.
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char mine = 'a', digits[4], out[17] = "";
	int rank, fd;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc != 2) {
		fprintf(stderr, "usage: waw file\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	if ((fd = open(argv[1], O_RDWR | O_CREAT, 0644)) < 0) {
		perror(argv[1]);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	mine += (char)rank;
	if (pwrite(fd, &mine, 1, 64 + rank) != 1)
		perror("pwrite");
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0 && pwrite(fd, "ffffffffffffffff", 16, 0) != 16)
		perror("pwrite");
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank > 0 && rank < 4) {
		memset(digits, '0' + rank, sizeof(digits));
		if (pwrite(fd, digits, 4, 4 * rank) != 4)
			perror("pwrite");
	}
	MPI_Barrier(MPI_COMM_WORLD);
	close(fd);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		fd = open(argv[1], O_RDONLY);
		if (fd < 0 || pread(fd, out, 16, 0) != 16)
			perror(argv[1]);
		printf("%s\n", out);
		close(fd);
	}
	MPI_Finalize();
	return 0;
}
