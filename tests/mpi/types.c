/*
 * types - derived datatypes: a vector of 4 doubles with stride 2
 * (MPI_Type_vector), and a struct of an int and that vector at the
 * offset of x (MPI_Type_create_struct, MPI_Aint displacements), sent by
 * rank 0 and received by rank 1, which prints what came.
 */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

struct rec {
	int n;
	double x[7];
};

int main(int argc, char **argv)
{
	struct rec r = { 0, { 0 } };
	int rank, i, len[2] = { 1, 1 };
	MPI_Aint disp[2] = { offsetof(struct rec, n), offsetof(struct rec, x) };
	MPI_Datatype vec, rect, types[2];
	MPI_Status st;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Type_vector(4, 1, 2, MPI_DOUBLE, &vec);
	types[0] = MPI_INT;
	types[1] = vec;
	MPI_Type_create_struct(2, len, disp, types, &rect);
	MPI_Type_commit(&rect);
	if (rank == 0) {
		r.n = 42;
		for (i = 0; i < 7; i++)
			r.x[i] = i + 0.5;
		MPI_Send(&r, 1, rect, 1, 5, MPI_COMM_WORLD);
	} else if (rank == 1) {
		MPI_Recv(&r, 1, rect, 0, 5, MPI_COMM_WORLD, &st);
		printf("%d:", r.n);
		for (i = 0; i < 7; i++)
			printf(" %g", r.x[i]);
		printf("\n");
	}
	MPI_Type_free(&rect);
	MPI_Type_free(&vec);
	MPI_Finalize();
	return 0;
}
