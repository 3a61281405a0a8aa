/*
 * uvm.h -- user address spaces: mappings in the heap, page tables as a
 * cache, which heap page or DRAM frame an address shows, and (without the
 * DRAM cache) the epoch's written pages (uvm.c).
 */
#ifndef UVM_UVM_H
#define UVM_UVM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct uspace;
struct kmapping;

enum uvm_access { UVM_READ = 1, UVM_WRITE = 2, UVM_EXEC = 4 };

/* uvm_init -- at power-on, before the first user page is mapped: whether
 * user pages join the epoch (`logged`: all but nopersist, epoch.c), and
 * the DRAM cache in front of them (pagecache.c) */
void uvm_init(bool logged);

/* uvm_map -- show `object` from `offset` at [addr, addr+len) (hint unless
 * FE_MAP_FIXED); takes a reference on the object. The address in *out. */
int uvm_map(struct uspace *us, uint64_t object, uint64_t offset, uint64_t len,
	    unsigned prot, unsigned flags, unsigned maxprot, uint64_t limit,
	    uint64_t addr, uint64_t *out);

/* uvm_unmap -- remove every mapping of [addr, addr+len), splitting those it cuts */
int uvm_unmap(struct uspace *us, uint64_t addr, uint64_t len);

/* uvm_protect -- change the protection of [addr, addr+len) within each
 * mapping's maxprot */
int uvm_protect(struct uspace *us, uint64_t addr, uint64_t len, unsigned prot);

/* uvm_mapping_at -- a copy of the mapping that holds va; -ERR_NOENT if none */
int uvm_mapping_at(struct uspace *us, uint64_t va, struct kmapping *out);

/* uvm_grow -- the mapping that ends at `end` ends `extra` bytes later
 * (whole pages), over its object's next bytes; -ERR_EXIST if they are not
 * free, -ERR_NOENT if no mapping ends there. A private mapping's copies
 * object (its shadow) grows with it; its object is the caller's. */
int uvm_grow(struct uspace *us, uint64_t end, uint64_t extra);

/* uvm_move -- [from, from+len), all mapped (by one mapping or by several
 * that follow one another), shows the same bytes at *to instead (whole
 * pages): at *to when it is not 0 (the caller freed
 * `room` bytes there), else at the lowest free range of `room` bytes
 * (room >= len: the caller may grow the mapping into the rest) */
int uvm_move(struct uspace *us, uint64_t from, uint64_t len, uint64_t room, uint64_t *to);

/* uvm_fork -- child address space `to` (empty) shows what `from` shows:
 * shared mappings shared, everything else of from's own frozen into
 * layers (kformat.h, struct klayer) that both show, each writing its own
 * copies from then on. O(mappings), not O(pages): no page is copied, but
 * for the pages merged down into a layer only from held (at most half a
 * call's log). from's page tables are dropped first. On an error the
 * caller ends the child; from shows what it showed. */
int uvm_fork(struct uspace *from, struct uspace *to);

/* uvm_layer_deleted -- kobj_on_delete's hook: a layer lets go of what it holds */
void uvm_layer_deleted(uint64_t id, uint16_t type);

/* uvm_destroy -- release every mapping and the page tables */
void uvm_destroy(struct uspace *us);

/* uvm_fault -- resolve a user access at va; 0, or an error with *why set */
int uvm_fault(struct uspace *us, uint64_t va, unsigned access, const char **why);

/* What user memory cost the epoch that just committed (without the DRAM
 * cache: pagecache.h says what the write-back did). */
struct uvm_epoch {
	uint64_t pages;                /* user pages logged by write faults */
	uint64_t fault_ns;             /* time those faults spent in the kernel */
};

/* uvm_epoch_end -- after a commit: take the write bit from every user page
 * written in the epoch, so its next write is logged in the new one */
void uvm_epoch_end(struct uvm_epoch *done);

/* uvm_drop_tables -- free us's page tables (they are only a cache) */
void uvm_drop_tables(struct uspace *us);

/* uvm_drop_all_tables -- free every process's page tables (after pages
 * they may map were freed) */
void uvm_drop_all_tables(void);

/* uvm_pages -- pages of memory us has made (anonymous and copied pages) */
uint64_t uvm_pages(struct uspace *us);

/* Copies between kernel buffers and us's memory, with us's access rights:
 * -ERR_FAULT for anything outside us's mappings or the user half. */
int uvm_copy_in(struct uspace *us, void *dst, uint64_t src, uint64_t len);
int uvm_copy_out(struct uspace *us, uint64_t dst, const void *src, uint64_t len);

/* uvm_check -- -ERR_FAULT unless [addr, addr+len) is mapped with `access`
 * (for checking a buffer before anything changes) */
int uvm_check(struct uspace *us, uint64_t addr, uint64_t len, unsigned access);

/* uvm_copy_string -- a NUL-terminated string of at most max-1 bytes; its length */
int uvm_copy_string(struct uspace *us, char *dst, uint64_t src, size_t max);

#endif
