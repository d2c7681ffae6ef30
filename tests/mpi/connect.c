/*
 * connect - two processes of one job joined by MPI_Open_port,
 * MPI_Comm_accept and MPI_Comm_connect, each on MPI_COMM_SELF, as a server
 * and a client started apart would be; the server writes and closes a
 * file, then orders it before the client's read through the new
 * intercommunicator, as MODE says.
 *
 *   connect FILE msg|bar|merge|none    (2 ranks)
 *
 * msg: a message from the server to the client; bar: MPI_Barrier on the
 * intercommunicator; merge: MPI_Intercomm_merge, then a barrier on the
 * merged communicator; none: nothing (a race).  The client prints what it
 * read: "rank 1: read 64" (or fewer when it came first).
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char port[MPI_MAX_PORT_NAME] = "", buf[64];
	const char *mode = argc > 2 ? argv[2] : "none";
	int rank, v = 1, fd, n = -1;
	MPI_Comm ic, mc;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc < 3) {
		if (rank == 0)
			fprintf(stderr, "usage: connect FILE msg|bar|merge|none\n");
		MPI_Finalize();
		return 2;
	}
	if (rank == 0)
		MPI_Open_port(MPI_INFO_NULL, port);
	MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
	if (rank == 0)
		MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic);
	else
		MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic);
	if (rank == 0) {
		memset(buf, 'S', sizeof(buf));
		fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			MPI_Abort(MPI_COMM_WORLD, 1);
		close(fd);
	}
	if (!strcmp(mode, "msg")) {
		if (rank == 0)
			MPI_Send(&v, 1, MPI_INT, 0, 0, ic);
		else
			MPI_Recv(&v, 1, MPI_INT, 0, 0, ic, MPI_STATUS_IGNORE);
	} else if (!strcmp(mode, "bar")) {
		MPI_Barrier(ic);
	} else if (!strcmp(mode, "merge")) {
		MPI_Intercomm_merge(ic, rank, &mc);
		MPI_Barrier(mc);
		MPI_Comm_free(&mc);
	}
	if (rank == 1) {
		/* (made if it is not there yet: a read before the write
		 * still meets it) */
		if ((fd = open(argv[1], O_RDONLY | O_CREAT, 0644)) >= 0) {
			n = (int)read(fd, buf, sizeof(buf));
			close(fd);
		}
		printf("rank 1: read %d\n", n);
	}
	MPI_Comm_disconnect(&ic);
	if (rank == 0)
		MPI_Close_port(port);
	MPI_Finalize();
	return 0;
}
