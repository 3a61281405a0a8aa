/*
 * uvm.c -- user address spaces: mappings in the heap, page tables as a cache.
 *
 * A process's address space is its kaspace object: up to KASPACE_MAX_MAPS
 * disjoint mappings sorted by address, each showing an object from a page
 * aligned offset; the first KASPACE_INLINE_MAPS in the kaspace, the rest
 * in the pages of its `more` object (kformat.h), every one reached through
 * map_at. Page tables are DRAM and volatile: empty after every
 * power-on, filled one page per fault from the mappings, and thrown away
 * freely. Every user page lives in the heap:
 *
 *   shared mapping   the object's own pages (created zero-filled on first
 *                    touch, within the object's size). Code text is mapped
 *                    this way straight from the code object: executed in
 *                    place, never copied.
 *   private mapping  copy on write. Pages the process has written live in
 *                    the mapping's shadow, an anonymous object indexed like
 *                    the source object; until then a read maps the source
 *                    page without the write bit. Source bytes at or past
 *                    `limit` (an ELF segment's file size) read as zero, so
 *                    a page holding them is copied at first touch.
 *
 * W^X: no mapping is ever writable and executable at once (map and protect
 * refuse it, as the ELF checks refuse such segments).
 *
 * Epochs, with the DRAM cache (pagecache.c, docs/dram-cache.md): a write
 * fault maps the page's DRAM frame (cached now if it was not: every table
 * that maps its heap page loses it first, unmap_home), a read fault the
 * frame if there is one, else the heap page -- read-only, whatever the
 * mapping allows. No user store reaches the NVM; each commit writes the
 * changed frames back. Invariant: no user page table entry maps a heap
 * page writable while the cache is on.
 *
 * Without it (cache=0, or no DRAM for a frame): a user page is writable in
 * a page table only after its old contents went to the undo log in the
 * running epoch. The first write fault of an epoch logs the page and maps
 * it writable, and remembers it in the epoch's written set (volatile). At
 * each commit uvm_epoch_end takes the write bit away again from every
 * page in the set, so the invariant holds from one epoch to the next:
 * every writable user page table entry maps a frame or a page logged in
 * the running epoch, and a power cut rolls user memory back with the rest
 * of the heap. A full set asks for a commit; the write faults again after it.
 *
 * Threads on other CPUs: a process's threads share its page tables, and
 * another CPU may hold a translation in its TLB. Adding a right needs
 * nothing (a stale entry only faults once more); taking one away or moving
 * a page to another frame (unmap, protect, a private copy replacing its
 * source) stops the CPUs that run on its tables (upt_shootdown, upt.c): they
 * leave the tables and load them again, their TLB emptied. The end of an
 * epoch happens with every other CPU stopped (docs/checkpoints.md).
 *
 * Kernel copies to and from user memory (uvm_copy_*) never touch user
 * virtual addresses: they look up the mapping, check its protection as the
 * CPU would, and copy through the kernel's mapping of the frame or the
 * heap page, so a bad user pointer is an error code and never a kernel
 * fault. Kernel writes to user pages go to the frame (cached now), or
 * without a cache are logged like every other kernel write to the heap.
 */
#include <string.h>

#include "arch/arch.h"
#include "core/heap.h"
#include "core/smp.h"
#include "core/panic.h"
#include "core/time.h"
#include "ferrite/errors.h"
#include "ferrite/nvmtrace.h"
#include "mm/vm.h"
#include "mm/phys.h"
#include "objstore/object.h"
#include "obj/kobj.h"
#include "uvm/pagecache.h"
#include "uvm/upt.h"
#include "uvm/uvm.h"

#define PAGE FE_PAGE_SIZE
#define MAP_SEARCH_BASE 0x0000100000000000ull /* where hint-less maps go */
/* W^X: no page is ever writable and executable at once */
#define W_AND_X(prot) (((prot) & (FE_PROT_WRITE | FE_PROT_EXEC)) == \
		       (FE_PROT_WRITE | FE_PROT_EXEC))

#define WRITTEN_MAX 4096 /* user pages written in one epoch, before a commit is forced */

/* A page made writable in the running epoch (its old bytes are logged). */
struct written_page {
	unsigned slot;                 /* process-table slot */
	uint64_t pt_root;              /* the tables it was mapped in */
	uint64_t va;
	uint64_t phys;
	unsigned prot;                 /* VM_* it is mapped with, write included */
};

static struct written_page written[WRITTEN_MAX];
static unsigned written_count;
static uint64_t written_fault_ns;      /* time the epoch's logging faults took */
static bool user_logged;               /* user pages join the epoch (all but nopersist) */

static uint64_t page_down(uint64_t v)
{
	return v & ~(uint64_t)(PAGE - 1);
}

/* range_ok -- [addr, addr+len) is a non-empty part of the user half */
static bool range_ok(uint64_t addr, uint64_t len)
{
	return len && addr >= FE_USER_BASE && addr < FE_USER_TOP &&
	       len <= FE_USER_TOP - addr;
}

/* layer_at -- object `id` as a frozen layer, NULL if it is not one */
static struct klayer *layer_at(uint64_t id)
{
	return id ? kobj_data(id, OS_TYPE_KERNEL, KLAYER_MAGIC) : NULL;
}

/*
 * The mappings, in order: mapping i is in the kaspace for i <
 * KASPACE_INLINE_MAPS, else in a page of its `more` object. Everything
 * below reads and writes them through map_at (map_edit to write). A change
 * that moves mappings logs each block it writes -- the kaspace, a page of
 * `more` -- once for the whole operation, not once per mapping it moves,
 * so one operation logs at most the kaspace and KASPACE_MORE_PAGES pages
 * (about 18 KiB), however many mappings it moves.
 */

/* Volatile: the blocks of the address space being changed that the
 * running operation has logged: bit 0 the kaspace, bit 1 + k page k of
 * `more`. Every operation that moves mappings starts with edit_begin;
 * the kernel runs one at a time. */
static struct {
	const struct kaspace *as;
	unsigned logged;
} editing;

/* edit_begin -- an operation on as starts: nothing of it is logged yet */
static void edit_begin(const struct kaspace *as)
{
	editing.as = as;
	editing.logged = 0;
}

/* more_page -- the kernel address of page k of as's `more` */
static struct kmapping *more_page(const struct kaspace *as, unsigned k)
{
	uint64_t home = 0;

	/* Invariant: every page of `more` that holds a slot below the room
	 * made exists (make_room made it; kcheck.c checks it at power-on). */
	if (os_obj_page(&kheap, as->more, k, false, &home) || !home)
		panic("uvm: address space with more #%llu: page %u of its mappings is missing",
		      (unsigned long long)as->more, k);
	return os_ptr(&kheap, home);
}

/* map_at -- mapping i of as (a slot below the room made for it) */
static struct kmapping *map_at(const struct kaspace *as, unsigned i)
{
	if (i < KASPACE_INLINE_MAPS)
		return (struct kmapping *)&as->map[i];
	i -= KASPACE_INLINE_MAPS;
	return more_page(as, i / KASPACE_MORE_PER_PAGE) + i % KASPACE_MORE_PER_PAGE;
}

/* map_edit -- mapping i of as, to be written: its block logged first,
 * once in the operation */
static struct kmapping *map_edit(struct kaspace *as, unsigned i)
{
	unsigned block = i < KASPACE_INLINE_MAPS ? 0 :
			 1 + (i - KASPACE_INLINE_MAPS) / KASPACE_MORE_PER_PAGE;
	struct kmapping *m = map_at(as, i);

	if (editing.as != as)
		edit_begin(as); /* an operation that forgot: log as a new one */
	if (!(editing.logged & (1u << block))) {
		if (block == 0)
			KLOG(as);
		else
			heap_log(m - (i - KASPACE_INLINE_MAPS) % KASPACE_MORE_PER_PAGE, PAGE);
		editing.logged |= 1u << block;
	}
	return m;
}

/* set_count -- as holds `count` mappings */
static void set_count(struct kaspace *as, unsigned count)
{
	if (editing.as != as || !(editing.logged & 1u))
		KLOG(&as->count);
	as->count = count;
}

/* make_room -- room in as for `count` mappings: its `more` made or grown,
 * with every page a mapping below `count` will be in; -ERR_NOSPC past
 * KASPACE_MAX_MAPS */
static int make_room(struct kaspace *as, unsigned count)
{
	uint64_t pages, id, home;
	struct os_obj_info info;
	int err;

	if (count > KASPACE_MAX_MAPS)
		return -ERR_NOSPC;
	if (count <= KASPACE_INLINE_MAPS)
		return 0;
	pages = (count - KASPACE_INLINE_MAPS + KASPACE_MORE_PER_PAGE - 1) /
		KASPACE_MORE_PER_PAGE;
	if (!as->more) {
		err = os_obj_create(&kheap, OS_TYPE_ANON, pages * PAGE, &id);
		if (err)
			return err;
		KLOG(&as->more);
		as->more = id;         /* held: released by uvm_destroy */
	} else {
		err = os_obj_head(&kheap, as->more, &info);
		if (!err && info.size < pages * PAGE)
			err = os_obj_resize(&kheap, as->more, pages * PAGE);
		if (err)
			return err;
	}
	for (uint64_t k = 0; k < pages; k++) {
		err = os_obj_page(&kheap, as->more, k, true, &home);
		if (err)
			return err;
	}
	return 0;
}

/* first_above -- the index of the first mapping that ends above addr
 * (count if none): a binary search, the mappings being sorted and disjoint */
static unsigned first_above(const struct kaspace *as, uint64_t addr)
{
	unsigned lo = 0, hi = as->count;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (map_at(as, mid)->end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* find -- the mapping holding va, NULL if none */
static struct kmapping *find(struct kaspace *as, uint64_t va)
{
	unsigned i = first_above(as, va);
	struct kmapping *m = i < as->count ? map_at(as, i) : NULL;

	return m && m->start <= va ? m : NULL;
}

/* is_free -- no mapping meets [addr, addr+len) */
static bool is_free(const struct kaspace *as, uint64_t addr, uint64_t len)
{
	unsigned i = first_above(as, addr);

	return i == as->count || map_at(as, i)->start >= addr + len;
}

/* find_gap -- the lowest free range of len bytes at or above MAP_SEARCH_BASE */
static int find_gap(const struct kaspace *as, uint64_t len, uint64_t *out)
{
	uint64_t addr = MAP_SEARCH_BASE;

	for (unsigned i = first_above(as, addr); i < as->count; i++) {
		const struct kmapping *m = map_at(as, i);

		if (m->start >= addr + len)
			break;
		addr = m->end;
	}
	if (!range_ok(addr, len))
		return -ERR_NOMEM;
	*out = addr;
	return 0;
}

/* insert -- put m in its sorted place; the caller made room and checked overlap */
static void insert(struct kaspace *as, const struct kmapping *m)
{
	unsigned i = first_above(as, m->start);

	for (unsigned j = as->count; j > i; j--)
		*map_edit(as, j) = *map_at(as, j - 1);
	*map_edit(as, i) = *m;
	set_count(as, as->count + 1);
}

/* take_at -- mapping i out of as, its references with it (the caller's now) */
static struct kmapping take_at(struct kaspace *as, unsigned i)
{
	struct kmapping m = *map_at(as, i);

	for (unsigned j = i; j + 1 < as->count; j++)
		*map_edit(as, j) = *map_at(as, j + 1);
	memset(map_edit(as, as->count - 1), 0, sizeof(m));
	set_count(as, as->count - 1);
	return m;
}

/* remove_at -- drop mapping i and its references */
static void remove_at(struct kaspace *as, unsigned i)
{
	struct kmapping m = take_at(as, i);

	kobj_release(m.object);
	if (m.shadow)
		kobj_release(m.shadow);
}

/* split_at -- make x a mapping boundary (x inside a mapping is split) */
static int split_at(struct kaspace *as, uint64_t x)
{
	struct kmapping *m = find(as, x);
	struct kmapping upper;
	int err;

	if (!m || m->start == x)
		return 0;
	err = make_room(as, as->count + 1);
	if (err)
		return err;
	m = find(as, x);               /* the same: nothing moved */
	upper = *m;
	upper.start = x;
	upper.offset += x - m->start;
	KLOG(&m->end);
	m->end = x;
	kobj_hold(upper.object);
	if (upper.shadow)
		kobj_hold(upper.shadow);
	insert(as, &upper);
	return 0;
}

/* uvm_init -- at power-on, before the first user page is mapped: whether
 * user pages join the epoch, and the DRAM cache in front of them */
void uvm_init(bool logged)
{
	user_logged = logged;
	pagecache_init(logged);
}

/* unmap_ptes -- forget cached translations of [addr, addr+len), on every
 * CPU that runs a thread of p */
static void unmap_ptes(struct uspace *us, uint64_t addr, uint64_t len)
{
	if (!us->pt_root)
		return;
	pagecache_unmap(us, addr, len);
	arch_pt_unmap_user(us->pt_root, addr, len);
	upt_shootdown(us);
}

/* uvm_map -- show `object` from `offset` at [addr, addr+len) */
int uvm_map(struct uspace *us, uint64_t object, uint64_t offset, uint64_t len,
	    unsigned prot, unsigned flags, unsigned maxprot, uint64_t limit,
	    uint64_t addr, uint64_t *out)
{
	struct kaspace *as = us->as;
	struct kmapping m;
	int err;

	if (!len || len > FE_USER_TOP || offset % PAGE ||
	    offset > UINT64_MAX - FE_USER_TOP || W_AND_X(prot))
		return -ERR_INVAL;
	len = (len + PAGE - 1) & ~(uint64_t)(PAGE - 1);
	if (flags & FE_MAP_FIXED) {
		if (addr % PAGE || !range_ok(addr, len))
			return -ERR_INVAL;
		if (!is_free(as, addr, len))
			return -ERR_EXIST;
	} else if (addr % PAGE || !range_ok(addr, len) ||
		   !is_free(as, addr, len)) {
		err = find_gap(as, len, &addr);
		if (err)
			return err;
	}
	edit_begin(as);
	err = make_room(as, as->count + 1);
	if (err)
		return err;
	m = (struct kmapping){
		.start = addr,
		.end = addr + len,
		.object = object,
		.offset = offset,
		.limit = limit,
		.prot = prot & FE_PROT_MASK,
		.flags = (uint16_t)(flags & (FE_MAP_SHARED | FE_MAP_PRIVATE | KMAPPING_INHERIT)),
		.maxprot = (uint16_t)(maxprot & FE_PROT_MASK),
	};
	kobj_hold(object);
	insert(as, &m);
	*out = addr;
	return 0;
}

/* uvm_unmap -- remove every mapping in [addr, addr+len) (splitting at the ends) */
int uvm_unmap(struct uspace *us, uint64_t addr, uint64_t len)
{
	struct kaspace *as = us->as;
	uint64_t end;
	int err;

	if (addr % PAGE || !range_ok(addr, len))
		return -ERR_INVAL;
	end = addr + ((len + PAGE - 1) & ~(uint64_t)(PAGE - 1));
	if (end > FE_USER_TOP)
		return -ERR_INVAL;
	edit_begin(as);
	err = split_at(as, addr);
	if (!err)
		err = split_at(as, end);
	if (err)
		return err;
	/* the boundaries are split: what lies in [addr, end) is whole mappings */
	for (unsigned i = first_above(as, addr); i < as->count && map_at(as, i)->end <= end;)
		remove_at(as, i);
	unmap_ptes(us, addr, end - addr);
	return 0;
}

/* uvm_protect -- change the protection of [addr, addr+len), all mapped */
int uvm_protect(struct uspace *us, uint64_t addr, uint64_t len, unsigned prot)
{
	struct kaspace *as = us->as;
	uint64_t end, va;
	int err;

	if (addr % PAGE || !range_ok(addr, len) || prot & ~FE_PROT_MASK ||
	    W_AND_X(prot))
		return -ERR_INVAL;
	end = addr + ((len + PAGE - 1) & ~(uint64_t)(PAGE - 1));
	if (end > FE_USER_TOP)
		return -ERR_INVAL;
	for (va = addr; va < end;) {
		struct kmapping *m = find(as, va);

		if (!m)
			return -ERR_NOENT;
		if (prot & ~m->maxprot)
			return -ERR_PERM;
		va = m->end;
	}
	edit_begin(as);
	err = split_at(as, addr);
	if (!err)
		err = split_at(as, end);
	if (err)
		return err;
	for (unsigned i = first_above(as, addr); i < as->count; i++) {
		struct kmapping *m = map_at(as, i);

		if (m->start >= end)
			break;
		KLOG(&m->prot);
		m->prot = prot;
	}
	unmap_ptes(us, addr, end - addr);
	return 0;
}

/* uvm_mapping_at -- a copy of the mapping that holds va */
int uvm_mapping_at(struct uspace *us, uint64_t va, struct kmapping *out)
{
	const struct kmapping *m = find(us->as, va);

	if (!m)
		return -ERR_NOENT;
	*out = *m;
	return 0;
}

/* uvm_grow -- the mapping that ends at `end` ends extra bytes later */
int uvm_grow(struct uspace *us, uint64_t end, uint64_t extra)
{
	struct kmapping *m = end % PAGE || end <= FE_USER_BASE ? NULL : find(us->as, end - PAGE);
	int err;

	if (!m || m->end != end)
		return -ERR_NOENT;
	if (!extra || extra % PAGE || !range_ok(end, extra))
		return -ERR_INVAL;
	if (!is_free(us->as, end, extra))
		return -ERR_EXIST;
	if (m->shadow) { /* its copies are found by object page: it covers the mapping */
		const uint64_t size = m->offset + (m->end - m->start) + extra;

		err = os_obj_resize(&kheap, m->shadow, size);
		if (err)
			return err;
		pagecache_resized(m->shadow, size);
	}
	KLOG(&m->end);
	m->end += extra;
	return 0;
}

/* uvm_move -- [from, from+len) shows its bytes at *to instead: the
 * mappings cut to that range and given new addresses, each keeping its
 * object, offset and copies, so nothing is copied; the old addresses'
 * translations go, and faults make the new ones */
int uvm_move(struct uspace *us, uint64_t from, uint64_t len, uint64_t room, uint64_t *to)
{
	struct kaspace *as = us->as;
	uint64_t delta;
	int err;

	if (from % PAGE || *to % PAGE || !len || len % PAGE || room < len || room % PAGE ||
	    !range_ok(from, len) || (*to && !range_ok(*to, room)))
		return -ERR_INVAL;
	if (uvm_check(us, from, len, 0))
		return -ERR_NOENT;
	if (*to && !is_free(as, *to, room))
		return -ERR_EXIST;
	err = *to ? 0 : find_gap(as, room, to);
	edit_begin(as);
	if (!err)
		err = split_at(as, from);
	if (!err)
		err = split_at(as, from + len);
	if (err)
		return err;
	delta = *to - from;            /* modulo 2^64: a move down as well */
	/* [from, from + len) is whole mappings, and the free range at *to
	 * lies outside it, so a moved mapping is never met again */
	for (unsigned i = first_above(as, from); i < as->count;) {
		struct kmapping moved;

		if (map_at(as, i)->start >= from + len)
			break;
		moved = take_at(as, i);
		moved.start += delta;
		moved.end += delta;
		insert(as, &moved);    /* the references move with it */
		i = first_above(as, from); /* the order changed: look again */
	}
	unmap_ptes(us, from, len);
	return 0;
}

/* uvm_layer_deleted -- kobj_on_delete's hook: a layer about to go lets go
 * of its pages and of what lies below it (fields cleared, so that a
 * deletion cut short and run again releases nothing twice) */
void uvm_layer_deleted(uint64_t id, uint16_t type)
{
	struct klayer *l = type == OS_TYPE_KERNEL ? layer_at(id) : NULL;

	if (!l)
		return;
	KLOG(l);
	if (l->pages)
		kobj_release(l->pages);
	if (l->below)
		kobj_release(l->below);
	l->pages = l->below = 0;
}

/* held_once -- whether object `id` has one reference */
static bool held_once(uint64_t id)
{
	struct os_obj_info info;

	return os_obj_head(&kheap, id, &info) == 0 && info.refcount == 1;
}

/* merge_pages -- copy the pages of anonymous object `src` in [first,
 * last) (page indexes) into anonymous object `dst` at the same indexes,
 * which only one view shows, where they stand above dst: that view is the
 * same before and after, so a merge stopped part way (the log's budget
 * `floor`, a cache without room) changes nothing that shows. true when
 * every page went down. */
static bool merge_pages(uint64_t src, uint64_t first, uint64_t last, uint64_t dst,
			uint64_t floor)
{
	static uint8_t copy[PAGE]; /* the kernel runs one call at a time */
	struct os_obj_info info;

	if (os_obj_stat(&kheap, src, &info)) /* its pages counted: few, since the last fork */
		return false;
	for (uint64_t i = first, left = info.pages; i < last && left; i++) {
		uint64_t home, frame;
		int err = os_obj_page(&kheap, src, i, false, &home);

		if (err || !home)
			continue;
		left--;
		if (heap_log_free() < floor + 2 * PAGE ||
		    pagecache_read(src, i * PAGE, copy, PAGE) != PAGE)
			return false;
		if (pagecache_on() &&
		    pagecache_frame(dst, i, false, &frame) == 0 && frame) {
			if (pagecache_frame(dst, i, true, &frame) || !frame)
				return false;
			memcpy(phys_to_virt(frame), copy, PAGE);
		} else if (os_obj_write(&kheap, dst, i * PAGE, copy, PAGE) != PAGE) {
			return false;
		}
	}
	return true;
}

/* collapse -- layer l (the top of a mapping's chain) swallows the layers
 * below it that only it holds: their pages under l's merged down into
 * theirs (merge_pages), l takes their place in the chain, one level less
 * each time. What l shows stays the same; so a parent whose children
 * came and went while others lived keeps a short chain. */
static void collapse(struct klayer *l, uint64_t floor)
{
	struct klayer *b;

	while ((b = layer_at(l->below)) && held_once(l->below) && held_once(b->pages) &&
	       l->end <= b->end && l->limit == UINT64_MAX &&
	       merge_pages(l->pages, 0, l->end / PAGE, b->pages, floor)) {
		const uint64_t gone = l->below, pages = l->pages;

		KLOG(l);
		KLOG(b);
		l->pages = b->pages;   /* b's references move to l */
		l->end = b->end;
		l->below = b->below;
		l->limit = b->limit;
		b->pages = b->below = 0;
		kobj_release(pages);
		kobj_release(gone);    /* l's reference: b goes, holding nothing */
	}
}

/* depth -- the layers of the chain that starts at object id */
static unsigned depth(uint64_t id)
{
	unsigned n = 0;
	const struct klayer *l;

	for (; (l = layer_at(id)) && n <= KLAYER_DEPTH_MAX; n++)
		id = l->below;
	return n;
}

/* freeze -- private mapping m (or a shared mapping of its process's own
 * anonymous memory) shows what it shows now from a frozen layer, with no
 * copies of its own, so that a fork's child may show the same layer;
 * -ERR_NOSPC when that would make its chain deeper than KLAYER_DEPTH_MAX */
static int freeze(struct kmapping *m, uint64_t floor)
{
	const uint64_t end = m->offset + (m->end - m->start);
	struct klayer *below = layer_at(m->object), *l;
	bool own = m->flags & FE_MAP_SHARED;
	uint64_t id;
	void *data;
	int err;

	if (below)
		collapse(below, floor);
	if (!own && !m->shadow)
		return 0;              /* nothing of its own: it shows its source as it is */
	if (!own && below && end <= below->end && held_once(m->object) &&
	    held_once(below->pages) &&
	    merge_pages(m->shadow, m->offset / PAGE, end / PAGE, below->pages, floor)) {
		kobj_release(m->shadow);
		KLOG(&m->shadow);
		m->shadow = 0;
		return 0;
	}
	if (!own && depth(m->object) >= KLAYER_DEPTH_MAX)
		return -ERR_NOSPC;
	err = kobj_new(OS_TYPE_KERNEL, sizeof(*l), KLAYER_MAGIC, &id, &data);
	if (err)
		return err;
	l = data;                      /* fresh: no log; m's references move to it */
	l->end = end;
	if (own) {
		l->pages = m->object;
	} else {
		l->pages = m->shadow;
		l->below = m->object;
		l->limit = m->limit;
	}
	KLOG(m);
	m->object = id;
	m->shadow = 0;
	m->limit = UINT64_MAX;
	m->flags = FE_MAP_PRIVATE;
	return 0;
}

/* shared_at_fork -- whether a fork's child shows m's object as the parent
 * does, writes and all: a shared mapping of a catalogue object (code
 * text among them), or of anonymous memory mapped to be shared */
static bool shared_at_fork(const struct kmapping *m)
{
	struct os_obj_info info;

	if (!(m->flags & FE_MAP_SHARED) || m->flags & KMAPPING_INHERIT)
		return m->flags & FE_MAP_SHARED;
	return os_obj_head(&kheap, m->object, &info) || info.type != OS_TYPE_ANON;
}

/* uvm_fork -- child `to` (no mappings yet) shows what `from` shows */
int uvm_fork(struct uspace *from, struct uspace *to)
{
	struct kaspace *as = from->as, *cas = to->as;
	/* half of a call's log for merges, the rest for everything else */
	const uint64_t free = heap_log_free();
	const uint64_t floor = free - (free < HEAP_ENTRY_LOG_MAX ? free : HEAP_ENTRY_LOG_MAX) / 2;
	int err;

	KASSERT(cas->count == 0);
	edit_begin(cas);
	err = make_room(cas, as->count);
	if (err)
		return err;
	/* first: no CPU writes from's pages through its old tables while
	 * they freeze; its next writes fault and make copies */
	uvm_drop_tables(from);
	for (unsigned i = 0; i < as->count; i++) {
		struct kmapping *m = map_at(as, i);

		if (!shared_at_fork(m)) {
			err = freeze(m, floor);
			if (err)
				return err;
		}
	}
	edit_begin(cas);
	for (unsigned i = 0; i < as->count; i++) {
		const struct kmapping *m = map_at(as, i);

		KASSERT(!m->shadow); /* frozen, or shared (which has none: kcheck) */
		kobj_hold(m->object);
		*map_edit(cas, i) = *m;
	}
	set_count(cas, as->count);
	return 0;
}

/* uvm_destroy -- release every mapping and the page tables */
void uvm_destroy(struct uspace *us)
{
	struct kaspace *as = us->as;

	edit_begin(as);
	while (as->count)
		remove_at(as, as->count - 1);
	if (as->more) {
		kobj_release(as->more);
		KLOG(&as->more);
		as->more = 0;
	}
	uvm_drop_tables(us);
}

/* uvm_drop_tables -- free us's page tables (they are only a cache) */
void uvm_drop_tables(struct uspace *us)
{
	if (!us->pt_root)
		return;
	pagecache_unmap(us, 0, FE_USER_TOP);
	upt_destroy(us);
}

/* uvm_drop_all_tables -- free every process's page tables (the other
 * CPUs stopped first: they leave the tables, and load new ones when they
 * return to user mode) */
void uvm_drop_all_tables(void)
{
	smp_stop_others();
	for (unsigned i = 0; i < KROOT_MAX_PROCS; i++) {
		struct uspace *us = upt_space(i);

		if (us)
			uvm_drop_tables(us);
	}
}

/* object_size -- the size of a live object (os_obj_head: what a fault
 * can afford, not a count of the object's pages) */
static uint64_t object_size(uint64_t id)
{
	struct os_obj_info info;

	return os_obj_head(&kheap, id, &info) ? 0 : info.size;
}

/* The heap page a user address shows. */
struct upage {
	uint64_t object;               /* whose page: the mapping's object or its shadow */
	uint64_t index;
	uint64_t home;                 /* the heap page */
	bool writable;                 /* may be mapped writable (a private
					* mapping's source page never is) */
	bool copied;                   /* a new private copy now stands in for
					* whatever was mapped before */
	bool fresh;                    /* home allocated just now */
};

/* The source of a private mapping's page: the page it shows until the
 * mapping writes its own copy. */
struct source {
	uint64_t object;               /* whose page: a layer's pages or the bottom object; 0 none */
	uint64_t home;                 /* that page; 0: none (it reads as zero) */
	uint64_t bytes;                /* how many of its first bytes show (the rest read as zero) */
};

/* source_page -- the source of object page `index` of private mapping m:
 * down its layers (kformat.h, struct klayer) to the object at the bottom */
static int source_page(const struct kmapping *m, uint64_t index, struct source *src)
{
	uint64_t below = m->object, limit = m->limit, at = index * PAGE;
	const struct klayer *l;
	unsigned depth = 0;
	int err;

	*src = (struct source){ 0 };
	for (; (l = layer_at(below)); depth++) {
		if (depth == KLAYER_DEPTH_MAX)
			heap_damaged("uvm: layer #%llu: a chain deeper than %u",
				     (unsigned long long)below, KLAYER_DEPTH_MAX);
		if (at < limit && at < l->end) {
			err = os_obj_page(&kheap, l->pages, index, false, &src->home);
			if (err && err != -ERR_RANGE)
				return err;
			if (!err && src->home) {
				src->object = l->pages;
				src->bytes = PAGE;
				return 0;
			}
		}
		limit = limit < l->limit ? limit : l->limit;
		below = l->below;
	}
	src->home = 0;
	if (!below || at >= limit)
		return 0;
	err = os_obj_page(&kheap, below, index, false, &src->home);
	if (err == -ERR_RANGE) /* the source shrank since: its bytes read as zero */
		return 0;
	if (err)
		return err;
	src->object = below;
	src->bytes = limit - at < PAGE ? limit - at : PAGE;
	return 0;
}

/* make_copy -- the shadow page for object page `index`, made from its source */
static int make_copy(struct kmapping *m, struct upage *pg, const struct source *src)
{
	int err;

	if (!m->shadow) {
		uint64_t id;

		err = os_obj_create(&kheap, OS_TYPE_ANON,
				    m->offset + (m->end - m->start), &id);
		if (err)
			return err;
		KLOG(&m->shadow);
		m->shadow = id;
	}
	err = os_obj_page(&kheap, m->shadow, pg->index, true, &pg->home);
	if (err)
		return err;
	pg->object = m->shadow;
	pg->copied = pg->fresh = true;
	/* A fresh, zeroed page: filling it needs no log. */
	if (src->home) {
		int64_t got = pagecache_read(src->object, pg->index * PAGE,
					     os_ptr(&kheap, pg->home), src->bytes);

		if (got < 0)
			return (int)got;
	}
	return 0;
}

/* shared_page -- page `index` of a shared mapping's object, made (zero
 * filled) on first touch */
static int shared_page(struct kmapping *m, struct upage *pg)
{
	int err;

	if (pg->index * PAGE >= object_size(m->object))
		return -ERR_RANGE;
	pg->object = m->object;
	err = os_obj_page(&kheap, m->object, pg->index, false, &pg->home);
	if (!err && !pg->home) {
		pg->fresh = true;
		err = os_obj_page(&kheap, m->object, pg->index, true, &pg->home);
	}
	return err;
}

/* page_for -- the heap page backing va in mapping m, for a read or a write */
static int page_for(struct kmapping *m, uint64_t va, bool write,
		    struct upage *pg)
{
	struct source src;
	int err;

	*pg = (struct upage){ .index = (m->offset + (va - m->start)) / PAGE,
			      .writable = m->prot & FE_PROT_WRITE };
	if (m->flags & FE_MAP_SHARED)
		return shared_page(m, pg);
	if (m->shadow) {
		err = os_obj_page(&kheap, m->shadow, pg->index, false, &pg->home);
		if (err)
			return err;
		pg->object = m->shadow;
		if (pg->home)
			return 0;
	}
	err = source_page(m, pg->index, &src);
	if (err)
		return err;
	if (!write && src.home && src.bytes == PAGE) {
		pg->object = src.object;
		pg->home = src.home;
		pg->writable = false;
		return 0;
	}
	return make_copy(m, pg, &src);
}

/* shows -- the address at which mapping m shows page `index` of `object`,
 * 0 if it does not */
static uint64_t shows(const struct kmapping *m, uint64_t object, uint64_t index)
{
	uint64_t at = index * PAGE;

	if ((m->object != object && m->shadow != object) || at < m->offset ||
	    at - m->offset >= m->end - m->start)
		return 0;
	return m->start + (at - m->offset);
}

/* unmap_home -- no page table maps pg's heap page any more: it is about to
 * be cached, and its DRAM copy is the one to see */
static void unmap_home(const struct upage *pg)
{
	uint64_t phys = heap_phys(pg->home);

	for (unsigned i = 0; i < KROOT_MAX_PROCS; i++) {
		struct uspace *us = upt_space(i);
		bool removed = false;

		for (unsigned k = 0; us && k < us->as->count; k++) {
			uint64_t va = shows(map_at(us->as, k), pg->object, pg->index), old;
			unsigned prot;

			if (va && !arch_pt_lookup_user(us->pt_root, va, &old, &prot) &&
			    old == phys) {
				arch_pt_unmap_user(us->pt_root, va, PAGE);
				removed = true;
			}
		}
		if (removed)
			upt_shootdown(us);
	}
}

/* cached_frame -- the DRAM frame for pg, to be written if `write` (then
 * cached now if it was not); 0 when there is none (no cache, or none to
 * be had: *retry when a commit was asked for, after which the access is
 * to be tried again) */
static uint64_t cached_frame(const struct upage *pg, bool write, bool *retry)
{
	uint64_t frame;
	int err;

	*retry = false;
	if (!pagecache_on())
		return 0;
	err = pagecache_frame(pg->object, pg->index, write, &frame);
	if (!err && !frame && write) {
		unmap_home(pg);
		err = pagecache_fill(pg->object, pg->index, pg->home, pg->fresh, &frame);
	}
	*retry = err == -ERR_NOMEM;
	return err ? 0 : frame;
}

/* access_denied -- why access to m is refused, NULL if allowed */
static const char *access_denied(const struct kmapping *m, unsigned access)
{
	if ((access & UVM_WRITE) && !(m->prot & FE_PROT_WRITE))
		return "read-only";
	if ((access & UVM_EXEC) && !(m->prot & FE_PROT_EXEC))
		return "not executable";
	if (!m->prot)
		return "no access";
	return NULL;
}

/* log_written -- without a cache: log the heap page before it is mapped
 * writable, and remember it in the epoch's written set; false when the
 * set is full (a commit is asked for). A page this fault allocated needs
 * no undo record: the allocation's own record (fresh: flushed at the
 * commit, freed by a rollback) covers it, and a rollback never reads its
 * bytes. It joins the written set all the same, to be write-protected at
 * the commit like any other, so the next epoch's first write logs it. */
static bool log_written(struct uspace *us, uint64_t page, const struct upage *pg,
			unsigned prot)
{
	if (written_count == WRITTEN_MAX) {
		heap_request_commit(); /* the write faults again after it */
		return false;
	}
	if (!pg->fresh) {
		arch_trace_event(NVT_EVENT_PAGE_LOG_BEGIN);
		heap_log(os_ptr(&kheap, pg->home), PAGE);
		arch_trace_event(NVT_EVENT_PAGE_LOG_END);
	}
	written[written_count++] = (struct written_page){
		.slot = us->slot, .pt_root = us->pt_root, .va = page,
		.phys = heap_phys(pg->home), .prot = prot,
	};
	return true;
}

/* uvm_fault -- resolve a user access at va; 0, or an error with *why set */
int uvm_fault(struct uspace *us, uint64_t va, unsigned access, const char **why)
{
	struct kmapping *m;
	struct upage pg;
	uint64_t page = page_down(va), phys, old_phys, start = time_ns();
	bool write, mapped, retry;
	unsigned prot = VM_READ, old_prot;
	int err;

	if (va >= FE_USER_TOP) {
		*why = "kernel address";
		return -ERR_FAULT;
	}
	m = find(us->as, va);
	if (!m) {
		*why = "not mapped";
		return -ERR_FAULT;
	}
	*why = access_denied(m, access);
	if (*why)
		return -ERR_PERM;
	err = page_for(m, va, access & UVM_WRITE, &pg);
	if (err) {
		*why = err == -ERR_RANGE ? "past the object's end"
		       : err == -ERR_NOMEM ? "heap full" : "page refused";
		return err;
	}
	if (m->prot & FE_PROT_EXEC)
		prot |= VM_EXEC;
	err = upt_activate(us);
	if (err) {
		*why = "no DRAM for page tables";
		return err;
	}
	write = pg.writable && (access & UVM_WRITE);
	phys = cached_frame(&pg, write, &retry);
	if (retry)
		return 0; /* the access faults again after the commit */
	if (write)
		prot |= VM_WRITE;
	if (!phys)
		phys = heap_phys(pg.home);
	mapped = !arch_pt_lookup_user(us->pt_root, page, &old_phys, &old_prot);
	if (mapped && old_phys == phys &&
	    (!(access & UVM_WRITE) || (old_prot & VM_WRITE)) &&
	    (!(access & UVM_EXEC) || (old_prot & VM_EXEC))) {
		/* Another thread of p mapped it first: only this CPU's TLB was stale. */
		arch_tlb_flush_page(page);
		return 0;
	}
	if (write && phys == heap_phys(pg.home) && user_logged &&
	    !log_written(us, page, &pg, prot))
		return 0;
	err = arch_pt_map_user_page(us->pt_root, page, phys, prot);
	if (err) {
		*why = "no DRAM for page tables";
		return err;
	}
	if (phys != heap_phys(pg.home))
		pagecache_mapped(us, pg.object, pg.index, page, write);
	arch_tlb_flush_page(page);
	if (mapped && old_phys != phys) /* a private copy replaced its source */
		upt_shootdown(us);
	if (write)
		written_fault_ns += time_ns() - start;
	return 0;
}

/* uvm_epoch_end -- the epoch committed: every page written in it becomes
 * read-only again in the tables it was written through */
void uvm_epoch_end(struct uvm_epoch *done)
{
	done->pages = written_count;
	done->fault_ns = written_fault_ns;
	written_fault_ns = 0;
	for (unsigned i = 0; i < written_count; i++) {
		const struct written_page *w = &written[i];
		struct uspace *us = upt_space(w->slot);
		uint64_t phys;
		unsigned prot;

		/* Tables dropped or remade since, or the entry unmapped or
		 * replaced: nothing of this write is left to protect. */
		if (!us || us->pt_root != w->pt_root ||
		    arch_pt_lookup_user(w->pt_root, w->va, &phys, &prot) ||
		    phys != w->phys)
			continue;
		if (arch_pt_map_user_page(w->pt_root, w->va, w->phys,
					  w->prot & ~(unsigned)VM_WRITE))
			arch_pt_unmap_user(w->pt_root, w->va, PAGE);
		arch_tlb_flush_page(w->va);
	}
	written_count = 0;
}

/*
 * user_bytes -- the kernel address of us's byte at va, checked for `access`,
 * and how many bytes of the same page follow it (at most len); *logged
 * when they are heap bytes the caller must log before writing them (a
 * write goes to the DRAM cache when there is one)
 */
static int user_bytes(struct uspace *us, uint64_t va, uint64_t len,
		      unsigned access, uint8_t **kva, uint64_t *chunk,
		      bool *logged)
{
	struct kmapping *m = find(us->as, va);
	struct upage pg;
	uint64_t frame;
	bool retry;
	int err;

	if (!m || access_denied(m, access))
		return -ERR_FAULT;
	err = page_for(m, va, access & UVM_WRITE, &pg);
	if (err)
		return err == -ERR_NOMEM ? err : -ERR_FAULT;
	if (pg.copied)
		unmap_ptes(us, page_down(va), PAGE);
	frame = cached_frame(&pg, access & UVM_WRITE, &retry);
	*logged = !frame;
	*kva = (uint8_t *)(frame ? phys_to_virt(frame) : os_ptr(&kheap, pg.home)) +
	       (va % PAGE);
	*chunk = PAGE - va % PAGE < len ? PAGE - va % PAGE : len;
	return 0;
}

/* uvm_check -- whether [addr, addr+len) is all mapped with `access` (no page is made) */
int uvm_check(struct uspace *us, uint64_t addr, uint64_t len, unsigned access)
{
	uint64_t end;

	if (!len)
		return 0;
	if (!range_ok(addr, len))
		return -ERR_FAULT;
	end = addr + len;
	while (addr < end) {
		struct kmapping *m = find(us->as, addr);

		if (!m || access_denied(m, access))
			return -ERR_FAULT;
		addr = m->end;
	}
	return 0;
}

/* uvm_copy_in -- copy len bytes from us's memory at src */
int uvm_copy_in(struct uspace *us, void *dst, uint64_t src, uint64_t len)
{
	uint8_t *to = dst;

	if (len && !range_ok(src, len))
		return -ERR_FAULT;
	while (len) {
		uint8_t *kva;
		uint64_t chunk;
		bool logged;
		int err = user_bytes(us, src, len, UVM_READ, &kva, &chunk, &logged);

		if (err)
			return err;
		memcpy(to, kva, chunk);
		to += chunk;
		src += chunk;
		len -= chunk;
	}
	return 0;
}

/* uvm_copy_out -- copy len bytes to us's memory at dst (logged) */
int uvm_copy_out(struct uspace *us, uint64_t dst, const void *src, uint64_t len)
{
	const uint8_t *from = src;

	if (len && !range_ok(dst, len))
		return -ERR_FAULT;
	while (len) {
		uint8_t *kva;
		uint64_t chunk;
		bool logged;
		int err = user_bytes(us, dst, len, UVM_WRITE, &kva, &chunk, &logged);

		if (err)
			return err;
		if (logged)
			heap_log(kva, chunk);
		memcpy(kva, from, chunk);
		from += chunk;
		dst += chunk;
		len -= chunk;
	}
	return 0;
}

/* uvm_copy_string -- a NUL-terminated string of at most max-1 bytes; its length */
int uvm_copy_string(struct uspace *us, char *dst, uint64_t src, size_t max)
{
	size_t len = 0;

	while (len < max) {
		uint8_t *kva;
		uint64_t chunk;
		bool logged;
		int err;

		if (!range_ok(src, 1))
			return -ERR_FAULT;
		err = user_bytes(us, src, max - len, UVM_READ, &kva, &chunk, &logged);
		if (err)
			return err;
		for (uint64_t i = 0; i < chunk; i++) {
			dst[len] = (char)kva[i];
			if (!kva[i])
				return (int)len;
			len++;
		}
		src += chunk;
	}
	return -ERR_TOOBIG;
}

/* add_pages -- the pages of anonymous object id, unless already counted */
static uint64_t add_pages(uint64_t id, uint64_t *seen, unsigned *n)
{
	struct os_obj_info info;

	for (unsigned i = 0; i < *n; i++)
		if (seen[i] == id)
			return 0;
	seen[(*n)++] = id;
	if (os_obj_stat(&kheap, id, &info) || info.type != OS_TYPE_ANON)
		return 0;
	return info.pages;
}

/* uvm_pages -- pages of memory us has made (anonymous and copied pages),
 * each object counted once however many mappings show it */
uint64_t uvm_pages(struct uspace *us)
{
	static uint64_t seen[2 * KASPACE_MAX_MAPS]; /* the kernel runs one call at a time */
	uint64_t pages = 0;
	unsigned n = 0;

	for (unsigned i = 0; i < us->as->count; i++) {
		const struct kmapping *m = map_at(us->as, i);

		if (m->shadow)
			pages += add_pages(m->shadow, seen, &n);
		pages += add_pages(m->object, seen, &n);
	}
	return pages;
}
