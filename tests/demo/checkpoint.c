/*
 * checkpoint - the bundled example: a toy simulation that writes a
 * checkpoint file in fixed-size segments through POSIX calls, appends a
 * line per step to a log through stdio, then reads the checkpoint back and
 * checks it.  Usage: checkpoint DIR [steps]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SEG 4096

int main(int argc, char **argv)
{
	char path[4096], logpath[4096], buf[SEG], back[SEG];
	int steps = argc > 2 ? atoi(argv[2]) : 4, s, fd;
	FILE *log;

	if (argc < 2) {
		fprintf(stderr, "usage: checkpoint dir [steps]\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/ckpt.dat", argv[1]);
	snprintf(logpath, sizeof(logpath), "%s/run.log", argv[1]);
	log = fopen(logpath, "w");
	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (!log || fd < 0) {
		perror("open");
		return 1;
	}
	for (s = 0; s < steps; s++) {
		memset(buf, 'a' + s % 26, sizeof(buf));
		if (pwrite(fd, buf, SEG, (off_t)s * SEG) != SEG) {
			perror("pwrite");
			return 1;
		}
		fprintf(log, "step %d wrote %d bytes at %d\n", s, SEG, s * SEG);
	}
	fsync(fd);
	for (s = 0; s < steps; s++) {
		memset(buf, 'a' + s % 26, sizeof(buf));
		if (pread(fd, back, SEG, (off_t)s * SEG) != SEG || memcmp(buf, back, SEG)) {
			fprintf(stderr, "checkpoint: step %d read back wrong\n", s);
			return 1;
		}
	}
	close(fd);
	fclose(log);
	printf("checkpoint: %d steps, %d bytes verified\n", steps, steps * SEG);
	return 0;
}
