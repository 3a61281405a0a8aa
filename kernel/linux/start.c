/*
 * start.c -- how a Linux program starts: its state in the heap, and the
 * stack Linux x86-64 gives a new program.
 *
 * proc.c maps the program's segments (and, for a dynamic program, its
 * interpreter's, which linux_interp found below the new program's root:
 * the whole catalogue) and an 8 MiB stack, then calls linux_start
 * (registered at power-on by linux_init). It makes the
 * program's klinux (kformat.h) -- root and current directory the whole
 * catalogue, umask 022, a terminal's default modes, descriptors 0, 1 and
 * 2 on the console or on the objects the spawn gave them (osh's < and >),
 * every signal's default disposition, the break above the image -- and
 * lays out the stack
 * as the System V x86-64 ABI and Linux's exec do, from the top down:
 *
 *   16 random bytes (AT_RANDOM), "x86_64" (AT_PLATFORM), the environment
 *   strings, the argument strings; then, 16-byte aligned, at rsp:
 *   argc, argv[0..argc-1], NULL, envp[...], NULL, auxv pairs, AT_NULL.
 *
 * A dynamic program starts in its interpreter, as on Linux: rip is the
 * interpreter's entry, AT_BASE its load address (ELF_INTERP_BIAS), and
 * AT_ENTRY, AT_PHDR and AT_PHNUM the program's own, from which the
 * loader finds the program, maps its libraries and jumps to its entry.
 * Every register but rsp and rip is 0 at the entry point: rdx 0 tells the
 * C library that no dynamic linker asks for a function at exit. A spawn
 * that fails here is undone with the rest of the process (proc.c).
 */
#include <stdint.h>
#include <string.h>

#include "arch/arch.h"
#include "core/heap.h"
#include "ferrite/errors.h"
#include "linux/linux.h"
#include "linux/lx.h"
#include "obj/kobj.h"
#include "objstore/catalogue.h"
#include "task/elf.h"
#include "task/proc.h"
#include "uvm/uvm.h"

/* The environment a program started from a Ferrite program gets. */
static const char start_env[] = "HOME=/\0PATH=/bin\0TERM=vt100";
#define START_ENV_COUNT 3
static const char platform[] = "x86_64";

#define AUXV_PAIRS 17                  /* AT_NULL included */
/* argc, argv and its NULL, envp and its NULL, the auxiliary vector */
#define START_WORDS (1 + LX_EXEC_POINTERS + 2 + 2 * AUXV_PAIRS)

/* The default modes of a terminal (Linux's tty_std_termios): canonical
 * input with echo and signals, CR to NL in, NL to CR NL out. */
static const struct klinux_termios default_termios = {
	.iflag = 0002400,              /* ICRNL IXON */
	.oflag = 0000005,              /* OPOST ONLCR */
	.cflag = 0000277,              /* B38400 CS8 CREAD */
	.lflag = 0105073,              /* ISIG ICANON ECHO ECHOE ECHOK ECHOCTL ECHOKE IEXTEN */
	.cc = { 3, 034, 0177, 025, 4, 0, 1, 0, 021, 023, 032, 0, 022, 017, 027, 026, 0 },
};

/* image_end -- the first page above every segment of the program */
static uint64_t image_end(const struct elf_image *img)
{
	const struct elf_segment *last = &img->seg[img->count - 1]; /* sorted */

	return (last->vaddr + last->memsz + FE_PAGE_SIZE - 1) & ~(uint64_t)(FE_PAGE_SIZE - 1);
}

/* push_start -- the start stack below stack_top (for a program loaded
 * by `interp`, NULL for none); the stack pointer in *sp */
static int push_start(struct pctx *p, const struct elf_image *img,
		      const struct elf_image *interp, const struct lx_exec_args *ex,
		      uint64_t stack_top, uint64_t *sp)
{
	static uint64_t words[START_WORDS]; /* the kernel runs one call at a time */
	uint64_t random_at = stack_top - 16;
	uint64_t platform_at = random_at - sizeof(platform);
	uint64_t strings_at = (platform_at - ex->bytes) & ~7ull;
	uint64_t random[2] = { arch_random(), arch_random() };
	unsigned n = 0;
	size_t pos = 0;
	int err;

	words[n++] = ex->argc;
	for (unsigned i = 0; i < ex->argc + ex->envc; i++) {
		if (i == ex->argc)
			words[n++] = 0; /* argv's end, then envp */
		words[n++] = strings_at + pos;
		pos += strlen(&ex->strings[pos]) + 1;
	}
	if (!ex->envc)
		words[n++] = 0;
	words[n++] = 0;
#define AUX(type, value) (words[n++] = (type), words[n++] = (value))
	AUX(LX_AT_PHDR, img->phdr);
	AUX(LX_AT_PHENT, 56);
	AUX(LX_AT_PHNUM, img->phnum);
	AUX(LX_AT_PAGESZ, FE_PAGE_SIZE);
	AUX(LX_AT_BASE, interp ? interp->bias : 0);
	AUX(LX_AT_FLAGS, 0);
	AUX(LX_AT_ENTRY, img->entry);
	AUX(LX_AT_UID, 0);
	AUX(LX_AT_EUID, 0);
	AUX(LX_AT_GID, 0);
	AUX(LX_AT_EGID, 0);
	AUX(LX_AT_SECURE, 0);
	AUX(LX_AT_CLKTCK, 100);
	AUX(LX_AT_RANDOM, random_at);
	AUX(LX_AT_PLATFORM, platform_at);
	AUX(LX_AT_EXECFN, strings_at);
	AUX(LX_AT_NULL, 0);
#undef AUX
	*sp = (strings_at - n * 8) & ~15ull;
	err = uvm_copy_out(&p->mem, random_at, random, sizeof(random));
	if (!err)
		err = uvm_copy_out(&p->mem, platform_at, platform, sizeof(platform));
	if (!err)
		err = uvm_copy_out(&p->mem, strings_at, ex->strings, ex->bytes);
	if (!err)
		err = uvm_copy_out(&p->mem, *sp, words, n * 8);
	return err;
}
_Static_assert(sizeof(start_env) == 28, "the environment's strings, NULs included");
_Static_assert(FE_SPAWN_MAX_ARGV_BYTES + sizeof(start_env) <= LX_EXEC_STRINGS &&
	       FE_SPAWN_MAX_ARGS + START_ENV_COUNT <= LX_EXEC_POINTERS,
	       "a spawn's arguments fit an execve's");

/* lx_start_program -- a program's start: its stack below stack_top with
 * ex's arguments and environment, its break just above img, and regs at
 * its entry -- its interpreter's, if it has one (interp: NULL for none)
 * -- every register but rsp 0 */
int lx_start_program(struct pctx *p, const struct elf_image *img,
		     const struct elf_image *interp, const struct lx_exec_args *ex,
		     uint64_t stack_top, struct arch_user_regs *regs)
{
	uint64_t sp;
	int err;

	KLOG(&p->lx->brk_start);
	KLOG(&p->lx->brk);
	lx_memory_start(p->lx, image_end(img));
	err = push_start(p, img, interp, ex, stack_top, &sp);
	if (err)
		return err;
	KLOG(regs); /* an execve's thread is not fresh */
	arch_user_regs_init(regs, interp ? interp->entry : img->entry, sp, 0, 0, 0);
	return 0;
}

/* lx_state_new -- process p's Linux state, a fresh klinux (zeroed, so
 * needing no log) that p holds, flagged KPROC_LINUX and `flags` */
int lx_state_new(struct pctx *p, uint32_t flags)
{
	uint64_t id;
	void *data;
	int err = kobj_new(OS_TYPE_KERNEL, sizeof(struct klinux), KLINUX_MAGIC, &id, &data);

	if (err)
		return err;
	KLOG(&p->proc->linux_state);
	p->proc->linux_state = id;           /* the process holds it from here */
	KLOG(&p->proc->flags);
	p->proc->flags |= KPROC_LINUX | flags;
	p->lx = data;
	return 0;
}

/* linux_start -- proc.c's hook: the state, descriptors, break and start
 * stack of new Linux program p, with the environment of start_env,
 * started in its interpreter if it has one */
static int linux_start(struct pctx *p, const struct elf_image *img,
		       const struct elf_image *interp, const struct spawn_args *a,
		       uint64_t stack_top)
{
	static struct lx_exec_args ex; /* the kernel runs one call at a time */
	struct klinux *lx;
	int err = lx_state_new(p, a->flags & FE_SPAWN_TRACE ? KPROC_TRACE : 0);

	if (err)
		return err;
	lx = p->lx;                    /* a fresh block: no log */
	lx->version = KLINUX_VERSION;
	lx->umask = 022;
	lx->termios = default_termios;
	err = lx_files_start(lx, a);
	if (!err)
		err = lx_signals_start(lx);
	if (err)
		return err;
	ex.argc = a->argc;
	ex.envc = START_ENV_COUNT;
	memcpy(ex.strings, a->argv, a->argv_bytes);
	memcpy(ex.strings + a->argv_bytes, start_env, sizeof(start_env));
	ex.bytes = a->argv_bytes + sizeof(start_env);
	return lx_start_program(p, img, interp, &ex, stack_top, &p->thread[0]->regs);
}

/* linux_interp -- proc.c's hook: the object a dynamic program's
 * interpreter `path` names, below the root a new program has (the whole
 * catalogue), folded as the program's own paths are */
static int linux_interp(const char *path, uint64_t *object)
{
	char name[KLINUX_PATH_MAX];

	if (lx_name_of("", path, name))
		return -ERR_TOOBIG;
	return os_cat_lookup(&kheap, name, strlen(name), object);
}

/* linux_init -- at power-on: Linux programs start here, their state lets
 * go of what it holds when the reaper deletes it, and Ctrl-C raises their
 * SIGINT */
void linux_init(void)
{
	proc_on_linux_start(linux_start, linux_interp, lx_files_end, lx_child_ended);
	kobj_on_delete(lx_state_deleted);
	console_on_interrupt(lx_ctrl_c);
}
