/*
 * prim - run TangramFS primitives named on the command line, one result
 * line each, for tests/tfs.bats.  Operations (numbers decimal):
 *   open:PATH  openf:PATH:FLAGS  close  write:TEXT  pwrite:OFF:TEXT
 *   read:LEN  pread:OFF:LEN  sread:OFF:LEN  peer:OFF:LEN (from the first
 *   owner tfs_query names)  attach:OFF:LEN  attachfile  detach:OFF:LEN
 *   detachfile  detachclient  query:OFF:LEN  queryfile  flush
 *   seek:OFF:WHENCE(set|cur|end)  tell  stat  statp:PATH  trunc:LEN
 *   unlink:PATH  wait:FILE (until it exists)  touch:FILE  sleep:MS  finalize
 *   wlock:OFF:LEN  rlock:OFF:LEN  unlock:OFF:LEN  unlockfile  unlockclient
 *   policy:exact|extend-end|extend  lstats (this node's alpha beta gamma)
 *   fork (the operations after it run in a child; the parent waits for it,
 *   prints "fork: child STATUS" and ends)
 * A failing operation prints "OP: -1 ERRNO-NAME" and the run goes on.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../tfs/tfs.h"

static void fail(const char *op)
{
	printf("%s: -1 %s\n", op, strerrorname_np(errno) ? strerrorname_np(errno) : "?");
}

static void show(const char *op, const char *buf, ssize_t n)
{
	printf("%s: %zd \"", op, n);
	for (ssize_t i = 0; i < n; i++)
		putchar(buf[i] ? buf[i] : '.');
	printf("\"\n");
}

static void owners(const char *op, tfs_interval_t *v, int n)
{
	printf("%s: %d", op, n);
	for (int i = 0; i < n; i++)
		printf(" [%zu,%zu)@n%u", v[i].offset, v[i].offset + v[i].size, v[i].owner.node);
	printf("\n");
}

int main(int argc, char **argv)
{
	tfs_file_t *f = NULL;
	char buf[1 << 16];

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++) {
		char op[64], a[4096] = "", b[4096] = "";
		const char *s = argv[i], *c1 = strchr(s, ':');
		tfs_interval_t *v;
		struct stat st;
		int n;
		ssize_t r;

		snprintf(op, sizeof(op), "%.*s", (int)(c1 ? c1 - s : (long)strlen(s)), s);
		if (c1) {
			const char *c2 = strchr(c1 + 1, ':');

			/* text arguments keep their colons */
			if (c2 && strcmp(op, "write") != 0) {
				snprintf(a, sizeof(a), "%.*s", (int)(c2 - c1 - 1), c1 + 1);
				snprintf(b, sizeof(b), "%s", c2 + 1);
			} else {
				snprintf(a, sizeof(a), "%s", c1 + 1);
			}
		}
		if (!strcmp(op, "open")) {
			if (!(f = tfs_open(a)))
				fail(op);
			else
				printf("open: ok\n");
		} else if (!strcmp(op, "openf")) {
			tfs_file_t *g = tfs_open_flags(a, (unsigned)strtoul(b, NULL, 10));

			if (!g) {
				fail(op);
			} else {
				f = g;
				printf("openf: ok\n");
			}
		} else if (!strcmp(op, "close")) {
			printf("close: %d\n", tfs_close(f));
			f = NULL;
		} else if (!strcmp(op, "write")) {
			r = tfs_write(f, a, strlen(a));
			r < 0 ? fail(op) : (void)printf("write: %zd\n", r);
		} else if (!strcmp(op, "pwrite")) {
			r = tfs_pwrite(f, b, strlen(b), strtoul(a, NULL, 10));
			r < 0 ? fail(op) : (void)printf("pwrite: %zd\n", r);
		} else if (!strcmp(op, "read")) {
			r = tfs_read(f, buf, strtoul(a, NULL, 10));
			r < 0 ? fail(op) : show(op, buf, r);
		} else if (!strcmp(op, "pread")) {
			r = tfs_pread(f, buf, strtoul(b, NULL, 10), strtoul(a, NULL, 10));
			r < 0 ? fail(op) : show(op, buf, r);
		} else if (!strcmp(op, "sread")) {
			r = tfs_pread_synced(f, buf, strtoul(b, NULL, 10), strtoul(a, NULL, 10));
			r < 0 ? fail(op) : show(op, buf, r);
		} else if (!strcmp(op, "peer")) {
			size_t off = strtoul(a, NULL, 10), len = strtoul(b, NULL, 10);

			if (tfs_query(f, off, len, &v, &n) < 0 || n == 0) {
				errno = n == 0 ? ENOENT : errno;
				fail(op);
				continue;
			}
			r = tfs_read_peer(f, &v[0].owner, off, len, buf);
			r < 0 ? fail(op) : show(op, buf, r);
			free(v);
		} else if (!strcmp(op, "attach")) {
			n = tfs_attach(f, strtoul(a, NULL, 10), strtoul(b, NULL, 10));
			n < 0 ? fail(op) : (void)printf("attach: 0\n");
		} else if (!strcmp(op, "attachfile")) {
			n = tfs_attach_file(f);
			n < 0 ? fail(op) : (void)printf("attachfile: 0\n");
		} else if (!strcmp(op, "detach")) {
			n = tfs_detach(f, strtoul(a, NULL, 10), strtoul(b, NULL, 10));
			n < 0 ? fail(op) : (void)printf("detach: 0\n");
		} else if (!strcmp(op, "detachfile")) {
			n = tfs_detach_file(f);
			n < 0 ? fail(op) : (void)printf("detachfile: 0\n");
		} else if (!strcmp(op, "detachclient")) {
			n = tfs_detach_client();
			n < 0 ? fail(op) : (void)printf("detachclient: 0\n");
		} else if (!strcmp(op, "query") || !strcmp(op, "queryfile")) {
			if ((op[5] ? tfs_query_file(f, &v, &n)
				   : tfs_query(f, strtoul(a, NULL, 10), strtoul(b, NULL, 10), &v, &n)) < 0) {
				fail(op);
				continue;
			}
			owners(op, v, n);
			free(v);
		} else if (!strcmp(op, "flush")) {
			n = tfs_flush(f);
			n < 0 ? fail(op) : (void)printf("flush: 0\n");
		} else if (!strcmp(op, "seek")) {
			int w = !strcmp(b, "cur") ? SEEK_CUR : !strcmp(b, "end") ? SEEK_END : SEEK_SET;

			r = tfs_seek(f, (size_t)strtoll(a, NULL, 10), w);
			r < 0 ? fail(op) : (void)printf("seek: %zd\n", r);
		} else if (!strcmp(op, "tell")) {
			printf("tell: %zd\n", tfs_tell(f));
		} else if (!strcmp(op, "stat")) {
			tfs_stat(f, &st) < 0 ? fail(op) : (void)printf("stat: size %lld\n",
								 (long long)st.st_size);
		} else if (!strcmp(op, "statp")) {
			tfs_stat_path(a, &st) < 0 ? fail(op) : (void)printf("statp: size %lld\n",
									    (long long)st.st_size);
		} else if (!strcmp(op, "trunc")) {
			tfs_truncate(f, strtoul(a, NULL, 10)) < 0 ? fail(op) : (void)printf("trunc: 0\n");
		} else if (!strcmp(op, "unlink")) {
			tfs_unlink(a) < 0 ? fail(op) : (void)printf("unlink: 0\n");
		} else if (!strcmp(op, "wait")) {
			for (int k = 0; k < 3000 && access(a, F_OK) < 0; k++)
				usleep(10000);
		} else if (!strcmp(op, "sleep")) {
			usleep((useconds_t)strtoul(a, NULL, 10) * 1000);
		} else if (!strcmp(op, "touch")) {
			close(open(a, O_CREAT | O_WRONLY, 0644));
		} else if (!strcmp(op, "wlock") || !strcmp(op, "rlock")) {
			n = tfs_acquire_lock(f, strtoul(a, NULL, 10), strtoul(b, NULL, 10),
					     op[0] == 'w' ? LOCK_TYPE_WRITE : LOCK_TYPE_READ);
			n < 0 ? fail(op) : (void)printf("%s: 0\n", op);
		} else if (!strcmp(op, "unlock")) {
			n = tfs_release_lock(f, strtoul(a, NULL, 10), strtoul(b, NULL, 10));
			n < 0 ? fail(op) : (void)printf("unlock: 0\n");
		} else if (!strcmp(op, "unlockfile")) {
			n = tfs_release_lock_file(f);
			n < 0 ? fail(op) : (void)printf("unlockfile: 0\n");
		} else if (!strcmp(op, "unlockclient")) {
			n = tfs_release_lock_client();
			n < 0 ? fail(op) : (void)printf("unlockclient: 0\n");
		} else if (!strcmp(op, "policy")) {
			n = tfs_lock_policy(!strcmp(a, "extend") ? TFS_LOCK_EXTEND :
					    !strcmp(a, "extend-end") ? TFS_LOCK_EXTEND_END :
					    TFS_LOCK_EXACT);
			n < 0 ? fail(op) : (void)printf("policy: %s\n", a);
		} else if (!strcmp(op, "lstats")) {
			uint64_t cnt[3];

			tfs_lock_stats(cnt) < 0 ? fail(op) : (void)printf(
				"lstats: alpha %llu beta %llu gamma %llu\n", (unsigned long long)cnt[0],
				(unsigned long long)cnt[1], (unsigned long long)cnt[2]);
		} else if (!strcmp(op, "fork")) {
			pid_t pid = fork();
			int st;

			if (pid < 0) {
				fail(op);
			} else if (pid > 0) {
				if (waitpid(pid, &st, 0) < 0)
					fail(op);
				else
					printf("fork: child %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128);
				return 0;
			}
		} else if (!strcmp(op, "finalize")) {
			printf("finalize: %d\n", tfs_finalize());
		} else {
			fprintf(stderr, "prim: unknown operation '%s'\n", s);
			return 2;
		}
	}
	return 0;
}
