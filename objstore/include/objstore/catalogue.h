/*
 * catalogue.h -- the catalogue: an ordered persistent map from names to
 * object ids, Ferrite's replacement for a directory tree.
 *
 * Names are 1..OS_NAME_MAX bytes, any byte but NUL; '/' groups by
 * convention only. The map is a B+-tree of checksummed nodes: lookup,
 * insert and remove are O(log n); iteration is in byte order (memcmp,
 * shorter first on a common prefix) from any position, with a cursor that
 * stays valid across changes (it is the last name returned).
 *
 * Changing calls run inside a transaction and log what they change. The
 * catalogue does not touch object refcounts: callers that bind a name to an
 * object also os_obj_ref it (objtool and the kernel do both in one
 * transaction).
 */
#ifndef OBJSTORE_CATALOGUE_H
#define OBJSTORE_CATALOGUE_H

#include <stdint.h>

#include "objstore/objstore.h"

#define OS_NAME_MAX 255

/* os_cat_name_ok -- 0 if `name` (len bytes) is a valid name, else -ERR_INVAL */
int os_cat_name_ok(const char *name, uint64_t len);

/* os_cat_lookup -- the id bound to `name`; -ERR_NOENT if unbound */
int os_cat_lookup(const struct objstore *os, const char *name, uint64_t len,
		  uint64_t *id);

/* os_cat_insert -- bind `name` to `id`; -ERR_EXIST if bound, -ERR_INVAL for
 * a bad name, -ERR_NOMEM / -ERR_NOSPC when the heap / log is full */
int os_cat_insert(struct objstore *os, const char *name, uint64_t len,
		  uint64_t id);

/* os_cat_remove -- unbind `name`; the id it had in *id (if id != NULL);
 * -ERR_NOENT if unbound */
int os_cat_remove(struct objstore *os, const char *name, uint64_t len,
		  uint64_t *id);

/* os_cat_replace -- bind the bound `name` to `id`, atomically within the
 * caller's transaction; the id it had in *old (if old != NULL); -ERR_NOENT
 * if unbound */
int os_cat_replace(struct objstore *os, const char *name, uint64_t len,
		   uint64_t id, uint64_t *old);

/* os_cat_rename -- move the binding of `from` to `to`, atomically within
 * the caller's transaction; -ERR_NOENT, -ERR_EXIST, -ERR_INVAL */
int os_cat_rename(struct objstore *os, const char *from, uint64_t from_len,
		  const char *to, uint64_t to_len);

/* os_cat_rename_bounds -- the most log (*log) and free pages (*pages) one
 * os_cat_rename may need in the catalogue grown by up to `grow` levels:
 * a caller making many renames in one transaction checks n times these
 * first, so that none of them fails half way */
void os_cat_rename_bounds(const struct objstore *os, unsigned grow, uint64_t *log,
			  uint64_t *pages);

/* An iteration position. Before the first call it holds the start name
 * (returned if present: `started` 0); afterwards the last name returned,
 * and the next call returns the first name after it. */
struct os_cat_cursor {
	uint16_t len;
	uint8_t started;
	char name[OS_NAME_MAX];
};

/* os_cat_cursor_init -- position a cursor before the first name >= `start` */
void os_cat_cursor_init(struct os_cat_cursor *c, const char *start, uint64_t len);

/* os_cat_next -- the next name after the cursor that starts with `prefix`
 * (prefix_len 0: any); copies it to the cursor and returns its id in *id.
 * -ERR_NOENT when there is none. */
int os_cat_next(const struct objstore *os, struct os_cat_cursor *c,
		const char *prefix, uint64_t prefix_len, uint64_t *id);

#endif
