/*
 * filecoll - what orders rank 0's write before rank 1's read of the same
 * bytes, on 2 ranks: filecoll MODE FILE
 *
 * MPI-IO: rank 0 writes 64 bytes with MPI_File_write_at, both ranks make
 * file collectives, rank 1 reads them with MPI_File_read_at:
 *   sync2     MPI_File_sync twice, no barrier: nothing orders them (MPI
 *             4.1 §14.6.10; ROMIO's sync sends nothing)
 *   sbs       MPI_File_sync, MPI_Barrier, MPI_File_sync: ordered
 *   setsize   MPI_File_set_size: ROMIO communicates inside it, which
 *             orders the POSIX accesses (not the MPI-IO ones)
 * stdio: the file is empty; rank 1 reads 64 bytes of it while rank 0
 * writes them 0.2 s later with write(2), nothing ordering the two; the
 * read meets the end of the file (a race either way):
 *   fread, fgets, fgetc, getline
 * Prints what rank 1 read.
 */
#include <mpi.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[65] = { 0 };
	long got = -1;
	int rank;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc != 3) {
		if (rank == 0)
			fprintf(stderr, "usage: filecoll MODE FILE\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	const char *m = argv[1], *path = argv[2];
	int stdio = !strcmp(m, "fread") || !strcmp(m, "fgets") || !strcmp(m, "fgetc") ||
		    !strcmp(m, "getline");

	if (stdio) {
		if (rank == 0)
			close(open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644));
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == 0) {
			int fd = open(path, O_WRONLY);
			usleep(200000);
			memset(buf, 'A', 64);
			if (fd < 0 || write(fd, buf, 64) != 64)
				MPI_Abort(MPI_COMM_WORLD, 1);
			close(fd);
		} else {
			FILE *f = fopen(path, "r");
			if (!f)
				MPI_Abort(MPI_COMM_WORLD, 1);
			if (!strcmp(m, "fread"))
				got = (long)fread(buf, 1, 64, f);
			else if (!strcmp(m, "fgets"))
				got = fgets(buf, sizeof(buf), f) ? (long)strlen(buf) : 0;
			else if (!strcmp(m, "getline")) {
				char *line = NULL;
				size_t cap = 0;
				ssize_t n = getline(&line, &cap, f);
				got = n > 0 ? (long)n : 0;
				free(line);
			}
			else
				got = fgetc(f) != EOF;
			fclose(f);
		}
	} else {
		MPI_File fh;
		MPI_Status st;

		MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
			      MPI_INFO_NULL, &fh);
		if (rank == 0) {
			memset(buf, 'A', 64);
			MPI_File_write_at(fh, 0, buf, 64, MPI_CHAR, &st);
		}
		if (!strcmp(m, "sync2")) {
			MPI_File_sync(fh);
			MPI_File_sync(fh);
		} else if (!strcmp(m, "sbs")) {
			MPI_File_sync(fh);
			MPI_Barrier(MPI_COMM_WORLD);
			MPI_File_sync(fh);
		} else if (!strcmp(m, "setsize")) {
			MPI_File_set_size(fh, 128);
		} else {
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
		if (rank == 1) {
			MPI_File_read_at(fh, 0, buf, 64, MPI_CHAR, &st);
			MPI_Get_count(&st, MPI_CHAR, &rank);
			got = rank;
			rank = 1;
		}
		MPI_File_close(&fh);
	}
	if (rank == 1)
		printf("%s: rank 1 read %ld bytes\n", m, got);
	MPI_Finalize();
	return 0;
}
