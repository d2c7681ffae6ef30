/*
 * sessions - a program of MPI sessions alone (no MPI_Init): each process
 * makes a communicator from the "mpi://WORLD" process set ("reversed":
 * its ranks in the opposite order); rank 0 writes 64 bytes, closes and
 * sends to world rank 1 over it, which then reads them (ordered); world
 * rank 2 reads them with nothing between (a race).  The tracer takes
 * that process set as the world: the streams are named by rank.
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void read_it(const char *path)
{
	char buf[64];
	int fd = open(path, O_RDONLY);

	if (fd >= 0) {
		if (read(fd, buf, sizeof(buf)) < 0)
			perror("read");
		close(fd);
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "plain", *path = argc > 2 ? argv[2] : "sess.dat";
	MPI_Session s;
	MPI_Group world, g;
	MPI_Comm c;
	int n, r, x = 1, rev = strcmp(mode, "reversed") == 0, ranks[64], i, fd;
	char buf[64];

	MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &s);
	MPI_Group_from_session_pset(s, "mpi://WORLD", &world);
	MPI_Group_size(world, &n);
	MPI_Group_rank(world, &r);
	if (rev && n <= 64) {
		for (i = 0; i < n; i++)
			ranks[i] = n - 1 - i;
		MPI_Group_incl(world, n, ranks, &g);
	} else {
		g = world;
	}
	if (r == 0)	/* made before the (collective) communicator */
		close(open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644));
	MPI_Comm_create_from_group(g, "org.tangram.tests.sessions", MPI_INFO_NULL,
				   MPI_ERRORS_ARE_FATAL, &c);
	if (r == 0) {
		memset(buf, 'w', sizeof(buf));
		fd = open(path, O_WRONLY);
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			perror("write");
		close(fd);
		MPI_Send(&x, 1, MPI_INT, rev ? n - 2 : 1, 0, c);
	} else if (r == 1) {
		MPI_Recv(&x, 1, MPI_INT, rev ? n - 1 : 0, 0, c, MPI_STATUS_IGNORE);
		read_it(path);
	} else if (r == 2) {
		read_it(path);
	}
	printf("%d: ok\n", r);
	MPI_Comm_free(&c);
	if (g != world)
		MPI_Group_free(&g);
	MPI_Group_free(&world);
	MPI_Session_finalize(&s);
	return 0;
}
