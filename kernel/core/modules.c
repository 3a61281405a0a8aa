/*
 * modules.c -- the boot modules, imported as programs.
 *
 * The user programs a loader passes as multiboot modules (GRUB's module2
 * lines, QEMU -initrd) become code objects bound to `bin/NAME` at genesis,
 * or at any power-on whose command line says `import`; other power-ons
 * ignore them. NAME is the module command line's second word, or the base
 * name of its only word. Each module is imported in a transaction of its
 * own, committed (or, if the heap cannot take it, aborted) before the next:
 * importing replaces an older `bin/NAME`, and the object it was bound to is
 * deleted when nothing else holds it, so importing again is harmless --
 * which is how a genesis cut short is simply finished at the next power-on
 * (docs/heap.md).
 */
#include <stdio.h>
#include <string.h>

#include "core/bootinfo.h"
#include "core/cmdline.h"
#include "core/heap.h"
#include "core/panic.h"
#include "core/printk.h"
#include "errstr.h"
#include "ferrite/errors.h"
#include "mm/phys.h"
#include "objstore/catalogue.h"
#include "objstore/object.h"
#include "core/modules.h"

#define PROGRAM_DIR "bin/"
#define PROGRAM_NAME_MAX 32       /* bytes of NAME in bin/NAME */

/* word -- the next space-separated word at or after *p: its start, its length in *len */
static const char *word(const char **p, size_t *len)
{
	const char *start = *p;

	while (*start == ' ')
		start++;
	*len = 0;
	while (start[*len] && start[*len] != ' ')
		(*len)++;
	*p = start + *len;
	return start;
}

/* program_path -- "bin/NAME" for a module's command line: NAME is the
 * second word, or the basename of the only word; 0 or -ERR_INVAL */
static int program_path(const char *cmdline, char *path, size_t size)
{
	const char *p = cmdline, *first, *name, *slash;
	size_t first_len, len;

	first = word(&p, &first_len);
	name = word(&p, &len);
	if (len == 0) {
		name = first;
		len = first_len;
		while ((slash = memchr(name, '/', len)) != NULL) {
			len -= (size_t)(slash + 1 - name);
			name = slash + 1;
		}
	}
	if (len == 0 || len > PROGRAM_NAME_MAX || memchr(name, '/', len))
		return -ERR_INVAL;
	snprintf(path, size, "%s%.*s", PROGRAM_DIR, (int)len, name);
	return os_cat_name_ok(path, strlen(path));
}

/* bind_program -- bind `path` to new object `id`, dropping the object it
 * was bound to (deleted when no reference is left); whether it was bound */
static int bind_program(const char *path, uint64_t id, bool *replaced)
{
	uint64_t len = strlen(path), old;
	uint32_t count;
	int err = os_cat_remove(&kheap, path, len, &old);

	*replaced = err == 0;
	if (err == -ERR_NOENT)
		return os_cat_insert(&kheap, path, len, id);
	if (!err)
		err = os_obj_ref(&kheap, old, -1, &count);
	if (!err && count == 0)
		err = os_obj_delete(&kheap, old);
	if (!err)
		err = os_cat_insert(&kheap, path, len, id);
	return err;
}

/* import_program -- `size` bytes as a new code object bound to `path`,
 * replacing an older binding; inside the running transaction */
static int import_program(const char *path, const uint8_t *bytes, uint64_t size,
			  bool *replaced)
{
	uint64_t id, at = 0;
	int err = os_obj_create(&kheap, OS_TYPE_CODE, size, &id);

	while (!err && at < size) {
		int64_t done = os_obj_write(&kheap, id, at, bytes + at, size - at);

		if (done <= 0)
			err = done ? (int)done : -ERR_NOSPC;
		else
			at += (uint64_t)done;
	}
	if (!err)
		err = bind_program(path, id, replaced);
	return err;
}

/* modules_import -- boot module m as bin/NAME in the running transaction */
int modules_import(const struct boot_module *m)
{
	char path[sizeof(PROGRAM_DIR) + PROGRAM_NAME_MAX];
	uint64_t size = m->end - m->start;
	bool replaced;
	int err;

	if (m->end < m->start) {
		pr_warn("heap: module '%s' ends before it starts; not imported\n",
			m->cmdline);
		return -ERR_INVAL;
	}
	if (program_path(m->cmdline, path, sizeof(path))) {
		pr_warn("heap: module '%s': no valid program name (the second word, or the file's name: 1 to %u bytes, no '/'); not imported\n",
			m->cmdline, PROGRAM_NAME_MAX);
		return -ERR_INVAL;
	}
	err = import_program(path, phys_to_virt(m->start), size, &replaced);
	if (err) {
		heap_abort();
		pr_warn("heap: %s: %llu bytes not imported: %s\n", path,
			(unsigned long long)size, err_str(err));
		return err;
	}
	if (replaced)
		pr_info("heap: import: %s replaced (%llu bytes)\n", path,
			(unsigned long long)size);
	else
		pr_info("heap: %s: %llu bytes\n", path, (unsigned long long)size);
	return 0;
}

/* modules_wanted -- whether the boot modules are imported in this power-on */
bool modules_wanted(void)
{
	return heap_genesis() || cmdline_has("import");
}

/* modules_ignored -- say that the boot modules are ignored */
void modules_ignored(const struct boot_info *bi)
{
	if (bi->module_count)
		pr_info("heap: %u boot module%s ignored (`import` on the command line replaces bin/NAME)\n",
			bi->module_count, bi->module_count == 1 ? "" : "s");
}
