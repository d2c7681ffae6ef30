/*
 * append - every rank appends lines to one log opened with O_APPEND, as
 * programs that share a log file do; rank 0 creates it empty first.
 *   append FILE [LINES [together|turns|stdio|child]]
 * together: all ranks at once, each write on its own; nothing orders the
 *   appends of two ranks: only atomic appends (posix) keep every line.
 * turns: rank r opens, appends and closes after rank r - 1 sent it a
 *   token, then sends one on: each append finds an end a closed file
 *   made (session).
 * stdio: as together, through fopen "a" and fflush.
 * child: rank 0 writes LINES lines, then a shell it starts appends one
 *   ("echo >>"), then rank 1 reads it all after a barrier.
 * After a barrier rank 0 reads the log and prints "N lines of M", and
 * whether each rank's lines are all there, in its order.
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void append_lines(const char *path, int rank, int n, int use_stdio)
{
	char line[64];
	int i, len;

	if (use_stdio) {
		FILE *f = fopen(path, "a");
		if (!f)
			MPI_Abort(MPI_COMM_WORLD, 1);
		for (i = 0; i < n; i++) {
			fprintf(f, "rank %4d line %6d\n", rank, i);
			fflush(f);
		}
		if (fclose(f))
			MPI_Abort(MPI_COMM_WORLD, 1);
		return;
	}
	int fd = open(path, O_WRONLY | O_APPEND);
	if (fd < 0)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (i = 0; i < n; i++) {
		len = snprintf(line, sizeof(line), "rank %4d line %6d\n", rank, i);
		if (write(fd, line, (size_t)len) != len)
			MPI_Abort(MPI_COMM_WORLD, 1);
	}
	if (close(fd))
		MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv)
{
	int rank, size, n, fd, token = 0;
	const char *mode;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	n = argc > 2 ? atoi(argv[2]) : 100;
	mode = argc > 3 ? argv[3] : "together";
	if (rank == 0) {
		if ((fd = open(argv[1], O_CREAT | O_TRUNC | O_WRONLY, 0644)) < 0 || close(fd))
			MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (strcmp(mode, "turns") == 0) {
		if (rank > 0)
			MPI_Recv(&token, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		append_lines(argv[1], rank, n, 0);
		if (rank + 1 < size)
			MPI_Send(&token, 1, MPI_INT, rank + 1, 0, MPI_COMM_WORLD);
	} else if (strcmp(mode, "child") == 0) {
		if (rank == 0) {
			char cmd[4200];
			append_lines(argv[1], rank, n, 0);
			snprintf(cmd, sizeof(cmd), "echo 'from a shell' >> '%s'", argv[1]);
			if (system(cmd) != 0)
				MPI_Abort(MPI_COMM_WORLD, 1);
		}
	} else {
		append_lines(argv[1], rank, n, strcmp(mode, "stdio") == 0);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == (strcmp(mode, "child") == 0 ? 1 : 0)) {
		FILE *f = fopen(argv[1], "r");
		char line[64];
		int lines = 0, r, i, *next = calloc((size_t)size, sizeof(int)), ordered = 1;
		if (!f || !next)
			MPI_Abort(MPI_COMM_WORLD, 1);
		while (fgets(line, sizeof(line), f)) {
			lines++;
			if (sscanf(line, "rank %d line %d", &r, &i) == 2 && r >= 0 && r < size) {
				if (i != next[r])
					ordered = 0;
				next[r] = i + 1;
			}
		}
		fclose(f);
		for (r = 0; r < size; r++)
			if (next[r] != (strcmp(mode, "child") == 0 && r > 0 ? 0 : n))
				ordered = 0;
		printf("%d lines of %d, %s\n", lines,
		       strcmp(mode, "child") == 0 ? n + 1 : n * size,
		       ordered ? "every rank's in order" : "LOST OR OUT OF ORDER");
		free(next);
	}
	MPI_Finalize();
	return 0;
}
