/*
 * publish - a file made aside and renamed into place, found by another
 * rank that waits for its name, as Python publishes its bytecode caches
 * and programs their checkpoints: no MPI call orders the two ranks.
 *   publish DIR MODE
 *   rename  rank 0 writes DIR/out.tmp, closes it, renames it to DIR/out;
 *           rank 1 opens DIR/out (read-only) until it is there, reads it
 *   late    the same, but rank 0 writes 8 bytes more through a descriptor
 *           it keeps open after the rename: the reader may miss them
 *   creat   the reader opens with O_CREAT: it might have made the file
 *           itself, so its open shows nothing about the rename
 * Both ranks meet at a barrier at the end only.
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char tmp[4096], out[4096], b[64];
	int rank, fd;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc < 3)
		MPI_Abort(MPI_COMM_WORLD, 2);
	snprintf(tmp, sizeof(tmp), "%s/out.tmp", argv[1]);
	snprintf(out, sizeof(out), "%s/out", argv[1]);
	if (rank == 0) {
		memset(b, 'p', sizeof(b));
		fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, b, 32) != 32)
			MPI_Abort(MPI_COMM_WORLD, 1);
		if (strcmp(argv[2], "late") != 0 && close(fd) != 0)
			MPI_Abort(MPI_COMM_WORLD, 1);
		if (rename(tmp, out) != 0)
			MPI_Abort(MPI_COMM_WORLD, 1);
		if (strcmp(argv[2], "late") == 0) {
			usleep(100000);
			if (write(fd, b, 8) != 8 || close(fd) != 0)
				MPI_Abort(MPI_COMM_WORLD, 1);
		}
	} else if (rank == 1) {
		int creat = strcmp(argv[2], "creat") == 0;
		while (access(out, F_OK) != 0)
			usleep(1000);
		fd = open(out, creat ? O_RDWR | O_CREAT : O_RDONLY, 0644);
		if (fd < 0 || read(fd, b, sizeof(b)) < 32)
			MPI_Abort(MPI_COMM_WORLD, 1);
		close(fd);
		printf("rank 1 read %c\n", b[0]);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
