/*
 * pingpong - rank 0 reads what ranks 1 and 2 write in turn, through one
 * handle that keeps reading the same file:
 *   pingpong FILE ROUNDS [commit]
 * Rank 1 creates FILE (8 bytes), rank 0 reads it once, so its handle holds
 * a map of the file from then on.  In round i, rank 1 + i % 2 writes the
 * round's number over the 8 bytes (with "commit", then fsync: the commit
 * model's commit), then tells rank 0, which reads them: the write (the
 * commit) returned before the read began, so the read must see it.  The
 * writers take turns so that a map kept from the round before names the
 * other writer, which holds the older bytes: a map not dropped in time
 * reads those.  Rank 0 prints "rounds N, stale S" (S reads that did not
 * see their round's write).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, size, rounds = 0, commit, fd = -1, stale = 0, m;
	uint64_t v = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 3 || size != 3 || (rounds = atoi(argv[2])) < 1) {
		if (rank == 0)
			fputs("usage: mpirun -n 3 pingpong FILE ROUNDS [commit]\n", stderr);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	commit = argc > 3 && strcmp(argv[3], "commit") == 0;
	/* rank 0 never writes the file: a reader's own write would have it
	 * ask the server at each read from then on */
	if (rank == 1 && ((fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0 ||
			  pwrite(fd, &v, sizeof(v), 0) != sizeof(v) || fsync(fd) < 0)) {
		perror(argv[1]);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if ((rank == 0 && ((fd = open(argv[1], O_RDONLY)) < 0 ||
			   pread(fd, &v, sizeof(v), 0) != sizeof(v))) ||
	    (rank == 2 && (fd = open(argv[1], O_WRONLY)) < 0)) {
		perror(argv[1]);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	for (int i = 1; i <= rounds; i++) {
		int w = 1 + i % 2;

		if (rank == w) {
			v = (uint64_t)i;
			if (pwrite(fd, &v, sizeof(v), 0) != sizeof(v) || (commit && fsync(fd) < 0)) {
				perror("write");
				MPI_Abort(MPI_COMM_WORLD, 1);
			}
			m = i;
			MPI_Send(&m, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
		} else if (rank == 0) {
			MPI_Recv(&m, 1, MPI_INT, w, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			if (pread(fd, &v, sizeof(v), 0) != sizeof(v)) {
				perror("read");
				MPI_Abort(MPI_COMM_WORLD, 1);
			}
			if (v != (uint64_t)i) {
				if (stale++ < 3)
					fprintf(stderr, "round %d read %" PRIu64 "\n", i, v);
			}
		}
		/* the next writer writes after this read */
		m = i;
		MPI_Bcast(&m, 1, MPI_INT, 0, MPI_COMM_WORLD);
	}
	if (rank == 0)
		printf("rounds %d, stale %d\n", rounds, stale);
	close(fd);
	MPI_Finalize();
	return 0;
}
