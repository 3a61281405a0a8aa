/*
 * describe.c -- the heap's format as the C compiler lays it out, for the
 * host's Python readers (tools/heapformat/heapformat.py: the gdb helpers
 * and the tests).
 *
 * Prints one JSON document: the constants of the format, the object type
 * names, and every persistent structure's size and fields (offset, size,
 * element count, signedness, the structure a field is made of), taken with
 * sizeof and offsetof from the headers that define the format:
 * objstore/include/objstore/format.h (the heap's own), kernel/kformat/
 * kformat.h (the kernel's objects) and the ABI structures they embed.
 * `make` runs it into build/heapformat/layout.json.
 *
 * So no Python file holds an offset, a size or a number of the format:
 * when a header moves a field, the readers follow at the next make, and
 * when it renames or removes one, this file stops compiling. A field a
 * header gains must be added here before a reader can name it;
 * tests/system/test_heapformat.py fails while the fields listed here do
 * not tile their structure exactly, which is what a field carved out of
 * `reserved` leaves behind.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ferrite/syscall.h"
#include "kformat/kformat.h"
#include "objstore/format.h"
#include "objstore/object.h"

/* --- printing ------------------------------------------------------------ */

static const char *sep;    /* what goes before the next member of an object */

/* key -- a JSON member's name, after a comma unless it is the first */
static void key(const char *name)
{
	printf("%s\"%s\": ", sep, name);
	sep = ", ";
}

/* constant -- "NAME": value */
static void constant(const char *name, unsigned long long value)
{
	key(name);
	printf("%llu", value);
}

/* text -- "NAME": "value" (the magics: printable ASCII) */
static void text(const char *name, const char *value)
{
	key(name);
	printf("\"%s\"", value);
}

/* begin -- open a structure's description: its size, then its fields */
static void begin(const char *name, size_t size)
{
	key(name);
	printf("{\"size\": %zu, \"fields\": [", size);
	sep = "";
}

/* field -- one field: where it lies and what it is made of (`of`: the
 * structure each element is, NULL for integers and bytes; count 0: a
 * flexible array, where it starts) */
static void field(const char *name, size_t offset, size_t size, size_t count, int is_signed,
		  const char *of)
{
	printf("%s{\"name\": \"%s\", \"offset\": %zu, \"size\": %zu, \"count\": %zu, "
	       "\"signed\": %s", sep, name, offset, size, count, is_signed ? "true" : "false");
	if (of)
		printf(", \"struct\": \"%s\"", of);
	printf("}");
	sep = ", ";
}

/* end -- close a structure's description; the next one on a line of its own */
static void end(void)
{
	printf("]}");
	sep = ",\n  ";
}

#define CONSTANT(c) constant(#c, (unsigned long long)(c))
#define MEMBER(s, f) (((struct s *)0)->f)
#define IS_SIGNED(x) _Generic((x), int8_t: 1, int16_t: 1, int32_t: 1, int64_t: 1, \
			      char: 1, default: 0)
/* An integer field. */
#define FIELD(s, f) field(#f, offsetof(struct s, f), sizeof(MEMBER(s, f)), 1, \
			  IS_SIGNED(MEMBER(s, f)), NULL)
/* An array of integers or bytes. */
#define ARRAY(s, f) field(#f, offsetof(struct s, f), sizeof(MEMBER(s, f)), \
			  sizeof(MEMBER(s, f)) / sizeof(MEMBER(s, f)[0]), \
			  IS_SIGNED(MEMBER(s, f)[0]), NULL)
/* A structure, or an array of them, described on its own as `t`. */
#define NESTED(s, f, t) field(#f, offsetof(struct s, f), sizeof(MEMBER(s, f)), 1, 0, #t)
#define NESTED_ARRAY(s, f, t) field(#f, offsetof(struct s, f), sizeof(MEMBER(s, f)), \
				    sizeof(MEMBER(s, f)) / sizeof(struct t), 0, #t)
/* A flexible array member: where it starts. */
#define FLEX(s, f) field(#f, offsetof(struct s, f), 0, 0, 0, NULL)

/* --- the constants ------------------------------------------------------- */

/* heap_constants -- format.h's numbers, and the depth objstore's walks and
 * checker hold the id index to (object_internal.h: ids stay below 2^63) */
static void heap_constants(void)
{
	text("OS_MAGIC", OS_MAGIC);
	CONSTANT(OS_LAYOUT_MAJOR);
	CONSTANT(OS_LAYOUT_MINOR);
	CONSTANT(OS_LAYOUT_OLDEST_MAJOR);
	CONSTANT(OS_PAGE_SIZE);
	CONSTANT(OS_CACHE_LINE);
	CONSTANT(OS_SB_SPARE_OFFSET);
	CONSTANT(OS_MIN_HEAP_SIZE);
	CONSTANT(OS_SIZE_CLASSES);
	CONSTANT(OS_SMALLEST_CLASS_SHIFT);
	CONSTANT(OS_LARGEST_SMALL);
	CONSTANT(OS_APP_ROOTS);
	CONSTANT(OS_APP_ROOT_KERNEL);
	CONSTANT(OS_APP_ROOT_MACHINE);
	CONSTANT(OS_APP_ROOT_RESERVE);
	CONSTANT(OS_PAGE_FREE);
	CONSTANT(OS_PAGE_SLAB);
	CONSTANT(OS_PAGE_WHOLE);
	CONSTANT(OS_LOG_UNDO);
	CONSTANT(OS_LOG_FRESH);
	CONSTANT(OS_LOG_REDO);
	CONSTANT(OS_LOG_COMMIT);
	CONSTANT(OS_LOG_MAX_CHAINS);
	CONSTANT(OS_LOG_REDO_MAX);
	CONSTANT(OS_TYPE_BLOB);
	CONSTANT(OS_TYPE_CODE);
	CONSTANT(OS_TYPE_PROCESS);
	CONSTANT(OS_TYPE_THREAD);
	CONSTANT(OS_TYPE_ASPACE);
	CONSTANT(OS_TYPE_CHANNEL);
	CONSTANT(OS_TYPE_CATALOGUE);
	CONSTANT(OS_TYPE_ANON);
	CONSTANT(OS_TYPE_HANDLES);
	CONSTANT(OS_TYPE_KERNEL);
	CONSTANT(OS_TYPE_MAX);
	CONSTANT(OS_PLACE_SMALL);
	CONSTANT(OS_PLACE_PAGED);
	CONSTANT(OS_RADIX_FANOUT);
	CONSTANT(OS_RADIX_SHIFT);
	CONSTANT(OS_ID_MAX_DEPTH);
	CONSTANT(OS_CAT_MAGIC);
	CONSTANT(OS_CAT_MAX_HEIGHT);
	CONSTANT(OS_CAT_MIN_FILL);
	CONSTANT(OS_CAT_SLOT_SIZE);
	CONSTANT(OS_CAT_HINT_BYTES);
	/* The slot's parts as masks: the macros applied to a slot of all ones. */
	constant("OS_CAT_SLOT_OFFSET_MASK", OS_CAT_SLOT_OFFSET(~0ull));
	constant("OS_CAT_SLOT_CHECK_MASK", OS_CAT_SLOT_CHECK(~0ull));
	text("OS_SNAP_MAGIC", OS_SNAP_MAGIC);
	CONSTANT(OS_SNAP_NODES);
	CONSTANT(OS_SNAP_NAME_MAX);
	CONSTANT(OS_SNAP_ENTRIES_PER_PAGE);
	CONSTANT(OS_SNAP_DIR_SLOTS);
	CONSTANT(OS_SNAP_TABLE_PAGES);
	CONSTANT(OS_SNAP_HIDDEN);
	CONSTANT(OS_SNAP_AUTO);
}

/* kernel_constants -- kformat.h's numbers, and the ABI's that the kernel's
 * objects hold (<ferrite/syscall.h>) */
static void kernel_constants(void)
{
	CONSTANT(KROOT_MAGIC);
	CONSTANT(KPROC_MAGIC);
	CONSTANT(KTHREAD_MAGIC);
	CONSTANT(KASPACE_MAGIC);
	CONSTANT(KHANDLES_MAGIC);
	CONSTANT(KCHANNEL_MAGIC);
	CONSTANT(KCONSOLE_MAGIC);
	CONSTANT(KCLOCK_MAGIC);
	CONSTANT(KLXFILE_MAGIC);
	CONSTANT(KLXPIPE_MAGIC);
	CONSTANT(KLAYER_MAGIC);
	CONSTANT(KLXPIPE_BYTES);
	CONSTANT(KROOT_VERSION);
	CONSTANT(KROOT_MAX_PROCS);
	CONSTANT(KCONSOLE_LINE_MAX);
	CONSTANT(KCONSOLE_OUT_BYTES);
	CONSTANT(KCONSOLE_IN_BYTES);
	CONSTANT(KREAP_CAPACITY);
	CONSTANT(KRESERVE_PAGES);
	CONSTANT(KPROC_ALIVE);
	CONSTANT(KPROC_EXITED);
	CONSTANT(KPROC_RESCUE);
	CONSTANT(KPROC_LINK);
	CONSTANT(KPROC_LINUX);
	CONSTANT(KPROC_TRACE);
	CONSTANT(KPROC_SIZE_BEFORE_LINUX);
	CONSTANT(KTHREAD_RUNNABLE);
	CONSTANT(KTHREAD_BLOCKED);
	CONSTANT(KTHREAD_EXITED);
	CONSTANT(KPROC_MAX_THREADS);
	CONSTANT(KASPACE_MAX_MAPS);
	CONSTANT(KASPACE_INLINE_MAPS);
	CONSTANT(KASPACE_MORE_PER_PAGE);
	CONSTANT(FE_HANDLE_SLOTS);
	CONSTANT(FE_MAP_SHARED);
	CONSTANT(FE_MAP_PRIVATE);
	CONSTANT(FE_USER_BASE);
}

/* --- the heap's structures (format.h) ------------------------------------- */

static void os_superblock(void)
{
	begin("os_superblock", sizeof(struct os_superblock));
	ARRAY(os_superblock, magic);
	FIELD(os_superblock, layout_major);
	FIELD(os_superblock, layout_minor);
	FIELD(os_superblock, header_size);
	ARRAY(os_superblock, heap_id);
	FIELD(os_superblock, heap_size);
	FIELD(os_superblock, root_offset);
	FIELD(os_superblock, log_offset);
	FIELD(os_superblock, log_size);
	FIELD(os_superblock, desc_offset);
	FIELD(os_superblock, stack_offset);
	FIELD(os_superblock, data_offset);
	FIELD(os_superblock, page_count);
	FIELD(os_superblock, create_time);
	FIELD(os_superblock, snap_offset);
	FIELD(os_superblock, snap_size);
	FIELD(os_superblock, page_capacity);
	FIELD(os_superblock, resize_epoch);
	ARRAY(os_superblock, reserved);
	FIELD(os_superblock, flags);
	FIELD(os_superblock, crc);
	FIELD(os_superblock, committed_epoch);
	ARRAY(os_superblock, epoch_line_pad);
	end();
}

static void os_root(void)
{
	begin("os_root", sizeof(struct os_root));
	FIELD(os_root, next_object_id);
	FIELD(os_root, object_count);
	FIELD(os_root, index_root);
	FIELD(os_root, index_depth);
	FIELD(os_root, reserved0);
	FIELD(os_root, catalogue_root);
	FIELD(os_root, catalogue_count);
	FIELD(os_root, free_top);
	ARRAY(os_root, slab_partial);
	ARRAY(os_root, app_roots);
	FIELD(os_root, pages_unformatted);
	ARRAY(os_root, reserved);
	FIELD(os_root, reserved1);
	FIELD(os_root, crc);
	end();
}

static void os_page_desc(void)
{
	begin("os_page_desc", sizeof(struct os_page_desc));
	FIELD(os_page_desc, kind);
	FIELD(os_page_desc, size_class);
	FIELD(os_page_desc, used);
	FIELD(os_page_desc, next);
	FIELD(os_page_desc, prev);
	FIELD(os_page_desc, reserved);
	FIELD(os_page_desc, slot_map);
	FIELD(os_page_desc, free_epoch);
	FIELD(os_page_desc, crc);
	end();
}

static void os_log_entry(void)
{
	begin("os_log_entry", sizeof(struct os_log_entry));
	FIELD(os_log_entry, offset);
	FIELD(os_log_entry, length);
	FIELD(os_log_entry, kind);
	FIELD(os_log_entry, reserved);
	FIELD(os_log_entry, epoch);
	FIELD(os_log_entry, prev_size);
	FIELD(os_log_entry, crc);
	end();
}

static void os_obj_header(void)
{
	begin("os_obj_header", sizeof(struct os_obj_header));
	FIELD(os_obj_header, id);
	FIELD(os_obj_header, type);
	FIELD(os_obj_header, flags);
	FIELD(os_obj_header, refcount);
	FIELD(os_obj_header, size);
	FIELD(os_obj_header, data);
	FIELD(os_obj_header, depth);
	FIELD(os_obj_header, placement);
	FIELD(os_obj_header, mode);
	FIELD(os_obj_header, reserved1);
	FIELD(os_obj_header, modified_epoch);
	FIELD(os_obj_header, mtime_ns);
	FIELD(os_obj_header, reserved3);
	FIELD(os_obj_header, crc);
	end();
}

static void os_cat_node(void)
{
	begin("os_cat_node", sizeof(struct os_cat_node));
	FIELD(os_cat_node, magic);
	FIELD(os_cat_node, level);
	FIELD(os_cat_node, prefix_len);
	FIELD(os_cat_node, count);
	FIELD(os_cat_node, heap_start);
	FIELD(os_cat_node, dead);
	FIELD(os_cat_node, reserved0);
	FIELD(os_cat_node, first);
	FIELD(os_cat_node, reserved1);
	FIELD(os_cat_node, crc);
	FLEX(os_cat_node, slot);
	end();
}

static void os_cat_entry(void)
{
	begin("os_cat_entry", sizeof(struct os_cat_entry));
	FIELD(os_cat_entry, crc);
	FIELD(os_cat_entry, value);
	FIELD(os_cat_entry, len);
	FLEX(os_cat_entry, name);
	end();
}

static void os_snap_area(void)
{
	begin("os_snap_area", sizeof(struct os_snap_area));
	ARRAY(os_snap_area, magic);
	FIELD(os_snap_area, map_pages);
	FIELD(os_snap_area, stack_pages);
	FIELD(os_snap_area, data_pages);
	FIELD(os_snap_area, table_gen);
	FIELD(os_snap_area, free_top);
	FIELD(os_snap_area, high_water);
	FIELD(os_snap_area, head);
	FIELD(os_snap_area, boot);
	FIELD(os_snap_area, keep);
	FIELD(os_snap_area, dropped);
	FIELD(os_snap_area, restore_target);
	FIELD(os_snap_area, restore_before);
	FIELD(os_snap_area, restore_step);
	FIELD(os_snap_area, restore_entry);
	ARRAY(os_snap_area, reserved);
	FIELD(os_snap_area, reserved1);
	FIELD(os_snap_area, crc);
	end();
}

static void os_snap_node(void)
{
	begin("os_snap_node", sizeof(struct os_snap_node));
	ARRAY(os_snap_node, name);
	FIELD(os_snap_node, epoch);
	FIELD(os_snap_node, time_ns);
	FIELD(os_snap_node, gen);
	FIELD(os_snap_node, parent);
	FIELD(os_snap_node, flags);
	FIELD(os_snap_node, count);
	FIELD(os_snap_node, dir);
	ARRAY(os_snap_node, reserved);
	FIELD(os_snap_node, reserved1);
	FIELD(os_snap_node, crc);
	end();
}

static void os_snap_entry(void)
{
	begin("os_snap_entry", sizeof(struct os_snap_entry));
	FIELD(os_snap_entry, page);
	FIELD(os_snap_entry, copy);
	end();
}

/* --- the kernel's objects (kformat.h) and the ABI structures in them ------ */

static void kroot(void)
{
	begin("kroot", sizeof(struct kroot));
	FIELD(kroot, magic);
	FIELD(kroot, version);
	FIELD(kroot, next_pid);
	FIELD(kroot, power_ons);
	FIELD(kroot, commits);
	FIELD(kroot, mono_ns);
	FIELD(kroot, console_fg_pid);
	FIELD(kroot, line_len);
	FIELD(kroot, line_ready);
	ARRAY(kroot, line);
	FIELD(kroot, reap_queue);
	FIELD(kroot, reap_head);
	FIELD(kroot, reap_count);
	ARRAY(kroot, procs);
	FIELD(kroot, console);
	FIELD(kroot, running_slot);
	FIELD(kroot, console_pgrp);
	end();
}

static void kconsole(void)
{
	begin("kconsole", sizeof(struct kconsole));
	FIELD(kconsole, magic);
	FIELD(kconsole, rows);
	FIELD(kconsole, cols);
	FIELD(kconsole, out_ring);
	FIELD(kconsole, in_ring);
	FIELD(kconsole, out_queued);
	FIELD(kconsole, in_queued);
	FIELD(kconsole, in_read);
	FIELD(kconsole, out_sent);
	end();
}

static void kclock(void)
{
	begin("kclock", sizeof(struct kclock));
	FIELD(kclock, magic);
	FIELD(kclock, version);
	ARRAY(kclock, fingerprint);
	FIELD(kclock, tsc_hz);
	FIELD(kclock, lapic_hz);
	end();
}

static void fe_exit_info(void)
{
	begin("fe_exit_info", sizeof(struct fe_exit_info));
	FIELD(fe_exit_info, pid);
	FIELD(fe_exit_info, status);
	FIELD(fe_exit_info, reason);
	FIELD(fe_exit_info, vector);
	FIELD(fe_exit_info, fault_addr);
	FIELD(fe_exit_info, fault_rip);
	ARRAY(fe_exit_info, detail);
	end();
}

static void kproc(void)
{
	begin("kproc", sizeof(struct kproc));
	FIELD(kproc, magic);
	FIELD(kproc, state);
	FIELD(kproc, pid);
	FIELD(kproc, parent_pid);
	FIELD(kproc, thread);
	FIELD(kproc, aspace);
	FIELD(kproc, handles);
	FIELD(kproc, code);
	FIELD(kproc, slot);
	FIELD(kproc, flags);
	FIELD(kproc, cpu_ns);
	ARRAY(kproc, name);
	NESTED(kproc, exit, fe_exit_info);
	FIELD(kproc, linux_state);
	end();
}

static void arch_user_regs(void)
{
	begin("arch_user_regs", sizeof(struct arch_user_regs));
	FIELD(arch_user_regs, rax);
	FIELD(arch_user_regs, rbx);
	FIELD(arch_user_regs, rcx);
	FIELD(arch_user_regs, rdx);
	FIELD(arch_user_regs, rsi);
	FIELD(arch_user_regs, rdi);
	FIELD(arch_user_regs, rbp);
	FIELD(arch_user_regs, rsp);
	FIELD(arch_user_regs, r8);
	FIELD(arch_user_regs, r9);
	FIELD(arch_user_regs, r10);
	FIELD(arch_user_regs, r11);
	FIELD(arch_user_regs, r12);
	FIELD(arch_user_regs, r13);
	FIELD(arch_user_regs, r14);
	FIELD(arch_user_regs, r15);
	FIELD(arch_user_regs, rip);
	FIELD(arch_user_regs, rflags);
	FIELD(arch_user_regs, fs_base);
	FIELD(arch_user_regs, reserved);
	ARRAY(arch_user_regs, fpu);
	end();
}

static void kthread(void)
{
	begin("kthread", sizeof(struct kthread));
	FIELD(kthread, magic);
	FIELD(kthread, state);
	FIELD(kthread, proc);
	FIELD(kthread, wait);
	FIELD(kthread, blocked_call);
	FIELD(kthread, wait_obj);
	FIELD(kthread, wake_ns);
	FIELD(kthread, next);
	FIELD(kthread, tid);
	FIELD(kthread, reserved);
	FIELD(kthread, exit_status);
	NESTED(kthread, regs, arch_user_regs);
	end();
}

static void kmapping(void)
{
	begin("kmapping", sizeof(struct kmapping));
	FIELD(kmapping, start);
	FIELD(kmapping, end);
	FIELD(kmapping, object);
	FIELD(kmapping, offset);
	FIELD(kmapping, limit);
	FIELD(kmapping, shadow);
	FIELD(kmapping, prot);
	FIELD(kmapping, flags);
	FIELD(kmapping, maxprot);
	end();
}

static void kaspace(void)
{
	begin("kaspace", sizeof(struct kaspace));
	FIELD(kaspace, magic);
	FIELD(kaspace, count);
	FIELD(kaspace, more);
	NESTED_ARRAY(kaspace, map, kmapping);
	end();
}

static void khandle(void)
{
	begin("khandle", sizeof(struct khandle));
	FIELD(khandle, object);
	FIELD(khandle, gen);
	FIELD(khandle, rights);
	FIELD(khandle, end);
	FIELD(khandle, reserved);
	end();
}

static void khandles(void)
{
	begin("khandles", sizeof(struct khandles));
	FIELD(khandles, magic);
	FIELD(khandles, count);
	FIELD(khandles, console_sink);
	NESTED_ARRAY(khandles, slot, khandle);
	end();
}

static void kmsg_header(void)
{
	begin("kmsg_header", sizeof(struct kmsg_header));
	FIELD(kmsg_header, len);
	FIELD(kmsg_header, rights);
	FIELD(kmsg_header, object);
	FIELD(kmsg_header, end);
	ARRAY(kmsg_header, reserved);
	end();
}

static void kchan_queue(void)
{
	begin("kchan_queue", sizeof(struct kchan_queue));
	FIELD(kchan_queue, object);
	FIELD(kchan_queue, head);
	FIELD(kchan_queue, count);
	end();
}

static void kchannel(void)
{
	begin("kchannel", sizeof(struct kchannel));
	FIELD(kchannel, magic);
	ARRAY(kchannel, open);
	FIELD(kchannel, reserved);
	NESTED_ARRAY(kchannel, queue, kchan_queue);
	end();
}

static void klxfile(void)
{
	begin("klxfile", sizeof(struct klxfile));
	FIELD(klxfile, magic);
	FIELD(klxfile, kind);
	FIELD(klxfile, flock);
	FIELD(klxfile, flags);
	FIELD(klxfile, reserved2);
	FIELD(klxfile, object);
	FIELD(klxfile, offset);
	ARRAY(klxfile, path);
	ARRAY(klxfile, cursor);
	end();
}

static void klxpipe(void)
{
	begin("klxpipe", sizeof(struct klxpipe));
	FIELD(klxpipe, magic);
	FIELD(klxpipe, reserved);
	FIELD(klxpipe, readers);
	FIELD(klxpipe, writers);
	FIELD(klxpipe, ring);
	FIELD(klxpipe, written);
	FIELD(klxpipe, read);
	end();
}

static void klayer(void)
{
	begin("klayer", sizeof(struct klayer));
	FIELD(klayer, magic);
	FIELD(klayer, reserved);
	FIELD(klayer, pages);
	FIELD(klayer, end);
	FIELD(klayer, below);
	FIELD(klayer, limit);
	end();
}

/* --- the document ----------------------------------------------------------- */

/* type_names -- objstore's own names of the object types ("blob"...) */
static void type_names(void)
{
	char number[8];

	for (unsigned t = 1; t <= OS_TYPE_MAX; t++) {
		snprintf(number, sizeof(number), "%u", t);
		text(number, os_obj_type_name((uint16_t)t));
	}
}

int main(void)
{
	static void (*const structures[])(void) = {
		os_superblock, os_root, os_page_desc, os_log_entry, os_obj_header,
		os_cat_node, os_cat_entry, os_snap_area, os_snap_node, os_snap_entry,
		kroot, kconsole, kclock, fe_exit_info, kproc, arch_user_regs, kthread,
		kmapping, kaspace, khandle, khandles, kmsg_header, kchan_queue, kchannel,
		klxfile, klxpipe, klayer,
	};

	sep = "";
	printf("{\"constants\": {");
	heap_constants();
	kernel_constants();
	printf("},\n \"type_names\": {");
	sep = "";
	type_names();
	printf("},\n \"structs\": {");
	sep = "";
	for (size_t i = 0; i < sizeof(structures) / sizeof(structures[0]); i++)
		structures[i]();
	printf("}}\n");
	return 0;
}
