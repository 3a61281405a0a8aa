/*
 * gen.c -- the fuzzer's random arguments and the pools they come from.
 *
 * Every argument is drawn from classes: values a correct program would
 * pass (a live handle, a buffer that fits, a name under the prefix) and
 * the boundaries and wild values around them (0, 1, the last page of user
 * space, a buffer that straddles the end of a mapping, the kernel half,
 * non-canonical addresses, lengths that wrap, closed and forged handles,
 * names of odd lengths with NUL and non-ASCII bytes). The pools remember
 * what earlier calls made, so later calls reach the kernel's deeper paths
 * (a read of an object that exists, a rename of a name that is bound).
 *
 * The guards keep a fuzzed call from stopping the fuzzing in a boring way
 * or from reaching past the fuzzer's own things:
 *   - the kernel never writes into the fuzzer's state: a pointer the
 *     kernel may write to either misses the image, the stack and the stats
 *     mapping, or is replaced by the scratch buffer (fz_ptr_out);
 *   - unmap and protect never touch the image, the stack or the pages kept
 *     from the start (fz_range);
 *   - names that bind, unbind or rename are always under "fuzz/PID/" or
 *     the family's "fuzz/ROOTPID/s/" (fz_name with own_only), so no other
 *     program's names change; names the family shares let its processes
 *     work on each other's objects and channels;
 *   - the precious handles (the program's own code, the stats object, the
 *     carrier channel, the root's workers) are never a fuzzed argument.
 */
#include "sysfuzz.h"

#define PAGE FE_PAGE_SIZE
#define STATS_BYTES (FZ_PROCS_MAX * sizeof(struct fz_counts))
#define ODD_NAMES 8u             /* odd suffixes kept, so names recur */
#define ODD_NAME_MAX 40u
#define LIST_BATCH 16u

static char odd_suffix[ODD_NAMES][ODD_NAME_MAX];
static size_t odd_len[ODD_NAMES];

/* fz_rand -- a pseudo-random value in [0, bound) */
uint64_t fz_rand(uint64_t bound)
{
	return fe_rand_below(&fz.rng, bound);
}

/* fz_chance -- true with probability 1/n */
bool fz_chance(uint64_t n)
{
	return fz_rand(n) == 0;
}

/* fz_any -- a pseudo-random 64-bit value */
uint64_t fz_any(void)
{
	return fe_rand_next(&fz.rng);
}

/* end_of -- the end of [addr, addr + len), saturating at 2^64 - 1 */
static uint64_t end_of(uint64_t addr, uint64_t len)
{
	return len > UINT64_MAX - addr ? UINT64_MAX : addr + len;
}

/* meets -- whether [addr, addr + len) and [lo, hi) share a byte */
static bool meets(uint64_t addr, uint64_t len, uint64_t lo, uint64_t hi)
{
	return len && addr < hi && lo < end_of(addr, len);
}

/* meets_kept -- whether a range meets the stack, the stats mapping or the
 * pages mapped at start */
static bool meets_kept(uint64_t addr, uint64_t len)
{
	return meets(addr, len, FZ_STACK_LOW, FZ_STACK_HIGH) ||
	       meets(addr, len, FZ_STATS_ADDR, FZ_STATS_ADDR + STATS_BYTES) ||
	       meets(addr, len, FZ_EDGE, FZ_EDGE + PAGE) ||
	       meets(addr, len, FZ_TOP_PAGE, FE_USER_TOP);
}

/* scratch -- the address of the scratch buffer */
static uint64_t scratch(void)
{
	return (uint64_t)(uintptr_t)fz_scratch;
}

/* in_scratch -- the scratch buffer holds all of [addr, addr + len) */
static bool in_scratch(uint64_t addr, uint64_t len)
{
	return addr >= scratch() && len <= FZ_SCRATCH &&
	       addr - scratch() <= FZ_SCRATCH - len;
}

/* map_pointer -- an address in or just past one of the fuzzer's mappings */
static uint64_t map_pointer(uint64_t len)
{
	const struct fz_map *m;

	if (!fz.map_count)
		return FZ_MAP_BASE + fz_rand(16) * PAGE;
	m = &fz.maps[fz_rand(fz.map_count)];
	if (fz_chance(2) && len && len <= m->len)
		return m->addr + m->len - 1 - fz_rand(len); /* straddles the end */
	return m->addr + fz_rand(m->len < (1u << 20) ? m->len : (1u << 20));
}

/* fz_ptr_bad -- a pointer the kernel must refuse whatever the length
 * (invariant: no fuzzed SYS_MAP is given one of its user-half addresses,
 * calls.c's bad_outside_user_half) */
uint64_t fz_ptr_bad(void)
{
	switch (fz_rand(11)) {
	case 0:
		return 0;
	case 1:
		return 1 + fz_rand(PAGE);
	case 2:
		return FE_USER_BASE - 1 - fz_rand(FE_USER_BASE);
	case 3:
		return 0xffff800000000000ull + fz_rand(1ull << 40);
	case 4:
		return 0xffffffff80000000ull + fz_rand(1u << 24);
	case 5:
		return 0x0000800000000000ull + fz_rand(1ull << 40); /* non-canonical */
	case 6:
		return 0x8000000000000000ull | fz_any();
	case 7:
		return FE_USER_TOP + fz_rand(2 * PAGE);
	case 8:
		return UINT64_MAX - fz_rand(2 * PAGE);
	case 9:
		return FZ_EDGE + PAGE + fz_rand(PAGE); /* the hole after the edge page */
	default:
		return 0x0000200000000000ull + fz_rand(1u << 20) * PAGE; /* never mapped by hand */
	}
}

/* any_pointer -- a pointer to len bytes, valid or not */
static uint64_t any_pointer(uint64_t len)
{
	uint64_t fit = len < FZ_SCRATCH ? FZ_SCRATCH - len : 0;

	switch (fz_rand(12)) {
	case 0: case 1: case 2: case 3:
		return scratch() + fz_rand(fit + 1);
	case 4:
		return FZ_EDGE + fz_rand(PAGE);
	case 5:
		return FZ_EDGE + PAGE - 1 - fz_rand(len < PAGE ? len + 1 : PAGE);
	case 6:
		return FE_USER_TOP - 1 - fz_rand(len < PAGE ? len + 1 : PAGE);
	case 7: case 8:
		return map_pointer(len);
	case 9:
		return FE_USER_BASE + fz_rand(4 * PAGE); /* program text: read-only */
	default:
		return fz_ptr_bad();
	}
}

/* fz_ptr_in -- a pointer to len bytes the kernel will read */
uint64_t fz_ptr_in(uint64_t len)
{
	return any_pointer(len);
}

/* fz_ptr_out -- a pointer to up to len bytes the kernel may write; never
 * into the fuzzer's own state, stack or stats */
uint64_t fz_ptr_out(uint64_t len)
{
	uint64_t p = any_pointer(len);

	if (in_scratch(p, len))
		return p;
	/* Invariant: the kernel writes nothing of the fuzzer but the scratch buffer. */
	if (meets(p, len, FZ_DATA, FZ_IMAGE_TOP) ||
	    meets(p, len, FZ_STACK_LOW, FZ_STACK_HIGH) ||
	    meets(p, len, FZ_STATS_ADDR, FZ_STATS_ADDR + STATS_BYTES))
		return len <= FZ_SCRATCH ? scratch() : fz_ptr_bad();
	return p;
}

/* fz_readable -- a pointer to len bytes the fuzzer may read back itself
 * (the scratch buffer or the edge page), or a bad one */
uint64_t fz_readable(uint64_t len)
{
	switch (fz_rand(8)) {
	case 0:
		return fz_ptr_bad();
	case 1:
		return FZ_EDGE + PAGE - 1 - fz_rand(len < PAGE ? len + 1 : PAGE);
	case 2:
		return len <= PAGE ? FZ_EDGE + fz_rand(PAGE - len + 1) : FZ_EDGE;
	default:
		return scratch() + (len <= FZ_SCRATCH ? fz_rand(FZ_SCRATCH - len + 1) : 0);
	}
}

/* fz_len -- a length around `typical` or at a boundary */
uint64_t fz_len(uint64_t typical)
{
	static const uint64_t edges[] = {
		4095, 4096, 4097, FE_IO_MAX - 1, FE_IO_MAX, FE_IO_MAX + 1,
		FE_CHAN_MSG_MAX, FE_CHAN_MSG_MAX + 1, FE_NAME_MAX, FE_NAME_MAX + 1,
		FE_OBJ_SIZE_MAX, FE_OBJ_SIZE_MAX + 1, FE_USER_TOP, FE_USER_TOP + 1,
		INT64_MAX, 1ull << 63, 1ull << 32, UINT32_MAX,
	};

	switch (fz_rand(14)) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2: case 3:
		return typical;
	case 4:
		return typical ? typical - 1 : 0;
	case 5:
		return typical + 1;
	case 6: case 7:
		return fz_rand(typical + 1);
	case 8: case 9:
		return edges[fz_rand(sizeof(edges) / sizeof(edges[0]))];
	case 10:
		return UINT64_MAX - fz_rand(2 * PAGE);
	case 11:
		return fz_any();
	default:
		return fz_rand(64);
	}
}

/* fz_offset -- an offset into an object */
uint64_t fz_offset(void)
{
	switch (fz_rand(11)) {
	case 0: case 1: case 2:
		return 0;
	case 3:
		return fz_rand(1u << 16);
	case 4: case 5:
		return fz_rand(64) * PAGE;
	case 6:
		return fz_rand(1u << 20);
	case 7:
		return FE_OBJ_SIZE_MAX - fz_rand(2) * PAGE;
	case 8:
		return UINT64_MAX - fz_rand(2 * PAGE);
	case 9:
		/* Page aligned and huge: the largest offset a mapping may
		 * take, around it, and the top of the 64-bit range. */
		switch (fz_rand(4)) {
		case 0:
			return (UINT64_MAX - FE_USER_TOP) & ~(uint64_t)(PAGE - 1);
		case 1:
			return ((UINT64_MAX - FE_USER_TOP) & ~(uint64_t)(PAGE - 1)) + PAGE;
		case 2:
			return 1ull << (40 + fz_rand(24));
		default:
			return UINT64_MAX & ~(uint64_t)(PAGE - 1);
		}
	default:
		return fz_any();
	}
}

/* fz_size -- a size for an object (mostly small: the heap is shared) */
uint64_t fz_size(void)
{
	switch (fz_rand(12)) {
	case 0:
		return 0;
	case 1: case 2:
		return fz_rand(PAGE + 1);
	case 3: case 4: case 5:
		return fz_rand(1u << 16);
	case 6:
		return fz_rand(64) * PAGE;
	case 7:
		return FE_OBJ_SIZE_MAX;
	case 8:
		return FE_OBJ_SIZE_MAX + 1;
	case 9:
		return UINT64_MAX - fz_rand(PAGE);
	case 10:
		return fz_rand(1ull << 32);
	default:
		return fz_any();
	}
}

/* fz_rights -- rights bits, mostly valid */
uint64_t fz_rights(void)
{
	switch (fz_rand(10)) {
	case 0: case 1: case 2: case 3:
		return fz_rand(FE_RIGHTS_ALL + 1);
	case 4: case 5:
		return FE_RIGHTS_ALL;
	case 6:
		return 0;
	case 7:
		return fz_rand(256);
	case 8:
		return (1ull << 32) | fz_rand(FE_RIGHTS_ALL + 1);
	default:
		return fz_any();
	}
}

/* fz_is_precious -- whether handle value v is one no fuzzed call may use */
bool fz_is_precious(uint64_t v)
{
	for (unsigned i = 0; i < fz.precious_count; i++)
		if ((uint64_t)(int64_t)fz.precious[i] == v)
			return true;
	return false;
}

/* forged -- a handle value nobody handed out: wrong slot, generation or width */
static uint64_t forged(void)
{
	int32_t base = fz.pool_count ? fz.pool[fz_rand(fz.pool_count)] : 0x101;
	uint32_t slot = (uint32_t)base & 0xff, gen = (uint32_t)base >> 8;

	switch (fz_rand(14)) {
	case 0:
		return 0;
	case 1:
		return UINT64_MAX;                       /* -1, sign-extended */
	case 2:
		return UINT32_MAX;                       /* -1, zero-extended */
	case 3:
		return (uint64_t)(int64_t)INT32_MIN;
	case 4:
		return INT32_MAX;
	case 5:
		return (uint64_t)FE_HANDLE_VALUE(fz_rand(FE_HANDLE_SLOTS), 1 + fz_rand(3));
	case 6:
		return (uint64_t)FE_HANDLE_VALUE(slot, gen + 1);  /* a recycled slot */
	case 7:
		return (uint64_t)FE_HANDLE_VALUE(slot, gen - 1);
	case 8:
		return (uint64_t)FE_HANDLE_VALUE(FE_HANDLE_SLOTS + fz_rand(256 - FE_HANDLE_SLOTS), 1);
	case 9:
		return (uint64_t)FE_HANDLE_VALUE(slot, 0x7fffffu + fz_rand(2));
	case 10:
		return (uint64_t)(uint32_t)base | (1ull << (32 + fz_rand(32)));
	case 11:
		return (uint64_t)FE_HANDLE_VALUE(slot, 0);
	case 12:
		return (uint64_t)(int64_t)(int32_t)fz_any();
	default:
		return fz_any();
	}
}

/* fz_handle -- a handle argument: live, closed or forged; never precious */
uint64_t fz_handle(void)
{
	uint64_t v;
	unsigned pick = (unsigned)fz_rand(10);

	if (pick < 6 && fz.pool_count)
		v = (uint64_t)(int64_t)fz.pool[fz_rand(fz.pool_count)];
	else if (pick < 7 && fz.stale[0])
		v = (uint64_t)(int64_t)fz.stale[fz_rand(FZ_STALE)];
	else
		v = forged();
	return fz_is_precious(v) ? INT32_MAX : v;
}

/* kernel_refuses_range -- whether unmap or protect refuse [addr, +len)
 * before looking at the mappings (uvm.c) */
static bool kernel_refuses_range(uint64_t addr, uint64_t len)
{
	uint64_t pages;

	if (addr % PAGE || !len || addr < FE_USER_BASE || addr >= FE_USER_TOP ||
	    len > FE_USER_TOP - addr)
		return true;
	pages = (len + PAGE - 1) & ~(uint64_t)(PAGE - 1);
	return pages > FE_USER_TOP - addr;
}

/* fz_range -- an address range for unmap and protect, never the fuzzer's own */
void fz_range(uint64_t *addr, uint64_t *len)
{
	const struct fz_map *m = fz.map_count ? &fz.maps[fz_rand(fz.map_count)] : NULL;

	switch (fz_rand(8)) {
	case 0: case 1:
		*addr = m ? m->addr : FZ_MAP_BASE;
		*len = m ? m->len : PAGE;
		break;
	case 2: case 3:
		*addr = m ? m->addr + fz_rand(m->len / PAGE + 1) * PAGE : FZ_MAP_BASE;
		*len = fz_rand(8) * PAGE + fz_rand(2) * fz_rand(PAGE);
		break;
	case 4:
		*addr = FZ_MAP_BASE + fz_rand(64) * PAGE;
		*len = fz_len(16 * PAGE);
		break;
	case 5:
		*addr = FZ_TOP_PAGE - fz_rand(2) * PAGE;
		*len = fz_len(2 * PAGE);
		break;
	default:
		*addr = fz_rand(2) ? fz_ptr_bad() : FZ_MAP_BASE + fz_rand(PAGE);
		*len = fz_len(PAGE);
		break;
	}
	if (!kernel_refuses_range(*addr, *len) &&
	    (meets(*addr, *len, FE_USER_BASE, FZ_IMAGE_TOP) || meets_kept(*addr, *len))) {
		*addr = FZ_MAP_BASE;
		*len = PAGE;
	}
}

/* random_bytes -- n random bytes into buf, NUL, '/' and non-ASCII included */
static void random_bytes(char *buf, size_t n)
{
	static const char odd[] = {'\0', '/', '\xff', '\x80', ' ', '\n', '\x1b', '.'};

	for (size_t i = 0; i < n; i++)
		buf[i] = fz_chance(3) ? odd[fz_rand(sizeof(odd))] : (char)fz_any();
}

/* own_suffix -- the part after a prefix of prefix_len bytes of one of the
 * fuzzer's names; its length */
static size_t own_suffix(char *buf, size_t room, size_t prefix_len)
{
	unsigned k;

	switch (fz_rand(10)) {
	case 0: case 1: case 2: case 3: case 4:
		return (size_t)snprintf(buf, room, "n%lu", fz_rand(8));
	case 5: case 6: case 7:
		k = (unsigned)fz_rand(ODD_NAMES);
		if (!odd_len[k] || fz_chance(4)) {
			odd_len[k] = 1 + fz_rand(ODD_NAME_MAX);
			random_bytes(odd_suffix[k], odd_len[k]);
		}
		memcpy(buf, odd_suffix[k], odd_len[k]);
		return odd_len[k];
	default:
		/* A name of the largest length, or one byte more (refused). */
		k = (unsigned)(FE_NAME_MAX - prefix_len + fz_rand(2) - fz_rand(2));
		random_bytes(buf, k);
		return k;
	}
}

/* own_name -- a name under the prefix or the family's into buf; its length */
static uint64_t own_name(char *buf)
{
	bool family = fz_chance(4);
	const char *prefix = family ? fz.family : fz.prefix;
	size_t len = family ? fz.family_len : fz.prefix_len;
	size_t n = own_suffix(buf + len, FZ_NAME_BUF - len, len);

	memcpy(buf, prefix, len);
	switch (fz_rand(24)) {
	case 0:
		return 0;
	case 1:
		return UINT64_MAX;
	case 2:
		return FE_NAME_MAX + 1;
	case 3:
		return len + n + 1; /* one byte more: still under the prefix */
	default:
		return len + n;
	}
}

/* foreign_name -- a name of anything, maybe not the fuzzer's, in buf or
 * the scratch buffer; its length */
static uint64_t foreign_name(char *buf, uint64_t *ptr)
{
	static const char *const names[] = {
		"bin/sysfuzz", "bin/osh", "bin/", "bin", "", "fuzz/", "fuzz", "/",
		"\xff\xfe", "churn/",
	};
	const char *s = names[fz_rand(sizeof(names) / sizeof(names[0]))];

	if (fz_chance(4)) {
		*ptr = scratch() + fz_rand(FZ_SCRATCH - FE_NAME_MAX);
		return fz_len(32);
	}
	memcpy(buf, s, strlen(s) + 1);
	*ptr = (uint64_t)(uintptr_t)buf;
	return fz_chance(8) ? fz_len(8) : strlen(s);
}

/* fz_name -- a name argument, made in buf (FZ_NAME_BUF bytes); *own says
 * whether it is under the prefix. With own_only every name the kernel can
 * read starts with the prefix. */
void fz_name(bool own_only, char *buf, uint64_t *ptr, uint64_t *len, bool *own)
{
	uint64_t cut;

	*own = true;
	if (!own_only && fz_chance(6)) {
		*len = foreign_name(buf, ptr);
		*own = false;
		return;
	}
	*len = own_name(buf);
	*ptr = (uint64_t)(uintptr_t)buf;
	if (fz_chance(16)) {
		*ptr = fz_ptr_bad();
	} else if (fz_chance(10) && *len > 1 && *len <= PAGE) {
		/* Straddle the end of the edge page: the tail is unmapped. */
		cut = 1 + fz_rand(*len - 1);
		*ptr = FZ_EDGE + PAGE - (*len - cut);
		memcpy((void *)(uintptr_t)*ptr, buf, *len - cut);
	}
}

/* fz_pool_add -- keep a new handle (closing a random one if the pool is full) */
void fz_pool_add(int32_t h)
{
	if (fz.pool_count == FZ_POOL) {
		int32_t victim = fz.pool[fz_rand(FZ_POOL)];

		if (fz_call(SYS_CLOSE, (uint64_t)(int64_t)victim, 0, 0, 0, 0, 0) == 0)
			fz_pool_closed((uint64_t)(int64_t)victim);
	}
	if (fz.pool_count < FZ_POOL)
		fz.pool[fz.pool_count++] = h;
}

/* fz_pool_closed -- forget handle value v, which is closed now */
void fz_pool_closed(uint64_t v)
{
	for (unsigned i = 0; i < fz.pool_count; i++) {
		if ((uint64_t)(int64_t)fz.pool[i] != v)
			continue;
		fz.pool[i] = fz.pool[--fz.pool_count];
		break;
	}
	for (unsigned i = 0; i < fz.kid_count; i++) {
		if ((uint64_t)(int64_t)fz.kids[i].handle != v)
			continue;
		fz.kids[i] = fz.kids[--fz.kid_count];
		break;
	}
	fz.stale[fz.stale_next] = (int32_t)v;
	fz.stale_next = (fz.stale_next + 1) % FZ_STALE;
}

/* fz_id_add -- remember the id of the object of handle h, which the fuzzer made */
void fz_id_add(int32_t h)
{
	struct fe_stat st;

	if (fe_obj_stat(h, &st) == 0) {
		fz.ids[fz.ids_next] = st.id;
		fz.ids_next = (fz.ids_next + 1) % FZ_IDS;
	}
}

/* fz_id_own -- whether id is one the fuzzer made */
bool fz_id_own(uint64_t id)
{
	for (unsigned i = 0; i < FZ_IDS; i++)
		if (id && fz.ids[i] == id)
			return true;
	return false;
}

/* fz_id -- an object id to open: the fuzzer's own or any */
uint64_t fz_id(bool *own)
{
	uint64_t id;

	switch (fz_rand(6)) {
	case 0: case 1: case 2:
		id = fz.ids[fz_rand(FZ_IDS)];
		break;
	case 3:
		id = 1 + fz_rand(4096);
		break;
	case 4:
		id = fz_chance(2) ? 0 : UINT64_MAX - fz_rand(2);
		break;
	default:
		id = fz_any();
		break;
	}
	*own = fz_id_own(id);
	return id;
}

/* fz_map_add -- remember a mapping (unmapping a random one if full); one
 * that covers the hole after the edge page is unmapped at once */
void fz_map_add(uint64_t addr, uint64_t len)
{
	if (meets(addr, len, FZ_EDGE + PAGE, FZ_EDGE + 2 * PAGE)) {
		fz_call(SYS_UNMAP, addr, len, 0, 0, 0, 0);
		return;
	}
	if (fz.map_count == FZ_MAPS) {
		struct fz_map victim = fz.maps[fz_rand(FZ_MAPS)];

		fz_call(SYS_UNMAP, victim.addr, victim.len, 0, 0, 0, 0);
		fz_map_removed(victim.addr, victim.len);
	}
	if (fz.map_count < FZ_MAPS)
		fz.maps[fz.map_count++] = (struct fz_map){addr, len};
}

/* fz_map_removed -- forget the mappings that meet [addr, addr + len) */
void fz_map_removed(uint64_t addr, uint64_t len)
{
	for (unsigned i = 0; i < fz.map_count;) {
		if (meets(fz.maps[i].addr, fz.maps[i].len, addr, end_of(addr, len)))
			fz.maps[i] = fz.maps[--fz.map_count];
		else
			i++;
	}
}

/* fz_kid_add -- remember a trivial child */
void fz_kid_add(int32_t handle)
{
	struct fe_exit_info info;

	if (fz.kid_count == FZ_KIDS)
		return;
	memset(&info, 0, sizeof(info));
	fe_wait(handle, &info, FE_WAIT_NOHANG);
	fz.kids[fz.kid_count++] = (struct fz_kid){handle, info.pid};
}

/* fz_kid_handle -- a trivial child's handle, or -1 */
int32_t fz_kid_handle(void)
{
	return fz.kid_count ? fz.kids[fz_rand(fz.kid_count)].handle : -1;
}

/* kid_ended -- count how a child ended, close its handle, forget it */
static void kid_ended(unsigned i, const struct fe_exit_info *info)
{
	int32_t h = fz.kids[i].handle;

	if (info->reason <= FE_EXIT_INTERRUPT)
		fz.counts->kid_ends[info->reason]++;
	fe_close(h);
	fz_pool_closed((uint64_t)(int64_t)h); /* drops it from the kids too */
}

/* fz_kids_reap -- forget (and count) the trivial children that ended */
void fz_kids_reap(void)
{
	for (unsigned i = 0; i < fz.kid_count;) {
		struct fe_exit_info info;
		long r = fe_wait(fz.kids[i].handle, &info, FE_WAIT_NOHANG);

		if (r > 0)
			kid_ended(i, &info);
		else if (r < 0)
			fz.kids[i] = fz.kids[--fz.kid_count]; /* its handle was closed */
		else
			i++;
	}
}

/* fz_kids_end -- kill, wait for and close every trivial child */
void fz_kids_end(void)
{
	while (fz.kid_count) {
		struct fe_exit_info info;

		fe_kill(fz.kids[0].pid);
		if (fe_wait(fz.kids[0].handle, &info, 0) > 0)
			kid_ended(0, &info);
		else
			fz.kids[0] = fz.kids[--fz.kid_count];
	}
}

/* fz_unbind_prefix -- unbind every name under prefix; names unbound */
uint64_t fz_unbind_prefix(const char *prefix, size_t len)
{
	static struct fe_name_entry entries[LIST_BATCH];
	static struct fe_cursor cursor;
	uint64_t unbound = 0;
	long n;

	do {
		memset(&cursor, 0, sizeof(cursor));
		n = fe_name_list(prefix, len, &cursor, entries, LIST_BATCH);
		for (long i = 0; i < n; i++)
			if (fe_name_unbind(entries[i].name, entries[i].len) == 0)
				unbound++;
	} while (n > 0);
	return unbound;
}

/* fz_reset -- close every handle, unmap every mapping, unbind every name:
 * what the fuzzer made so far is given back, so its heap use stays bounded */
void fz_reset(void)
{
	fz_kids_end();
	while (fz.pool_count) {
		int32_t h = fz.pool[fz.pool_count - 1];

		fe_close(h);
		fz_pool_closed((uint64_t)(int64_t)h);
	}
	fe_unmap(FZ_IMAGE_TOP, FZ_EDGE - FZ_IMAGE_TOP);
	fe_unmap(FZ_EDGE + PAGE, FZ_STATS_ADDR - FZ_EDGE - PAGE);
	fe_unmap(FZ_STATS_ADDR + (STATS_BYTES + PAGE - 1) / PAGE * PAGE,
		 FZ_STACK_LOW - FZ_STATS_ADDR - (STATS_BYTES + PAGE - 1) / PAGE * PAGE);
	fe_unmap(FZ_STACK_HIGH, FZ_TOP_PAGE - FZ_STACK_HIGH);
	fz.map_count = 0;
	fz_unbind_prefix(fz.prefix, fz.prefix_len);
	fz.since_reset = 0;
}
