/*
 * comms - communicators on 4 ranks: MPI_Comm_split by parity with the
 * key -rank (so the members come in reverse order: [2,0] and [3,1]),
 * MPI_Comm_dup of the world, MPI_Comm_create from the group [3,1,0]
 * (MPI_Group_incl; rank 2 gets MPI_COMM_NULL), an intercommunicator
 * between the two halves of the split, a barrier on each, and
 * MPI_Comm_free of them all.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, n, sub, ranks[3] = { 3, 1, 0 };
	MPI_Comm half, dup, three, inter;
	MPI_Group world, g;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	MPI_Group_incl(world, 3, ranks, &g);
	MPI_Comm_create(MPI_COMM_WORLD, g, &three);
	/* the leader of each half is its highest world rank: 2 and 3 */
	MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 2 : 3, 99, &inter);
	MPI_Comm_remote_size(inter, &n);
	MPI_Comm_rank(half, &sub);
	MPI_Barrier(half);
	MPI_Barrier(dup);
	if (three != MPI_COMM_NULL) {
		MPI_Barrier(three);
		MPI_Comm_free(&three);
	}
	MPI_Barrier(inter);
	printf("%d: rank %d of its half, %d on the other side\n", rank, sub, n);
	MPI_Comm_free(&inter);
	MPI_Comm_free(&dup);
	MPI_Comm_free(&half);
	MPI_Group_free(&g);
	MPI_Group_free(&world);
	MPI_Finalize();
	return 0;
}
