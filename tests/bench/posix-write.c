/*
 * posix-write - an ordinary MPI program that writes a file per rank with
 * write(2), for make bench to run straight on the burst-buffer directory
 * and, unmodified, on TangramFS through libtfs-posix.so.
 *
 * usage: posix-write DIR BYTES-PER-WRITE WRITES
 * Each rank opens DIR/pw-RANK (created, truncated) before the clock
 * starts, then after a barrier writes WRITES times BYTES-PER-WRITE and
 * closes it (under session and commit the close is the commit).  Rank 0
 * prints the aggregate bandwidth in MiB/s over the slowest rank's
 * write-and-close time, and the CPU seconds (user and system) all ranks
 * spent in it: on a machine shared with other jobs the second varies far
 * less than the first.  The files are removed afterwards.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[4096], *buf;
	int rank, np, fd;
	long s, m;
	double t0, dt, worst, cpu, cpus;
	struct rusage r0, r1;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	if (argc != 4 || (s = strtol(argv[2], NULL, 10)) < 1 || (m = strtol(argv[3], NULL, 10)) < 1) {
		if (rank == 0)
			fputs("usage: posix-write DIR BYTES-PER-WRITE WRITES\n", stderr);
		MPI_Abort(MPI_COMM_WORLD, 2);
		return 2;
	}
	if (!(buf = malloc((size_t)s)))
		MPI_Abort(MPI_COMM_WORLD, 2);
	memset(buf, 'w', (size_t)s);
	snprintf(path, sizeof(path), "%s/pw-%d", argv[1], rank);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0) {
		perror(path);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	getrusage(RUSAGE_SELF, &r0);
	t0 = MPI_Wtime();
	for (long i = 0; i < m; i++)
		if (write(fd, buf, (size_t)s) != s) {
			perror(path);
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
	if (close(fd) < 0) {
		perror(path);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	dt = MPI_Wtime() - t0;
	getrusage(RUSAGE_SELF, &r1);
	cpu = (double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec + r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) +
	      (double)(r1.ru_utime.tv_usec - r0.ru_utime.tv_usec + r1.ru_stime.tv_usec -
		       r0.ru_stime.tv_usec) / 1e6;
	MPI_Reduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	MPI_Reduce(&cpu, &cpus, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	MPI_Barrier(MPI_COMM_WORLD);
	unlink(path);
	if (rank == 0)
		printf("%.1f %.3f\n", (double)np * (double)m * (double)s / worst / (1 << 20), cpus);
	free(buf);
	MPI_Finalize();
	return 0;
}
