/*
 * mpix-pcoll.c - Open MPI 4.1's persistent collectives, MPI 4.0's
 * MPI_Barrier_init and MPI_Bcast_init under the names of its mpi-ext.h
 * (MPIX_*_init).  Three ranks; one persistent collective started twice:
 * rank 0 writes FILE and closes it between the two rounds, rank 1 reads
 * it after the second.  The mode is the first argument:
 *   barrier  MPIX_Barrier_init: ordered
 *   bcast    MPIX_Bcast_init, root 0: ordered (rank 0 gives to rank 1)
 *   early    MPIX_Barrier_init, rank 1 reading after the first round: a race
 *
 * usage: mpix-pcoll MODE FILE
 */
#include <fcntl.h>
#include <mpi.h>
#include <mpi-ext.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	MPI_Request q;
	char b[64];
	int me, x = 0, round, fd;
	const char *mode = argc > 1 ? argv[1] : "barrier";

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	if (argc < 3)
		MPI_Abort(MPI_COMM_WORLD, 2);
	if (strcmp(mode, "bcast") == 0)
		MPIX_Bcast_init(&x, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &q);
	else
		MPIX_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &q);
	for (round = 0; round < 2; round++) {
		MPI_Start(&q);
		MPI_Wait(&q, MPI_STATUS_IGNORE);
		if (round == 0 && me == 0) {
			memset(b, 'A', sizeof(b));
			if ((fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0 ||
			    write(fd, b, sizeof(b)) != (ssize_t)sizeof(b) || close(fd) != 0)
				MPI_Abort(MPI_COMM_WORLD, 1);
		}
		if (me == 1 && round == (strcmp(mode, "early") == 0 ? 0 : 1)) {
			if (strcmp(mode, "early") == 0)
				usleep(200000);
			memset(b, 0, sizeof(b));
			if ((fd = open(argv[2], O_RDONLY)) >= 0) {
				if (read(fd, b, sizeof(b)) < 0)
					b[0] = 0;
				close(fd);
			}
		}
	}
	MPI_Request_free(&q);
	printf("%d: ok\n", me);
	MPI_Finalize();
	return 0;
}
