/*
 * spawn - a process that starts another with MPI_Comm_spawn: the parent
 * (run on 1 rank) writes a file and closes it, the child reads it after a
 * barrier on the intercommunicator between them; both disconnect.
 *
 *   spawn FILE
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	MPI_Comm parent, child;
	char buf[16] = "";
	int fd, n = -1;

	MPI_Init(&argc, &argv);
	if (argc < 2) {
		fprintf(stderr, "usage: spawn FILE\n");
		MPI_Finalize();
		return 2;
	}
	MPI_Comm_get_parent(&parent);
	if (parent == MPI_COMM_NULL) {
		char *args[] = { argv[1], NULL };
		MPI_Comm_spawn(argv[0], args, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &child,
			       MPI_ERRCODES_IGNORE);
		fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, "from the parent", 16) != 16)
			MPI_Abort(MPI_COMM_WORLD, 1);
		close(fd);
		MPI_Barrier(child);
		MPI_Comm_disconnect(&child);
	} else {
		MPI_Barrier(parent);
		if ((fd = open(argv[1], O_RDONLY)) >= 0) {
			n = (int)read(fd, buf, sizeof(buf));
			close(fd);
		}
		printf("child: read %d\n", n);
		fflush(stdout);
		MPI_Comm_disconnect(&parent);
	}
	MPI_Finalize();
	return 0;
}
