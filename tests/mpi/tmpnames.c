/*
 * tmpnames.c - every rank writes a scratch file under a random name of
 * its own (mkstemp, as MPI libraries, HDF5's tools and checkpointers
 * name theirs), reads it back, renames it to another random name and
 * removes it, STEPS times, then all meet at a barrier.  The ranks do the
 * same thing with other names: a trace that stores their calls once.
 *
 * usage: tmpnames DIR [STEPS]
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char a[4096], b[4096], buf[512] = { 0 };
	int i, fd, steps;

	MPI_Init(&argc, &argv);
	if (argc < 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	steps = argc > 2 ? atoi(argv[2]) : 3;
	for (i = 0; i < steps; i++) {
		snprintf(a, sizeof(a), "%s/scratch-XXXXXX", argv[1]);
		snprintf(b, sizeof(b), "%s/kept-XXXXXX", argv[1]);
		if ((fd = mkstemp(a)) < 0 || write(fd, buf, sizeof(buf)) != sizeof(buf) ||
		    lseek(fd, 0, SEEK_SET) != 0 || read(fd, buf, sizeof(buf)) != sizeof(buf) ||
		    close(fd) < 0)
			MPI_Abort(MPI_COMM_WORLD, 1);
		/* the second name reserved by a file of its own, then replaced */
		if ((fd = mkstemp(b)) < 0 || close(fd) < 0 || rename(a, b) < 0 || unlink(b) < 0)
			MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
