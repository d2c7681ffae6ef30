/*
 * pmpi_counter - a tiny PMPI tool to stack with the tracer: counts the
 * calls of MPI_Send and prints "counter: N sends" at MPI_Finalize.
 */
#include <mpi.h>
#include <stdio.h>

static int sends;

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag,
	     MPI_Comm comm)
{
	sends++;
	return PMPI_Send(buf, count, type, dest, tag, comm);
}

int MPI_Finalize(void)
{
	printf("counter: %d sends\n", sends);
	fflush(stdout);
	return PMPI_Finalize();
}
