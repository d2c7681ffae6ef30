/*
 * pscw.c - a file handed over by general active target synchronisation
 * (MPI_Win_post, MPI_Win_start, MPI_Win_complete, MPI_Win_wait).
 *
 * Rank 0 exposes a window to the other ranks; each of them is an origin
 * of one access epoch on it.  Modes:
 *
 *   put     each origin writes its block of FILE (open, pwrite, close),
 *           then starts, puts a flag and completes; rank 0 posts, waits,
 *           then opens FILE and reads every block: MPI_Win_wait returns
 *           only after every origin's MPI_Win_complete began (session)
 *   test    as put, rank 0 polls MPI_Win_test until it is done (session)
 *   early   as put, but rank 0 reads FILE between its post and its wait
 *           (a race)
 *   get     rank 0 writes FILE and closes it, then posts; each origin
 *           starts, gets a word of the window, completes, then reads
 *           rank 0's block: its get read the window after the post, so
 *           the read follows the post (session)
 *   noget   as get without the get: MPI_Win_start need not wait for the
 *           post, nor MPI_Win_complete of an empty epoch (a race)
 *   get0    as get with a get of no element, which reads nothing (a race)
 *   other   as put, but rank 0's post names only rank 1 (by
 *           MPI_Group_excl of the window's group) and the others' epochs
 *           are on rank 1, which posts for them; rank 0 still reads every
 *           block after its wait (a race: nothing orders rank 2's write
 *           before it)
 *
 * Groups are made as programs make them: MPI_Win_get_group and
 * MPI_Group_incl for rank 0's, MPI_Comm_group and MPI_Group_incl for an
 * origin's, MPI_Group_excl and MPI_Group_union in mode other.
 *
 * usage: pscw MODE FILE   (2 or more ranks)
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCK 64

static void put_block(const char *path, int me, int flags)
{
	char b[BLOCK];
	int fd = open(path, O_WRONLY | flags, 0644);

	if (fd < 0)
		MPI_Abort(MPI_COMM_WORLD, 1);
	memset(b, 'A' + me % 26, sizeof(b));
	if (pwrite(fd, b, sizeof(b), (off_t)me * BLOCK) != (ssize_t)sizeof(b))
		MPI_Abort(MPI_COMM_WORLD, 1);
	close(fd);
}

/* Read blocks lo..hi of @path; how many held their writer's bytes. */
static int read_blocks(const char *path, int lo, int hi)
{
	char b[BLOCK];
	int fd = open(path, O_RDONLY), i, good = 0;

	if (fd < 0)
		return 0;
	for (i = lo; i <= hi; i++)
		if (pread(fd, b, sizeof(b), (off_t)i * BLOCK) == (ssize_t)sizeof(b) &&
		    b[0] == 'A' + i % 26)
			good++;
	close(fd);
	return good;
}

/* Write this rank's block, then an access epoch on world rank @target of
 * @win (its group made from @cg) that adds one to its word. */
static void hand_over(const char *path, int me, MPI_Group cg, int target, MPI_Win win)
{
	MPI_Group g;
	int one = 1;

	put_block(path, me, 0);
	MPI_Group_incl(cg, 1, &target, &g);
	MPI_Win_start(g, 0, win);
	MPI_Accumulate(&one, 1, MPI_INT, target, 0, 1, MPI_INT, MPI_SUM, win);
	MPI_Win_complete(win);
	MPI_Group_free(&g);
}

int main(int argc, char **argv)
{
	int me, n, i, *base, word = 0, flag = 0, good = -1;
	int *ranks;
	const char *mode, *path;
	MPI_Group wg, cg, g, g2, g3;
	MPI_Win win;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	if (argc < 3 || n < 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	mode = argv[1];
	path = argv[2];
	ranks = malloc(sizeof(int) * n);
	for (i = 0; i < n; i++)
		ranks[i] = i;
	MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
	*base = 0;
	MPI_Win_get_group(win, &wg);
	MPI_Comm_group(MPI_COMM_WORLD, &cg);
	if (me == 0) {
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			MPI_Abort(MPI_COMM_WORLD, 1);
		close(fd);
	}
	MPI_Barrier(MPI_COMM_WORLD);

	if (strcmp(mode, "put") == 0 || strcmp(mode, "test") == 0 ||
	    strcmp(mode, "early") == 0) {
		if (me == 0) {
			MPI_Group_incl(wg, n - 1, ranks + 1, &g);
			MPI_Win_post(g, 0, win);
			if (strcmp(mode, "early") == 0)
				good = read_blocks(path, 1, n - 1);
			if (strcmp(mode, "test") == 0)
				while (!flag)
					MPI_Win_test(win, &flag);
			else
				MPI_Win_wait(win);
			if (good < 0)
				good = read_blocks(path, 1, n - 1);
			printf("rank 0 read %d of %d blocks, flag %d\n", good, n - 1, *base);
			MPI_Group_free(&g);
		} else {
			hand_over(path, me, cg, 0, win);
		}
	} else if (strcmp(mode, "get") == 0 || strcmp(mode, "noget") == 0 ||
		   strcmp(mode, "get0") == 0) {
		if (me == 0) {
			put_block(path, 0, 0);
			*base = 7;
			MPI_Group_incl(wg, n - 1, ranks + 1, &g);
			MPI_Win_post(g, 0, win);
			MPI_Win_wait(win);
		} else {
			MPI_Group_incl(cg, 1, ranks, &g);
			MPI_Win_start(g, 0, win);
			if (strcmp(mode, "noget") != 0) {
				int k = strcmp(mode, "get0") != 0;
				MPI_Get(&word, k, MPI_INT, 0, 0, k, MPI_INT, win);
			}
			MPI_Win_complete(win);
			good = read_blocks(path, 0, 0);
			printf("rank %d read %d of 1 blocks, word %d\n", me, good, word);
		}
		MPI_Group_free(&g);
	} else if (strcmp(mode, "other") == 0) {
		/* origins 1 (on rank 0) and 2.. (on rank 1) */
		if (me == 0) {
			int ex[1] = { 0 };
			MPI_Group_excl(wg, 1, ex, &g2);		/* 1..n-1 */
			MPI_Group_incl(wg, 1, ranks + 1, &g3);	/* 1 */
			MPI_Group_intersection(g2, g3, &g);	/* 1 */
			MPI_Group_free(&g2);
			MPI_Group_free(&g3);
			MPI_Win_post(g, 0, win);
			MPI_Win_wait(win);
			good = read_blocks(path, 1, n - 1);
			printf("rank 0 read %d of %d blocks\n", good, n - 1);
			MPI_Group_free(&g);
		} else if (me == 1) {
			hand_over(path, me, cg, 0, win);
			if (n > 2) {
				MPI_Group_incl(cg, 1, ranks + 2, &g2);
				MPI_Group_incl(cg, n - 2, ranks + 2, &g3);
				MPI_Group_union(g2, g3, &g);	/* 2..n-1 */
				MPI_Group_free(&g2);
				MPI_Group_free(&g3);
				MPI_Win_post(g, 0, win);
				MPI_Win_wait(win);
				MPI_Group_free(&g);
			}
		} else {
			hand_over(path, me, cg, 1, win);
		}
	} else {
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	MPI_Group_free(&wg);
	MPI_Group_free(&cg);
	MPI_Win_free(&win);
	free(ranks);
	MPI_Finalize();
	return 0;
}
