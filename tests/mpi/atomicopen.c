/*
 * atomicopen - rank 0 writes 4 KiB at offset 0 of FILE ten times while
 * the other ranks read them, nothing ordering the two, each through a
 * handle in atomic mode (MPI_File_set_atomicity).  MPI 4.1 §14.6.1 makes
 * the accesses through the handles of one collective MPI_File_open
 * sequentially consistent in atomic mode, not those of two opens.  The
 * mode is the first argument:
 *   world   one open on MPI_COMM_WORLD: correct in atomic mode
 *   names   the same, the ranks but 0 naming FILE as DIR/./NAME: one open
 *           all the same (MPI asks the names to name one file)
 *   self    each rank opens the file on MPI_COMM_SELF: two opens, a race
 *   twice   two opens on MPI_COMM_WORLD, both atomic; rank 0 writes
 *           through the first, the others read through the second: a race
 *   plain   the others read through a second handle of their own
 *           (MPI_COMM_SELF) left in nonatomic mode: a race
 * Rank 0 prints "ok" at the end.
 *
 * usage: atomicopen MODE FILE
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define N 1024

int main(int argc, char **argv)
{
	MPI_File fh, rd = MPI_FILE_NULL, io;
	int rank, buf[N], i, it;
	const char *mode = argc > 1 ? argv[1] : "world", *slash;
	char name[4096];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc < 3)
		MPI_Abort(MPI_COMM_WORLD, 2);
	if (rank == 0) {	/* the file exists, and has its bytes, first */
		memset(buf, 0, sizeof(buf));
		MPI_File_open(MPI_COMM_SELF, argv[2], MPI_MODE_CREATE | MPI_MODE_RDWR,
			      MPI_INFO_NULL, &fh);
		MPI_File_write_at(fh, 0, buf, N, MPI_INT, MPI_STATUS_IGNORE);
		MPI_File_close(&fh);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	snprintf(name, sizeof(name), "%s", argv[2]);
	if (strcmp(mode, "names") == 0 && rank != 0 && (slash = strrchr(argv[2], '/')))
		snprintf(name, sizeof(name), "%.*s/./%s", (int)(slash - argv[2]), argv[2],
			 slash + 1);
	MPI_File_open(strcmp(mode, "self") == 0 ? MPI_COMM_SELF : MPI_COMM_WORLD, name,
		      MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
	MPI_File_set_atomicity(fh, 1);
	if (strcmp(mode, "twice") == 0) {
		MPI_File_open(MPI_COMM_WORLD, argv[2], MPI_MODE_RDWR, MPI_INFO_NULL, &rd);
		MPI_File_set_atomicity(rd, 1);
	} else if (strcmp(mode, "plain") == 0 && rank != 0) {
		MPI_File_open(MPI_COMM_SELF, argv[2], MPI_MODE_RDONLY, MPI_INFO_NULL, &rd);
	}
	io = rank != 0 && rd != MPI_FILE_NULL ? rd : fh;
	for (it = 1; it <= 10; it++) {
		if (rank == 0) {
			for (i = 0; i < N; i++)
				buf[i] = it;
			MPI_File_write_at(io, 0, buf, N, MPI_INT, MPI_STATUS_IGNORE);
		} else {
			MPI_File_read_at(io, 0, buf, N, MPI_INT, MPI_STATUS_IGNORE);
		}
	}
	if (rd != MPI_FILE_NULL)
		MPI_File_close(&rd);
	MPI_File_close(&fh);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		printf("ok\n");
	MPI_Finalize();
	return 0;
}
