/*
 * dsread - each rank writes its own pieces of a shared file (a vector
 * view: 4 ints of every 4*P), independently, four times, and after each
 * write reads pieces back, independently, with ROMIO's data sieving for
 * reads on (romio_ds_read=enable, romio_ds_write=disable): ROMIO reads
 * the whole extent the view spans and keeps the pieces it asked for.
 * The mode is the first argument:
 *   own    each rank reads back its own pieces, nothing between the
 *          ranks: correct (the bytes the others write are fetched and
 *          dropped)
 *   other  each rank reads its neighbour's pieces, nothing ordering the
 *          neighbour's write: a race
 *   rmw    as own, but with data sieving for writes and not for reads
 *          (romio_ds_write=enable, romio_ds_read=disable), and the file
 *          filled by rank 0 first (written, closed, a barrier): each
 *          write reads the extent under a lock, puts its pieces in and
 *          writes it all back, the others' pieces as it read them;
 *          correct (a reader of its own pieces gets the same bytes
 *          whichever comes first)
 *   fresh  as rmw, the file not filled first: the first write-back into
 *          the short file writes the others' pieces past its end with
 *          what its buffer held, under its lock, before their own
 *          locked writes (posix: the locks order them, no commit)
 * Rank 0 prints "ok" when every rank read back what it wrote (own) or
 * the run ended (other).
 *
 * usage: dsread MODE FILE
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4096

int main(int argc, char **argv)
{
	int np, rank, other, rmw, fresh, bad = 0, all, i, it;
	MPI_Datatype ft;
	MPI_File fh;
	MPI_Info info;
	int *b, *r;

	MPI_Init(&argc, &argv);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc < 3)
		MPI_Abort(MPI_COMM_WORLD, 2);
	other = strcmp(argv[1], "other") == 0;
	fresh = strcmp(argv[1], "fresh") == 0;
	rmw = fresh || strcmp(argv[1], "rmw") == 0;
	b = calloc((size_t)N * (size_t)np, sizeof(int));
	r = malloc(N * sizeof(int));
	if (rmw && !fresh && rank == 0) {
		if (MPI_File_open(MPI_COMM_SELF, argv[2], MPI_MODE_CREATE | MPI_MODE_WRONLY,
				  MPI_INFO_NULL, &fh))
			MPI_Abort(MPI_COMM_WORLD, 1);
		MPI_File_write_at(fh, 0, b, N * np, MPI_INT, MPI_STATUS_IGNORE);
		MPI_File_close(&fh);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Info_create(&info);
	MPI_Info_set(info, "romio_ds_read", rmw ? "disable" : "enable");
	MPI_Info_set(info, "romio_ds_write", rmw ? "enable" : "disable");
	if (MPI_File_open(MPI_COMM_WORLD, argv[2], MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh))
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Type_vector(N / 4, 4, 4 * np, MPI_INT, &ft);
	MPI_Type_commit(&ft);
	for (i = 0; i < N; i++)
		b[i] = rank * 1000000 + i;
	for (it = 0; it < 4; it++) {
		for (i = 0; i < N; i++)
			b[i]++;
		MPI_File_set_view(fh, (MPI_Offset)rank * 16, MPI_INT, ft, "native", info);
		MPI_File_write_at(fh, 0, b, N, MPI_INT, MPI_STATUS_IGNORE);
		if (other)
			MPI_File_set_view(fh, (MPI_Offset)((rank + 1) % np) * 16, MPI_INT, ft,
					  "native", info);
		MPI_File_read_at(fh, 0, r, N, MPI_INT, MPI_STATUS_IGNORE);
		for (i = 0; !other && i < N; i++)
			bad += r[i] != b[i];
	}
	MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("%s\n", all ? "bad" : "ok");
	MPI_File_close(&fh);
	MPI_Type_free(&ft);
	MPI_Info_free(&info);
	free(b);
	free(r);
	MPI_Finalize();
	return 0;
}
