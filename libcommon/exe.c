/*
 * exe.c - whether the preloaded tracer can get into a program (exe.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "exe.h"

#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "banned.h"

static ssize_t rd(int fd, void *buf, size_t n, uint64_t off)
{
	return syscall(SYS_pread64, fd, buf, n, (off_t)off);
}

/* The section headers of an ELF file, whichever its class, as the 64-bit
 * ones; the program headers likewise. */
struct elf {
	int fd, is64;
	uint64_t phoff, shoff;
	unsigned phnum, phent, shnum, shent, shstrndx;
};

static int ph_type(const struct elf *e, unsigned i, uint32_t *type)
{
	uint32_t t;

	if (rd(e->fd, &t, sizeof(t), e->phoff + (uint64_t)i * e->phent) != sizeof(t))
		return -1;
	*type = t;	/* p_type leads both classes' program headers */
	return 0;
}

static int sh_get(const struct elf *e, unsigned i, Elf64_Shdr *sh)
{
	uint64_t off = e->shoff + (uint64_t)i * e->shent;

	if (e->is64)
		return rd(e->fd, sh, sizeof(*sh), off) == sizeof(*sh) ? 0 : -1;
	Elf32_Shdr s;
	if (rd(e->fd, &s, sizeof(s), off) != sizeof(s))
		return -1;
	*sh = (Elf64_Shdr){ .sh_name = s.sh_name, .sh_type = s.sh_type, .sh_offset = s.sh_offset,
			    .sh_size = s.sh_size, .sh_link = s.sh_link };
	return 0;
}

/* Whether the file has a section named ".tangram": the static tracer's
 * (shim/core.c), which the linker keeps. */
static int has_tracer(struct elf *e)
{
	static const char want[] = ".tangram";
	char name[sizeof(want)];
	Elf64_Shdr sh, str;
	unsigned i, n = e->shnum, x = e->shstrndx;

	if (!e->shoff || e->shent < (e->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr)))
		return 0;
	if (n == 0 || x == SHN_XINDEX) {	/* the real figures in section 0 */
		if (sh_get(e, 0, &sh) < 0)
			return 0;
		if (n == 0)
			n = (unsigned)sh.sh_size;
		if (x == SHN_XINDEX)
			x = sh.sh_link;
	}
	if (n > 1u << 20 || x >= n || sh_get(e, x, &str) < 0)
		return 0;
	for (i = 0; i < n; i++) {
		if (sh_get(e, i, &sh) < 0 || sh.sh_name >= str.sh_size)
			continue;
		if (rd(e->fd, name, sizeof(name), str.sh_offset + sh.sh_name) == sizeof(name) &&
		    memcmp(name, want, sizeof(want)) == 0)
			return 1;
	}
	return 0;
}

static enum tg_exe elf_check(int fd)
{
	unsigned char id[EI_NIDENT];
	struct elf e = { .fd = fd };
	unsigned i;

	if (rd(fd, id, sizeof(id), 0) != sizeof(id) || memcmp(id, ELFMAG, SELFMAG) != 0)
		return TG_EXE_OK;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (id[EI_DATA] != ELFDATA2LSB)
#else
	if (id[EI_DATA] != ELFDATA2MSB)
#endif
		return TG_EXE_OK;	/* another machine's: the exec fails */
	if (id[EI_CLASS] == ELFCLASS64) {
		Elf64_Ehdr h;
		if (rd(fd, &h, sizeof(h), 0) != sizeof(h))
			return TG_EXE_OK;
		if (h.e_type != ET_EXEC && h.e_type != ET_DYN)
			return TG_EXE_OK;
		e = (struct elf){ fd, 1, h.e_phoff, h.e_shoff, h.e_phnum, h.e_phentsize,
				  h.e_shnum, h.e_shentsize, h.e_shstrndx };
	} else if (id[EI_CLASS] == ELFCLASS32) {
		Elf32_Ehdr h;
		if (rd(fd, &h, sizeof(h), 0) != sizeof(h))
			return TG_EXE_OK;
		if (h.e_type != ET_EXEC && h.e_type != ET_DYN)
			return TG_EXE_OK;
		e = (struct elf){ fd, 0, h.e_phoff, h.e_shoff, h.e_phnum, h.e_phentsize,
				  h.e_shnum, h.e_shentsize, h.e_shstrndx };
	} else {
		return TG_EXE_OK;
	}
	if (e.phent < sizeof(uint32_t) || !e.phnum)
		return TG_EXE_OK;
	for (i = 0; i < e.phnum; i++) {
		uint32_t t;
		if (ph_type(&e, i, &t) < 0)
			return TG_EXE_OK;
		if (t == PT_INTERP)
			return TG_EXE_OK;	/* the dynamic linker loads the tracer */
	}
	return has_tracer(&e) ? TG_EXE_OK : TG_EXE_STATIC;
}

enum tg_exe tg_exe_check(const char *path)
{
	struct stat st;
	struct statfs sf;
	enum tg_exe r = TG_EXE_OK;
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return TG_EXE_OK;
	if (syscall(SYS_newfstatat, fd, "", &st, AT_EMPTY_PATH) == 0 && S_ISREG(st.st_mode)) {
		/* the kernel runs it with the file's owner (AT_SECURE) unless
		 * the file system is mounted nosuid */
		int nosuid = syscall(SYS_fstatfs, fd, &sf) == 0 && (sf.f_flags & ST_NOSUID);

		if (!nosuid && (((st.st_mode & S_ISUID) && st.st_uid != getuid()) ||
				((st.st_mode & S_ISGID) && st.st_gid != getgid())))
			r = TG_EXE_SECURE;
		else
			r = elf_check(fd);
	}
	syscall(SYS_close, fd);
	return r;
}

int tg_exe_find(const char *name, const char *pathvar, char *out, size_t n)
{
	const char *p, *end;
	size_t len = strlen(name);

	if (!*name)
		return -1;
	if (strchr(name, '/')) {
		if (len >= n)
			return -1;
		memcpy(out, name, len + 1);
		return 0;
	}
	for (p = pathvar ? pathvar : "/bin:/usr/bin"; ; p = end + 1) {
		size_t dl;

		end = strchr(p, ':');
		dl = end ? (size_t)(end - p) : strlen(p);
		if (dl + 1 + len < n) {
			if (dl == 0) {	/* an empty entry is the working directory */
				memcpy(out, name, len + 1);
			} else {
				memcpy(out, p, dl);
				out[dl] = '/';
				memcpy(out + dl + 1, name, len + 1);
			}
			if (syscall(SYS_faccessat, AT_FDCWD, out, X_OK) == 0)
				return 0;
		}
		if (!end)
			return -1;
	}
}
