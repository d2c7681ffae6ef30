/*
 * stdiobuf - rank 0 writes to FILE through a stdio stream, a barrier,
 * rank 1 reads, a barrier, rank 0 closes the stream.  The mode is the
 * first argument:
 *   noflush  100 bytes, nothing between the fwrite and the barrier: the
 *            bytes are still in rank 0's buffer when rank 1 reads (it
 *            reads none)
 *   fflush   fflush before the barrier: in the file, not committed
 *   fclose   fclose before the barrier (and none after)
 *   unbuf    setvbuf(_IONBF) after the fopen: the fwrite writes
 *   linebuf  setvbuf(_IOLBF), and the 100 bytes end in a newline: written
 *   linetail setvbuf(_IOLBF), no newline: they wait in the buffer
 *   blocks   one fwrite of 16 times the stream's buffer: glibc writes
 *            whole blocks straight to the file (rank 1 reads them all)
 *   tail     one fwrite of 2.5 buffers: two reach the file, the half
 *            waits in the buffer (rank 1 reads two of the 2.5)
 *   head     the same fwrite, and rank 1 reads only the first two
 *            buffers, which reached the file at the fwrite
 *   lines    fprintf of 10-byte lines, 2.5 buffers of them: each time
 *            the buffer fills it is flushed (rank 1 reads the first
 *            buffer's worth, which reached the file)
 * The buffer's size is glibc's for the file (its st_blksize), which rank
 * 0 sends rank 1.  Rank 1 prints how many bytes it read of how many it
 * asked for, in buffers ("read 2 of 2.5") for the last three modes.
 *
 * usage: stdiobuf MODE FILE
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "noflush";
	int head = strcmp(mode, "head") == 0;
	int bufs = strcmp(mode, "blocks") == 0 || strcmp(mode, "tail") == 0 || head ||
		   strcmp(mode, "lines") == 0;
	static char b[1 << 20];
	FILE *fp = NULL;
	long bsz = 0, len = 100, i;
	int rank, fd;
	ssize_t n = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc < 3)
		MPI_Abort(MPI_COMM_WORLD, 2);
	if (rank == 0) {
		if (!(fp = fopen(argv[2], "w")))
			MPI_Abort(MPI_COMM_WORLD, 1);
		if (strcmp(mode, "unbuf") == 0)
			setvbuf(fp, NULL, _IONBF, 0);
		if (strcmp(mode, "linebuf") == 0 || strcmp(mode, "linetail") == 0)
			setvbuf(fp, NULL, _IOLBF, 0);
		memset(b, 'x', sizeof(b));
		if (strcmp(mode, "linebuf") == 0)
			b[99] = '\n';
		if (bufs) {
			fputc('x', fp);		/* the buffer is made at the first write */
			bsz = (long)__fbufsize(fp);
			fseek(fp, 0, SEEK_SET);	/* (which this flushes) */
			if (bsz < 64 || 5 * bsz / 2 > (long)sizeof(b))
				MPI_Abort(MPI_COMM_WORLD, 1);
		}
		if (strcmp(mode, "blocks") == 0)
			len = 16 * bsz;
		else if (strcmp(mode, "tail") == 0 || head || strcmp(mode, "lines") == 0)
			len = 5 * bsz / 2 / 10 * 10;
		if (strcmp(mode, "lines") == 0)
			for (i = 0; i < len / 10; i++)
				fprintf(fp, "line %04ld\n", i % 10000);
		else
			fwrite(b, 1, (size_t)len, fp);
		if (strcmp(mode, "fflush") == 0)
			fflush(fp);
		if (strcmp(mode, "fclose") == 0) {
			fclose(fp);
			fp = NULL;
		}
	}
	MPI_Bcast(&bsz, 1, MPI_LONG, 0, MPI_COMM_WORLD);
	MPI_Bcast(&len, 1, MPI_LONG, 0, MPI_COMM_WORLD);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1) {
		long want = strcmp(mode, "lines") == 0 ? bsz : head ? 2 * bsz : len;
		if ((fd = open(argv[2], O_RDONLY)) >= 0) {
			n = pread(fd, b, (size_t)want, 0);
			close(fd);
		}
		if (bufs)
			printf("read %g of %g\n", (double)n / (double)bsz, (double)len / (double)bsz);
		else
			printf("read %zd\n", n);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (fp)
		fclose(fp);
	MPI_Finalize();
	return 0;
}
