/*
 * idups - two communicators made by MPI_Comm_idup at once, the requests
 * completed in another order on each rank ("cross") or in the same
 * ("same").  Rank 0 sends on the second copy, writes 64 bytes, closes,
 * and sends on the first; rank 1 receives on the second and reads the
 * bytes (a race: that message left before the write), then receives on
 * the first and reads them again (ordered).  Each copy is the same
 * communicator on both ranks whatever the order its request completed in.
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "cross", *path = argc > 2 ? argv[2] : "idups.dat";
	char buf[64];
	MPI_Comm c1, c2;
	MPI_Request r1, r2;
	int rank, x = 1, fd;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0) {
		fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
		close(fd);
	}
	MPI_Comm_idup(MPI_COMM_WORLD, &c1, &r1);
	MPI_Comm_idup(MPI_COMM_WORLD, &c2, &r2);
	if (rank == 1 && strcmp(mode, "cross") == 0) {
		MPI_Wait(&r2, MPI_STATUS_IGNORE);
		MPI_Wait(&r1, MPI_STATUS_IGNORE);
	} else {
		MPI_Wait(&r1, MPI_STATUS_IGNORE);
		MPI_Wait(&r2, MPI_STATUS_IGNORE);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		MPI_Send(&x, 1, MPI_INT, 1, 0, c2);
		memset(buf, 'w', sizeof(buf));
		fd = open(path, O_WRONLY);
		if (pwrite(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf))
			perror("pwrite");
		close(fd);
		MPI_Send(&x, 1, MPI_INT, 1, 0, c1);
	} else if (rank == 1) {
		MPI_Recv(&x, 1, MPI_INT, 0, 0, c2, MPI_STATUS_IGNORE);
		fd = open(path, O_RDONLY);
		if (pread(fd, buf, sizeof(buf), 0) < 0)
			perror("pread");
		close(fd);
		MPI_Recv(&x, 1, MPI_INT, 0, 0, c1, MPI_STATUS_IGNORE);
		fd = open(path, O_RDONLY);
		if (pread(fd, buf, sizeof(buf), 0) < 0)
			perror("pread");
		close(fd);
	}
	MPI_Comm_free(&c1);
	MPI_Comm_free(&c2);
	printf("%d: ok\n", rank);
	MPI_Finalize();
	return 0;
}
