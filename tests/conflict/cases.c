/*
 * cases - small MPI programs, one per I/O synchronisation case, selected by
 * the first argument; run on 2 ranks, files in the working directory.
 *
 *   raw-s       rank 0 writes 100 bytes of "f" and reads them back
 *   raw-s-sync  the same with fsync between the write and the read
 *   raw-d       rank 0 writes and closes "f"; barrier; rank 1 opens, reads
 *   waw-d       rank 0 writes "f" (no close), sends a token; rank 1, on the
 *               token, writes the same bytes through its own descriptor
 *   waw-s       rank 0 writes the same bytes twice, no fsync between
 *   waw-s-sync  the same with fsync between
 *   append      both ranks append 10 lines each to "log" (O_APPEND), in turns
 *   race        both ranks write the same 100 bytes of "f", no synchronisation
 *   strided     MPI-IO: each rank writes every other 64-byte block of "f"
 *               through a vector file view (no overlap between ranks)
 *   overlap     MPI-IO: both ranks write_at_all the same 64 bytes, then
 *               rank 1 reads them after a barrier
 *   stat-open   rank 0 writes "f" and keeps it open; barrier; rank 1 looks at
 *               its size with stat(2) (the path, no descriptor); barrier
 *   stat-closed the same, but rank 0 closes "f" before the barrier
 *   trunc-open  rank 0 writes "f" and keeps it open; barrier; rank 1
 *               truncates it to 10 bytes with truncate(2); barrier
 *   trunc-closed the same, but rank 0 closes "f" before the first barrier
 *   unlink-race  "f" made and closed by rank 0; barrier; rank 0 removes it
 *               with unlink(2) while rank 1 makes it anew and writes it,
 *               nothing between the two
 *   unlink-barrier the same with a barrier after the unlink
 *   delete-race  the same through MPI-IO: rank 0's MPI_File_delete, then
 *               MPI_File_open(MPI_MODE_CREATE) on both ranks, no barrier
 *   delete-barrier the same with a barrier after the delete
 *   missing-race rank 1 opens "f" to read it at once and finds none
 *               (ENOENT); rank 0 makes "f" and writes it 100 ms later,
 *               nothing between the two
 *   missing-ordered the same, but rank 1 sends rank 0 a token after its
 *               open, and rank 0 makes "f" when it has it
 *   missing-mpiio the same race through MPI-IO: rank 1's
 *               MPI_File_open(MPI_COMM_SELF, "f", read only) fails
 *   missing-stat the same race, rank 1 asking with stat(2) whether "f"
 *               is there (a program waiting for its input)
 *   missing-access the same with access(2) (gfortran's INQUIRE(EXIST=))
 *   unlink-link  (run where "ln" is a symbolic link to the directory
 *               "real") rank 0 makes ln/f, writes it, removes it by that
 *               name and keeps it open; barrier; rank 1 makes real/f anew
 *               (O_EXCL) and writes it; barrier; rank 0 closes: two files
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char buf[100], back[100];

static int wr(int fd)
{
	return pwrite(fd, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf) ? 0 : 1;
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";
	int rank, size, fd = -1, bad = 0, i, token = 1;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	memset(buf, 'a' + rank, sizeof(buf));
	if (!strcmp(c, "raw-s") || !strcmp(c, "raw-s-sync")) {
		if (rank == 0) {
			fd = open("f", O_CREAT | O_RDWR | O_TRUNC, 0644);
			bad |= wr(fd);
			if (!strcmp(c, "raw-s-sync"))
				fsync(fd);
			bad |= pread(fd, back, sizeof(back), 0) != (ssize_t)sizeof(back);
			close(fd);
		}
	} else if (!strcmp(c, "raw-d")) {
		if (rank == 0) {
			fd = open("f", O_CREAT | O_WRONLY | O_TRUNC, 0644);
			bad |= wr(fd);
			close(fd);
		}
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == 1) {
			fd = open("f", O_RDONLY);
			bad |= read(fd, back, sizeof(back)) != (ssize_t)sizeof(back);
			close(fd);
		}
	} else if (!strcmp(c, "waw-d")) {
		if (rank == 0) {
			fd = open("f", O_CREAT | O_WRONLY | O_TRUNC, 0644);
			bad |= wr(fd);
			MPI_Send(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
			MPI_Recv(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			close(fd);
		} else if (rank == 1) {
			MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			fd = open("f", O_WRONLY);
			bad |= wr(fd);
			close(fd);
			MPI_Send(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
		}
	} else if (!strcmp(c, "waw-s") || !strcmp(c, "waw-s-sync")) {
		if (rank == 0) {
			fd = open("f", O_CREAT | O_WRONLY | O_TRUNC, 0644);
			bad |= wr(fd);
			if (!strcmp(c, "waw-s-sync"))
				fsync(fd);
			bad |= wr(fd);
			close(fd);
		}
	} else if (!strcmp(c, "append")) {
		if (rank == 0)
			close(open("log", O_CREAT | O_WRONLY | O_TRUNC, 0644));
		MPI_Barrier(MPI_COMM_WORLD);
		fd = open("log", O_WRONLY | O_APPEND);
		for (i = 0; i < 10; i++) {
			int r;
			for (r = 0; r < size; r++) {
				if (r == rank) {
					char line[32];
					int n = snprintf(line, sizeof(line), "rank %d line %d\n", rank, i);
					bad |= write(fd, line, (size_t)n) != n;
				}
				MPI_Barrier(MPI_COMM_WORLD);
			}
		}
		close(fd);
	} else if (!strcmp(c, "race")) {
		if (rank == 0)
			close(open("f", O_CREAT | O_WRONLY | O_TRUNC, 0644));
		MPI_Barrier(MPI_COMM_WORLD);
		fd = open("f", O_WRONLY);
		bad |= wr(fd);	/* no order between the ranks' writes */
		close(fd);
	} else if (!strcmp(c, "strided") || !strcmp(c, "overlap")) {
		MPI_File fh;
		MPI_Datatype vec;
		int data[64];
		for (i = 0; i < 64; i++)
			data[i] = rank;
		MPI_File_open(MPI_COMM_WORLD, "f", MPI_MODE_CREATE | MPI_MODE_RDWR,
			      MPI_INFO_NULL, &fh);
		if (!strcmp(c, "strided")) {
			MPI_Type_vector(4, 16, 16 * size, MPI_INT, &vec);
			MPI_Type_commit(&vec);
			MPI_File_set_view(fh, (MPI_Offset)rank * 64, MPI_INT, vec, "native",
					  MPI_INFO_NULL);
			MPI_File_write_all(fh, data, 64, MPI_INT, MPI_STATUS_IGNORE);
			MPI_Type_free(&vec);
		} else {
			MPI_File_write_at_all(fh, 0, data, 16, MPI_INT, MPI_STATUS_IGNORE);
			MPI_File_sync(fh);
			MPI_Barrier(MPI_COMM_WORLD);
			if (rank == 1)
				MPI_File_read_at(fh, 0, data, 16, MPI_INT, MPI_STATUS_IGNORE);
		}
		MPI_File_close(&fh);
	} else if (!strncmp(c, "stat-", 5) || !strncmp(c, "trunc-", 6)) {
		int open_ = strstr(c, "-open") != NULL;
		struct stat st;
		if (rank == 0) {
			fd = open("f", O_CREAT | O_WRONLY | O_TRUNC, 0644);
			bad |= wr(fd);
			if (!open_)
				close(fd);
		}
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == 1 && c[0] == 's')
			bad |= stat("f", &st) != 0 || st.st_size != (off_t)sizeof(buf);
		else if (rank == 1)
			bad |= truncate("f", 10) != 0;
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == 0 && open_)
			close(fd);
	} else if (!strncmp(c, "missing-", 8)) {
		int ordered = !strcmp(c, "missing-ordered");
		if (rank == 0) {
			if (ordered)
				MPI_Recv(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			else
				usleep(100000);
			fd = open("f", O_CREAT | O_WRONLY | O_TRUNC, 0644);
			bad |= wr(fd);
			close(fd);
		} else if (rank == 1 && !strcmp(c, "missing-stat")) {
			struct stat st;
			if (stat("f", &st) == 0)	/* late: it found the file */
				bad |= st.st_size < 0;
		} else if (rank == 1 && !strcmp(c, "missing-access")) {
			bad |= access("f", F_OK) == 0 && access("f", R_OK) != 0;
		} else if (rank == 1 && !strcmp(c, "missing-mpiio")) {
			MPI_File fh;
			if (MPI_File_open(MPI_COMM_SELF, "f", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) ==
			    MPI_SUCCESS)	/* late: it found the file */
				MPI_File_close(&fh);
		} else if (rank == 1) {
			if ((fd = open("f", O_RDONLY)) >= 0) {	/* late: it read them */
				bad |= pread(fd, back, sizeof(back), 0) < 0;
				close(fd);
			}
			if (ordered)
				MPI_Send(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
		}
	} else if (!strcmp(c, "unlink-link")) {
		if (rank == 0) {
			fd = open("ln/f", O_CREAT | O_RDWR | O_TRUNC, 0644);
			bad |= wr(fd);
			bad |= unlink("ln/f") != 0;
		}
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == 1) {
			fd = open("real/f", O_CREAT | O_EXCL | O_RDWR, 0644);
			bad |= wr(fd);
			close(fd);
		}
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == 0)
			close(fd);
	} else if (!strncmp(c, "unlink-", 7) || !strncmp(c, "delete-", 7)) {
		int barrier = strstr(c, "-barrier") != NULL;
		MPI_File fh;
		if (rank == 0)
			close(open("f", O_CREAT | O_WRONLY | O_TRUNC, 0644));
		MPI_Barrier(MPI_COMM_WORLD);
		if (c[0] == 'u') {
			if (rank == 0)
				bad |= unlink("f") != 0;
			if (barrier)
				MPI_Barrier(MPI_COMM_WORLD);
			if (rank == 1) {
				fd = open("f", O_CREAT | O_WRONLY | O_TRUNC, 0644);
				bad |= wr(fd);
				close(fd);
			}
		} else {
			if (rank == 0)
				bad |= MPI_File_delete("f", MPI_INFO_NULL) != MPI_SUCCESS;
			if (barrier)
				MPI_Barrier(MPI_COMM_WORLD);
			MPI_File_open(MPI_COMM_WORLD, "f", MPI_MODE_CREATE | MPI_MODE_WRONLY,
				      MPI_INFO_NULL, &fh);
			MPI_File_write_at(fh, rank * 100, buf, 100, MPI_CHAR, MPI_STATUS_IGNORE);
			MPI_File_close(&fh);
		}
	} else {
		if (rank == 0)
			fprintf(stderr, "cases: unknown case '%s'\n", c);
		bad = 1;
	}
	MPI_Finalize();
	return bad;
}
