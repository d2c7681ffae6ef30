/*
 * lifecycle - I/O before MPI_Init and after MPI_Finalize: each rank
 * appends a line to before.txt with fopen/fwrite/fclose and asks
 * MPI_Initialized, then after MPI_Finalize asks MPI_Finalized and
 * writes "after" to standard output with write(2).
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int flag = -1;
	FILE *f;

	if (!(f = fopen("before.txt", "a")))
		return 1;
	fwrite("before\n", 1, 7, f);
	fclose(f);
	MPI_Initialized(&flag);
	MPI_Init(&argc, &argv);
	MPI_Initialized(&flag);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	MPI_Finalized(&flag);
	write(1, "after\n", 6);
	return 0;
}
