/*
 * coll - one call of each collective family on MPI_COMM_WORLD (4 ranks),
 * roots 0 except MPI_Gatherv and MPI_Scatterv (root 1); where counts
 * vary, rank r gives r + 1 ints (v-collectives) or sends j + 1 ints to
 * rank j (MPI_Alltoallv).  Prints a checksum of what each rank received.
 */
#include <mpi.h>
#include <stdio.h>

#define N 4

int main(int argc, char **argv)
{
	int rank, size, i, sum = 0, one, all[N * N], big[N * N], cnt[N], dsp[N];
	int scnt[N], sdsp[N], rcnt[N], rdsp[N];
	MPI_Request rq;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != N)
		MPI_Abort(MPI_COMM_WORLD, 2);
	for (i = 0; i < N * N; i++)
		all[i] = rank * N + i;
	for (i = 0; i < N; i++) {
		cnt[i] = i + 1;		/* rank i gives i + 1 */
		dsp[i] = i * (i + 1) / 2;
		scnt[i] = i + 1;	/* to rank i, i + 1 */
		sdsp[i] = dsp[i];
		rcnt[i] = rank + 1;	/* from each, rank + 1 */
		rdsp[i] = i * (rank + 1);
	}
	one = rank;
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Bcast(&one, 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Reduce(&rank, &one, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	MPI_Allreduce(&rank, &one, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	sum += one;
	MPI_Gather(&rank, 1, MPI_INT, big, 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Gatherv(all, rank + 1, MPI_INT, big, cnt, dsp, MPI_INT, 1, MPI_COMM_WORLD);
	MPI_Scatter(all, 1, MPI_INT, &one, 1, MPI_INT, 0, MPI_COMM_WORLD);
	sum += one;
	MPI_Scatterv(all, cnt, dsp, MPI_INT, big, rank + 1, MPI_INT, 1, MPI_COMM_WORLD);
	MPI_Allgather(&rank, 1, MPI_INT, big, 1, MPI_INT, MPI_COMM_WORLD);
	MPI_Allgatherv(all, rank + 1, MPI_INT, big, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
	MPI_Alltoall(all, 1, MPI_INT, big, 1, MPI_INT, MPI_COMM_WORLD);
	MPI_Alltoallv(all, scnt, sdsp, MPI_INT, big, rcnt, rdsp, MPI_INT, MPI_COMM_WORLD);
	for (i = 0; i < N * (rank + 1); i++)
		sum += big[i];
	MPI_Reduce_scatter(all, big, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	sum += big[0];
	MPI_Scan(&rank, &one, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	sum += one;
	one = 0;
	MPI_Exscan(&rank, &one, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	sum += one;
	MPI_Ibcast(all, N, MPI_INT, 0, MPI_COMM_WORLD, &rq);
	MPI_Wait(&rq, MPI_STATUS_IGNORE);
	MPI_Iallreduce(&rank, &one, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq);
	MPI_Wait(&rq, MPI_STATUS_IGNORE);
	sum += one;
	printf("%d: %d\n", rank, sum);
	MPI_Finalize();
	return 0;
}
