/*
 * bitflip - flip every bit of a file in turn and run a command on each
 * damaged copy: the command must either refuse it (exit 2, exactly one line
 * on standard error) or print exactly what it prints for the intact file
 * (exit 0, nothing on standard error).  A test tool for the integrity of
 * the trace formats (tests/integrity.bats).
 *
 *   bitflip [-h] [-i input] FILE COMMAND [ARG ...]
 *
 * In the arguments, "{}" stands for the file (first the intact FILE, then
 * the damaged copy, FILE.flip).  With -i, the command reads that file on
 * standard input every time.  Each run gets 20 seconds.  Prints one line
 * per flip that breaks the rule ("bit N: why"), then a summary line
 * "BITS bits: S same output, R refused, B wrong"; exits 0 when B is 0, 1
 * when it is not, 2 on bad usage or when the intact file is refused.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

struct result {
	int status;		/* exit status, or 128 + signal */
	char *out;		/* standard output */
	size_t outlen;
	int errlines;		/* lines on standard error */
	char errfirst[200];	/* the first of them */
};

static void usage(FILE *f)
{
	fprintf(f, "usage: bitflip [-h] [-i input] FILE COMMAND [ARG ...]\n");
}

/* Everything @fd holds, from its start. */
static char *slurp(int fd, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *b = malloc(cap);
	ssize_t got;

	lseek(fd, 0, SEEK_SET);
	while (b && (got = read(fd, b + n, cap - n)) > 0) {
		n += (size_t)got;
		if (n == cap) {
			char *nb = realloc(b, cap *= 2);
			if (!nb)
				free(b);
			b = nb;
		}
	}
	*len = n;
	return b;
}

static void run(char **argv, const char *path, const char *input, struct result *res)
{
	FILE *o = tmpfile(), *e = tmpfile();
	char **av;
	int i, n, st;
	pid_t pid;
	char *err;
	size_t errlen, k;

	for (n = 0; argv[n]; n++)
		;
	av = calloc((size_t)n + 1, sizeof(*av));
	if (!o || !e || !av) {
		perror("bitflip");
		exit(2);
	}
	for (i = 0; i < n; i++)
		av[i] = strcmp(argv[i], "{}") == 0 ? (char *)path : argv[i];
	pid = fork();
	if (pid == 0) {
		int in = open(input ? input : "/dev/null", O_RDONLY);
		dup2(in, 0);
		dup2(fileno(o), 1);
		dup2(fileno(e), 2);
		alarm(20);
		execvp(av[0], av);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	res->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	res->out = slurp(fileno(o), &res->outlen);
	err = slurp(fileno(e), &errlen);
	res->errlines = 0;
	res->errfirst[0] = 0;
	for (k = 0; err && k < errlen; k++)
		res->errlines += err[k] == '\n';
	if (err && errlen && err[errlen - 1] != '\n')
		res->errlines++;
	if (err) {	/* not NUL-terminated */
		const char *nl = memchr(err, '\n', errlen);
		snprintf(res->errfirst, sizeof(res->errfirst), "%.*s",
			 (int)(nl ? nl - err : (long)errlen), err);
	}
	free(err);
	fclose(o);
	fclose(e);
	free(av);
}

int main(int argc, char **argv)
{
	const char *input = NULL, *file;
	char flip[4096];
	struct result ref, r;
	unsigned char *data;
	size_t len, bit, same = 0, refused = 0, wrong = 0;
	int c, fd;

	while ((c = getopt(argc, argv, "+hi:")) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return 0;
		case 'i':
			input = optarg;
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind < 2) {
		usage(stderr);
		return 2;
	}
	file = argv[optind];
	fd = open(file, O_RDONLY);
	if (fd < 0 || !(data = (unsigned char *)slurp(fd, &len))) {
		fprintf(stderr, "bitflip: cannot read '%s': %s\n", file, strerror(errno));
		return 2;
	}
	close(fd);
	run(argv + optind + 1, file, input, &ref);
	if (ref.status != 0 || ref.errlines) {
		fprintf(stderr, "bitflip: the intact file: exit %d, %d lines on stderr: %s\n",
			ref.status, ref.errlines, ref.errfirst);
		return 2;
	}
	snprintf(flip, sizeof(flip), "%s.flip", file);
	for (bit = 0; bit < 8 * len; bit++) {
		data[bit / 8] ^= (unsigned char)(1u << bit % 8);
		fd = open(flip, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, data, len) != (ssize_t)len || close(fd) < 0) {
			fprintf(stderr, "bitflip: cannot write '%s': %s\n", flip, strerror(errno));
			return 2;
		}
		data[bit / 8] ^= (unsigned char)(1u << bit % 8);
		run(argv + optind + 1, flip, input, &r);
		if (r.status == 0 && r.errlines == 0 && r.outlen == ref.outlen &&
		    memcmp(r.out, ref.out, r.outlen) == 0) {
			same++;
		} else if (r.status == 2 && r.errlines == 1) {
			refused++;
		} else {
			wrong++;
			printf("bit %zu (byte %zu): exit %d, %d lines on stderr%s%s, output %s\n",
			       bit, bit / 8, r.status, r.errlines, r.errlines ? ": " : "",
			       r.errfirst, r.outlen == ref.outlen &&
			       memcmp(r.out, ref.out, r.outlen) == 0 ? "the same" : "different");
		}
		free(r.out);
	}
	unlink(flip);
	printf("%zu bits: %zu same output, %zu refused, %zu wrong\n", 8 * len, same, refused,
	       wrong);
	free(ref.out);
	free(data);
	return wrong ? 1 : 0;
}
