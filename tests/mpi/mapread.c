/*
 * mapread - a rank reads another's output through a read-only mapping,
 * as a program maps its input: rank 0 writes 8 KiB to FILE and closes
 * it; rank 1 maps FILE (PROT_READ, MAP_PRIVATE), sums its bytes and
 * prints the sum:
 *
 *   barrier  after a barrier (session)
 *   nosync   0.3 s later, nothing between (a race)
 *
 *   mapread MODE FILE
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SIZE 8192

int main(int argc, char **argv)
{
	unsigned char buf[SIZE];
	const unsigned char *p;
	unsigned long sum = 0;
	int rank, fd, i;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc != 3)
		MPI_Abort(MPI_COMM_WORLD, 2);
	if (rank == 0) {
		for (i = 0; i < SIZE; i++)
			buf[i] = (unsigned char)(i % 251);
		fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, buf, SIZE) != SIZE || close(fd) != 0)
			MPI_Abort(MPI_COMM_WORLD, 1);
	}
	if (strcmp(argv[1], "barrier") == 0)
		MPI_Barrier(MPI_COMM_WORLD);
	else if (rank == 1)
		usleep(300000);
	if (rank == 1) {
		fd = open(argv[2], O_RDONLY);
		p = fd < 0 ? MAP_FAILED : mmap(NULL, SIZE, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED)
			MPI_Abort(MPI_COMM_WORLD, 1);
		close(fd);
		for (i = 0; i < SIZE; i++)
			sum += p[i];
		munmap((void *)p, SIZE);
		printf("sum %lu\n", sum);
	}
	MPI_Finalize();
	return 0;
}
