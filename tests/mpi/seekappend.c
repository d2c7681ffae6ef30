/*
 * seekappend - each rank appends a 16-byte record to FILE by finding its
 * end itself, not with O_APPEND, as loggers and libgfortran's
 * position='append' do:
 *
 *   fstat    fstat, then pwrite at st_size       (nothing orders the
 *   seekend  lseek to the end, then write         ranks: a race)
 *   turns    fstat and pwrite, each rank after a message from the one
 *            before it (ordered: session)
 *
 * Ranks start 50 ms apart, so that the traced run itself loses no
 * record; rank 0 prints how many there are.
 *
 *   seekappend MODE FILE
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char rec[17];
	struct stat st;
	int me, np, fd;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	if (argc != 3)
		MPI_Abort(MPI_COMM_WORLD, 2);
	if (me == 0)
		close(open(argv[2], O_CREAT | O_TRUNC | O_WRONLY, 0644));
	MPI_Barrier(MPI_COMM_WORLD);
	if (strcmp(argv[1], "turns") == 0) {
		if (me)
			MPI_Recv(NULL, 0, MPI_BYTE, me - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else {
		usleep(50000 * me);
	}
	snprintf(rec, sizeof(rec), "rank %9d\n", me);
	fd = open(argv[2], O_WRONLY);
	if (fd < 0)
		MPI_Abort(MPI_COMM_WORLD, 1);
	if (strcmp(argv[1], "seekend") == 0) {
		if (lseek(fd, 0, SEEK_END) < 0 || write(fd, rec, 16) != 16)
			MPI_Abort(MPI_COMM_WORLD, 1);
	} else if (fstat(fd, &st) != 0 || pwrite(fd, rec, 16, st.st_size) != 16) {
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	close(fd);
	if (strcmp(argv[1], "turns") == 0 && me < np - 1)
		MPI_Send(NULL, 0, MPI_BYTE, me + 1, 0, MPI_COMM_WORLD);
	MPI_Barrier(MPI_COMM_WORLD);
	if (me == 0 && stat(argv[2], &st) == 0)
		printf("records %ld of %d\n", (long)st.st_size / 16, np);
	MPI_Finalize();
	return 0;
}
