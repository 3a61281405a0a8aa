/*
 * memory.c -- a Linux program's memory: the program break, mmap, munmap,
 * mprotect, madvise.
 *
 * All of it is ordinary Ferrite memory (uvm/): anonymous objects in the
 * heap, mapped into the program's address space, so the DRAM cache, the
 * write faults and the commit treat it as they treat every program's.
 *
 * The break is one anonymous object (klinux.brk_object) whose size is
 * always the mapped part of the break, page_up(brk) - brk_start, mapped
 * once at brk_start. Growing resizes the object (new pages exist once
 * touched) and maps it again; shrinking unmaps the tail and resizes the
 * object down, which frees the pages, so memory the break gives again
 * reads as zero, as the C library's calloc expects of it.
 *
 * mmap of anonymous memory makes an anonymous object of the length asked
 * and maps it; the mapping holds it. mmap of a catalogue object maps it
 * privately (copy on write, bytes past its end reading as zero) or shared.
 * Mappings are what uvm allows: at most KASPACE_MAX_MAPS per program.
 */
#include <stdint.h>

#include "core/heap.h"
#include "ferrite/errors.h"
#include "linux/lx.h"
#include "obj/kobj.h"
#include "objstore/object.h"
#include "task/proc.h"
#include "uvm/pagecache.h"
#include "uvm/uvm.h"

#define PAGE ((uint64_t)FE_PAGE_SIZE)
#define RWX (FE_PROT_READ | FE_PROT_WRITE | FE_PROT_EXEC)
#define ANON_MAP_MAX (1ull << 40)      /* the longest anonymous mmap */

/* page_up -- v rounded up to a page (v below the user top) */
static uint64_t page_up(uint64_t v)
{
	return (v + PAGE - 1) & ~(PAGE - 1);
}

/* lx_memory_start -- the break of a new program starts at image_end,
 * empty, over a fresh object the program's state holds */
int lx_memory_start(struct pctx *p, struct klinux *lx, uint64_t image_end)
{
	uint64_t object;
	int err = os_obj_create(&kheap, OS_TYPE_ANON, 0, &object);

	(void)p;
	if (err)
		return err;
	lx->brk_object = object;       /* a fresh klinux: no log */
	lx->brk_start = image_end;
	lx->brk = image_end;
	return 0;
}

/* show_break -- map the break's object for `len` bytes at brk_start
 * (nothing for 0), after unmapping what showed of it before */
static int show_break(struct pctx *p, struct klinux *lx, uint64_t old_len,
		      uint64_t len)
{
	uint64_t addr;

	if (old_len)
		(void)uvm_unmap(&p->mem, lx->brk_start, old_len);
	if (!len)
		return 0;
	return uvm_map(&p->mem, lx->brk_object, 0, len, FE_PROT_READ | FE_PROT_WRITE,
		       FE_MAP_SHARED | FE_MAP_FIXED, FE_PROT_READ | FE_PROT_WRITE, 0,
		       lx->brk_start, &addr);
}

/* brk (addr) -> the break: moved to addr if it can be, else as it was */
int64_t lx_brk(struct lxcall *c)
{
	struct klinux *lx = c->lx;
	const uint64_t want = c->arg[0];
	uint64_t old_len = page_up(lx->brk) - lx->brk_start;
	uint64_t len;
	int err;

	if (want < lx->brk_start || want - lx->brk_start > KLINUX_BRK_MAX)
		return (int64_t)lx->brk;
	len = page_up(want) - lx->brk_start;
	if (len > old_len) {
		err = os_obj_resize(&kheap, lx->brk_object, len);
		if (!err)
			pagecache_resized(lx->brk_object, len);
		if (!err)
			err = show_break(c->p, lx, old_len, len);
		if (err) { /* as it was: the object, then the mapping */
			if (os_obj_resize(&kheap, lx->brk_object, old_len) == 0)
				pagecache_resized(lx->brk_object, old_len);
			(void)show_break(c->p, lx, 0, old_len);
			lx_errno(err); /* -ERR_CORRUPT stops here */
			return (int64_t)lx->brk;
		}
	} else if (len < old_len) {
		(void)uvm_unmap(&c->p->mem, lx->brk_start + len, old_len - len);
		err = os_obj_resize(&kheap, lx->brk_object, len);
		if (err) {
			lx_errno(err);
			(void)show_break(c->p, lx, 0, old_len);
			return (int64_t)lx->brk;
		}
		pagecache_resized(lx->brk_object, len);
	}
	KLOG(&lx->brk);
	lx->brk = want;
	return (int64_t)want;
}

/* mmap (addr, len, prot, flags, fd, offset) -> the address */
int64_t lx_mmap(struct lxcall *c)
{
	const uint64_t addr = c->arg[0], len = c->arg[1], prot = c->arg[2];
	const uint64_t flags = c->arg[3], offset = c->arg[5];
	const int64_t fd = (int64_t)(int32_t)c->arg[4];
	const uint64_t type = flags & LX_MAP_TYPE;
	bool fixed = flags & (LX_MAP_FIXED | LX_MAP_FIXED_NOREPLACE);
	uint64_t object, at, size = page_up(len), maxprot = RWX, limit = 0;
	unsigned how = FE_MAP_SHARED;
	uint32_t open_flags;
	int64_t err;

	if (!len || len > ANON_MAP_MAX || offset % PAGE || prot & ~(uint64_t)RWX ||
	    (type != LX_MAP_PRIVATE && type != LX_MAP_SHARED) ||
	    (fixed && addr % PAGE))
		return -LX_EINVAL;
	if (flags & LX_MAP_ANONYMOUS) {
		err = os_obj_create(&kheap, OS_TYPE_ANON, size, &object);
		if (err)
			return lx_errno(err);
	} else {
		err = lx_fd_object(c, fd, &object, &open_flags);
		if (err)
			return err;
		if ((open_flags & LX_O_ACCMODE) == LX_O_WRONLY)
			return -LX_EACCES;
		if (type == LX_MAP_PRIVATE) {
			struct os_obj_info info;

			if (os_obj_stat(&kheap, object, &info))
				return -LX_EIO;
			how = FE_MAP_PRIVATE;
			limit = info.size;
		} else if ((open_flags & LX_O_ACCMODE) != LX_O_RDWR) {
			maxprot = FE_PROT_READ | FE_PROT_EXEC;
			if (prot & FE_PROT_WRITE)
				return -LX_EACCES;
		}
		kobj_hold(object); /* the reference released below, as for a new object */
	}
	if (flags & LX_MAP_FIXED)
		(void)uvm_unmap(&c->p->mem, addr, size);
	err = uvm_map(&c->p->mem, object, offset, size, (unsigned)prot,
		      how | (fixed ? FE_MAP_FIXED : 0), (unsigned)maxprot, limit,
		      addr, &at);
	kobj_release(object); /* the mapping holds it now, or nothing does */
	if (err == -ERR_EXIST)
		return -LX_EEXIST;
	return err ? lx_errno(err == -ERR_NOSPC ? -ERR_NOMEM : err) : (int64_t)at;
}

/* munmap (addr, len) -> 0 */
int64_t lx_munmap(struct lxcall *c)
{
	const uint64_t addr = c->arg[0], len = c->arg[1];

	if (addr % PAGE || !len || len > FE_USER_TOP)
		return -LX_EINVAL;
	return lx_errno(uvm_unmap(&c->p->mem, addr, page_up(len)));
}

/* mprotect (addr, len, prot) -> 0 */
int64_t lx_mprotect(struct lxcall *c)
{
	const uint64_t addr = c->arg[0], len = c->arg[1], prot = c->arg[2];
	int err;

	if (addr % PAGE || prot & ~(uint64_t)RWX)
		return -LX_EINVAL;
	if (!len)
		return 0;
	err = uvm_protect(&c->p->mem, addr, page_up(len), (unsigned)prot);
	if (err == -ERR_NOENT || err == -ERR_FAULT)
		return -LX_ENOMEM;
	return lx_errno(err);
}

/* madvise (addr, len, advice) -> 0 for the advice that is only a hint */
int64_t lx_madvise(struct lxcall *c)
{
	const uint64_t addr = c->arg[0], advice = c->arg[2];

	if (addr % PAGE)
		return -LX_EINVAL;
	switch (advice) {
	case LX_MADV_NORMAL:
	case LX_MADV_RANDOM:
	case LX_MADV_SEQUENTIAL:
	case LX_MADV_WILLNEED:
		return 0;
	default: /* MADV_DONTNEED and the rest change memory: not yet */
		return -LX_EINVAL;
	}
}
