/*
 * trunc - ranks write their 4 KiB block of one file through stdio.
 *   trunc FILE each      every rank opens FILE with "w" (O_TRUNC) and
 *                        writes: a rank's open may truncate the blocks
 *                        others wrote already, on any file system (rank 1
 *                        waits 0.5 s first, so that it does)
 *   trunc FILE creator   rank 0 creates FILE with "w" and closes it; after
 *                        a barrier every rank opens it with "r+" and
 *                        writes
 * After a barrier rank 0 reads every block back and prints how many were
 * lost.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, size, i, lost = 0, each;
	char buf[4096];
	FILE *f;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 3)
		MPI_Abort(MPI_COMM_WORLD, 2);
	each = strcmp(argv[2], "each") == 0;
	if (!each) {
		if (rank == 0 && (!(f = fopen(argv[1], "w")) || fclose(f)))
			MPI_Abort(MPI_COMM_WORLD, 1);
		MPI_Barrier(MPI_COMM_WORLD);
	} else if (rank == 1) {
		usleep(500000);
	}
	if (!(f = fopen(argv[1], each ? "w" : "r+")))
		MPI_Abort(MPI_COMM_WORLD, 1);
	memset(buf, 'a' + rank % 26, sizeof(buf));
	if (fseek(f, (long)rank * (long)sizeof(buf), SEEK_SET) ||
	    fwrite(buf, 1, sizeof(buf), f) != sizeof(buf) || fclose(f))
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		if (!(f = fopen(argv[1], "r")))
			MPI_Abort(MPI_COMM_WORLD, 1);
		for (i = 0; i < size; i++)
			if (fread(buf, 1, sizeof(buf), f) != sizeof(buf) || buf[0] != 'a' + i % 26)
				lost++;
		fclose(f);
		printf("%d blocks of %d lost\n", lost, size);
	}
	MPI_Finalize();
	return 0;
}
