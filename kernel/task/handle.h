/*
 * handle.h -- a process's handle table, and what a handle to each type of
 * object may do (handle.c).
 */
#ifndef TASK_HANDLE_H
#define TASK_HANDLE_H

#include <stdbool.h>
#include <stdint.h>

#include "kformat/kformat.h"

struct pctx;

/* What a program may use an object of a type for (handle_types). */
enum handle_use {
	USE_BYTES = 0x1,               /* read, write, resize and map its bytes */
	USE_OPEN_BY_ID = 0x2,          /* SYS_OBJ_OPEN_ID may open it */
	USE_NAME = 0x4,                /* SYS_NAME_BIND may bind a name to it */
};

/* A set of object types: HANDLE_TYPE(OS_TYPE_x) | ... */
#define HANDLE_TYPE(type) (1u << (type))
#define HANDLE_ANY_TYPE 0xffffffffu
_Static_assert(OS_TYPE_MAX < 32, "a set of types fits an unsigned");

/* handle_rights_max -- the most a handle to an object of `type` may carry
 * (0: programs get no handle to it) */
uint32_t handle_rights_max(uint16_t type);

/* handle_types -- the set of types that allow every use in `uses` */
unsigned handle_types(unsigned uses);

/* handle_install -- a new handle for a reference the caller holds (the
 * handle takes it over); the handle value, or -ERR_NOSPC (caller keeps it) */
int handle_install(struct pctx *p, uint64_t object, uint32_t rights,
		   uint8_t end);

/* handle_lookup -- the entry for handle value h: -ERR_BADF if p has no such
 * handle, -ERR_PERM if it lacks a right in `need`, -ERR_INVAL if its
 * object's type is not in `types` (a HANDLE_TYPE set) */
int handle_lookup(struct pctx *p, int64_t h, unsigned types, uint32_t need,
		  struct khandle **out);

/* handle_full -- whether p's table has fewer than `slots` free slots */
bool handle_full(const struct pctx *p, unsigned slots);

/* handle_close -- close one handle */
int handle_close(struct pctx *p, int64_t h);

/* handle_close_all -- close every handle (the process is ending) */
void handle_close_all(struct pctx *p);

/* handle_close_object -- close p's handles to object `id` */
void handle_close_object(struct pctx *p, uint64_t id);

/* handle_fork -- fork's child c (its table new and empty) holds p's
 * handles at the same values, but for handles to processes */
void handle_fork(struct pctx *p, struct pctx *c);

#endif
