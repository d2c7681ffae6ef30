/*
 * H5sites.c - calls of every kind made from code the tracer takes as
 * HDF5's when the program links HDF5 in (h5pcc's default): this file's
 * name is an HDF5 source file's (H5*.c), its function H5_sites is named as
 * HDF5's are, and it has file-local functions of its own.  main makes a
 * marker call before and after (access("/", F_OK)); every call between
 * is to be recorded one deeper, with no parent, as HDF5's own would be.
 * Usage: H5sites DIR
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>
#include <mpi.h>

static void sites_posix(const char *dir, int rank)
{
	char p[512], q[512], b[8] = "x";
	struct flock lk = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1 };
	struct stat st;
	int fd;

	snprintf(p, sizeof(p), "%s/pos%d", dir, rank);
	snprintf(q, sizeof(q), "%s/pos%d.new", dir, rank);
	fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, b, 1) != 1 || pwrite(fd, b, 1, 8) != 1 || pread(fd, b, 1, 0) != 1)
		perror("posix");
	lseek(fd, 0, SEEK_SET);
	if (read(fd, b, 1) != 1 || fstat(fd, &st) != 0 || fcntl(fd, F_SETLKW, &lk) != 0 ||
	    flock(fd, LOCK_EX) != 0 || flock(fd, LOCK_UN) != 0 || ftruncate(fd, 4) != 0 ||
	    fsync(fd) != 0)
		perror("posix");
	close(fd);
	close(openat(AT_FDCWD, p, O_RDONLY));
	close(creat(q, 0644));
	if (stat(p, &st) != 0 || access(p, R_OK) != 0 || rename(q, p) != 0 || unlink(p) != 0)
		perror("names");
	snprintf(p, sizeof(p), "%s/dir%d", dir, rank);
	if (mkdir(p, 0755) != 0 || rmdir(p) != 0)
		perror("dirs");
}

static void sites_stdio(const char *dir, int rank)
{
	char p[512], b[8];
	FILE *f;

	snprintf(p, sizeof(p), "%s/std%d", dir, rank);
	if (!(f = fopen(p, "w+")))
		return;
	fprintf(f, "%d\n", rank);
	fputs("line\n", f);
	fwrite("x", 1, 1, f);
	fflush(f);
	rewind(f);
	if (!fgets(b, sizeof(b), f) || fread(b, 1, 1, f) != 1)
		perror("stdio");
	fclose(f);
	unlink(p);
}

static void sites_mpi(const char *dir, int rank)
{
	char p[512];
	MPI_File fh;
	MPI_Offset size;
	int v = rank, sum;

	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	snprintf(p, sizeof(p), "%s/sites.mpi", dir);
	MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
	MPI_File_write_at_all(fh, rank * 4, &v, 4, MPI_BYTE, MPI_STATUS_IGNORE);
	MPI_File_get_size(fh, &size);
	MPI_File_close(&fh);
}

void H5_sites(const char *dir, int rank);

void H5_sites(const char *dir, int rank)
{
	sites_posix(dir, rank);
	sites_stdio(dir, rank);
	sites_mpi(dir, rank);
}

int main(int argc, char **argv)
{
	unsigned maj, min, rel;
	int rank;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc != 2) {
		MPI_Finalize();
		return 2;
	}
	H5get_libversion(&maj, &min, &rel);
	if (access("/", F_OK) != 0)
		return 1;
	H5_sites(argv[1], rank);
	if (access("/", F_OK) != 0)
		return 1;
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		printf("HDF5 %u.%u.%u\n", maj, min, rel);
	MPI_Finalize();
	return 0;
}
