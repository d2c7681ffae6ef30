/*
 * names.c - constant names for printing records, and the layer names.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "names.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tg.h"
#include "banned.h"

const char *tg_layer_name(int l)
{
	static const char *const names[] = { "posix", "stdio", "mpi", "mpiio", "hdf5" };

	return l >= 0 && l < TG_LAYER_COUNT ? names[l] : "?";
}

int tg_layer_parse(const char *name)
{
	int l;

	for (l = 0; l < TG_LAYER_COUNT; l++)
		if (strcmp(name, tg_layer_name(l)) == 0)
			return l;
	return -1;
}

struct flagname {
	uint64_t bit;
	const char *name;
};

static const struct flagname oflags[] = {
	{ O_CREAT, "O_CREAT" }, { O_EXCL, "O_EXCL" }, { O_NOCTTY, "O_NOCTTY" },
	{ O_TRUNC, "O_TRUNC" }, { O_APPEND, "O_APPEND" },
	{ O_NONBLOCK, "O_NONBLOCK" }, { O_SYNC, "O_SYNC" }, { O_DSYNC, "O_DSYNC" },
	{ O_ASYNC, "O_ASYNC" }, { O_DIRECT, "O_DIRECT" },
	{ O_LARGEFILE, "O_LARGEFILE" }, { O_DIRECTORY, "O_DIRECTORY" },
	{ O_NOFOLLOW, "O_NOFOLLOW" }, { O_NOATIME, "O_NOATIME" },
	{ O_CLOEXEC, "O_CLOEXEC" }, { O_PATH, "O_PATH" },
	{ O_TMPFILE & ~O_DIRECTORY, "O_TMPFILE" },
};

void tg_oflags_str(char *buf, size_t cap, uint64_t flags)
{
	size_t o, i;
	uint64_t acc = flags & O_ACCMODE;
	int n;

	n = snprintf(buf, cap, "%s", acc == O_RDONLY ? "O_RDONLY" :
				     acc == O_WRONLY ? "O_WRONLY" :
				     acc == O_RDWR ? "O_RDWR" : "O_ACCMODE");
	o = n > 0 ? (size_t)n : 0;
	flags &= ~(uint64_t)O_ACCMODE;
	for (i = 0; i < sizeof(oflags) / sizeof(oflags[0]) && o < cap; i++) {
		if (oflags[i].bit && (flags & oflags[i].bit) == oflags[i].bit) {
			n = snprintf(buf + o, cap - o, "|%s", oflags[i].name);
			o += n > 0 ? (size_t)n : 0;
			flags &= ~oflags[i].bit;
		}
	}
	if (flags && o < cap)
		snprintf(buf + o, cap - o, "|0x%llx", (unsigned long long)flags);
}

const char *tg_whence_name(int64_t w)
{
	switch (w) {
	case SEEK_SET: return "SEEK_SET";
	case SEEK_CUR: return "SEEK_CUR";
	case SEEK_END: return "SEEK_END";
	case SEEK_DATA: return "SEEK_DATA";
	case SEEK_HOLE: return "SEEK_HOLE";
	default: return NULL;
	}
}

const char *tg_fcntl_name(int64_t cmd)
{
	switch (cmd) {
	case F_DUPFD: return "F_DUPFD";
	case F_DUPFD_CLOEXEC: return "F_DUPFD_CLOEXEC";
	case F_GETFD: return "F_GETFD";
	case F_SETFD: return "F_SETFD";
	case F_GETFL: return "F_GETFL";
	case F_SETFL: return "F_SETFL";
	case F_GETLK: return "F_GETLK";
	case F_SETLK: return "F_SETLK";
	case F_SETLKW: return "F_SETLKW";
	case F_OFD_GETLK: return "F_OFD_GETLK";
	case F_OFD_SETLK: return "F_OFD_SETLK";
	case F_OFD_SETLKW: return "F_OFD_SETLKW";
	case F_GETOWN: return "F_GETOWN";
	case F_SETOWN: return "F_SETOWN";
	case F_GETPIPE_SZ: return "F_GETPIPE_SZ";
	case F_SETPIPE_SZ: return "F_SETPIPE_SZ";
	case F_ADD_SEALS: return "F_ADD_SEALS";
	case F_GET_SEALS: return "F_GET_SEALS";
	default: return NULL;
	}
}

const char *tg_locktype_name(int64_t t)
{
	switch (t) {
	case F_RDLCK: return "F_RDLCK";
	case F_WRLCK: return "F_WRLCK";
	case F_UNLCK: return "F_UNLCK";
	default: return NULL;
	}
}

const char *tg_errno_name(int e)
{
	return strerrorname_np(e);
}

const char *tg_mpi_handle_name(int kind, uint32_t val)
{
	const struct tg_mpiname *n;

	for (n = tg_mpi_names; n->name; n++)
		if (n->val == val && (n->kind == kind || kind == 0))
			return n->name;
	return NULL;
}

const char *tg_mpi_combiner_name(int64_t c)
{
	if (c < 0 || (uint64_t)c >= tg_mpi_ncombiners)
		return NULL;
	return tg_mpi_combiners[c];
}

char tg_mpi_handle_letter(int kind)
{
	static const char letters[] = "?cgtroifwemx";

	return kind > 0 && kind < (int)sizeof(letters) - 1 ? letters[kind] : 'h';
}
