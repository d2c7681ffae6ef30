/*
 * tail - every rank but 0 appends LINES lines to FILE (O_APPEND, one
 * write each) while rank 0 reads it again and again, as "tail -f" does:
 *   tail FILE LINES
 * Rank 0 creates FILE empty first.  Each read of the whole file must
 * show whole lines only, with no byte that was never written (a NUL)
 * and no line of a rank out of its order: an append is seen whole or not
 * at all.  Rank 0 prints "lines N of M, torn T" at the end: the lines of
 * its last read, which begins after every append returned, and how many
 * reads were not whole.
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* 1 when @buf (@n bytes) is whole lines "rank R line I", each rank's in
 * order from 0; the lines into *@lines. */
static int whole(const char *buf, size_t n, int size, int *lines)
{
	int *next = calloc((size_t)size, sizeof(int)), ok = 1, r, i;
	size_t at = 0;

	if (!next)
		MPI_Abort(MPI_COMM_WORLD, 1);
	*lines = 0;
	while (at < n && ok) {
		const char *nl = memchr(buf + at, '\n', n - at);

		if (!nl || memchr(buf + at, '\0', (size_t)(nl - buf) - at) ||
		    sscanf(buf + at, "rank %d line %d", &r, &i) != 2 || r <= 0 || r >= size ||
		    i != next[r]) {
			ok = 0;
			break;
		}
		next[r]++;
		(*lines)++;
		at = (size_t)(nl - buf) + 1;
	}
	free(next);
	return ok;
}

int main(int argc, char **argv)
{
	int rank, size, n, fd = -1, done = 0, torn = 0, lines = 0;
	MPI_Request req;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 3 || size < 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	n = atoi(argv[2]);
	if (rank == 0) {
		if ((fd = open(argv[1], O_CREAT | O_TRUNC | O_WRONLY, 0644)) < 0 || close(fd))
			MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank > 0) {
		char line[64];
		int len;

		if ((fd = open(argv[1], O_WRONLY | O_APPEND)) < 0)
			MPI_Abort(MPI_COMM_WORLD, 1);
		for (int i = 0; i < n; i++) {
			len = snprintf(line, sizeof(line), "rank %4d line %6d\n", rank, i);
			if (write(fd, line, (size_t)len) != len)
				MPI_Abort(MPI_COMM_WORLD, 1);
		}
		if (close(fd))
			MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Ibarrier(MPI_COMM_WORLD, &req);
	if (rank == 0) {
		size_t cap = (size_t)n * (size_t)size * 32 + 1;
		char *buf = malloc(cap);

		if (!buf || (fd = open(argv[1], O_RDONLY)) < 0)
			MPI_Abort(MPI_COMM_WORLD, 1);
		/* the last read starts after every append returned */
		while (!done) {
			ssize_t r, got = 0;

			MPI_Test(&req, &done, MPI_STATUS_IGNORE);
			while ((r = pread(fd, buf + got, cap - (size_t)got, got)) > 0)
				got += r;
			if (r < 0)
				MPI_Abort(MPI_COMM_WORLD, 1);
			if (!whole(buf, (size_t)got, size, &lines))
				torn++;
		}
		close(fd);
		free(buf);
		printf("lines %d of %d, torn %d\n", lines, n * (size - 1), torn);
	} else {
		MPI_Wait(&req, MPI_STATUS_IGNORE);
	}
	MPI_Finalize();
	return 0;
}
