/*
 * patcher - a memory-hook library in miniature, as UCX's UCM and Open
 * MPI's patcher are: it overwrites the first bytes of the mmap the
 * dynamic linker finds (the C library's, or a preloaded tracer's) with a
 * jump to its own hook, which counts the call and makes the system call
 * itself; then it maps and unmaps N pages through the symbol and prints
 * how many calls its hook saw.
 *
 * usage: patcher MODE N
 *   movabs  movabs $hook, %r11; jmp *%r11 (Open MPI's form)
 *   rip     jmp *0(%rip) followed by the hook's address
 *   pushret movabs $hook, %rax; push %rax; ret (a form no tracer reads)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile int seen;

static void *hook(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	seen++;
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

int main(int argc, char **argv)
{
	unsigned char *f, code[16];
	uintptr_t h = (uintptr_t)hook, page;
	size_t n = 0;
	int i, count;

	if (argc != 3 || (count = atoi(argv[2])) < 0) {
		fputs("usage: patcher movabs|rip|pushret N\n", stderr);
		return 2;
	}
	if (strcmp(argv[1], "movabs") == 0) {
		code[n++] = 0x49, code[n++] = 0xbb;	/* movabs $h, %r11 */
		memcpy(code + n, &h, 8), n += 8;
		code[n++] = 0x41, code[n++] = 0xff, code[n++] = 0xe3;	/* jmp *%r11 */
	} else if (strcmp(argv[1], "rip") == 0) {
		code[n++] = 0xff, code[n++] = 0x25;	/* jmp *0(%rip) */
		memset(code + n, 0, 4), n += 4;
		memcpy(code + n, &h, 8), n += 8;
	} else if (strcmp(argv[1], "pushret") == 0) {
		code[n++] = 0x48, code[n++] = 0xb8;	/* movabs $h, %rax */
		memcpy(code + n, &h, 8), n += 8;
		code[n++] = 0x50, code[n++] = 0xc3;	/* push %rax; ret */
	} else {
		fputs("usage: patcher movabs|rip|pushret N\n", stderr);
		return 2;
	}
	f = dlsym(RTLD_DEFAULT, "mmap");
	page = (uintptr_t)f & ~(uintptr_t)4095;
	/* (two pages: the patch may cross into the next) */
	if (mprotect((void *)page, 8192, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) {
		perror("mprotect");
		return 1;
	}
	memcpy(f, code, n);
	if (mprotect((void *)page, 8192, PROT_READ | PROT_EXEC) != 0) {
		perror("mprotect");
		return 1;
	}
	__builtin___clear_cache((char *)f, (char *)f + n);
	for (i = 0; i < count; i++) {
		void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		munmap(m, 4096);
	}
	printf("hook saw %d mmap calls\n", seen);
	return 0;
}
