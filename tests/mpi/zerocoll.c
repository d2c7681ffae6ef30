/*
 * zerocoll OP HOW FILE - does a collective that moves no data order
 * anything?  On 2 ranks, rank 1 writes 64 bytes of FILE (pwrite, fsync,
 * close) after a pause, then calls collective OP; rank 0 calls OP, then
 * reads FILE and prints how many bytes it found.
 *
 * HOW is "zero" (every count 0: nothing goes from rank 1 to rank 0, so MPI
 * orders nothing and MPICH returns at once on rank 0: a race), "flow" (an
 * int goes from rank 1 to rank 0: ordered) or "back" (an int goes from rank
 * 0 to rank 1 only: a race).  OP is one of alltoall, alltoallv, alltoallw,
 * ialltoallv, allgather, allgatherv, gather, gatherv, scatter, scatterv,
 * reduce, allreduce, reduce_scatter, reduce_scatter_block, scan, exscan,
 * bcast; inplace-allreduce and inplace-allgather take MPI_IN_PLACE.  Roots
 * are rank 0 for gathers and reductions, rank 1 for scatters and bcast.
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int is(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

int main(int argc, char **argv)
{
	int rank, n, one, x[2] = { 7, 7 }, y[2] = { 0, 0 };
	int sc[2] = { 0, 0 }, rc[2] = { 0, 0 }, dsp[2] = { 0, 1 };
	MPI_Datatype ty[2] = { MPI_INT, MPI_INT };
	MPI_Request rq;
	const char *op, *how;
	char buf[64];
	ssize_t got;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	if (argc != 4 || n != 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	op = argv[1];
	how = argv[2];
	/* "flow": rank 1 gives rank 0 one int; "back": rank 0 gives rank 1 */
	one = is(how, "zero") ? 0 : 1;
	if (is(how, "flow")) {
		sc[0] = rank == 1;	/* rank 1 sends to rank 0 */
		rc[1] = rank == 0;	/* rank 0 receives from rank 1 */
	} else if (is(how, "back")) {
		sc[1] = rank == 0;
		rc[0] = rank == 1;
	}
	if (rank == 1) {
		int fd = open(argv[3], O_WRONLY | O_CREAT, 0644);

		usleep(300000);
		memset(buf, 'w', sizeof(buf));
		if (fd < 0 || pwrite(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf) ||
		    fsync(fd) != 0 || close(fd) != 0)
			MPI_Abort(MPI_COMM_WORLD, 3);
	}
	if (is(op, "alltoall"))
		MPI_Alltoall(x, one, MPI_INT, y, one, MPI_INT, MPI_COMM_WORLD);
	else if (is(op, "alltoallv"))
		MPI_Alltoallv(x, sc, dsp, MPI_INT, y, rc, dsp, MPI_INT, MPI_COMM_WORLD);
	else if (is(op, "alltoallw")) {
		int bd[2] = { 0, (int)sizeof(int) };
		MPI_Alltoallw(x, sc, bd, ty, y, rc, bd, ty, MPI_COMM_WORLD);
	} else if (is(op, "ialltoallv")) {
		MPI_Ialltoallv(x, sc, dsp, MPI_INT, y, rc, dsp, MPI_INT, MPI_COMM_WORLD, &rq);
		MPI_Wait(&rq, MPI_STATUS_IGNORE);
	} else if (is(op, "allgather"))
		MPI_Allgather(x, one, MPI_INT, y, one, MPI_INT, MPI_COMM_WORLD);
	else if (is(op, "inplace-allgather"))
		MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, y, one, MPI_INT, MPI_COMM_WORLD);
	else if (is(op, "allgatherv")) {
		/* rank r gives what "flow" or "back" says it sends */
		int mine = sc[0] + sc[1], cnt[2] = { is(how, "back"), is(how, "flow") };
		MPI_Allgatherv(x, mine, MPI_INT, y, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
	} else if (is(op, "gather"))
		MPI_Gather(x, is(how, "zero") ? 0 : 1, MPI_INT, y, one, MPI_INT, 0, MPI_COMM_WORLD);
	else if (is(op, "gatherv")) {
		int cnt[2] = { 0, one };
		MPI_Gatherv(x, rank == 1 ? one : 0, MPI_INT, y, cnt, dsp, MPI_INT, 0,
			    MPI_COMM_WORLD);
	} else if (is(op, "scatter"))
		MPI_Scatter(x, one, MPI_INT, y, one, MPI_INT, 1, MPI_COMM_WORLD);
	else if (is(op, "scatterv")) {
		int cnt[2] = { one, 0 };
		MPI_Scatterv(x, cnt, dsp, MPI_INT, y, rank == 0 ? one : 0, MPI_INT, 1,
			     MPI_COMM_WORLD);
	} else if (is(op, "reduce"))
		MPI_Reduce(x, y, one, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	else if (is(op, "allreduce"))
		MPI_Allreduce(x, y, one, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	else if (is(op, "inplace-allreduce"))
		MPI_Allreduce(MPI_IN_PLACE, y, one, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	else if (is(op, "reduce_scatter")) {
		int cnt[2] = { one, 0 };	/* rank 0 gets the sum of one int */
		MPI_Reduce_scatter(x, y, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	} else if (is(op, "reduce_scatter_block"))
		MPI_Reduce_scatter_block(x, y, one, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	else if (is(op, "scan"))
		MPI_Scan(x, y, one, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	else if (is(op, "exscan"))
		MPI_Exscan(x, y, one, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	else if (is(op, "bcast"))
		MPI_Bcast(x, one, MPI_INT, 1, MPI_COMM_WORLD);
	else
		MPI_Abort(MPI_COMM_WORLD, 2);
	if (rank == 0) {
		int fd = open(argv[3], O_RDONLY);

		got = fd < 0 ? -1 : pread(fd, buf, sizeof(buf), 0);
		if (fd >= 0)
			close(fd);
		printf("%s %s: rank 0 read %zd bytes\n", op, how, got);
	}
	MPI_Finalize();
	return 0;
}
