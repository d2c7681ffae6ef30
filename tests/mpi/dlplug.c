/*
 * dlplug.c - a plug-in one rank makes and another loads with dlopen, as
 * programs that compile code at run time do (DOLFIN's forms, OpenFOAM's
 * dynamic code).  Rank 0 copies the shared object SRC to DEST with read
 * and write; rank 1 loads DEST and calls its tg_plug_value().  Modes:
 *
 *   sync     rank 0 closes DEST, then a barrier, then rank 1 loads it
 *            (session)
 *   race     no barrier: rank 1 waits, by stat, until DEST has SRC's
 *            size and loads it (a race: nothing orders the copy before
 *            the load)
 *   search   as sync, and rank 1 also loads SRC's base name without a
 *            directory, which the loader finds only in the program's own
 *            RUNPATH (link it with -Wl,-rpath,SRC's directory): a wrapper
 *            that called the loader itself would lose it
 *
 * usage: dlplug MODE SRC DEST   (2 ranks)
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int copy(const char *from, const char *to)
{
	char b[4096];
	ssize_t n;
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755), rc = 0;

	if (in < 0 || out < 0)
		return -1;
	while ((n = read(in, b, sizeof(b))) > 0)
		if (write(out, b, (size_t)n) != n)
			rc = -1;
	if (n < 0 || close(out) != 0)
		rc = -1;
	close(in);
	return rc;
}

/* tg_plug_value() of the object @name loads, or -1. */
static int value(const char *name)
{
	void *h = dlopen(name, RTLD_NOW);
	int (*f)(void) = h ? (int (*)(void))dlsym(h, "tg_plug_value") : NULL;

	return f ? f() : -1;
}

int main(int argc, char **argv)
{
	struct stat src, st;
	const char *mode, *base;
	int rank;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc != 4 || stat(argv[2], &src) != 0)
		MPI_Abort(MPI_COMM_WORLD, 2);
	mode = argv[1];
	if (rank == 0 && copy(argv[2], argv[3]) != 0)
		MPI_Abort(MPI_COMM_WORLD, 1);
	if (strcmp(mode, "race") != 0)
		MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 1) {
		while (stat(argv[3], &st) != 0 || st.st_size != src.st_size)
			usleep(1000);
		printf("loaded %d\n", value(argv[3]));
		if (strcmp(mode, "search") == 0) {
			base = strrchr(argv[2], '/') ? strrchr(argv[2], '/') + 1 : argv[2];
			printf("found %d\n", value(base));
		}
	}
	if (strcmp(mode, "race") == 0)
		MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
