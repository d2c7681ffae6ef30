/*
 * scanpos - where a stream stands after fscanf and ungetc.  Rank 1
 * writes FILE, 64 bytes ("hello 42" padded to 32, then 32 'x'), closes
 * it; a barrier; then, 0.2 s later and ordered with nothing of rank 0's,
 * it rewrites bytes [32, 64).  Rank 0, after the barrier, reads FILE:
 *
 *   fread   32 bytes, then 32 more: the second read, [32, 64), races
 *           the rewrite
 *   scanf   fscanf("%32c") takes [0, 32), then fread 32: [32, 64), a race
 *   ungetc  32 times getc and ungetc (the stream stays at 0), then fread
 *           32: [0, 32), ordered by the barrier (session)
 *
 *   scanpos MODE FILE
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[64], got[64];
	size_t n = 0;
	int rank, i, c;
	FILE *f;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc != 3)
		MPI_Abort(MPI_COMM_WORLD, 2);
	if (rank == 1 && (f = fopen(argv[2], "w"))) {
		memset(buf, ' ', 32);
		memcpy(buf, "hello 42", 8);
		memset(buf + 32, 'x', 32);
		fwrite(buf, 1, 64, f);
		fclose(f);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1 && (f = fopen(argv[2], "r+"))) {
		usleep(200000);
		fseek(f, 32, SEEK_SET);
		memset(buf, 'y', 32);
		fwrite(buf, 1, 32, f);
		fclose(f);
	}
	if (rank == 0 && (f = fopen(argv[2], "r"))) {
		if (!strcmp(argv[1], "scanf")) {
			if (fscanf(f, "%32c", got) == 1)
				n = fread(got, 1, 32, f);
		} else if (!strcmp(argv[1], "ungetc")) {
			for (i = 0; i < 32; i++)
				if ((c = getc(f)) != EOF)
					ungetc(c, f);
			n = fread(got, 1, 32, f);
		} else {
			n = fread(got, 1, 32, f);
			n = fread(got, 1, 32, f);
		}
		printf("%zu at %ld\n", n, ftell(f));
		fclose(f);
	}
	MPI_Finalize();
	return 0;
}
