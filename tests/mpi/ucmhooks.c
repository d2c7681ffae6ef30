/*
 * ucmhooks - an MPI program that watches its own mappings through UCX's
 * memory hooks (UCM), as UCX's registration cache does: after MPI_Init it
 * asks UCM for the mmap and munmap events, maps and unmaps DIR/hooks-RANK
 * (4096 bytes, MAP_SHARED) with mmap, then with mmap64, and prints how
 * many events of each call UCM reported for those addresses.  Traced or
 * not, the counts must be the same.
 *
 * usage: ucmhooks DIR
 */
#define _GNU_SOURCE
#define _LARGEFILE64_SOURCE 1
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucm/api/ucm.h>
#include <unistd.h>

/* volatile: glibc declares mmap a leaf function, one that calls nothing
 * back here, and the compiler would keep the counts in registers */
static void *volatile watched;
static volatile int maps, unmaps;

static void seen(ucm_event_type_t type, ucm_event_t *ev, void *arg)
{
	(void)arg;
	if (type == UCM_EVENT_MMAP && ev->mmap.result == watched)
		maps++;
	if (type == UCM_EVENT_MUNMAP && ev->munmap.address == watched)
		unmaps++;
}

int main(int argc, char **argv)
{
	char path[4096];
	int rank, fd, round;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc != 2) {
		if (rank == 0)
			fputs("usage: ucmhooks DIR\n", stderr);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	if (ucm_set_event_handler(UCM_EVENT_MMAP | UCM_EVENT_MUNMAP, 1000, seen, NULL) != UCS_OK) {
		fputs("ucmhooks: no UCM events\n", stderr);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	snprintf(path, sizeof(path), "%s/hooks-%d", argv[1], rank);
	if ((fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644)) < 0 || ftruncate(fd, 4096) < 0) {
		perror(path);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	for (round = 0; round < 2; round++) {
		char *m;

		/* the address the next mapping gets: a probe mapped and
		 * unmapped before the watch is set */
		watched = NULL;
		m = round ? mmap64(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
			  : mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED) {
			perror("mmap");
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
		munmap(m, 4096);
		watched = m;
		maps = unmaps = 0;
		m = round ? mmap64(m, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0)
			  : mmap(m, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
		memset(m, 'a' + rank, 4096);
		munmap(m, 4096);
		printf("rank %d %s: %d mmap events, %d munmap events\n", rank,
		       round ? "mmap64" : "mmap", maps, unmaps);
	}
	close(fd);
	MPI_Finalize();
	return 0;
}
