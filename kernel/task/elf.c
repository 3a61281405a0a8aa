/*
 * elf.c -- strict checking of x86_64 ELF executables (and of a Linux
 * program's interpreter).
 *
 * A code object runs in place: its text pages are mapped read+execute
 * straight from the object, its data pages privately, and the rest is
 * anonymous memory. That works only if every loadable segment starts at the
 * same offset within a page in the file as in memory (p_offset % 4096 ==
 * p_vaddr % 4096), and only if no page holds parts of two segments (a page
 * has one protection). So, beyond refusing whatever is malformed, elf_parse
 * demands exactly what execute-in-place needs and refuses the kinds of ELF
 * file Ferrite does not run: relocatable, executable stacks, pages both
 * writable and executable, and Ferrite programs that are dynamically
 * linked.
 *
 * Two passes over the program headers. The first reads the notes and the
 * interpreter: a Ferrite note makes the file a Ferrite program, which must
 * also be fixed-address and without TLS (what libfe builds); anything else
 * is a Linux program (elf.h), which may be position-independent (then
 * every address is checked and described with ELF_PIE_BIAS added), use
 * TLS and name an interpreter (its path is recorded; the spawn loads it,
 * checked by elf_parse_interp, at ELF_INTERP_BIAS). The second pass
 * checks and records the loadable segments.
 *
 * The image is untrusted. It is reached only through the caller's read
 * function, always into local copies and always within [0, file_size): every
 * offset and size is checked before it is used, and every sum is checked
 * against overflow before it is formed. Each refusal has its own static
 * reason, so a user learns exactly what is wrong with a program.
 *
 * The structures are read as they lie in the file, in the CPU's byte order:
 * only little-endian files are accepted, and Ferrite runs on x86_64 (the
 * assertion below keeps a big-endian build from compiling).
 */
#include <stddef.h>
#include <stdint.h>

#include <ferrite/errors.h>
#include <ferrite/syscall.h>

#include "task/elf.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "ELF structures are read in place: little-endian CPUs only");

/* The ELF-64 file header (System V gABI), as it lies in the file. */
struct elf64_ehdr {
	uint8_t ident[16];
	uint16_t type;
	uint16_t machine;
	uint32_t version;
	uint64_t entry;
	uint64_t phoff;         /* file offset of the program header table */
	uint64_t shoff;         /* sections: not used to run a program */
	uint32_t flags;
	uint16_t ehsize;
	uint16_t phentsize;
	uint16_t phnum;
	uint16_t shentsize;
	uint16_t shnum;
	uint16_t shstrndx;
};
_Static_assert(sizeof(struct elf64_ehdr) == 64, "ELF-64 file header size");

/* One ELF-64 program header. */
struct elf64_phdr {
	uint32_t type;
	uint32_t flags;
	uint64_t offset;
	uint64_t vaddr;
	uint64_t paddr;         /* not used */
	uint64_t filesz;
	uint64_t memsz;
	uint64_t align;
};
_Static_assert(sizeof(struct elf64_phdr) == 56, "ELF-64 program header size");

/* e_ident */
#define EI_CLASS 4
#define EI_DATA 5
#define EI_VERSION 6
#define EI_OSABI 7
#define ELFCLASS64 2
#define ELFDATA2LSB 1
#define EV_CURRENT 1
#define ELFOSABI_SYSV 0
#define ELFOSABI_GNU 3

/* e_type, e_machine */
#define ET_REL 1
#define ET_EXEC 2
#define ET_DYN 3
#define EM_X86_64 62

/* p_type: the ones elf_parse acts on; every other type is ignored */
#define PT_LOAD 1
#define PT_DYNAMIC 2
#define PT_INTERP 3
#define PT_NOTE 4
#define PT_PHDR 6
#define PT_TLS 7
#define PT_GNU_STACK 0x6474e551u

/* p_flags */
#define PF_X 0x1
#define PF_W 0x2
#define PF_R 0x4

#define ELF_MAX_PHNUM 64
#define PAGE_SIZE ((uint64_t)FE_PAGE_SIZE)
#define NOTES_READ_MAX 512u    /* of each PT_NOTE: Ferrite's note comes first in its own */

/* What every step of one elf_parse call needs. */
struct elf_check {
	elf_read_fn read;
	void *ctx;
	uint64_t file_size;
	uint64_t user_base, user_top; /* page-aligned, user_base < user_top */
	const char **why;
	unsigned abi;           /* enum elf_abi, once the notes are read */
	uint64_t bias;          /* added to every address of the file */
	uint64_t phdr_vaddr;    /* PT_PHDR's address in the file, if has_phdr */
	int has_phdr;
	int interp;             /* checking an interpreter (elf_parse_interp) */
};

/* Two segments that share a page, by their index in address order. */
static const char *const shared_page_reason[ELF_MAX_SEGMENTS] = {
	NULL,
	"segment 1 overlaps segment 0 (they share a page)",
	"segment 2 overlaps segment 1 (they share a page)",
	"segment 3 overlaps segment 2 (they share a page)",
	"segment 4 overlaps segment 3 (they share a page)",
	"segment 5 overlaps segment 4 (they share a page)",
	"segment 6 overlaps segment 5 (they share a page)",
	"segment 7 overlaps segment 6 (they share a page)",
};
_Static_assert(ELF_MAX_SEGMENTS == 8, "one shared-page reason per segment");

/* refuse -- fail with -ERR_NOEXEC for the given reason */
static int refuse(const struct elf_check *c, const char *reason)
{
	*c->why = reason;
	return -ERR_NOEXEC;
}

/* read_exact -- read exactly len bytes at off of the image into buf */
static int read_exact(const struct elf_check *c, uint64_t off, void *buf,
		      uint64_t len)
{
	int64_t got = c->read(c->ctx, off, buf, len);

	if (got < 0) {
		*c->why = "the image could not be read";
		return (int)got;
	}
	if ((uint64_t)got != len) {
		*c->why = "the image could not be read (short read)";
		return -ERR_IO;
	}
	return 0;
}

/* page_down -- the start of the page holding v */
static uint64_t page_down(uint64_t v)
{
	return v & ~(PAGE_SIZE - 1);
}

/* page_up -- v rounded up to a page boundary (v <= 2^64 - PAGE_SIZE) */
static uint64_t page_up(uint64_t v)
{
	return page_down(v + PAGE_SIZE - 1);
}

/* check_ident -- whether e_ident names a little-endian ELF-64 file for Linux or System V */
static int check_ident(const struct elf_check *c, const struct elf64_ehdr *eh)
{
	const uint8_t *id = eh->ident;

	if (id[0] != 0x7f || id[1] != 'E' || id[2] != 'L' || id[3] != 'F')
		return refuse(c, "not an ELF file");
	if (id[EI_CLASS] != ELFCLASS64)
		return refuse(c, "not a 64-bit ELF file");
	if (id[EI_DATA] != ELFDATA2LSB)
		return refuse(c, "not a little-endian ELF file");
	if (id[EI_VERSION] != EV_CURRENT)
		return refuse(c, "unknown ELF version in e_ident");
	if (id[EI_OSABI] != ELFOSABI_SYSV && id[EI_OSABI] != ELFOSABI_GNU)
		return refuse(c, "OS ABI is neither System V nor GNU/Linux");
	return 0;
}

/* check_type -- whether the file is an x86_64 executable (not shared or relocatable) */
static int check_type(const struct elf_check *c, const struct elf64_ehdr *eh)
{
	if (eh->type == ET_REL)
		return refuse(c, "relocatable object files are not supported (link the program)");
	if (eh->type != ET_EXEC && eh->type != ET_DYN)
		return refuse(c, "not an executable file");
	if (eh->machine != EM_X86_64)
		return refuse(c, "not x86_64");
	if (eh->version != EV_CURRENT)
		return refuse(c, "unknown ELF version in e_version");
	return 0;
}

/* check_kind -- whether a position-independent file may run: a Linux
 * program's static PIE (loaded at ELF_PIE_BIAS), never a Ferrite program */
static int check_kind(struct elf_check *c, const struct elf64_ehdr *eh)
{
	if (c->interp && c->abi == ELF_ABI_FERRITE)
		return refuse(c, "an interpreter must be a Linux shared object, not a Ferrite program");
	if (c->interp && eh->type != ET_DYN)
		return refuse(c, "an interpreter must be position-independent (ET_DYN)");
	if (eh->type != ET_DYN)
		return 0;
	if (c->abi == ELF_ABI_FERRITE)
		return refuse(c, "position-independent executables and shared objects are not supported");
	c->bias = c->interp ? ELF_INTERP_BIAS : ELF_PIE_BIAS;
	return 0;
}

/* check_header -- whether the file header is sound and its program header table in the file */
static int check_header(const struct elf_check *c, const struct elf64_ehdr *eh)
{
	int err = check_ident(c, eh);

	if (err == 0)
		err = check_type(c, eh);
	if (err)
		return err;
	if (eh->ehsize != sizeof(struct elf64_ehdr))
		return refuse(c, "wrong ELF header size (e_ehsize)");
	if (eh->phentsize != sizeof(struct elf64_phdr))
		return refuse(c, "wrong program header size (e_phentsize)");
	if (eh->phnum == 0)
		return refuse(c, "no program headers");
	if (eh->phnum > ELF_MAX_PHNUM)
		return refuse(c, "more than 64 program headers");
	/* phnum * 56 <= 3584: the product cannot overflow, the sum is not formed */
	if (eh->phoff > c->file_size ||
	    (uint64_t)eh->phnum * sizeof(struct elf64_phdr) > c->file_size - eh->phoff)
		return refuse(c, "program header table extends past the end of the file");
	return 0;
}

/* check_load_layout -- whether a PT_LOAD's sizes, offset and alignment suit execution in place */
static int check_load_layout(const struct elf_check *c, const struct elf64_phdr *ph)
{
	if (c->bias && ph->align > ELF_PIE_ALIGN_MAX)
		return refuse(c, "a position-independent program's segment asks for an alignment above 16 MiB");
	if (ph->filesz > ph->memsz)
		return refuse(c, "a loadable segment's file size exceeds its memory size");
	if (ph->memsz == 0)
		return refuse(c, "a loadable segment is empty");
	if (ph->offset > c->file_size || ph->filesz > c->file_size - ph->offset)
		return refuse(c, "a loadable segment extends past the end of the file");
	if (ph->align < PAGE_SIZE || (ph->align & (ph->align - 1)) != 0)
		return refuse(c, "a loadable segment's alignment is not a power of two >= 4096");
	if (ph->vaddr % PAGE_SIZE != ph->offset % PAGE_SIZE)
		return refuse(c, "a loadable segment's address and file offset differ modulo 4096");
	return 0;
}

/* check_load_place -- whether a PT_LOAD lies in user memory, readable and never writable+executable */
static int check_load_place(const struct elf_check *c, const struct elf64_phdr *ph)
{
	/* the bias is below user_top, so vaddr < user_top - bias keeps the
	 * sum from wrapping, and then user_top - vaddr cannot wrap either */
	uint64_t vaddr = ph->vaddr + c->bias;

	if (ph->vaddr >= c->user_top - c->bias || vaddr < c->user_base ||
	    ph->memsz > c->user_top - vaddr)
		return refuse(c, "a loadable segment lies outside the user address range");
	if ((ph->flags & PF_W) && (ph->flags & PF_X))
		return refuse(c, "a loadable segment is both writable and executable");
	if (!(ph->flags & PF_R))
		return refuse(c, "a loadable segment is not readable");
	return 0;
}

/* prot_of -- the FE_PROT_* bits for a segment's p_flags */
static unsigned prot_of(uint32_t flags)
{
	return (flags & PF_R ? FE_PROT_READ : 0) |
	       (flags & PF_W ? FE_PROT_WRITE : 0) |
	       (flags & PF_X ? FE_PROT_EXEC : 0);
}

/* add_segment -- insert a checked PT_LOAD into out, keeping seg[] sorted by vaddr */
static int add_segment(const struct elf_check *c, struct elf_image *out,
		       const struct elf64_phdr *ph)
{
	unsigned i;

	if (out->count == ELF_MAX_SEGMENTS)
		return refuse(c, "more than 8 loadable segments");
	for (i = out->count; i > 0 && out->seg[i - 1].vaddr > ph->vaddr + c->bias; i--)
		out->seg[i] = out->seg[i - 1];
	out->seg[i] = (struct elf_segment){
		.vaddr = ph->vaddr + c->bias,
		.memsz = ph->memsz,
		.offset = ph->offset,
		.filesz = ph->filesz,
		.prot = prot_of(ph->flags),
	};
	out->count++;
	return 0;
}

/* check_phdr -- act on one program header: check and record a PT_LOAD, refuse what cannot run */
static int check_phdr(const struct elf_check *c, const struct elf64_phdr *ph,
		      struct elf_image *out)
{
	int err;

	switch (ph->type) {
	case PT_LOAD:
		err = check_load_layout(c, ph);
		if (err == 0)
			err = check_load_place(c, ph);
		return err ? err : add_segment(c, out, ph);
	case PT_INTERP: /* a Linux program's: read by read_interp */
	case PT_DYNAMIC: /* its relocations: the loader's, or a static PIE's own */
		if (c->abi == ELF_ABI_FERRITE)
			return refuse(c, "dynamically linked programs are not supported");
		return 0;
	case PT_TLS:
		if (c->abi == ELF_ABI_FERRITE)
			return refuse(c, "thread-local storage (PT_TLS) is not supported");
		return 0;
	case PT_GNU_STACK:
		if (ph->flags & PF_X)
			return refuse(c, "the program asks for an executable stack");
		return 0;
	default:
		return 0; /* notes, PT_PHDR, PT_GNU_* hints, PT_NULL: nothing to do */
	}
}

/* check_phdrs -- read and act on every program header in turn */
static int check_phdrs(const struct elf_check *c, const struct elf64_ehdr *eh,
		       struct elf_image *out)
{
	struct elf64_phdr ph;
	int err;

	for (unsigned i = 0; i < eh->phnum; i++) {
		/* inside the file: check_header bounded the whole table */
		err = read_exact(c, eh->phoff + i * sizeof(ph), &ph, sizeof(ph));
		if (err == 0)
			err = check_phdr(c, &ph, out);
		if (err)
			return err;
	}
	if (out->count == 0)
		return refuse(c, "no loadable segment");
	return 0;
}

/* check_shared_pages -- whether any two segments, rounded out to pages, share one */
static int check_shared_pages(const struct elf_check *c,
			      const struct elf_image *out)
{
	/*
	 * seg[] is sorted by vaddr: if no segment's pages reach into the next
	 * one's, the rounded ends rise too and no pair at all shares a page.
	 * vaddr + memsz <= user_top, page-aligned, so page_up cannot wrap.
	 */
	for (unsigned i = 1; i < out->count; i++) {
		const struct elf_segment *prev = &out->seg[i - 1];

		if (page_up(prev->vaddr + prev->memsz) > page_down(out->seg[i].vaddr))
			return refuse(c, shared_page_reason[i]);
	}
	return 0;
}

/* find_phdr -- where the program headers lie in the process (AT_PHDR):
 * PT_PHDR's address (read_abi found it), else the loaded bytes of the file
 * that hold them; 0 if no segment loads them */
static void find_phdr(const struct elf_check *c, const struct elf64_ehdr *eh,
		      struct elf_image *out)
{
	uint64_t table = (uint64_t)eh->phnum * sizeof(struct elf64_phdr);

	out->phdr = 0;
	out->phnum = eh->phnum;
	if (c->has_phdr && c->phdr_vaddr < c->user_top - c->bias) {
		out->phdr = c->phdr_vaddr + c->bias;
		return;
	}
	for (unsigned i = 0; i < out->count; i++) {
		const struct elf_segment *s = &out->seg[i];

		/* check_header: phoff + table <= file_size, no wrap */
		if (eh->phoff >= s->offset && eh->phoff + table <= s->offset + s->filesz) {
			out->phdr = s->vaddr + (eh->phoff - s->offset);
			return;
		}
	}
}

/* note_is_ferrites -- whether one note (its header fields and name) is
 * Ferrite's program note; a Ferrite note of another ABI version is refused */
static int note_is_ferrites(const struct elf_check *c, const uint8_t *name,
			    uint32_t namesz, uint32_t type, const uint8_t *desc,
			    uint32_t descsz)
{
	const char want[] = FE_NOTE_NAME;
	uint32_t abi;

	if (namesz != sizeof(want) || type != FE_NOTE_PROGRAM)
		return 0;
	for (unsigned i = 0; i < sizeof(want); i++)
		if (name[i] != (uint8_t)want[i])
			return 0;
	if (descsz != sizeof(abi))
		return refuse(c, "Ferrite's program note is malformed");
	__builtin_memcpy(&abi, desc, sizeof(abi));
	if (abi != FE_NOTE_ABI)
		return refuse(c, "the program was built for another version of Ferrite's system calls");
	return 1;
}

/* read_notes -- whether a PT_NOTE's first NOTES_READ_MAX bytes hold
 * Ferrite's note (1 or 0, or an error). Notes this cannot make sense of
 * are not Ferrite's: other tools' notes are no business of ours. */
static int read_notes(const struct elf_check *c, const struct elf64_phdr *ph)
{
	uint8_t buf[NOTES_READ_MAX];
	uint64_t len = ph->filesz < sizeof(buf) ? ph->filesz : sizeof(buf);
	uint64_t pos = 0;
	int err;

	if (ph->offset > c->file_size || len > c->file_size - ph->offset)
		return 0;
	err = read_exact(c, ph->offset, buf, len);
	if (err)
		return err;
	while (len - pos >= 12) {
		uint32_t namesz, descsz, type;
		uint64_t name_at = pos + 12, desc_at, end;

		__builtin_memcpy(&namesz, buf + pos, 4);
		__builtin_memcpy(&descsz, buf + pos + 4, 4);
		__builtin_memcpy(&type, buf + pos + 8, 4);
		desc_at = name_at + (((uint64_t)namesz + 3) & ~3ull);
		end = desc_at + (((uint64_t)descsz + 3) & ~3ull);
		if (end > len || desc_at + descsz > len)
			return 0;
		err = note_is_ferrites(c, buf + name_at, namesz, type, buf + desc_at, descsz);
		if (err)
			return err;
		pos = end;
	}
	return 0;
}

/* read_interp -- the path of the interpreter a program needs, into
 * out->interp: absolute, NUL-terminated at the end of its segment, of
 * printable bytes */
static int read_interp(const struct elf_check *c, const struct elf64_phdr *ph,
		       struct elf_image *out)
{
	char *path = out->interp;
	int err;

	if (c->interp)
		return refuse(c, "an interpreter that names an interpreter (PT_INTERP)");
	if (ph->offset > c->file_size || ph->filesz > c->file_size - ph->offset)
		return refuse(c, "the interpreter's path (PT_INTERP) extends past the end of the file");
	if (ph->filesz < 2 || ph->filesz > ELF_INTERP_MAX)
		return refuse(c, "the interpreter's path (PT_INTERP) is empty or longer than 255 bytes");
	err = read_exact(c, ph->offset, path, ph->filesz);
	if (err)
		return err;
	if (path[ph->filesz - 1] != 0 || path[0] != '/')
		return refuse(c, "the interpreter's path (PT_INTERP) is not an absolute path ending in NUL");
	for (uint64_t i = 0; i + 1 < ph->filesz; i++)
		if (path[i] < 0x20 || path[i] >= 0x7f)
			return refuse(c, "the interpreter's path (PT_INTERP) holds a byte that is not printable");
	return 0;
}

/* read_abi -- the first pass: which kind of program this is (c->abi),
 * where PT_PHDR says the headers are, and the interpreter it names */
static int read_abi(struct elf_check *c, const struct elf64_ehdr *eh,
		    struct elf_image *out)
{
	const struct elf64_phdr *interp = NULL;
	struct elf64_phdr ph, interp_ph;
	int err;

	c->abi = ELF_ABI_LINUX;
	out->interp[0] = 0;
	for (unsigned i = 0; i < eh->phnum; i++) {
		err = read_exact(c, eh->phoff + i * sizeof(ph), &ph, sizeof(ph));
		if (err)
			return err;
		if (ph.type == PT_NOTE && c->abi != ELF_ABI_FERRITE) {
			err = read_notes(c, &ph);
			if (err < 0)
				return err;
			if (err)
				c->abi = ELF_ABI_FERRITE;
		}
		if (ph.type == PT_PHDR && !c->has_phdr) {
			c->has_phdr = 1;
			c->phdr_vaddr = ph.vaddr;
		}
		if (ph.type == PT_INTERP && !interp) {
			interp_ph = ph;
			interp = &interp_ph;
		}
	}
	if (interp && c->abi == ELF_ABI_LINUX)
		return read_interp(c, interp, out);
	return 0;
}

/* check_entry -- whether the entry point lies in an executable segment's file contents */
static int check_entry(const struct elf_check *c, const struct elf_image *out)
{
	for (unsigned i = 0; i < out->count; i++) {
		const struct elf_segment *s = &out->seg[i];

		if ((s->prot & FE_PROT_EXEC) && out->entry >= s->vaddr &&
		    out->entry - s->vaddr < s->filesz)
			return 0;
	}
	return refuse(c, "the entry point is not inside an executable segment");
}

/* parse -- check an executable (or an interpreter: c->interp) and describe its segments */
static int parse(struct elf_check c, struct elf_image *out)
{
	const char **why = c.why;
	struct elf64_ehdr eh;
	int err;

	if (c.user_base % PAGE_SIZE || c.user_top % PAGE_SIZE || c.user_base >= c.user_top) {
		*why = "the user address range is not a page-aligned range";
		return -ERR_INVAL;
	}
	if (c.file_size < sizeof(eh))
		return refuse(&c, "file too short for an ELF header");
	err = read_exact(&c, 0, &eh, sizeof(eh));
	if (err == 0)
		err = check_header(&c, &eh);
	if (err == 0)
		err = read_abi(&c, &eh, out);
	if (err == 0)
		err = check_kind(&c, &eh);
	if (err)
		return err;
	if (eh.entry >= c.user_top - c.bias)
		return refuse(&c, "the entry point is not inside an executable segment");
	out->abi = c.abi;
	out->bias = c.bias;
	out->entry = eh.entry + c.bias;
	out->count = 0;
	err = check_phdrs(&c, &eh, out);
	if (err == 0)
		err = check_shared_pages(&c, out);
	if (err == 0)
		err = check_entry(&c, out);
	if (err == 0)
		find_phdr(&c, &eh, out);
	if (err == 0)
		*why = NULL;
	return err;
}

/* elf_parse -- check an executable and describe its segments */
int elf_parse(elf_read_fn read, void *ctx, uint64_t file_size,
	      uint64_t user_base, uint64_t user_top,
	      struct elf_image *out, const char **why)
{
	return parse((struct elf_check){
		.read = read, .ctx = ctx, .file_size = file_size,
		.user_base = user_base, .user_top = user_top, .why = why,
	}, out);
}

/* elf_parse_interp -- check a program's interpreter and describe its segments */
int elf_parse_interp(elf_read_fn read, void *ctx, uint64_t file_size,
		     uint64_t user_base, uint64_t user_top,
		     struct elf_image *out, const char **why)
{
	return parse((struct elf_check){
		.read = read, .ctx = ctx, .file_size = file_size,
		.user_base = user_base, .user_top = user_top, .why = why,
		.interp = 1,
	}, out);
}
