/*
 * recreate - a file removed and created again under its name: rank 0
 * writes 64 bytes to FILE, closes and removes it (unlink, or with "mpi"
 * MPI_File_delete); rank 1, half a second later and ordered by nothing,
 * creates FILE afresh and writes 64 bytes at the same offsets.  The two
 * writes are to two files: no pair, no race.
 * With "rename": rank 0 writes FILE.tmp and renames it to FILE; rank 1
 * half a second later opens FILE and reads it: one file under two names,
 * a write and a read no MPI call orders; the open found the name only
 * because the rename had put it there, so it came after it.
 *   recreate FILE [mpi|rename]
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[64];
	char tmp[4096];
	int rank, fd, viampi = argc > 2 && strcmp(argv[2], "mpi") == 0;
	int ren = argc > 2 && strcmp(argv[2], "rename") == 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc < 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	memset(buf, 'a' + rank, sizeof(buf));
	snprintf(tmp, sizeof(tmp), "%s.tmp", argv[1]);
	if (ren && rank == 0) {
		fd = open(tmp, O_CREAT | O_TRUNC | O_WRONLY, 0644);
		if (fd < 0 || write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf) || close(fd) ||
		    rename(tmp, argv[1]))
			MPI_Abort(MPI_COMM_WORLD, 1);
	} else if (ren && rank == 1) {
		usleep(500000);
		fd = open(argv[1], O_RDONLY);
		if (fd < 0 || read(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf) || close(fd) ||
		    buf[0] != 'a')
			MPI_Abort(MPI_COMM_WORLD, 1);
	} else if (rank == 0) {
		fd = open(argv[1], O_CREAT | O_TRUNC | O_WRONLY, 0644);
		if (fd < 0 || write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf) || close(fd))
			MPI_Abort(MPI_COMM_WORLD, 1);
		if (viampi ? MPI_File_delete(argv[1], MPI_INFO_NULL) != MPI_SUCCESS : unlink(argv[1]))
			MPI_Abort(MPI_COMM_WORLD, 1);
	} else if (rank == 1) {
		usleep(500000);
		fd = open(argv[1], O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0 || write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf) || close(fd))
			MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Finalize();
	return 0;
}
