/*
 * stubs.S - the entry points of the preloaded tracer's calls that take MPI
 * handles (x86-64).  Each NAME goes to the wrapper tg_w_NAME when the
 * program's MPI library is MPICH's; when it is another (Open MPI: handles
 * are pointers, not MPICH's ints) it jumps to the library's NAME with
 * every register as the program left it, so that the call is the
 * program's own, untraced.  Which library it is, tg_mpi_resolve (mpi.c)
 * finds at the first call.  The list of names, with an index each, is
 * build/shim/stubs.gen.h, made by the Makefile from the wrappers.
 */

	.hidden tg_mpi_abi
	.hidden tg_stub_real
	.hidden tg_mpi_resolve

	.text

#define TG_STUB(name, i)			\
	.globl name;				\
	.type name, @function;			\
	.p2align 4;				\
name:						\
.Ls_##name:					\
	cmpb $1, tg_mpi_abi(%rip);		\
	jne 1f;					\
	jmp tg_w_##name;			\
1:	leaq .Ls_##name(%rip), %r11;		\
	movl $i, %eax;				\
	jmp tg_stub_other;			\
	.size name, .-name;

#include "stubs.gen.h"

/*
 * Every register a call may take its arguments in, and @extra, kept on
 * the stack around a call into C (7 pushes and 128 bytes: a stub's
 * caller's 16-byte alignment is kept).
 */
#define SAVE_ARGS(extra)		\
	pushq %rdi;			\
	pushq %rsi;			\
	pushq %rdx;			\
	pushq %rcx;			\
	pushq %r8;			\
	pushq %r9;			\
	pushq extra;			\
	subq $128, %rsp;		\
	movdqu %xmm0, 0(%rsp);		\
	movdqu %xmm1, 16(%rsp);		\
	movdqu %xmm2, 32(%rsp);		\
	movdqu %xmm3, 48(%rsp);		\
	movdqu %xmm4, 64(%rsp);		\
	movdqu %xmm5, 80(%rsp);		\
	movdqu %xmm6, 96(%rsp);		\
	movdqu %xmm7, 112(%rsp)

#define RESTORE_ARGS(extra)		\
	movdqu 0(%rsp), %xmm0;		\
	movdqu 16(%rsp), %xmm1;		\
	movdqu 32(%rsp), %xmm2;		\
	movdqu 48(%rsp), %xmm3;		\
	movdqu 64(%rsp), %xmm4;		\
	movdqu 80(%rsp), %xmm5;		\
	movdqu 96(%rsp), %xmm6;		\
	movdqu 112(%rsp), %xmm7;	\
	addq $128, %rsp;		\
	popq extra;			\
	popq %r9;			\
	popq %r8;			\
	popq %rcx;			\
	popq %rdx;			\
	popq %rsi;			\
	popq %rdi

/*
 * Not MPICH's library, or not known yet: %eax is the index of the call,
 * %r11 the stub to come back to once it is known.  Neither is an argument
 * register of a function that is not variadic, and no MPI function is.
 */
	.p2align 4
	.type tg_stub_other, @function
tg_stub_other:
	cmpb $2, tg_mpi_abi(%rip)
	jne 2f
	leaq tg_stub_real(%rip), %r10
	jmp *(%r10,%rax,8)
2:	/* find out, keeping every argument register (the stack below the
	 * arguments is the stub's caller's, 16-byte aligned after these) */
	SAVE_ARGS(%r11)
	call tg_mpi_resolve
	RESTORE_ARGS(%r11)
	jmp *%r11
	.size tg_stub_other, .-tg_stub_other

/*
 * The entry of tg_stub_real for a call the library did not have when the
 * library was found: one of a library loaded later, or out of the global
 * scope (HDF5's H5Pset_fapl_mpio when h5py dlopens an HDF5 of Open MPI
 * after mpi4py's MPI_Init).  %eax is the call's index; tg_stub_find looks
 * again and gives where to go, keeping every argument register.
 */
	.hidden tg_stub_find
	.globl tg_stub_lazy
	.hidden tg_stub_lazy
	.p2align 4
	.type tg_stub_lazy, @function
tg_stub_lazy:
	SAVE_ARGS(%rax)
	movl %eax, %edi
	call tg_stub_find
	movq %rax, %r11
	RESTORE_ARGS(%rax)
	jmp *%r11
	.size tg_stub_lazy, .-tg_stub_lazy

/*
 * The entries a memory-hook library may overwrite (calls.tab's "hooked"
 * rows, listed in build/shim/hooks.gen.h): each NAME is a near jump to its
 * wrapper tg_w_NAME and int3 to 16 bytes, on a page of their own, so that
 * shim/hooks.c can tell a patched one from the bytes it expects and write
 * them back without touching any other code.
 */
	.section .text.tg_hooks, "ax", @progbits
	.p2align 12

#define TG_HOOK(name)				\
	.globl name;				\
	.type name, @function;			\
	.globl tg_hook_entry_##name;		\
	.hidden tg_hook_entry_##name;		\
	.hidden tg_w_##name;			\
	.p2align 4;				\
name:						\
tg_hook_entry_##name:				\
	.byte 0xe9;				\
	.long tg_w_##name - . - 4;		\
	.fill 11, 1, 0xcc;			\
	.size name, 16;

#include "hooks.gen.h"

	.p2align 12

	.section .note.GNU-stack, "", @progbits

/*
 * dlopen: to the wrapper tg_w_dlopen, or on to the loader's dlopen with
 * every register as the program left it, so that the loader sees the
 * program's object as the caller (hand.c, tg_dl_route).
 */
	.text
	.hidden tg_dl_route
	.globl dlopen
	.type dlopen, @function
	.p2align 4
dlopen:
	SAVE_ARGS(%rax)
	call tg_dl_route
	movq %rax, %r11
	RESTORE_ARGS(%rax)
	jmp *%r11
	.size dlopen, .-dlopen
