/*
 * neighbors - a neighbourhood collective orders what a rank's neighbours
 * did before it, and nothing else.  Three ranks in a line 0 - 1 - 2:
 * rank 0 writes 64 bytes and closes; all make one neighbourhood
 * collective; rank 1 (0's neighbour) reads them, ordered; rank 2 (not
 * 0's neighbour) reads them too, a race.  The line is
 *
 *   cart	MPI_Cart_create, 1-D, not periodic; MPI_Neighbor_alltoall
 *   cartdup	the same on an MPI_Comm_dup of it (a copy keeps its topology)
 *   cartsub	a 1 x size grid, its row taken by MPI_Cart_sub (remain_dims
 *		{0, 1}): a grid of its own, the line
 *   graph	MPI_Graph_create; MPI_Neighbor_allgather
 *   dist	MPI_Dist_graph_create_adjacent, each rank its two sides;
 *		MPI_Ineighbor_allgather and MPI_Wait
 *   distdup	the same on an MPI_Comm_dup of it
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "cart", *path = argc > 2 ? argv[2] : "nbr.dat";
	int rank, size, sb[2] = { 1, 2 }, rb[2], fd;
	char buf[64];
	MPI_Comm c, d;
	MPI_Request rq;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (strcmp(mode, "cartsub") == 0) {
		int dims[2] = { 1, size }, per[2] = { 0, 0 }, keep[2] = { 0, 1 };
		MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per, 0, &d);
		MPI_Cart_sub(d, keep, &c);
		MPI_Comm_free(&d);
	} else if (strncmp(mode, "cart", 4) == 0) {
		int dims[1] = { size }, per[1] = { 0 };
		MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &c);
	} else if (strcmp(mode, "graph") == 0) {
		int index[3] = { 1, 3, 4 }, edges[4] = { 1, 0, 2, 1 };
		MPI_Graph_create(MPI_COMM_WORLD, 3, index, edges, 0, &c);
	} else {
		int nb[2], n = 0;
		if (rank > 0)
			nb[n++] = rank - 1;
		if (rank < size - 1)
			nb[n++] = rank + 1;
		MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, n, nb, MPI_UNWEIGHTED, n, nb,
					       MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c);
	}
	if (strcmp(mode, "cartdup") == 0 || strcmp(mode, "distdup") == 0) {
		MPI_Comm_dup(c, &d);
		MPI_Comm_free(&c);
		c = d;
	}
	if (rank == 0) {
		memset(buf, 'w', sizeof(buf));
		fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			perror("write");
		close(fd);
	}
	if (strncmp(mode, "cart", 4) == 0) {
		MPI_Neighbor_alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, c);
	} else if (strcmp(mode, "graph") == 0) {
		MPI_Neighbor_allgather(sb, 1, MPI_INT, rb, 1, MPI_INT, c);
	} else {
		MPI_Ineighbor_allgather(sb, 1, MPI_INT, rb, 1, MPI_INT, c, &rq);
		MPI_Wait(&rq, MPI_STATUS_IGNORE);
	}
	if (rank == 1 || rank == 2) {
		fd = open(path, O_RDONLY);
		if (fd >= 0) {
			if (read(fd, buf, sizeof(buf)) < 0)
				perror("read");
			close(fd);
		}
	}
	printf("%d: ok\n", rank);
	MPI_Comm_free(&c);
	MPI_Finalize();
	return 0;
}
