/*
 * serverfile.c - writing and reading DIR/server.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "serverfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../libcommon/banned.h"

int tfs_server_file_write(const char *dir, const char *addr, const char *local,
			  const unsigned char *secret, char *err, size_t errlen)
{
	char tmp[4096], final[4096], text[768], host[128];
	int fd, n, i;

	n = snprintf(text, sizeof(text), "tfs-server 1\naddress %s\nsecret ", addr);
	for (i = 0; i < TFS_SECRET_LEN; i++)
		n += snprintf(text + n, sizeof(text) - (size_t)n, "%02x", secret[i]);
	n += snprintf(text + n, sizeof(text) - (size_t)n, "\npid %ld\n", (long)getpid());
	if (local && gethostname(host, sizeof(host)) == 0) {
		host[sizeof(host) - 1] = '\0';
		n += snprintf(text + n, sizeof(text) - (size_t)n, "local %s %s\n", local, host);
	}
	snprintf(tmp, sizeof(tmp), "%s/.server.%ld", dir, (long)getpid());
	snprintf(final, sizeof(final), "%s/server", dir);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 || fchmod(fd, 0600) < 0 || write(fd, text, (size_t)n) != n ||
	    fsync(fd) < 0 || close(fd) < 0 || rename(tmp, final) < 0) {
		snprintf(err, errlen, "cannot write '%s': %s", final, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

int tfs_server_file_read(const char *path, int is_dir, struct tfs_server_file *sf, char *err,
			 size_t errlen)
{
	char name[4096], text[1024], hex[2 * TFS_SECRET_LEN + 2], *p;
	struct stat st;
	ssize_t n;
	int fd, i;

	memset(sf, 0, sizeof(*sf));
	if (is_dir)
		snprintf(name, sizeof(name), "%s/server", path);
	else
		snprintf(name, sizeof(name), "%s", path);
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open server file '%s': %s", name, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || (st.st_mode & 077) || st.st_uid != getuid()) {
		snprintf(err, errlen, "server file '%s' is not private (mode 0600, yours)", name);
		close(fd);
		return -1;
	}
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n < 0) {
		snprintf(err, errlen, "cannot read server file '%s': %s", name, strerror(errno));
		return -1;
	}
	text[n] = '\0';
	if (sscanf(text, "tfs-server 1\naddress %159s\nsecret %33s\npid %ld", sf->addr, hex,
		   &sf->pid) != 3 || strlen(hex) != 2 * TFS_SECRET_LEN) {
		snprintf(err, errlen, "server file '%s' is not well formed", name);
		return -1;
	}
	for (i = 0; i < TFS_SECRET_LEN; i++) {
		unsigned v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1) {
			snprintf(err, errlen, "server file '%s' is not well formed", name);
			return -1;
		}
		sf->secret[i] = (unsigned char)v;
	}
	/* optional, after the four lines an older reader stops at */
	if ((p = strstr(text, "\nlocal ")) &&
	    sscanf(p, "\nlocal %159s %127s", sf->local, sf->host) != 2)
		sf->local[0] = sf->host[0] = '\0';
	return 0;
}

void tfs_server_file_remove(const char *dir)
{
	char name[4096];

	snprintf(name, sizeof(name), "%s/server", dir);
	unlink(name);
}
