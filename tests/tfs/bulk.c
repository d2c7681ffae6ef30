/*
 * bulk write PATH SIZE GAPS READY DONE: write SIZE bytes of a pattern to
 *   PATH, attach them, then attach GAPS one-byte ranges at every other byte
 *   of a second file PATH.g; touch READY; wait for DONE.
 * bulk read PATH SIZE GAPS: read the SIZE bytes from their owner
 *   (tfs_read_peer), check the pattern, query PATH.g; prints
 *   "peer: N ok|bad" and "query: M".
 * Bodies this large go by rendezvous on UCX; the query reply is GAPS * 24
 * bytes and more.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../tfs/tfs.h"

static unsigned char pat(size_t i)
{
	return (unsigned char)((i * 7 + i / 4099) & 0xff);
}

int main(int argc, char **argv)
{
	size_t size, gaps, i;
	tfs_file_t *f, *g;
	unsigned char *buf;

	if (argc < 4)
		return 2;
	size = strtoul(argv[3], NULL, 10);
	gaps = argc > 4 ? strtoul(argv[4], NULL, 10) : 0;
	if (!(buf = malloc(size ? size : 1)) || !(f = tfs_open(argv[2]))) {
		perror("bulk");
		return 1;
	}
	if (!strcmp(argv[1], "write") && argc == 7) {
		char gp[4096];

		for (i = 0; i < size; i++)
			buf[i] = pat(i);
		snprintf(gp, sizeof(gp), "%s.g", argv[2]);
		if (tfs_write(f, buf, size) != (ssize_t)size || tfs_attach(f, 0, size) < 0 ||
		    !(g = tfs_open(gp)) || tfs_write(g, buf, 2 * gaps) != (ssize_t)(2 * gaps)) {
			perror("bulk write");
			return 1;
		}
		for (i = 0; i < gaps; i++)
			if (tfs_attach(g, 2 * i, 1) < 0) {
				perror("bulk attach");
				return 1;
			}
		fclose(fopen(argv[5], "w"));
		for (i = 0; i < 3000 && access(argv[6], F_OK) < 0; i++)
			usleep(10000);
		return 0;
	}
	if (!strcmp(argv[1], "read")) {
		tfs_interval_t *v;
		char gp[4096];
		ssize_t r;
		int n;

		memset(buf, 0, size);
		if (tfs_query(f, 0, size, &v, &n) < 0 || n != 1) {
			printf("query: %s\n", strerror(errno));
			return 1;
		}
		r = tfs_read_peer(f, &v[0].owner, 0, size, buf);
		for (i = 0; r == (ssize_t)size && i < size && buf[i] == pat(i); i++)
			;
		printf("peer: %zd %s\n", r, i == size ? "ok" : "bad");
		free(v);
		snprintf(gp, sizeof(gp), "%s.g", argv[2]);
		if (!(g = tfs_open(gp)) || tfs_query_file(g, &v, &n) < 0) {
			printf("query: -1 %s\n", strerror(errno));
			return 1;
		}
		for (i = 0; i < (size_t)n && v[i].offset == 2 * i && v[i].size == 1; i++)
			;
		printf("query: %d %s\n", n, i == (size_t)n ? "ok" : "bad");
		free(v);
		return 0;
	}
	return 2;
}
