/*
 * mpiio-symlink - MPI_File_open of a path through a symbolic link to a
 * directory, on 2 ranks (MPI_COMM_SELF each); run in a directory holding
 * dirA/ and dirB/ and the links lnA -> dirA, lnB -> dirB.
 *
 *   two   rank 0 writes 64 bytes of lnA/data, rank 1 of lnB/data: two
 *         files, no pair
 *   one   rank 0 writes lnA/data, rank 1 reads dirA/data, nothing between
 *         them: one file, a race
 *
 * The tracer records a POSIX open by the kernel's name of the file and
 * MPI_File_open by the name the program gave; Open MPI opens its shared
 * pointer's file and a lock probe inside MPI_File_open before the file.
 */
#include <mpi.h>
#include <string.h>

int main(int argc, char **argv)
{
	int rank, one = argc > 1 && strcmp(argv[1], "one") == 0, rc;
	char buf[64];
	const char *name;
	MPI_File fh;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	memset(buf, 'a' + rank, sizeof(buf));
	name = rank == 0 ? "lnA/data" : one ? "dirA/data" : "lnB/data";
	rc = MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
			   &fh);
	if (rc == MPI_SUCCESS) {
		if (one && rank == 1)
			rc = MPI_File_read_at(fh, 0, buf, 64, MPI_BYTE, MPI_STATUS_IGNORE);
		else
			rc = MPI_File_write_at(fh, 0, buf, 64, MPI_BYTE, MPI_STATUS_IGNORE);
		MPI_File_close(&fh);
	}
	MPI_Finalize();
	return rc != MPI_SUCCESS;
}
