/*
 * MPI_File_write_shared and MPI_File_write_ordered mixed, the ranks out of
 * step (no barrier between the calls), through a view displaced by 100
 * bytes, as a log written by every rank with periodic ordered records
 * would be.  Every call's bytes are its own tag: 1 + 40 * rank + k for the
 * k-th write of the rank.  At the end ranks 0 and 1 read the whole file
 * (so every write meets another rank's read), and rank 0 writes what it
 * read to the file "content": where each call's bytes really went.  With
 * "sequential" the log is opened with MPI_MODE_SEQUENTIAL, as a log may
 * be (no view then: the writes start at byte 0), and opened again to be
 * read.
 *   shared-mix [ITERATIONS [sequential]]   (default 12, at most 26; at most 6 ranks)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	int rank, iters = argc > 1 ? atoi(argv[1]) : 12, k = 0, i;
	int seq = argc > 2 && strcmp(argv[2], "sequential") == 0;
	unsigned char buf[16], *all;
	MPI_File fh;
	MPI_Offset size;
	FILE *f;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_File_open(MPI_COMM_WORLD, "log.dat",
		      MPI_MODE_CREATE | (seq ? MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL : MPI_MODE_RDWR),
		      MPI_INFO_NULL, &fh);
	if (!seq)
		MPI_File_set_view(fh, 100, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
	for (i = 0; i < iters; i++) {
		memset(buf, 1 + 40 * rank + k++, sizeof(buf));
		MPI_File_write_shared(fh, buf, 4 + rank, MPI_BYTE, MPI_STATUS_IGNORE);
		if (i % 3 == 2) {
			memset(buf, 1 + 40 * rank + k++, sizeof(buf));
			MPI_File_write_ordered(fh, buf, 3 + rank, MPI_BYTE, MPI_STATUS_IGNORE);
		}
	}
	MPI_File_sync(fh);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_File_sync(fh);
	if (seq) {
		MPI_File_close(&fh);
		MPI_File_open(MPI_COMM_WORLD, "log.dat", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
	} else {
		MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
	}
	if (rank <= 1) {
		MPI_File_get_size(fh, &size);
		all = malloc((size_t)size);
		MPI_File_read_at(fh, 0, all, (int)size, MPI_BYTE, MPI_STATUS_IGNORE);
		if (rank == 0 && (f = fopen("content", "w"))) {
			fwrite(all, 1, (size_t)size, f);
			fclose(f);
		}
		free(all);
	}
	MPI_File_close(&fh);
	MPI_Finalize();
	return 0;
}
