/*
 * sieve-write - an ordinary MPI-IO program whose independent writes ROMIO
 * turns into data-sieving read-modify-writes under fcntl record locks, for
 * make bench to run on the burst-buffer directory and, unmodified, on
 * TangramFS through libtfs-posix.so (where every lock and unlock is a
 * request to the server).
 *
 * usage: sieve-write FILE BLOCK WRITES
 * The ranks share FILE, interleaved: rank r owns block r of every row of
 * nprocs blocks of BLOCK bytes (a vector filetype as its view).  Each rank
 * makes WRITES independent MPI_File_write calls of 64 of its blocks: the
 * holes between them are the others' blocks, so ROMIO reads the whole
 * extent, fills in its blocks and writes it back, under a write lock of
 * the extent.  The file is opened before the clock starts and closed
 * inside it.  Rank 0 prints the aggregate bandwidth in MiB/s over the
 * slowest rank's time, the CPU seconds of all ranks, and whether the file
 * read back holds every rank's blocks (ok, or the first wrong offset).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define PER_CALL 64

static double cpu_now(void)
{
	struct rusage r;

	getrusage(RUSAGE_SELF, &r);
	return (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
	       (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
}

int main(int argc, char **argv)
{
	MPI_Datatype vec0, vec;
	MPI_File fh;
	MPI_Offset size;
	char *buf, *all;
	int rank, np, bad = 0, anybad;
	long b, m;
	double t0, dt, worst, cpu, cpus;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	if (argc != 4 || (b = strtol(argv[2], NULL, 10)) < 1 ||
	    (m = strtol(argv[3], NULL, 10)) < 1) {
		if (rank == 0)
			fputs("usage: sieve-write FILE BLOCK WRITES\n", stderr);
		MPI_Abort(MPI_COMM_WORLD, 2);
		return 2;
	}
	if (!(buf = malloc((size_t)b * PER_CALL)))
		MPI_Abort(MPI_COMM_WORLD, 2);
	memset(buf, 'a' + rank % 26, (size_t)b * PER_CALL);
	MPI_Type_vector(PER_CALL, (int)b, (int)b * np, MPI_BYTE, &vec0);
	MPI_Type_create_resized(vec0, 0, (MPI_Aint)b * np * PER_CALL, &vec);
	MPI_Type_free(&vec0);
	MPI_Type_commit(&vec);
	MPI_File_delete(argv[1], MPI_INFO_NULL);
	MPI_Barrier(MPI_COMM_WORLD);
	if (MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR,
			  MPI_INFO_NULL, &fh) != MPI_SUCCESS) {
		fprintf(stderr, "sieve-write: cannot open %s\n", argv[1]);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	MPI_File_set_view(fh, (MPI_Offset)rank * b, MPI_BYTE, vec, "native", MPI_INFO_NULL);
	MPI_Barrier(MPI_COMM_WORLD);
	cpu = cpu_now();
	t0 = MPI_Wtime();
	for (long i = 0; i < m; i++)
		if (MPI_File_write(fh, buf, (int)(b * PER_CALL), MPI_BYTE,
				   MPI_STATUS_IGNORE) != MPI_SUCCESS)
			MPI_Abort(MPI_COMM_WORLD, 2);
	MPI_File_close(&fh);
	dt = MPI_Wtime() - t0;
	cpu = cpu_now() - cpu;
	MPI_Reduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	MPI_Reduce(&cpu, &cpus, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);

	/* every block must be its owner's: a read-modify-write that ran
	 * unguarded puts a neighbour's old bytes back over it */
	size = (MPI_Offset)np * b * PER_CALL * m;
	if (rank == 0) {
		if (!(all = malloc((size_t)size)))
			MPI_Abort(MPI_COMM_WORLD, 2);
		MPI_File_open(MPI_COMM_SELF, argv[1], MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
		MPI_File_read_at(fh, 0, all, (int)size, MPI_BYTE, MPI_STATUS_IGNORE);
		MPI_File_close(&fh);
		for (MPI_Offset o = 0; o < size && !bad; o++)
			if (all[o] != 'a' + (int)(o / b % np) % 26) {
				printf("sieve-write: byte %lld is 0x%02x, not rank %d's\n",
				       (long long)o, (unsigned char)all[o], (int)(o / b % np));
				bad = 1;
			}
		free(all);
	}
	MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (rank == 0) {
		MPI_File_delete(argv[1], MPI_INFO_NULL);
		printf("%.1f %.3f %s\n", (double)np * (double)m * (double)b * PER_CALL / worst / (1 << 20),
		       cpus, anybad ? "wrong" : "ok");
	}
	MPI_Type_free(&vec);
	free(buf);
	MPI_Finalize();
	return anybad;
}
