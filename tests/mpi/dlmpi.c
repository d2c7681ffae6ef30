/*
 * dlmpi - an MPI program whose MPI library is not in the global scope, as
 * under Python's mpi4py: the main program links no MPI; it loads a part
 * (this file built with -DPART into a shared object that links libmpi)
 * with dlopen(RTLD_LOCAL) and runs it.  The part writes each rank's block
 * of FILE with MPI-IO, syncs, barriers, syncs, reads its neighbour's
 * block and says "R: ok" when it holds what that rank wrote.
 *   mpicc -DPART -shared -fPIC -o libdlmpi.so dlmpi.c
 *   cc -o dlmpi dlmpi.c -ldl
 *   mpirun -n 2 ./dlmpi ./libdlmpi.so FILE
 */
#include <stdio.h>

#ifdef PART
#include <mpi.h>

int part_main(const char *path)
{
	int rank, size, i, bad = 0, out[16], in[16];
	MPI_File fh;

	MPI_Init(NULL, NULL);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (i = 0; i < 16; i++)
		out[i] = rank * 100 + i;
	MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
	MPI_File_write_at(fh, (MPI_Offset)rank * sizeof(out), out, 16, MPI_INT, MPI_STATUS_IGNORE);
	MPI_File_sync(fh);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_File_sync(fh);
	MPI_File_read_at(fh, (MPI_Offset)((rank + 1) % size) * sizeof(in), in, 16, MPI_INT,
			 MPI_STATUS_IGNORE);
	MPI_File_close(&fh);
	for (i = 0; i < 16; i++)
		bad |= in[i] != ((rank + 1) % size) * 100 + i;
	printf("%d: %s\n", rank, bad ? "wrong" : "ok");
	MPI_Finalize();
	return bad;
}
#else
#include <dlfcn.h>

int main(int argc, char **argv)
{
	void *part;
	int (*run)(const char *);

	if (argc != 3) {
		fprintf(stderr, "usage: dlmpi PART FILE\n");
		return 2;
	}
	if (!(part = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL)) ||
	    !(run = (int (*)(const char *))dlsym(part, "part_main"))) {
		fprintf(stderr, "dlmpi: %s\n", dlerror());
		return 2;
	}
	return run(argv[2]);
}
#endif
