/*
 * tiles - rank 0 reads 32 bytes of FILE through a view whose tiles
 * interleave (an hindexed filetype of the blocks [0,4) and [20,24),
 * resized to an extent of 8: it selects [0,4) [20,24) [8,12) [28,32) ...),
 * independently, with ROMIO's data sieving (one pread of the extent);
 * rank 1 writes the bytes [8,12), which the view selects, with nothing
 * ordering the two: a race.
 *
 * usage: tiles FILE
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, fd, len[2] = { 4, 4 };
	MPI_Aint disp[2] = { 0, 20 };
	MPI_Datatype blocks, ft;
	MPI_Info info;
	MPI_File fh;
	char buf[64];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc < 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	if (rank == 0) {
		memset(buf, 'a', sizeof(buf));
		if ((fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0 ||
		    write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			MPI_Abort(MPI_COMM_WORLD, 1);
		close(fd);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Info_create(&info);
	MPI_Info_set(info, "romio_ds_read", "enable");
	MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_RDWR, info, &fh);
	MPI_Type_create_hindexed(2, len, disp, MPI_BYTE, &blocks);
	MPI_Type_create_resized(blocks, 0, 8, &ft);
	MPI_Type_commit(&ft);
	MPI_File_set_view(fh, 0, MPI_BYTE, ft, "native", info);
	if (rank == 0) {
		MPI_File_read_at(fh, 0, buf, 32, MPI_BYTE, MPI_STATUS_IGNORE);
	} else if (rank == 1) {
		memset(buf, 'b', 4);
		if ((fd = open(argv[1], O_WRONLY)) < 0 || pwrite(fd, buf, 4, 8) != 4)
			MPI_Abort(MPI_COMM_WORLD, 1);
		close(fd);
	}
	MPI_File_close(&fh);
	MPI_Type_free(&ft);
	MPI_Type_free(&blocks);
	MPI_Info_free(&info);
	if (rank == 0)
		printf("ok\n");
	MPI_Finalize();
	return 0;
}
