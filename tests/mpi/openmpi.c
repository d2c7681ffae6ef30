/*
 * A program of Open MPI's, built without Open MPI's headers (Debian ships
 * its runtime with nwchem-mpich, not its mpi.h): the few declarations it
 * needs, in Open MPI's ABI, where a communicator, a datatype, an info and
 * a file are pointers.  Each rank writes "out.RANK" with POSIX calls and
 * its rank into "shared" with MPI-IO, then reads its neighbour's back.
 *   cc -o openmpi openmpi.c /usr/lib/x86_64-linux-gnu/libmpi.so.40
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef void *MPI_Comm, *MPI_Datatype, *MPI_Info, *MPI_File;
typedef long long MPI_Offset;
extern char ompi_mpi_comm_world[], ompi_mpi_int[], ompi_mpi_info_null[];
int MPI_Init(int *, char ***);
int MPI_Comm_rank(MPI_Comm, int *);
int MPI_Comm_size(MPI_Comm, int *);
int MPI_Barrier(MPI_Comm);
int MPI_File_open(MPI_Comm, const char *, int, MPI_Info, MPI_File *);
int MPI_File_write_at(MPI_File, MPI_Offset, const void *, int, MPI_Datatype, void *);
int MPI_File_read_at(MPI_File, MPI_Offset, void *, int, MPI_Datatype, void *);
int MPI_File_close(MPI_File *);
int MPI_Finalize(void);
#define OMPI_MODE_CREATE 1	/* Open MPI's values of the MPI_MODE_ bits */
#define OMPI_MODE_RDWR 8

int main(int argc, char **argv)
{
	int rank, size, fd, got = -1;
	char name[32];
	MPI_File fh;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(ompi_mpi_comm_world, &rank);
	MPI_Comm_size(ompi_mpi_comm_world, &size);
	snprintf(name, sizeof(name), "out.%d", rank);
	fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "hello\n", 6) != 6 || close(fd) != 0)
		perror(name);
	if (MPI_File_open(ompi_mpi_comm_world, "shared", OMPI_MODE_CREATE | OMPI_MODE_RDWR,
			  ompi_mpi_info_null, &fh) != 0)
		return 1;
	MPI_File_write_at(fh, rank * (MPI_Offset)sizeof(int), &rank, 1, ompi_mpi_int, NULL);
	MPI_Barrier(ompi_mpi_comm_world);
	MPI_File_read_at(fh, ((rank + 1) % size) * (MPI_Offset)sizeof(int), &got, 1, ompi_mpi_int,
			 NULL);
	MPI_File_close(&fh);
	printf("rank %d of %d read %d\n", rank, size, got);
	MPI_Finalize();
	return 0;
}
