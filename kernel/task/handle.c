/*
 * handle.c -- a process's handle table.
 *
 * A handle value is FE_HANDLE_VALUE(slot, gen): the slot of the entry in the
 * process's khandles object and the entry's generation. Closing a handle
 * bumps the generation, so an old value stays invalid (-ERR_BADF) after its
 * slot is reused (until the generation wraps, after KHANDLE_GEN_MAX reuses), and a forged value names at worst another of the caller's
 * own handles: a process can never reach an entry outside its own table.
 *
 * Each entry holds one reference to its object (kobj_hold / kobj_release),
 * and for a channel one count on the end it names (channel.c).
 *
 * What a handle may do is decided here once: the type table says, for each
 * type of object, the most rights a handle to it may carry and what a
 * program may use it for; handle_lookup checks a handle, its rights and
 * its object's type in one call, for every system call that takes one.
 */
#include "core/panic.h"
#include "ferrite/errors.h"
#include "task/channel.h"
#include "task/handle.h"
#include "obj/kobj.h"
#include "task/proc.h"

/* What programs may do with each type of object; a type not listed gets
 * no handle (kernel objects, threads, address spaces, handle tables). */
static const struct type_rule {
	uint32_t rights_max;           /* the most a handle may carry */
	unsigned uses;                 /* enum handle_use */
} type_rules[OS_TYPE_MAX + 1] = {
	[OS_TYPE_BLOB] = { FE_RIGHTS_ALL, USE_BYTES | USE_OPEN_BY_ID | USE_NAME },
	[OS_TYPE_ANON] = { FE_RIGHTS_ALL, USE_BYTES },
	/* Code is read-only to programs. */
	[OS_TYPE_CODE] = { FE_RIGHT_READ | FE_RIGHT_MAP | FE_RIGHT_EXEC | FE_RIGHT_GRANT,
			   USE_BYTES | USE_OPEN_BY_ID | USE_NAME },
	[OS_TYPE_CHANNEL] = { FE_RIGHT_READ | FE_RIGHT_WRITE | FE_RIGHT_GRANT, USE_NAME },
	[OS_TYPE_PROCESS] = { FE_RIGHT_READ | FE_RIGHT_WRITE | FE_RIGHT_GRANT, 0 },
};

/* handle_rights_max -- the most a handle to an object of `type` may carry */
uint32_t handle_rights_max(uint16_t type)
{
	return type <= OS_TYPE_MAX ? type_rules[type].rights_max : 0;
}

/* handle_types -- the set of types that allow every use in `uses` */
unsigned handle_types(unsigned uses)
{
	unsigned set = 0;

	for (unsigned t = 0; t <= OS_TYPE_MAX; t++)
		if (type_rules[t].rights_max && (type_rules[t].uses & uses) == uses)
			set |= HANDLE_TYPE(t);
	return set;
}

/* handle_install -- a new handle for a reference the caller holds */
int handle_install(struct pctx *p, uint64_t object, uint32_t rights,
		   uint8_t end)
{
	struct khandles *t = p->ht;

	for (unsigned i = 0; i < FE_HANDLE_SLOTS; i++) {
		struct khandle *h = &t->slot[i];

		if (h->object)
			continue;
		KLOG(h);
		KLOG(&t->count);
		h->gen = h->gen ? h->gen : 1;
		h->object = object;
		h->rights = (uint8_t)(rights & FE_RIGHTS_ALL);
		h->end = end;
		t->count++;
		if (kobj_type(object) == OS_TYPE_CHANNEL)
			channel_end_opened(object, end);
		return FE_HANDLE_VALUE(i, h->gen);
	}
	return -ERR_NOSPC;
}

/* handle_lookup -- the entry for value h, with every right in `need`, of
 * an object whose type is in `types` */
int handle_lookup(struct pctx *p, int64_t value, unsigned types, uint32_t need,
		  struct khandle **out)
{
	uint64_t slot = (uint64_t)value & 0xff;
	uint64_t gen = (uint64_t)value >> 8;
	struct khandle *h;

	if (value <= 0 || slot >= FE_HANDLE_SLOTS || gen > KHANDLE_GEN_MAX)
		return -ERR_BADF;
	h = &p->ht->slot[slot];
	if (!h->object || h->gen != gen)
		return -ERR_BADF;
	if ((h->rights & need) != need)
		return -ERR_PERM;
	if (types != HANDLE_ANY_TYPE && !(types & HANDLE_TYPE(kobj_type(h->object))))
		return -ERR_INVAL;
	*out = h;
	return 0;
}

/* handle_full -- whether p's table has fewer than `slots` free slots */
bool handle_full(const struct pctx *p, unsigned slots)
{
	return p->ht->count + slots > FE_HANDLE_SLOTS;
}

/* close_entry -- free one entry, dropping its reference */
static void close_entry(struct pctx *p, struct khandle *h)
{
	uint64_t object = h->object;
	uint8_t end = h->end;

	KLOG(h);
	KLOG(&p->ht->count);
	h->object = 0;
	h->rights = 0;
	h->end = 0;
	h->gen = h->gen == KHANDLE_GEN_MAX ? 1 : h->gen + 1;
	p->ht->count--;
	if (kobj_type(object) == OS_TYPE_CHANNEL)
		channel_end_closed(object, end);
	kobj_release(object);
}

/* handle_close -- close one handle */
int handle_close(struct pctx *p, int64_t value)
{
	struct khandle *h;
	int err = handle_lookup(p, value, HANDLE_ANY_TYPE, 0, &h);

	if (err)
		return err;
	close_entry(p, h);
	return 0;
}

/* handle_close_object -- close p's handles to object `id` */
void handle_close_object(struct pctx *p, uint64_t id)
{
	for (unsigned i = 0; i < FE_HANDLE_SLOTS; i++)
		if (p->ht->slot[i].object == id)
			close_entry(p, &p->ht->slot[i]);
}

/* handle_fork -- child c's table (new, empty) holds what p's does, at the
 * same values (its console sink's among them), but for handles to
 * processes: p's children are not c's */
void handle_fork(struct pctx *p, struct pctx *c)
{
	for (unsigned i = 0; i < FE_HANDLE_SLOTS; i++) {
		const struct khandle *h = &p->ht->slot[i];

		if (!h->object || kobj_type(h->object) == OS_TYPE_PROCESS)
			continue;
		c->ht->slot[i] = *h;   /* a fresh table: no log */
		c->ht->count++;
		kobj_hold(h->object);
		if (kobj_type(h->object) == OS_TYPE_CHANNEL)
			channel_end_opened(h->object, h->end);
	}
	c->ht->console_sink = p->ht->console_sink;
}

/* handle_close_all -- close every handle (the process is ending) */
void handle_close_all(struct pctx *p)
{
	for (unsigned i = 0; i < FE_HANDLE_SLOTS; i++)
		if (p->ht->slot[i].object)
			close_entry(p, &p->ht->slot[i]);
}
