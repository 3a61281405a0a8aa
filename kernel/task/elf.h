/*
 * elf.h -- checking a program before it runs: static x86_64 ELF executables.
 *
 * Ferrite executes code objects in place: a program's text is mapped
 * read+execute straight from the object's pages, its data privately
 * (copy on write), its bss, stack and heap from anonymous memory. elf_parse
 * decides whether an image can be run that way and describes its loadable
 * segments; it refuses anything else -- malformed, hostile, or merely of a
 * kind Ferrite does not run (dynamic, position-independent, TLS) -- with
 * -ERR_NOEXEC and a one-line reason. docs/programs.md lists every check.
 *
 * Pure C: no allocation, no kernel services, only <ferrite/errors.h> and
 * <ferrite/syscall.h>; the kernel and the host unit test compile the same
 * file. The image is reached only through a read callback, and only within
 * [0, file_size).
 */
#ifndef TASK_ELF_H
#define TASK_ELF_H

#include <stdint.h>

#define ELF_MAX_SEGMENTS 8

/* One PT_LOAD segment, as its program header gives it. */
struct elf_segment {
	uint64_t vaddr, memsz;  /* [vaddr, vaddr + memsz) in the process */
	uint64_t offset, filesz; /* [offset, offset + filesz) of the image */
	unsigned prot;          /* FE_PROT_READ | FE_PROT_WRITE | FE_PROT_EXEC */
};

/*
 * A checked executable. Invariants after elf_parse returns 0:
 *  - 1 <= count <= ELF_MAX_SEGMENTS, seg[] sorted by vaddr;
 *  - every segment: 0 < memsz, filesz <= memsz, offset + filesz <= file_size,
 *    vaddr % 4096 == offset % 4096, [vaddr, vaddr + memsz) inside
 *    [user_base, user_top), prot has FE_PROT_READ and never both
 *    FE_PROT_WRITE and FE_PROT_EXEC;
 *  - no two segments touch the same page (each is rounded out to whole
 *    pages first), so each page gets exactly one protection;
 *  - entry lies in [vaddr, vaddr + filesz) of a segment with FE_PROT_EXEC.
 */
struct elf_image {
	uint64_t entry;
	unsigned count;         /* PT_LOAD segments, sorted by vaddr */
	struct elf_segment seg[ELF_MAX_SEGMENTS];
};

/* read `len` bytes at `off` of the image into buf: bytes read, or negative error */
typedef int64_t (*elf_read_fn)(void *ctx, uint64_t off, void *buf, uint64_t len);

/*
 * elf_parse -- check an executable and describe its segments; 0, or
 * -ERR_NOEXEC with *why set to a static one-line reason ("not an ELF file",
 * "not x86_64", "segment 2 overlaps segment 1", ...).
 *
 * user_base and user_top must be page-aligned with user_base < user_top
 * (else -ERR_INVAL): segments must lie in [user_base, user_top). A negative
 * result of `read` is returned as it is, a short read as -ERR_IO; *why is
 * set on every failure and to NULL on success. *out is meaningful only on
 * success.
 */
int elf_parse(elf_read_fn read, void *ctx, uint64_t file_size,
	      uint64_t user_base, uint64_t user_top,
	      struct elf_image *out, const char **why);

#endif
