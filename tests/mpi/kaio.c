/*
 * kaio - Linux's own AIO (io_submit, io_getevents) and io_uring, made by
 * number through syscall(), as fio's engines and programs without libaio
 * make them: rank 0 writes FILE, rank 1 reads it.
 *
 *   kaio MODE FILE
 *
 * MODE:
 *   done    rank 0 submits a 4 KiB write and a vectored one after it,
 *           waits for both events, closes, a barrier, rank 1 reads both
 *           (session)
 *   early   the same, but the barrier comes before rank 0 waits for the
 *           events: rank 1's read may meet the writes in flight (a race)
 *   uring   rank 0 makes an io_uring (its I/O is the kernel's): recorded,
 *           its bytes counted as unplaced
 */
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

static char buf[8192], buf2[4096];

static void check(long r, const char *what)
{
	if (r < 0) {
		perror(what);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

int main(int argc, char **argv)
{
	aio_context_t ctx = 0;
	struct iocb cb[2], *list[2] = { &cb[0], &cb[1] };
	struct io_event ev[2];
	struct iovec v = { buf2, sizeof(buf2) };
	int rank, fd, early, got;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc != 3)
		MPI_Abort(MPI_COMM_WORLD, 2);
	early = strcmp(argv[1], "early") == 0;
	if (strcmp(argv[1], "uring") == 0) {
		char params[120];	/* struct io_uring_params */
		memset(params, 0, sizeof(params));
		if (rank == 0) {
			fd = (int)syscall(SYS_io_uring_setup, 4, params);
			if (fd >= 0)
				close(fd);
		}
		MPI_Finalize();
		return 0;
	}
	if (rank == 0) {
		memset(buf, 'a', sizeof(buf));
		memset(buf2, 'b', sizeof(buf2));
		check(fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644), argv[2]);
		check(syscall(SYS_io_setup, 8, &ctx), "io_setup");
		memset(cb, 0, sizeof(cb));
		cb[0].aio_lio_opcode = IOCB_CMD_PWRITE;
		cb[0].aio_fildes = (unsigned)fd;
		cb[0].aio_buf = (unsigned long)buf;
		cb[0].aio_nbytes = sizeof(buf);
		cb[0].aio_offset = 0;
		cb[1].aio_lio_opcode = IOCB_CMD_PWRITEV;
		cb[1].aio_fildes = (unsigned)fd;
		cb[1].aio_buf = (unsigned long)&v;
		cb[1].aio_nbytes = 1;
		cb[1].aio_offset = sizeof(buf);
		if (syscall(SYS_io_submit, ctx, 2, list) != 2)
			check(-1, "io_submit");
		if (early)
			MPI_Barrier(MPI_COMM_WORLD);
		for (got = 0; got < 2;) {
			long n = syscall(SYS_io_getevents, ctx, 1, 2 - got, ev, NULL);
			check(n, "io_getevents");
			got += (int)n;
		}
		syscall(SYS_io_destroy, ctx);
		close(fd);
		if (!early)
			MPI_Barrier(MPI_COMM_WORLD);
	} else {
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == 1) {
			usleep(early ? 300000 : 0);
			check(fd = open(argv[2], O_RDONLY), argv[2]);
			check(pread(fd, buf, sizeof(buf), 0), "pread");
			check(pread(fd, buf2, sizeof(buf2), sizeof(buf)), "pread");
			close(fd);
		}
	}
	MPI_Finalize();
	return 0;
}
