/*
 * object.h -- objects: ids, headers, the id index, and object contents.
 *
 * Every object has a 64-bit id, never reused, a type (format.h), a size
 * and a reference count, in a checksummed header (struct os_obj_header)
 * found through the id index. Contents are paged (blobs, code, anonymous
 * memory: whole data pages in a radix tree, page aligned so they can be
 * mapped and executed in place) or small (kernel objects: one small block,
 * fixed size); os_obj_placement says which for each type.
 *
 * All changing calls run inside a transaction (os_tx_begin) and log what
 * they change; on error they change nothing the transaction would keep
 * inconsistent (log space is checked before anything is written).
 */
#ifndef OBJSTORE_OBJECT_H
#define OBJSTORE_OBJECT_H

#include <stdint.h>

#include "objstore/objstore.h"

/* What os_obj_stat reports. */
struct os_obj_info {
	uint64_t id;
	uint16_t type;               /* enum os_obj_type */
	uint8_t placement;           /* enum os_placement */
	uint32_t refcount;
	uint64_t size;
	uint64_t modified_epoch;
	uint16_t mode;               /* 0, or OS_MODE_SET | permission bits (format.h) */
	int64_t mtime_ns;            /* wall time of the last change (format.h), 0 unknown */
	uint64_t pages;              /* data pages allocated (paged objects) */
};

/* os_obj_placement -- where objects of `type` keep their bytes:
 * OS_PLACE_PAGED for OS_TYPE_BLOB, OS_TYPE_CODE and OS_TYPE_ANON,
 * OS_PLACE_SMALL for the other (kernel) types, 0 for an unknown type */
uint8_t os_obj_placement(uint16_t type);

/* os_obj_create -- a new object of `type` and `size` bytes (zero-filled)
 * with refcount 1; paged or small as os_obj_placement says (small: size
 * 1..OS_LARGEST_SMALL, else -ERR_TOOBIG). Its id in *id.
 * -ERR_INVAL for a bad type, -ERR_NOMEM heap full, -ERR_NOSPC log full. */
int os_obj_create(struct objstore *os, uint16_t type, uint64_t size,
		  uint64_t *id);

/* os_obj_stat -- the header of object `id`; -ERR_NOENT if none,
 * -ERR_CORRUPT if its header fails its checksum */
int os_obj_stat(const struct objstore *os, uint64_t id, struct os_obj_info *out);

/* os_obj_head -- os_obj_stat without counting the data pages (pages = 0):
 * its cost is the id index's depth, whatever the object's size */
int os_obj_head(const struct objstore *os, uint64_t id, struct os_obj_info *out);

/* os_obj_delete -- free the object, its pages and its index entry,
 * whatever its refcount (the caller decides when; see os_obj_unref) */
int os_obj_delete(struct objstore *os, uint64_t id);
/* os_obj_delete_keep -- os_obj_delete that leaves at least `keep` bytes of
 * the log free for the caller: -ERR_NOSPC when the object had to be left
 * cut part way (or untouched) to keep them; commit and call again */
int os_obj_delete_keep(struct objstore *os, uint64_t id, uint64_t keep);

/* os_obj_ref -- refcount += delta (delta may be negative); the new count in
 * *count. Reaching 0 does not delete: the caller calls os_obj_delete. */
int os_obj_ref(struct objstore *os, uint64_t id, int32_t delta, uint32_t *count);

/* os_obj_resize -- grow (zero-filled) or shrink a paged object; small
 * objects cannot be resized (-ERR_NOTSUP) */
int os_obj_resize(struct objstore *os, uint64_t id, uint64_t size);

/* os_obj_set_mode -- set paged object `id`'s permission bits (at most
 * OS_MODE_BITS, else -ERR_INVAL); -ERR_NOTSUP for a small object */
int os_obj_set_mode(struct objstore *os, uint64_t id, uint16_t mode);

/* os_obj_set_mtime -- set paged object `id`'s mtime (ns since 1970 UTC,
 * any value; a later change of its contents stamps it again) */
int os_obj_set_mtime(struct objstore *os, uint64_t id, int64_t ns);

/* os_obj_touch -- stamp paged object `id` as changed now (its epoch and
 * mtime), for contents written past objstore (mappings, a DRAM cache);
 * logs its header at most once a transaction */
int os_obj_touch(struct objstore *os, uint64_t id);

/* os_obj_read -- copy up to len bytes from offset `off`; bytes read
 * (0 at or past the end) */
int64_t os_obj_read(const struct objstore *os, uint64_t id, uint64_t off,
		    void *buf, uint64_t len);

/* os_obj_write -- copy len bytes to offset `off`, logging the old bytes;
 * writing past the end is -ERR_RANGE (resize first). Bytes written. */
int64_t os_obj_write(struct objstore *os, uint64_t id, uint64_t off,
		     const void *buf, uint64_t len);

/* os_obj_data -- the address of a small object's bytes (NULL if `id` is
 * not a small object); the caller logs before writing them */
void *os_obj_data(const struct objstore *os, uint64_t id);

/* os_obj_page -- heap offset of page `index` of a paged object, allocating
 * it (zero-filled) if `create` and it is missing; *page_off = 0 when
 * missing and !create. For mapping objects and executing in place. */
int os_obj_page(struct objstore *os, uint64_t id, uint64_t index, bool create,
		uint64_t *page_off);

/* os_obj_page_held -- os_obj_page without creating, and how many bytes
 * of that page the object holds (OS_PAGE_SIZE but for a last page cut
 * short): one index walk where os_obj_head and os_obj_page take two */
int os_obj_page_held(const struct objstore *os, uint64_t id, uint64_t index,
		     uint64_t *page_off, uint64_t *held);

/* os_obj_page_move -- give page `index` of a paged object a new home:
 * page `to` (a whole page from os_alloc in this transaction, its bytes
 * written by the caller) takes the old page's place in the object's tree
 * and the old page is freed. The DRAM cache's write-back (kernel
 * pagecache.c): the old bytes stay untouched for rollback, so no copy of
 * them is logged. -ERR_NOENT if the page is missing, -ERR_RANGE past the
 * end, -ERR_INVAL if `to` is not such a page; -ERR_NOSPC log full. */
int os_obj_page_move(struct objstore *os, uint64_t id, uint64_t index,
		     uint64_t to);

/* os_obj_move_log_need -- log bytes an os_alloc of a page followed by an
 * os_obj_page_move may need at most, together */
uint64_t os_obj_move_log_need(void);

/* os_obj_next -- the smallest live id >= `from`, for listing every object;
 * -ERR_NOENT when there is none */
int os_obj_next(const struct objstore *os, uint64_t from, uint64_t *id);

/* os_obj_type_name -- "blob", "code"... for an object type ("?" if unknown) */
const char *os_obj_type_name(uint16_t type);

/* Which part of an object a heap byte lies in (os_obj_owner). */
enum os_obj_part {
	OS_PART_HEADER = 1,          /* its 64-byte header */
	OS_PART_DATA = 2,            /* its bytes: the small block or a data page */
	OS_PART_INDEX = 3,           /* an index page of its radix tree */
};

/* What os_obj_owner reports. */
struct os_obj_where {
	uint64_t id;
	uint16_t type;               /* enum os_obj_type */
	uint8_t part;                /* enum os_obj_part */
	uint64_t offset;             /* header: byte in the header; data: byte
				      * of the object (may be past its size, in
				      * the slack of its block or last page);
				      * index: byte in the index page */
};

/* os_obj_owner -- which object's header, bytes or index pages hold heap
 * offset `off`; -ERR_NOENT when none does (allocator metadata, the id
 * index, the catalogue, free space). For diagnostics: it walks every
 * object, a pass over the heap. */
int os_obj_owner(const struct objstore *os, uint64_t off, struct os_obj_where *out);

#endif
