/*
 * hooks.c - keeping the calls a memory-hook library patches.
 *
 * UCX's UCM (which MPICH's ch4:ucx loads with the library) and Open MPI's
 * patcher watch every mmap and munmap of the process to keep their
 * registration caches right.  They find the function by its symbol and
 * overwrite its first bytes with a jump to their hook; in a process the
 * tracer is preloaded into, the symbol is the tracer's, so the program's
 * calls went to the hook and were never recorded.
 *
 * On x86-64 each such entry (calls.tab's "hooked" rows) is a stub of known
 * bytes in shim/stubs.S.  When a stub is found changed, the jump the patch
 * wrote is decoded, its target becomes where the wrapper sends the call
 * (tg_hook_to_NAME), and the stub is written back: the program's call is
 * recorded and then goes through the hook as it would have without the
 * tracer.  A stub is looked at when a library makes the stubs' page
 * executable again after writing it (the mprotect below, which every
 * patcher calls), when the tracer starts, and after MPI_Init.  An entry of
 * the C library that is the same function as a patched one (mmap64 is
 * mmap) is sent to the same hook, as its calls were before.  What cannot
 * be decoded or written back is said once, and the entry is left as the
 * patch made it (its calls go untraced, as they did before).
 */
#include "wrap-prelude.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>

__thread int tg_hook_depth TG_HIDDEN;

#ifndef TG_MPI_STUBS

void tg_hooks_check(void)
{
}

#else

#define STUB 16
#define PAGE 4096u

/* the bytes stub @h was built with: jmp rel32 to its wrapper, int3s */
static void stub_bytes(const struct tg_hooked *h, unsigned char b[STUB])
{
	int32_t rel = (int32_t)((intptr_t)h->wrapper - (intptr_t)(h->entry + 5));

	memset(b, 0xcc, STUB);
	b[0] = 0xe9;
	memcpy(b + 1, &rel, 4);
}

static int32_t rd32(const unsigned char *p)
{
	int32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* Where the jump a patcher wrote at @p goes, or NULL if it is none of the
 * forms patchers write: jmp rel32, jmp rel8, jmp *rel32(%rip), and
 * movabs $target, %reg; jmp *%reg. */
static void *jump_target(const unsigned char *p)
{
	if (p[0] == 0xe9)
		return (void *)(p + 5 + rd32(p + 1));
	if (p[0] == 0xeb)
		return (void *)(p + 2 + (int8_t)p[1]);
	if (p[0] == 0xff && p[1] == 0x25) {
		void *t;

		memcpy(&t, p + 6 + rd32(p + 2), sizeof(t));
		return t;
	}
	if ((p[0] == 0x48 || p[0] == 0x49) && p[1] >= 0xb8 && p[1] <= 0xbf) {
		unsigned reg = (unsigned)(p[1] - 0xb8);
		const unsigned char *q = p + 10;
		void *t;

		memcpy(&t, p + 2, sizeof(t));
		if (p[0] == 0x48 && q[0] == 0xff && q[1] == 0xe0 + reg)
			return t;
		if (p[0] == 0x49 && q[0] == 0x41 && q[1] == 0xff && q[2] == 0xe0 + reg)
			return t;
	}
	return NULL;
}

static int inside_page(const void *a)
{
	uintptr_t page = (uintptr_t)tg_hooked[0].entry & ~(uintptr_t)(PAGE - 1);

	return (uintptr_t)a >= page && (uintptr_t)a < page + PAGE;
}

/* Write stub @h back: the tail first, then its first eight bytes in one
 * store, so that a thread entering it meanwhile runs the patch's jump or
 * the stub's, never a mixture (the stubs are 16-byte aligned). */
static int put_back(const struct tg_hooked *h)
{
	uintptr_t page = (uintptr_t)h->entry & ~(uintptr_t)(PAGE - 1);
	unsigned char b[STUB];
	uint64_t head;

	/* writable and still executable, for a thread that enters a stub
	 * meanwhile; where W^X forbids it, writable only, as the patcher
	 * had it (the page holds the stubs and nothing else) */
	if (syscall(SYS_mprotect, (void *)page, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC) != 0 &&
	    syscall(SYS_mprotect, (void *)page, PAGE, PROT_READ | PROT_WRITE) != 0)
		return -1;
	stub_bytes(h, b);
	memcpy(h->entry + 8, b + 8, STUB - 8);
	memcpy(&head, b, 8);
	__atomic_store_n((uint64_t *)(void *)h->entry, head, __ATOMIC_RELEASE);
	syscall(SYS_mprotect, (void *)page, PAGE, PROT_READ | PROT_EXEC);
	__builtin___clear_cache((char *)h->entry, (char *)h->entry + STUB);
	return 0;
}

static void say_once(const struct tg_hooked *h, const void *to, const char *why)
{
	static int said;
	Dl_info di;
	const char *who = to && dladdr(to, &di) && di.dli_fname ? di.dli_fname : "another library";
	char msg[512];
	int n;

	if (__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		return;
	n = snprintf(msg, sizeof(msg), "tangram: %s was patched by %s and %s: "
		     "the program's %s calls are not recorded\n", h->name, who, why, h->name);
	if (n <= 0)
		return;
	if ((size_t)n >= sizeof(msg))
		n = (int)sizeof(msg) - 1;
	/* not through write(2), which the tracer wraps; before the tracer
	 * has started (a library patched before it), straight to the
	 * standard error */
	if (tg_state == 1)
		tg_say(msg, (size_t)n);
	else
		(void)!syscall(SYS_write, 2, msg, (size_t)n);
}

void tg_hooks_check(void)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	void *libc[32];
	unsigned i, j, n = tg_nhooked < 32 ? tg_nhooked : 32, patched = 0;

	pthread_mutex_lock(&mu);
	for (i = 0; i < n; i++) {
		const struct tg_hooked *h = &tg_hooked[i];
		unsigned char want[STUB];
		void *to;

		stub_bytes(h, want);
		if (memcmp(h->entry, want, STUB) == 0)
			continue;
		to = jump_target(h->entry);
		if (!to || inside_page(to)) {
			say_once(h, to, "the jump could not be read");
			continue;
		}
		/* the wrapper goes there first, then the stub comes back */
		__atomic_store_n(h->to, to, __ATOMIC_RELEASE);
		patched++;
		if (put_back(h) != 0)
			say_once(h, to, "its code could not be written back");
	}
	/* an entry of the C library that is a patched one's own function
	 * goes where that one's patch went (glibc's mmap64 is mmap) */
	for (i = 0; i < n && patched; i++)
		libc[i] = tg_real(tg_hooked[i].name, NULL);
	for (i = 0; i < n && patched; i++) {
		if (__atomic_load_n(tg_hooked[i].to, __ATOMIC_ACQUIRE) || !libc[i])
			continue;
		for (j = 0; j < n; j++) {
			void *to = __atomic_load_n(tg_hooked[j].to, __ATOMIC_ACQUIRE);

			if (j != i && to && libc[j] == libc[i]) {
				__atomic_store_n(tg_hooked[i].to, to, __ATOMIC_RELEASE);
				break;
			}
		}
	}
	pthread_mutex_unlock(&mu);
}

/*
 * mprotect, passed through: a patcher makes the page it wrote executable
 * again with it, and a change to the stubs' page is looked at then, before
 * the patcher's next call can reach the stub.
 */
int mprotect(void *addr, size_t len, int prot);
TG_EXPORT int mprotect(void *addr, size_t len, int prot)
{
	uintptr_t page = (uintptr_t)tg_hooked[0].entry & ~(uintptr_t)(PAGE - 1);
	int ret = (int)syscall(SYS_mprotect, addr, len, prot);

	if (ret == 0 && (prot & PROT_EXEC) && (uintptr_t)addr < page + PAGE &&
	    (uintptr_t)addr + len > page) {
		int e = errno;

		tg_hooks_check();
		errno = e;
	}
	return ret;
}

#endif
