/*
 * catalogue_internal.h -- a catalogue node's encoding, shared by the
 * catalogue (catalogue.c) and its checker (check_catalogue.c); not for
 * callers.
 *
 * format.h lays out a node (struct os_cat_node, struct os_cat_entry, the
 * OS_CAT_SLOT_* fields of a slot; docs/format.md, "The catalogue"). Here
 * are the sizes that follow from it and the helpers that read and verify
 * its pieces: key order, slot hints and checks, entry and header
 * checksums, the bounds of an entry and of a header. catalogue.c trusts a
 * node through them and check_catalogue.c says through them what is wrong
 * with one, so both read a node the same way. The other os_cat_* helpers
 * live in catalogue.c; the static inline ones are on every lookup's path.
 */
#ifndef OBJSTORE_CATALOGUE_INTERNAL_H
#define OBJSTORE_CATALOGUE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "objstore/format.h"

#define NODE_SIZE OS_PAGE_SIZE
#define HDR_SIZE ((unsigned)sizeof(struct os_cat_node))
#define CAPACITY (NODE_SIZE - HDR_SIZE)          /* bytes for slots and entries */
#define ENTRY_HDR ((unsigned)sizeof(struct os_cat_entry))
#define ENTRY_MIN (ENTRY_HDR + 1)
#define MAX_SLOTS (CAPACITY / (OS_CAT_SLOT_SIZE + ENTRY_MIN))

/* entry_size -- bytes of an entry with a `len`-byte key */
static inline unsigned entry_size(unsigned len)
{
	return ENTRY_HDR + len;
}

/* entry_key -- an entry's name as bytes */
static inline const uint8_t *entry_key(const struct os_cat_entry *e)
{
	return (const uint8_t *)e->name;
}

/* os_cat_key_cmp -- memcmp order, the shorter first on a common prefix */
int os_cat_key_cmp(const uint8_t *a, unsigned alen, const uint8_t *b,
		   unsigned blen);

/* os_cat_key_hint -- the OS_CAT_HINT_BYTES key bytes after `prefix`, zero-padded, big-endian */
uint64_t os_cat_key_hint(const uint8_t *key, unsigned len, unsigned prefix);

/* os_cat_slot_ok -- whether a slot's check bits match */
bool os_cat_slot_ok(uint64_t s);

/* os_cat_entry_crc -- the checksum an entry must carry */
uint32_t os_cat_entry_crc(const struct os_cat_entry *e);

/* os_cat_node_crc -- the checksum a node header must carry */
uint32_t os_cat_node_crc(const struct os_cat_node *n);

/* os_cat_header_fields_ok -- whether a header's counts and bounds are possible */
static inline bool os_cat_header_fields_ok(const struct os_cat_node *n)
{
	return n->count >= 1 && n->count <= MAX_SLOTS &&
	       n->heap_start >= HDR_SIZE + n->count * OS_CAT_SLOT_SIZE &&
	       n->heap_start <= NODE_SIZE && n->dead <= NODE_SIZE - n->heap_start &&
	       n->reserved0 == 0 && n->reserved1 == 0 &&
	       (n->level == 0) == (n->first == 0);
}

/* entry_of -- the entry slot `s` points at, bounds-checked, its crc
 * verified if `verify`; NULL if anything is wrong */
static inline const struct os_cat_entry *entry_of(const struct os_cat_node *n,
						  uint64_t s, bool verify)
{
	uint32_t off = OS_CAT_SLOT_OFFSET(s);
	const struct os_cat_entry *e;

	if (off < n->heap_start || off > NODE_SIZE - ENTRY_MIN)
		return NULL;
	e = (const void *)((const uint8_t *)n + off);
	if (e->len == 0 || off + entry_size(e->len) > NODE_SIZE)
		return NULL;
	if (verify && e->crc != os_cat_entry_crc(e))
		return NULL;
	return e;
}

#endif
