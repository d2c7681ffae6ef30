/*
 * info - an MPI_Info with two hints, used to duplicate MPI_COMM_WORLD, read
 * back from the new communicator, duplicated and freed.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	MPI_Info info, dup, got;
	MPI_Comm comm;

	MPI_Init(&argc, &argv);
	MPI_Info_create(&info);
	MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
	MPI_Info_set(info, "tangram_note", "a b=\"c\"");
	MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comm);
	MPI_Info_dup(info, &dup);
	MPI_Comm_get_info(comm, &got);
	MPI_Info_free(&got);
	MPI_Info_free(&dup);
	MPI_Info_free(&info);
	MPI_Comm_free(&comm);
	MPI_Finalize();
	return 0;
}
