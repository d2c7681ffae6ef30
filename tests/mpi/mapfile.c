/*
 * mapfile - an MPI program that writes a file through mmap after MPI_Init:
 * each rank maps DIR/map-RANK (4096 bytes, MAP_SHARED), fills it with its
 * letter, msyncs, unmaps and closes it.
 *
 * usage: mapfile DIR
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[4096], *m;
	int rank, fd;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc != 2) {
		if (rank == 0)
			fputs("usage: mapfile DIR\n", stderr);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	snprintf(path, sizeof(path), "%s/map-%d", argv[1], rank);
	if ((fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644)) < 0 || ftruncate(fd, 4096) < 0 ||
	    (m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
		perror(path);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	memset(m, 'a' + rank, 4096);
	msync(m, 4096, MS_SYNC);
	munmap(m, 4096);
	close(fd);
	MPI_Finalize();
	return 0;
}
