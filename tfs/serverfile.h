/*
 * serverfile.h - the server file, DIR/server (tfs-protocol(5), "SERVER
 * FILE"): the address clients connect to, the job's secret, and the
 * Unix-domain socket that clients on the server's host use instead,
 * mode 0600.
 */
#ifndef TFS_SERVERFILE_H
#define TFS_SERVERFILE_H

#include <stddef.h>

#include "proto.h"

/* How long a stage-out may take, all clients together. */
#define TFS_STAGE_TIMEOUT_MS 120000

struct tfs_server_file {
	char addr[160];
	unsigned char secret[TFS_SECRET_LEN];
	long pid;
	char local[160];	/* "unix:PATH" for clients on @host, or "" */
	char host[128];
};

/* Write DIR/server atomically (a temporary file renamed), mode 0600;
 * with @local (a "unix:" address, or NULL) also the line that sends the
 * clients on this host there.  Returns 0, or -1 with a message in @err. */
int tfs_server_file_write(const char *dir, const char *addr, const char *local,
			  const unsigned char *secret, char *err, size_t errlen);

/* Read @path (DIR/server when @is_dir) into @sf.  A file that others may
 * read or write, or that is not well formed, is refused.  Returns 0, or -1
 * with a message in @err. */
int tfs_server_file_read(const char *path, int is_dir, struct tfs_server_file *sf, char *err,
			 size_t errlen);

/* Remove DIR/server. */
void tfs_server_file_remove(const char *dir);

#endif
