/*
 * recover.h - the server's side of the clients' notes (tfs(3),
 * "DURABILITY"): staging out what a client that could not hand its data
 * over kept, removing what a dead client left, and the lock that keeps
 * one server per directory.
 */
#ifndef TFS_RECOVER_H
#define TFS_RECOVER_H

#include <stddef.h>

/* Take DIR/lock for the life of the process.  Returns its descriptor, or
 * -1 with a message in @err (another live process holds it: says which). */
int tfs_dir_lock(const char *dir, char *err, size_t errlen);

/* Go through DIR/clients: for each note of a client of this host that is
 * no longer running, stage out to its TFS_PFS_DIR the burst-buffer data
 * it lists (with the mode it lists), remove the client's other
 * burst-buffer files, and drop the note.  Each client handled is one line
 * through @say (and appended to *@report when @report is not NULL, freed
 * by the caller).  Returns the number of notes that could not be fully
 * handled (kept for the next try). */
int tfs_recover(const char *dir, void (*say)(const char *line), char **report);

/* A client of node @node, process @pid of this host, ended while the
 * server runs: stage out at once what its note says it attached, where
 * @owned (the server's tables) says it still owns it, and mark the note
 * so that no later recovery writes it again.  Nothing when it left no
 * note (it ended cleanly).  What it kept as it ended, having lost this
 * server, is staged out whole.  @ops say what the server knows of the
 * files (the journal's file ids are the server's).  Returns 0, or -1 when
 * some could not be
 * staged out (said through @say, and appended to *@report as by
 * tfs_recover()). */
/* 1 when client @pid of node @node of this host left a note in DIR and
 * no longer runs (a zombie counts as dead): its note is for tfs_rescue()
 * or tfs_recover(). */
int tfs_client_dead(const char *dir, unsigned node, long pid);

struct tfs_rescue_ops {
	/* file @fid as it is now: its path (into @path, @len bytes) and
	 * mode (0: the note's), or -1 when it is gone (unlinked) */
	int (*where)(unsigned long long fid, char *path, size_t len, unsigned *mode, void *arg);
	/* @each(s, e, @ctx) for every piece [s, e) of [@s, @e) of @fid the
	 * dead client still owns */
	void (*owned)(unsigned long long fid, unsigned long long s, unsigned long long e,
		      void (*each)(unsigned long long s, unsigned long long e, void *ctx),
		      void *ctx, void *arg);
	/* take and give back @fid's stage mark */
	void (*begin)(unsigned long long fid, void *arg);
	void (*end)(unsigned long long fid, void *arg);
};

/* @fate says what became of the client, for the lines ("died"). */
int tfs_rescue(const char *dir, unsigned node, long pid, const char *fate,
	       const struct tfs_rescue_ops *ops, void *arg, void (*say)(const char *line),
	       char **report);

#endif
