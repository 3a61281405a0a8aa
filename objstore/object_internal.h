/*
 * object_internal.h -- what object.c shares with the objects' checker
 * (check_objects.c); not for callers.
 *
 * The limits of the id index and of an object's radix tree, a read-only
 * view of a heap, and the helpers that measure a tree and find and verify
 * a header (docs/format.md, "Objects"). object.c changes and looks up
 * objects through them and check_objects.c walks every tree with them, so
 * both agree on what a sound object is. The helpers live in object.c.
 */
#ifndef OBJSTORE_OBJECT_INTERNAL_H
#define OBJSTORE_OBJECT_INTERNAL_H

#include <stdint.h>

#include "objstore/format.h"

#define OBJ_MAX_DEPTH 6           /* 512^6 pages reach any 64-bit size */

/* A read-only view of a heap: from an open handle or from the checker. */
struct view {
	const uint8_t *base;
	const struct os_superblock *sb;
	const struct os_root *root;
	const struct os_page_desc *desc;
};

/* os_obj_span -- keys under one entry of an index page at `level` */
uint64_t os_obj_span(unsigned level);

/* os_obj_key_depth -- the fewest radix levels that reach `key` (0 for key 0) */
unsigned os_obj_key_depth(uint64_t key);

/* os_obj_npages -- data pages an object of `size` bytes spans */
uint64_t os_obj_npages(uint64_t size);

/* os_obj_depth -- the radix depth of a paged object of `size` bytes */
unsigned os_obj_depth(uint64_t size);

/* os_obj_entries -- the entries of index page `off` */
const uint64_t *os_obj_entries(const struct view *v, uint64_t off);

/* os_obj_hdr_crc -- the checksum header h must carry */
uint32_t os_obj_hdr_crc(const struct os_obj_header *h);

/* os_obj_hdr_find -- the heap offset of object `id`'s header, validated */
int os_obj_hdr_find(const struct view *v, uint64_t id, uint64_t *off);

#endif
