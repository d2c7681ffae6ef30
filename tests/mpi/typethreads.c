/*
 * typethreads - datatypes made while another thread of the process makes
 * traced calls: each rank's main thread, ROUNDS times (argument 1, 200 by
 * default), builds a struct of N doubles 8 bytes apart from byte 4 (N from
 * 2,000 to 2,999, so that each type's record is tens of KiB and fills the
 * thread's buffer), sets it as the view of "tt.dat" at the rank's own
 * region, writes N doubles, and frees it; then writes an int before them
 * and one after them through a type of two blocks, which reuses the id,
 * and frees that.  A second thread writes a byte to a file of its own
 * every 200 us.  The ranks' regions do not overlap: no pair.  Prints each
 * round's range.
 */
#include <fcntl.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile int stop;

static void *ticker(void *arg)
{
	int fd = open((const char *)arg, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	while (fd >= 0 && !stop && write(fd, "x", 1) == 1)
		usleep(200);
	if (fd >= 0)
		close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	static MPI_Aint disp[3000];
	static int len[3000];
	static MPI_Datatype types[3000];
	static double data[3000];
	int rank, provided, rounds = argc > 1 ? atoi(argv[1]) : 200, bad = 0;
	char log[32];
	MPI_Offset at;
	pthread_t th;
	MPI_File fh;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	snprintf(log, sizeof(log), "ticker.%d", rank);
	pthread_create(&th, NULL, ticker, log);
	MPI_File_open(MPI_COMM_WORLD, "tt.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
		      &fh);
	at = (MPI_Offset)rank * 64 * 1024 * 1024;
	for (int k = 0; k < rounds; k++) {
		int n = 2000 + (k * 37) % 1000;
		MPI_Datatype t;
		for (int i = 0; i < n; i++) {
			disp[i] = 4 + 8 * i;
			len[i] = 1;
			types[i] = MPI_DOUBLE;
			data[i] = k;
		}
		bad |= MPI_Type_create_struct(n, len, disp, types, &t) != MPI_SUCCESS;
		bad |= MPI_Type_commit(&t) != MPI_SUCCESS;
		bad |= MPI_File_set_view(fh, at, MPI_BYTE, t, "native", MPI_INFO_NULL) != MPI_SUCCESS;
		bad |= MPI_File_write(fh, data, n, MPI_DOUBLE, MPI_STATUS_IGNORE) != MPI_SUCCESS;
		bad |= MPI_Type_free(&t) != MPI_SUCCESS;
		/* then an int on each side of the doubles, through a type
		 * of two blocks, which takes the id the big one had */
		{
			MPI_Aint d2[2] = { 0, 8 * (MPI_Aint)n + 4 };
			int l2[2] = { 1, 1 }, mark[2] = { n, k };
			MPI_Datatype t2[2] = { MPI_INT, MPI_INT }, m;
			bad |= MPI_Type_create_struct(2, l2, d2, t2, &m) != MPI_SUCCESS;
			bad |= MPI_Type_commit(&m) != MPI_SUCCESS;
			bad |= MPI_File_set_view(fh, at, MPI_BYTE, m, "native",
						 MPI_INFO_NULL) != MPI_SUCCESS;
			bad |= MPI_File_write(fh, mark, 2, MPI_INT, MPI_STATUS_IGNORE) !=
			       MPI_SUCCESS;
			bad |= MPI_Type_free(&m) != MPI_SUCCESS;
		}
		printf("rank %d round %d: [%lld,%lld)\n", rank, k, (long long)at,
		       (long long)at + 8 * n + 8);
		at += 8 * n + 8;
		usleep(2000);
	}
	stop = 1;
	pthread_join(th, NULL);
	MPI_File_close(&fh);
	MPI_Finalize();
	return bad;
}
