/*
 * flushsend PATH [all] - a stdio writer that flushes and then tells the
 * reader: rank 0 writes 4096 bytes of 'A' to PATH with fwrite, fflush()es
 * the stream (with "all", fflush(NULL)), no fsync, no close, and sends a
 * token; rank 1, on the token,
 * opens PATH and reads it; rank 0 closes after rank 1 answers.
 * conflict-check counts the fflush as a commit: the run needs commit.
 * Exit 1 when rank 1 read other than the 4096 'A's.
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[4096];
	int rank, tok = 0, bad = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc < 2) {
		MPI_Finalize();
		return 2;
	}
	if (rank == 0) {
		FILE *f = fopen(argv[1], "w");
		memset(buf, 'A', sizeof(buf));
		bad = !f || fwrite(buf, 1, sizeof(buf), f) != sizeof(buf) ||
		      fflush(argc > 2 && strcmp(argv[2], "all") == 0 ? NULL : f) != 0;
		MPI_Send(&tok, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
		MPI_Recv(&tok, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		bad |= !f || fclose(f) != 0;
	} else if (rank == 1) {
		int fd;
		ssize_t n = -1;
		MPI_Recv(&tok, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		memset(buf, 0, sizeof(buf));
		if ((fd = open(argv[1], O_RDONLY)) >= 0) {
			n = read(fd, buf, sizeof(buf));
			close(fd);
		}
		bad = n != (ssize_t)sizeof(buf) || memchr(buf, 0, sizeof(buf)) != NULL;
		printf("read %zd\n", n);
		MPI_Send(&tok, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return bad;
}
