/*
 * memory.c -- a Linux program's memory: the program break, mmap, munmap,
 * mprotect, mremap, madvise.
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
 * Mappings are what uvm allows: at most KASPACE_MAX_MAPS (256) per program.
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

/* lx_memory_start -- the break of a new program starts at image_end, empty */
void lx_memory_start(struct klinux *lx, uint64_t image_end)
{
	lx->brk_start = image_end;     /* a fresh klinux: no log */
	lx->brk = image_end;
}

static int64_t grow_at(struct lxcall *c, uint64_t end, uint64_t extra);

/* map_fresh -- a fresh anonymous object of len bytes, the program's own
 * memory, mapped at addr (free) with prot */
static int map_fresh(struct lxcall *c, uint64_t addr, uint64_t len, unsigned prot)
{
	uint64_t object, at;
	int err = os_obj_create(&kheap, OS_TYPE_ANON, len, &object);

	if (err)
		return err;
	err = uvm_map(&c->p->mem, object, 0, len, prot, FE_MAP_SHARED | FE_MAP_FIXED,
		      FE_PROT_READ | FE_PROT_WRITE, 0, addr, &at);
	kobj_release(object); /* the mapping holds it now, or nothing does */
	return err;
}

/* free_past -- after its tail was unmapped, the mapping that ends at `end`
 * lets its object's pages past what it shows go, when it is the only
 * holder of its own anonymous object (so nothing else shows them) */
static void free_past(struct lxcall *c, uint64_t end)
{
	struct kmapping m;
	struct os_obj_info info;
	uint64_t shown;

	if (uvm_mapping_at(&c->p->mem, end - PAGE, &m) || m.end != end ||
	    m.flags != FE_MAP_SHARED || os_obj_head(&kheap, m.object, &info) ||
	    info.type != OS_TYPE_ANON || info.refcount != 1)
		return;
	shown = m.offset + (m.end - m.start);
	if (info.size > shown && os_obj_resize(&kheap, m.object, shown) == 0)
		pagecache_resized(m.object, shown);
}

/* brk (addr) -> the break: moved to addr if it can be, else as it was.
 * The break's memory is mappings like any other: the first a fresh
 * object at brk_start, then grown as mremap grows a mapping; a shrink
 * unmaps the tail (and frees its pages), so memory the break gives again
 * reads as zero, as the C library's calloc expects of it. A fork shares
 * it copy-on-write like the rest. */
int64_t lx_brk(struct lxcall *c)
{
	struct klinux *lx = c->lx;
	const uint64_t want = c->arg[0];
	const uint64_t old_len = page_up(lx->brk) - lx->brk_start;
	uint64_t len;
	int64_t err = 0;

	if (want < lx->brk_start || want - lx->brk_start > KLINUX_BRK_MAX)
		return (int64_t)lx->brk;
	len = page_up(want) - lx->brk_start;
	if (len > old_len && !old_len)
		err = map_fresh(c, lx->brk_start, len, FE_PROT_READ | FE_PROT_WRITE);
	else if (len > old_len)
		err = grow_at(c, lx->brk_start + old_len, len - old_len);
	else if (len < old_len) {
		err = uvm_unmap(&c->p->mem, lx->brk_start + len, old_len - len);
		if (!err && len)
			free_past(c, lx->brk_start + len);
	}
	if (err) {
		lx_errno(err); /* -ERR_CORRUPT stops here */
		return (int64_t)lx->brk;
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
		if (type == LX_MAP_SHARED) /* a fork's child shares it */
			how |= KMAPPING_INHERIT;
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

/* grow_anon -- what a shared mapping m of an anonymous object needs before
 * it grows by `extra` at its end: the object grown with it when the
 * mapping shows the object's end (*grown set: the caller takes it back if
 * the mapping cannot grow); else 1, the object being shown further on by
 * pieces of the mapping cut away, whose bytes the growth must not show */
static int grow_anon(const struct kmapping *m, uint64_t extra, bool *grown)
{
	const uint64_t shown = m->offset + (m->end - m->start);
	struct os_obj_info info;
	int err = os_obj_head(&kheap, m->object, &info);

	*grown = false;
	if (err)
		return err;
	if (info.size != shown)
		return 1;
	err = os_obj_resize(&kheap, m->object, shown + extra);
	if (err)
		return err;
	pagecache_resized(m->object, shown + extra);
	*grown = true;
	return 0;
}

/* shrink_back -- an anonymous object grown by grow_anon back to `size` */
static void shrink_back(uint64_t object, uint64_t size)
{
	if (os_obj_resize(&kheap, object, size) == 0)
		pagecache_resized(object, size);
}

/* grow_at -- the mapping that ends at `end` goes on for `extra` more bytes,
 * which must be free: more of its object (a file's, or an anonymous one
 * that can grow), or a fresh anonymous object mapped after it */
static int64_t grow_at(struct lxcall *c, uint64_t end, uint64_t extra)
{
	struct kmapping m;
	uint64_t object = 0, at;
	bool grown = false;
	int err = uvm_mapping_at(&c->p->mem, end - PAGE, &m);
	struct os_obj_info info;

	if (!err && m.flags & FE_MAP_SHARED)
		err = os_obj_head(&kheap, m.object, &info);
	if (!err && m.flags & FE_MAP_SHARED && info.type == OS_TYPE_ANON)
		err = grow_anon(&m, extra, &grown);
	if (err == 1) { /* a fresh object for the new bytes */
		err = os_obj_create(&kheap, OS_TYPE_ANON, extra, &object);
		if (!err)
			err = uvm_map(&c->p->mem, object, 0, extra, m.prot,
				      FE_MAP_SHARED | FE_MAP_FIXED, m.maxprot, 0, end, &at);
		if (object)
			kobj_release(object); /* the mapping holds it, or nothing does */
		return err;
	}
	if (!err)
		err = uvm_grow(&c->p->mem, end, extra);
	if (err && grown)
		shrink_back(m.object, m.offset + (m.end - m.start));
	return err;
}

/* mremap (addr, old_len, new_len, flags, new_addr) -> the address: the
 * mapped range [addr, addr+old_len) (one mapping or several that follow
 * one another: Linux's one area may be more than one here), made new_len
 * long -- cut at its end, grown in place when the pages after it are
 * free, or (MREMAP_MAYMOVE) moved to where it can grow, at new_addr with
 * MREMAP_FIXED. A move copies nothing: the same object shows at the new
 * address. Not here: MREMAP_DONTUNMAP, and old_len 0 (a second mapping of
 * a shared one): EINVAL. */
int64_t lx_mremap(struct lxcall *c)
{
	const uint64_t addr = c->arg[0], flags = c->arg[3], new_addr = c->arg[4];
	const uint64_t old_len = page_up(c->arg[1]), new_len = page_up(c->arg[2]);
	const bool may_move = flags & LX_MREMAP_MAYMOVE, fixed = flags & LX_MREMAP_FIXED;
	struct uspace *us = &c->p->mem;
	uint64_t to = 0;
	struct kmapping m;
	int64_t err;

	if (addr % PAGE || flags & ~(uint64_t)(LX_MREMAP_MAYMOVE | LX_MREMAP_FIXED) ||
	    (fixed && !may_move) || !c->arg[1] || !c->arg[2] ||
	    c->arg[1] > FE_USER_TOP || c->arg[2] > ANON_MAP_MAX)
		return -LX_EINVAL;
	if (fixed && (new_addr % PAGE || new_addr < FE_USER_BASE || new_addr >= FE_USER_TOP ||
		      new_len > FE_USER_TOP - new_addr ||
		      (new_addr < addr + old_len && addr < new_addr + new_len)))
		return -LX_EINVAL;
	if (uvm_check(us, addr, old_len, 0) || uvm_mapping_at(us, addr + old_len - PAGE, &m))
		return -LX_EFAULT;
	if (!fixed && new_len <= old_len) {
		if (new_len < old_len)
			(void)uvm_unmap(us, addr + new_len, old_len - new_len);
		return (int64_t)addr;
	}
	if (!fixed && addr + old_len == m.end) {
		err = grow_at(c, m.end, new_len - old_len);
		if (err != -ERR_EXIST)
			return err ? lx_errno(err == -ERR_NOSPC ? -ERR_NOMEM : (int)err) : (int64_t)addr;
	}
	if (!may_move)
		return -LX_ENOMEM;
	if (fixed) {
		(void)uvm_unmap(us, new_addr, new_len);
		to = new_addr;
	}
	err = uvm_move(us, addr, old_len < new_len ? old_len : new_len, new_len, &to);
	if (err)
		return lx_errno(err == -ERR_NOSPC ? -ERR_NOMEM : (int)err);
	if (new_len < old_len)
		(void)uvm_unmap(us, addr + new_len, old_len - new_len);
	else if (new_len > old_len) {
		err = grow_at(c, to + old_len, new_len - old_len);
		if (err) { /* back where it was */
			uint64_t back = addr;

			(void)uvm_move(us, to, old_len, old_len, &back);
			return lx_errno(err == -ERR_NOSPC ? -ERR_NOMEM : (int)err);
		}
	}
	return (int64_t)to;
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
