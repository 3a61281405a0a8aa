/*
 * elf.h -- checking a program before it runs: x86_64 ELF executables.
 *
 * Ferrite executes code objects in place: a program's text is mapped
 * read+execute straight from the object's pages, its data privately
 * (copy on write), its bss, stack and heap from anonymous memory. elf_parse
 * decides whether an image can be run that way and describes its loadable
 * segments; it refuses anything else -- malformed, hostile, or merely of a
 * kind Ferrite does not run (dynamic) -- with -ERR_NOEXEC and a one-line
 * reason. docs/programs.md lists every check.
 *
 * Two kinds of program run, told apart by one note. Ferrite's own programs
 * carry a PT_NOTE with the note FE_NOTE_NAME / FE_NOTE_PROGRAM (user/crt0.S
 * emits it, user/user.ld keeps it): they start with Ferrite's calls and
 * must be fixed-address executables without TLS, as libfe makes them.
 * Every other executable is a Linux program (kernel/linux/): fixed-address
 * or position-independent (PIE, loaded at ELF_PIE_BIAS), with or without
 * TLS, static or naming an interpreter (PT_INTERP: its path in
 * elf_image.interp). The interpreter, the C library's dynamic loader, is
 * checked by elf_parse_interp: a Linux shared object that names none
 * itself, loaded at ELF_INTERP_BIAS.
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
 *  - every address below includes the bias;
 *  - every segment: 0 < memsz, filesz <= memsz, offset + filesz <= file_size,
 *    vaddr % 4096 == offset % 4096, [vaddr, vaddr + memsz) inside
 *    [user_base, user_top), prot has FE_PROT_READ and never both
 *    FE_PROT_WRITE and FE_PROT_EXEC;
 *  - no two segments touch the same page (each is rounded out to whole
 *    pages first), so each page gets exactly one protection;
 *  - entry lies in [vaddr, vaddr + filesz) of a segment with FE_PROT_EXEC.
 */
enum elf_abi {
	ELF_ABI_FERRITE = 1,    /* carries Ferrite's note */
	ELF_ABI_LINUX = 2,      /* everything else */
};

/* Where a position-independent Linux program is loaded: every address of
 * its file plus this. A multiple of ELF_PIE_ALIGN_MAX. */
#define ELF_PIE_BIAS 0x0000555555000000ull
#define ELF_PIE_ALIGN_MAX (16ull << 20)

/* Where a program's interpreter is loaded (elf_parse_interp): every
 * address of its file plus this, below the stack (task/proc.c). A
 * multiple of ELF_PIE_ALIGN_MAX. */
#define ELF_INTERP_BIAS 0x00007f0000000000ull

/* The longest interpreter path, its NUL included (PT_INTERP). */
#define ELF_INTERP_MAX 256

struct elf_image {
	uint64_t entry;         /* with the bias */
	uint64_t bias;          /* added to every address of the file: ELF_PIE_BIAS or 0 */
	uint64_t phdr;          /* the program headers in the process (AT_PHDR); 0: not loaded */
	unsigned phnum;
	unsigned abi;           /* enum elf_abi */
	unsigned count;         /* PT_LOAD segments, sorted by vaddr */
	struct elf_segment seg[ELF_MAX_SEGMENTS];
	char interp[ELF_INTERP_MAX];    /* PT_INTERP's path; "" for none (a
					 * static program, an interpreter) */
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
 * set on every failure and to NULL on success; it may point into
 * out->reason. *out is meaningful only on success.
 */
int elf_parse(elf_read_fn read, void *ctx, uint64_t file_size,
	      uint64_t user_base, uint64_t user_top,
	      struct elf_image *out, const char **why);

/*
 * elf_parse_interp -- elf_parse of a program's interpreter: a Linux shared
 * object (ET_DYN, without Ferrite's note) that names no interpreter
 * itself, described as loaded at ELF_INTERP_BIAS; the same results and
 * reasons, and these besides.
 */
int elf_parse_interp(elf_read_fn read, void *ctx, uint64_t file_size,
		     uint64_t user_base, uint64_t user_top,
		     struct elf_image *out, const char **why);

#endif
