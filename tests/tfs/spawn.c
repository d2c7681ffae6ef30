/*
 * spawn - posix_spawn and posix_spawnp on the mount, for tests/tfs.bats:
 * spawn OUT IN.  Writes "parent" to OUT (opened close-on-exec), then
 * spawns, waiting for each:
 *   1. /bin/echo child, its standard output a dup2 of OUT;
 *   2. cat, its standard input IN opened by a file action, its standard
 *      output OUT inherited as another descriptor (F_DUPFD, 10 or above)
 *      and moved to 1 by a dup2;
 *   3. /bin/sh -c 'echo shell' with no file actions, OUT on descriptor 1
 *      of this process (dup2'd there beforehand);
 *   4. cat of a file action opening a path on the mount that does not
 *      exist: the spawn fails with ENOENT, as in the child;
 * and writes "end" through its own descriptor.  Each line it prints says
 * how a spawn ended.  The shared offset puts every line after the last.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void report(const char *what, int rc, pid_t pid)
{
	int st = 0;

	if (rc != 0) {
		printf("%s: %s\n", what, strerror(rc));
		return;
	}
	waitpid(pid, &st, 0);
	printf("%s: exit %d\n", what, WIFEXITED(st) ? WEXITSTATUS(st) : 128);
}

int main(int argc, char **argv)
{
	posix_spawn_file_actions_t fa;
	char *echo[] = { "/bin/echo", "child", NULL }, *cat[] = { "cat", NULL },
	     *sh[] = { "/bin/sh", "-c", "echo shell", NULL };
	pid_t pid;
	int out, rc, saved, other;

	if (argc != 3) {
		fprintf(stderr, "usage: spawn OUT IN\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if ((out = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
		perror(argv[1]);
		return 1;
	}
	if (write(out, "parent\n", 7) != 7)
		return 1;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, out, 1);
	rc = posix_spawn(&pid, echo[0], &fa, NULL, echo, environ);
	report("echo", rc, pid);
	posix_spawn_file_actions_destroy(&fa);

	if ((other = fcntl(out, F_DUPFD, 10)) < 0)
		return 1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, argv[2], O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, other, 1);
	posix_spawn_file_actions_addclose(&fa, other);
	rc = posix_spawnp(&pid, cat[0], &fa, NULL, cat, environ);
	report("cat", rc, pid);
	posix_spawn_file_actions_destroy(&fa);
	close(other);

	fflush(stdout);
	saved = dup(1);
	dup2(out, 1);
	rc = posix_spawn(&pid, sh[0], NULL, NULL, sh, environ);
	dup2(saved, 1);
	close(saved);
	report("sh", rc, pid);

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/tfs-test/no/such", O_RDONLY, 0);
	rc = posix_spawnp(&pid, cat[0], &fa, NULL, cat, environ);
	report("missing", rc, pid);
	posix_spawn_file_actions_destroy(&fa);

	if (write(out, "end\n", 4) != 4)
		return 1;
	return close(out) == 0 ? 0 : 1;
}
