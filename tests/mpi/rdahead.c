/*
 * rdahead - stdio read-ahead: rank 0 writes 8192 'a' and closes, a
 * barrier; rank 1 fopens the file and freads its first 100 bytes (glibc
 * reads a whole buffer, 4096 bytes, into the stream) while rank 0 pwrites
 * 'b' over bytes 1000..1099; a barrier; rank 1 freads bytes 100..1099 and
 * says whether it saw the 'b's.  The mode is the first argument:
 *   race   no barrier between rank 1's first fread and rank 0's write
 *          (rank 0 sleeps 0.3 s first): the read-ahead races the write
 *   plain  a barrier between: the bytes were read at the first fread,
 *          before the write; the second fread returns them (old)
 *   seek   as plain, with an fseek before the second fread, which drops
 *          the buffer: read again after the write (new)
 *
 * usage: rdahead MODE FILE
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char b[8192];
	FILE *fp = NULL;
	int rank, fd;
	size_t n;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc < 3)
		MPI_Abort(MPI_COMM_WORLD, 2);
	if (rank == 0) {
		if ((fd = open(argv[2], O_CREAT | O_TRUNC | O_WRONLY, 0644)) < 0)
			MPI_Abort(MPI_COMM_WORLD, 1);
		memset(b, 'a', sizeof(b));
		if (write(fd, b, sizeof(b)) != (ssize_t)sizeof(b))
			MPI_Abort(MPI_COMM_WORLD, 1);
		close(fd);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1) {
		if (!(fp = fopen(argv[2], "r")) || fread(b, 1, 100, fp) != 100)
			MPI_Abort(MPI_COMM_WORLD, 1);
	}
	if (strcmp(argv[1], "race"))
		MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		if (!strcmp(argv[1], "race"))
			usleep(300000);	/* rank 1 reads first, in time only */
		if ((fd = open(argv[2], O_WRONLY)) < 0)
			MPI_Abort(MPI_COMM_WORLD, 1);
		memset(b, 'b', 100);
		if (pwrite(fd, b, 100, 1000) != 100)
			MPI_Abort(MPI_COMM_WORLD, 1);
		close(fd);
	}
	MPI_Barrier(MPI_COMM_WORLD);	/* rank 0's write is done */
	if (rank == 1) {
		if (!strcmp(argv[1], "seek"))
			fseek(fp, 100, SEEK_SET);
		n = fread(b + 100, 1, 1000, fp);
		printf("read %zu, byte 1000 %s\n", n, b[1000] == 'b' ? "new" : "old");
		fclose(fp);
	}
	MPI_Finalize();
	return 0;
}
