/*
 * test_elf.c -- host unit tests of the ELF checker (kernel/task/elf.c, the
 * same source the kernel compiles, linked with Ferrite's libc).
 *
 * A valid minimal Ferrite program is built in memory -- an R+X text segment
 * and an R+W data+bss segment, a PT_GNU_STACK and the PT_NOTE of Ferrite's
 * note -- and must parse to exactly the expected segments. Without the
 * note it is a Linux program, which the Linux rules (static PIE, TLS, a
 * named interpreter; an interpreter's own rules) are tested on. Then each rule is broken on a copy of it, one test per
 * rule, and the exact reason is checked, with the nearest accepted case
 * where a rule has a boundary. A fuzz test flips bytes, plants edge values
 * and truncates the image 10,000 times: every result must be 0 (and then the
 * description must keep every promise of elf.h) or -ERR_NOEXEC with a
 * reason. Last, a real static executable built by the host's gcc
 * (elf_sample.c) must parse to the segments its program headers list.
 *
 * The image is only ever read through read_image, which fails the test if
 * the checker asks for a byte outside the file. The host's <elf.h> builds
 * the images; the checker has its own definitions.
 */
#include "check.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include <ferrite/errors.h>
#include <ferrite/syscall.h>

#include "kernel/task/elf.h"
#include "tests/objstore/test_rand.h"

/* The valid image: file layout and addresses. */
#define IMAGE_SIZE 0x2100u
#define IMAGE_CAP 0x8000u     /* room for the host's sample executable too */
#define TEXT_VADDR 0x400000u  /* file [0, 0x1010): headers, then code at 0x1000 */
#define TEXT_SIZE 0x1010u
#define ENTRY 0x401000u
#define DATA_OFFSET 0x2000u
#define DATA_VADDR 0x402000u  /* the page right after the text's last one */
#define DATA_FILESZ 0x100u
#define DATA_MEMSZ 0x3000u    /* data, then bss */
#define PH_TEXT 0
#define PH_DATA 1
#define PH_STACK 2
#define PH_NOTE 3
#define PHNUM 4
#define NOTE_OFFSET 0x200u    /* Ferrite's note, in the text segment's first page */
#define MAX_PHNUM 64

#define RX (FE_PROT_READ | FE_PROT_EXEC)
#define RW (FE_PROT_READ | FE_PROT_WRITE)

struct image {
	_Alignas(8) unsigned char bytes[IMAGE_CAP];
	uint64_t size;          /* what elf_parse is told (truncation) */
	int fail_read;          /* 0, or fail this read (1 = the first) */
	int64_t fail_with;      /* its result: a negative error or a short count */
	int reads;
};

/* ehdr -- the image's ELF header */
static Elf64_Ehdr *ehdr(struct image *im)
{
	return (Elf64_Ehdr *)im->bytes;
}

/* phdr -- the image's i-th program header (at e_phoff = 64) */
static Elf64_Phdr *phdr(struct image *im, unsigned i)
{
	return (Elf64_Phdr *)(im->bytes + sizeof(Elf64_Ehdr)) + i;
}

/* set_load -- make program header i a PT_LOAD with these values */
static void set_load(struct image *im, unsigned i, uint64_t offset,
		     uint64_t vaddr, uint64_t filesz, uint64_t memsz,
		     uint32_t flags)
{
	*phdr(im, i) = (Elf64_Phdr){
		.p_type = PT_LOAD, .p_flags = flags, .p_offset = offset,
		.p_vaddr = vaddr, .p_paddr = vaddr, .p_filesz = filesz,
		.p_memsz = memsz, .p_align = 0x1000,
	};
}

/* set_note -- Ferrite's program note at NOTE_OFFSET, with ABI version `abi` */
static void set_note(struct image *im, uint32_t abi)
{
	const uint32_t head[3] = { sizeof(FE_NOTE_NAME), 4, FE_NOTE_PROGRAM };

	memcpy(im->bytes + NOTE_OFFSET, head, sizeof(head));
	memcpy(im->bytes + NOTE_OFFSET + 12, FE_NOTE_NAME, sizeof(FE_NOTE_NAME));
	memcpy(im->bytes + NOTE_OFFSET + 20, &abi, 4);
}

/* make_linux -- the valid executable without Ferrite's note: a Linux program */
static void make_linux(struct image *im);

/* make_valid -- build the valid two-segment executable in *im */
static void make_valid(struct image *im)
{
	memset(im, 0, sizeof(*im));
	im->size = IMAGE_SIZE;
	*ehdr(im) = (Elf64_Ehdr){
		.e_ident = {ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64,
			    ELFDATA2LSB, EV_CURRENT, ELFOSABI_SYSV},
		.e_type = ET_EXEC, .e_machine = EM_X86_64,
		.e_version = EV_CURRENT, .e_entry = ENTRY,
		.e_phoff = sizeof(Elf64_Ehdr), .e_ehsize = sizeof(Elf64_Ehdr),
		.e_phentsize = sizeof(Elf64_Phdr), .e_phnum = PHNUM,
	};
	set_load(im, PH_TEXT, 0, TEXT_VADDR, TEXT_SIZE, TEXT_SIZE, PF_R | PF_X);
	set_load(im, PH_DATA, DATA_OFFSET, DATA_VADDR, DATA_FILESZ, DATA_MEMSZ,
		 PF_R | PF_W);
	*phdr(im, PH_STACK) = (Elf64_Phdr){
		.p_type = PT_GNU_STACK, .p_flags = PF_R | PF_W, .p_align = 16};
	*phdr(im, PH_NOTE) = (Elf64_Phdr){
		.p_type = PT_NOTE, .p_flags = PF_R, .p_offset = NOTE_OFFSET,
		.p_vaddr = TEXT_VADDR + NOTE_OFFSET, .p_filesz = 24, .p_memsz = 24,
		.p_align = 4};
	set_note(im, FE_NOTE_ABI);
	memset(im->bytes + ENTRY - TEXT_VADDR, 0xf4, TEXT_SIZE - 0x1000); /* hlt */
	memset(im->bytes + DATA_OFFSET, 0x5a, DATA_FILESZ);
}

static void make_linux(struct image *im)
{
	make_valid(im);
	ehdr(im)->e_phnum = PHNUM - 1; /* the note is the last header */
}

/* read_image -- the elf_read_fn over a struct image; a read outside the file fails the test */
static int64_t read_image(void *ctx, uint64_t off, void *buf, uint64_t len)
{
	struct image *im = ctx;

	im->reads++;
	if (im->reads == im->fail_read)
		return im->fail_with;
	if (off > im->size || len > im->size - off) {
		CHECK(!"elf_parse read outside the file");
		return -ERR_FAULT;
	}
	memcpy(buf, im->bytes + off, len);
	return (int64_t)len;
}

/* parse -- run elf_parse on the image with Ferrite's user range */
static int parse(struct image *im, struct elf_image *out, const char **why)
{
	im->reads = 0;
	return elf_parse(read_image, im, im->size, FE_USER_BASE, FE_USER_TOP,
			 out, why);
}

/* refused -- check that the image is refused with -ERR_NOEXEC and exactly this reason */
static void refused(struct image *im, const char *reason)
{
	struct elf_image out;
	const char *why = NULL;

	CHECK_EQ(parse(im, &out, &why), -ERR_NOEXEC);
	CHECK_STR_EQ(why, reason);
}

/* accepted -- check that the image parses, with no reason given */
static void accepted(struct image *im)
{
	struct elf_image out;
	const char *why = "unset";

	CHECK_EQ(parse(im, &out, &why), 0);
	CHECK_STR_EQ(why, NULL);
}

/* check_segment -- compare one parsed segment with the expected values */
static void check_segment(const struct elf_segment *s, uint64_t vaddr,
			  uint64_t memsz, uint64_t offset, uint64_t filesz,
			  unsigned prot)
{
	CHECK_EQ(s->vaddr, vaddr);
	CHECK_EQ(s->memsz, memsz);
	CHECK_EQ(s->offset, offset);
	CHECK_EQ(s->filesz, filesz);
	CHECK_EQ(s->prot, prot);
}

/* check_valid_result -- the exact description of the valid image */
static void check_valid_result(struct image *im)
{
	struct elf_image out;
	const char *why = "unset";

	CHECK_EQ(parse(im, &out, &why), 0);
	CHECK_STR_EQ(why, NULL);
	CHECK_EQ(out.entry, ENTRY);
	if (!CHECK_EQ(out.count, 2))
		return;
	check_segment(&out.seg[0], TEXT_VADDR, TEXT_SIZE, 0, TEXT_SIZE, RX);
	check_segment(&out.seg[1], DATA_VADDR, DATA_MEMSZ, DATA_OFFSET,
		      DATA_FILESZ, RW);
}

/* page_of -- the page holding byte v */
static uint64_t page_of(uint64_t v)
{
	return v / FE_PAGE_SIZE;
}

/* check_promises -- whether an accepted description keeps every invariant elf.h states */
static void check_promises(const struct elf_image *img, uint64_t file_size)
{
	bool entry_ok = false;

	CHECK(img->count >= 1 && img->count <= ELF_MAX_SEGMENTS);
	for (unsigned i = 0; i < img->count && i < ELF_MAX_SEGMENTS; i++) {
		const struct elf_segment *s = &img->seg[i];

		CHECK(s->memsz > 0 && s->filesz <= s->memsz);
		CHECK(s->offset <= file_size && s->filesz <= file_size - s->offset);
		CHECK_EQ(s->vaddr % FE_PAGE_SIZE, s->offset % FE_PAGE_SIZE);
		CHECK(s->vaddr >= FE_USER_BASE && s->vaddr < FE_USER_TOP &&
		      s->memsz <= FE_USER_TOP - s->vaddr);
		CHECK(s->prot & FE_PROT_READ);
		CHECK((s->prot & RW) != RW || !(s->prot & FE_PROT_EXEC));
		if (i > 0) {
			const struct elf_segment *p = &img->seg[i - 1];

			CHECK(page_of(p->vaddr + p->memsz - 1) < page_of(s->vaddr));
		}
		if ((s->prot & FE_PROT_EXEC) && img->entry >= s->vaddr &&
		    img->entry - s->vaddr < s->filesz)
			entry_ok = true;
	}
	CHECK(entry_ok);
}

/* --- the valid image ---------------------------------------------------- */

CHECK_TEST(valid_image_parses_to_its_segments)
{
	struct image im;

	make_valid(&im);
	check_valid_result(&im);
	/* the header; each program header twice (the notes first); the note */
	CHECK_EQ(im.reads, 1 + 2 * PHNUM + 1);
}

CHECK_TEST(segments_come_out_sorted_by_address)
{
	struct image im;
	Elf64_Phdr text;

	make_valid(&im);
	text = *phdr(&im, PH_TEXT);
	*phdr(&im, PH_TEXT) = *phdr(&im, PH_DATA);
	*phdr(&im, PH_DATA) = text;
	check_valid_result(&im);
}

CHECK_TEST(other_program_header_types_are_ignored)
{
	static const uint32_t types[] = {PT_NULL, PT_NOTE, PT_PHDR,
		PT_GNU_PROPERTY, PT_GNU_RELRO, PT_GNU_EH_FRAME, PT_SHLIB,
		0x6fffffffu};
	struct image im;

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		make_valid(&im);
		phdr(&im, PH_STACK)->p_type = types[i];
		phdr(&im, PH_STACK)->p_flags = PF_R | PF_W | PF_X;
		phdr(&im, PH_STACK)->p_offset = UINT64_MAX; /* never looked at */
		check_valid_result(&im);
	}
}

CHECK_TEST(gnu_linux_os_abi_and_unused_fields_are_accepted)
{
	struct image im;

	make_valid(&im);
	ehdr(&im)->e_ident[EI_OSABI] = ELFOSABI_GNU;
	ehdr(&im)->e_shoff = UINT64_MAX;
	ehdr(&im)->e_shnum = 0xffff;
	phdr(&im, PH_TEXT)->p_paddr = 0;
	check_valid_result(&im);
}

/* --- the file header ---------------------------------------------------- */

CHECK_TEST(file_shorter_than_an_elf_header)
{
	struct image im;

	make_valid(&im);
	im.size = sizeof(Elf64_Ehdr) - 1;
	refused(&im, "file too short for an ELF header");
	im.size = 0;
	refused(&im, "file too short for an ELF header");
	CHECK_EQ(im.reads, 0);
}

CHECK_TEST(bad_magic)
{
	struct image im;

	for (int i = 0; i < 4; i++) {
		make_valid(&im);
		im.bytes[i] ^= 0x20;
		refused(&im, "not an ELF file");
	}
}

CHECK_TEST(not_elfclass64)
{
	struct image im;

	make_valid(&im);
	ehdr(&im)->e_ident[EI_CLASS] = ELFCLASS32;
	refused(&im, "not a 64-bit ELF file");
}

CHECK_TEST(not_little_endian)
{
	struct image im;

	make_valid(&im);
	ehdr(&im)->e_ident[EI_DATA] = ELFDATA2MSB;
	refused(&im, "not a little-endian ELF file");
}

CHECK_TEST(not_ev_current_in_ident)
{
	struct image im;

	make_valid(&im);
	ehdr(&im)->e_ident[EI_VERSION] = 2;
	refused(&im, "unknown ELF version in e_ident");
}

CHECK_TEST(not_ev_current_in_e_version)
{
	struct image im;

	make_valid(&im);
	ehdr(&im)->e_version = 0;
	refused(&im, "unknown ELF version in e_version");
}

CHECK_TEST(os_abi_other_than_sysv_or_gnu)
{
	struct image im;

	make_valid(&im);
	ehdr(&im)->e_ident[EI_OSABI] = ELFOSABI_FREEBSD;
	refused(&im, "OS ABI is neither System V nor GNU/Linux");
}

CHECK_TEST(pie_and_shared_objects)
{
	struct image im;

	make_valid(&im);
	ehdr(&im)->e_type = ET_DYN;
	refused(&im, "position-independent executables and shared objects are not supported");
}

CHECK_TEST(relocatable_objects)
{
	struct image im;

	make_valid(&im);
	ehdr(&im)->e_type = ET_REL;
	refused(&im, "relocatable object files are not supported (link the program)");
}

CHECK_TEST(other_file_types)
{
	struct image im;

	make_valid(&im);
	ehdr(&im)->e_type = ET_CORE;
	refused(&im, "not an executable file");
	ehdr(&im)->e_type = ET_NONE;
	refused(&im, "not an executable file");
}

CHECK_TEST(not_x86_64)
{
	struct image im;

	make_valid(&im);
	ehdr(&im)->e_machine = EM_386;
	refused(&im, "not x86_64");
	ehdr(&im)->e_machine = EM_AARCH64;
	refused(&im, "not x86_64");
}

CHECK_TEST(wrong_header_sizes)
{
	struct image im;

	make_valid(&im);
	ehdr(&im)->e_ehsize = sizeof(Elf64_Ehdr) + 1;
	refused(&im, "wrong ELF header size (e_ehsize)");
	make_valid(&im);
	ehdr(&im)->e_phentsize = sizeof(Elf64_Phdr) - 1;
	refused(&im, "wrong program header size (e_phentsize)");
	ehdr(&im)->e_phentsize = sizeof(Elf64_Phdr) + 8;
	refused(&im, "wrong program header size (e_phentsize)");
}

CHECK_TEST(program_header_count)
{
	struct image im;

	make_valid(&im);
	ehdr(&im)->e_phnum = 0;
	refused(&im, "no program headers");
	ehdr(&im)->e_phnum = MAX_PHNUM + 1;
	refused(&im, "more than 64 program headers");
	ehdr(&im)->e_phnum = 0xffff; /* PN_XNUM */
	refused(&im, "more than 64 program headers");
	ehdr(&im)->e_phnum = MAX_PHNUM; /* the rest are zero: PT_NULL */
	accepted(&im);
}

CHECK_TEST(program_header_table_outside_the_file)
{
	struct image im;

	make_valid(&im);
	ehdr(&im)->e_phoff = IMAGE_SIZE - PHNUM * sizeof(Elf64_Phdr) + 1;
	refused(&im, "program header table extends past the end of the file");
	ehdr(&im)->e_phoff = UINT64_MAX - 8; /* phoff + table wraps */
	refused(&im, "program header table extends past the end of the file");
	ehdr(&im)->e_phoff = IMAGE_SIZE + 1;
	refused(&im, "program header table extends past the end of the file");
	make_valid(&im);
	im.size = sizeof(Elf64_Ehdr) + PHNUM * sizeof(Elf64_Phdr) - 1;
	refused(&im, "program header table extends past the end of the file");
}

/* --- reading ------------------------------------------------------------ */

CHECK_TEST(read_errors_propagate)
{
	struct image im;
	struct elf_image out;
	const char *why;

	for (int n = 1; n <= 1 + PHNUM; n++) {
		make_valid(&im);
		im.fail_read = n;
		im.fail_with = -n; /* -ERR_PERM, -ERR_NOENT...: returned as they are */
		why = NULL;
		CHECK_EQ(parse(&im, &out, &why), -n);
		CHECK_STR_EQ(why, "the image could not be read");
	}
}

CHECK_TEST(short_read_is_an_io_error)
{
	struct image im;
	struct elf_image out;
	const char *why = NULL;

	make_valid(&im);
	im.fail_read = 2;
	im.fail_with = 10;
	CHECK_EQ(parse(&im, &out, &why), -ERR_IO);
	CHECK_STR_EQ(why, "the image could not be read (short read)");
}

CHECK_TEST(unaligned_user_range_is_the_callers_error)
{
	struct image im;
	struct elf_image out;
	const char *why = NULL;

	make_valid(&im);
	CHECK_EQ(elf_parse(read_image, &im, im.size, FE_USER_BASE + 1,
			   FE_USER_TOP, &out, &why), -ERR_INVAL);
	CHECK(why != NULL);
	CHECK_EQ(elf_parse(read_image, &im, im.size, FE_USER_TOP,
			   FE_USER_BASE, &out, &why), -ERR_INVAL);
	CHECK_EQ(im.reads, 0);
}

/* --- loadable segments -------------------------------------------------- */

CHECK_TEST(file_size_above_memory_size)
{
	struct image im;

	make_valid(&im);
	phdr(&im, PH_TEXT)->p_memsz = TEXT_SIZE - 1;
	refused(&im, "a loadable segment's file size exceeds its memory size");
}

CHECK_TEST(empty_segment)
{
	struct image im;

	make_valid(&im);
	phdr(&im, PH_DATA)->p_filesz = 0;
	phdr(&im, PH_DATA)->p_memsz = 0;
	refused(&im, "a loadable segment is empty");
}

CHECK_TEST(segment_past_the_end_of_the_file)
{
	struct image im;

	make_valid(&im);
	phdr(&im, PH_DATA)->p_filesz = DATA_FILESZ + 1;
	refused(&im, "a loadable segment extends past the end of the file");
	make_valid(&im);
	im.size = IMAGE_SIZE - 1;
	refused(&im, "a loadable segment extends past the end of the file");
	make_valid(&im); /* offset + filesz wraps */
	phdr(&im, PH_DATA)->p_filesz = UINT64_MAX - DATA_OFFSET + 1;
	phdr(&im, PH_DATA)->p_memsz = UINT64_MAX;
	refused(&im, "a loadable segment extends past the end of the file");
	make_valid(&im);
	phdr(&im, PH_DATA)->p_offset = 0xfffffffffffff000ull;
	refused(&im, "a loadable segment extends past the end of the file");
	make_valid(&im); /* a bss-only segment may point at the end of the file */
	phdr(&im, PH_DATA)->p_offset = IMAGE_SIZE;
	phdr(&im, PH_DATA)->p_vaddr = DATA_VADDR + IMAGE_SIZE % FE_PAGE_SIZE;
	phdr(&im, PH_DATA)->p_filesz = 0;
	accepted(&im);
}

CHECK_TEST(alignment_not_a_power_of_two_of_a_page_or_more)
{
	static const uint64_t bad[] = {0, 1, 16, 0x800, 0x1800, 0x3000,
				       UINT64_MAX};
	struct image im;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		make_valid(&im);
		phdr(&im, PH_DATA)->p_align = bad[i];
		refused(&im, "a loadable segment's alignment is not a power of two >= 4096");
	}
	make_valid(&im);
	phdr(&im, PH_DATA)->p_align = 0x200000; /* 2 MiB: fine */
	phdr(&im, PH_TEXT)->p_align = 1ull << 63;
	accepted(&im);
}

CHECK_TEST(address_and_offset_not_congruent_modulo_a_page)
{
	struct image im;

	make_valid(&im);
	phdr(&im, PH_DATA)->p_vaddr = DATA_VADDR + 0x10;
	refused(&im, "a loadable segment's address and file offset differ modulo 4096");
	make_valid(&im); /* congruent but in different pages of the file: fine */
	phdr(&im, PH_DATA)->p_vaddr = DATA_VADDR + 0x10 * FE_PAGE_SIZE;
	accepted(&im);
}

CHECK_TEST(segment_outside_user_memory)
{
	const char *outside = "a loadable segment lies outside the user address range";
	struct image im;

	make_valid(&im);
	phdr(&im, PH_TEXT)->p_vaddr = FE_USER_BASE - FE_PAGE_SIZE;
	refused(&im, outside);
	make_valid(&im);
	phdr(&im, PH_DATA)->p_vaddr = FE_USER_TOP - DATA_MEMSZ + FE_PAGE_SIZE;
	refused(&im, outside);
	make_valid(&im);
	phdr(&im, PH_DATA)->p_vaddr = FE_USER_TOP;
	refused(&im, outside);
	make_valid(&im);
	phdr(&im, PH_DATA)->p_vaddr = 0xffffffff80000000ull; /* kernel half */
	refused(&im, outside);
	make_valid(&im); /* vaddr + memsz wraps */
	phdr(&im, PH_DATA)->p_memsz = UINT64_MAX - DATA_VADDR + 1;
	refused(&im, outside);
	make_valid(&im); /* ends exactly at the top: fine */
	phdr(&im, PH_DATA)->p_vaddr = FE_USER_TOP - DATA_MEMSZ;
	accepted(&im);
}

CHECK_TEST(writable_and_executable)
{
	struct image im;

	make_valid(&im);
	phdr(&im, PH_DATA)->p_flags = PF_R | PF_W | PF_X;
	refused(&im, "a loadable segment is both writable and executable");
	make_valid(&im);
	phdr(&im, PH_TEXT)->p_flags = PF_W | PF_X;
	refused(&im, "a loadable segment is both writable and executable");
}

CHECK_TEST(segment_not_readable)
{
	struct image im;

	make_valid(&im);
	phdr(&im, PH_TEXT)->p_flags = PF_X;
	refused(&im, "a loadable segment is not readable");
	make_valid(&im);
	phdr(&im, PH_DATA)->p_flags = PF_W;
	refused(&im, "a loadable segment is not readable");
}

/* add_read_only_segments -- append n one-page read-only PT_LOADs at 0x600000, 0x601000, ... */
static void add_read_only_segments(struct image *im, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		set_load(im, PHNUM + i, 0, 0x600000 + i * FE_PAGE_SIZE, 0x10,
			 0x10, PF_R);
	ehdr(im)->e_phnum = PHNUM + n;
}

CHECK_TEST(more_than_eight_loadable_segments)
{
	struct image im;
	struct elf_image out;
	const char *why;

	make_valid(&im);
	add_read_only_segments(&im, ELF_MAX_SEGMENTS - 2);
	if (CHECK_EQ(parse(&im, &out, &why), 0))
		CHECK_EQ(out.count, ELF_MAX_SEGMENTS);
	make_valid(&im);
	add_read_only_segments(&im, ELF_MAX_SEGMENTS - 1);
	refused(&im, "more than 8 loadable segments");
}

CHECK_TEST(segments_sharing_a_page)
{
	struct image im;

	make_valid(&im); /* the text's last byte in the data's first page */
	phdr(&im, PH_TEXT)->p_memsz = DATA_VADDR - TEXT_VADDR + 1;
	refused(&im, "segment 1 overlaps segment 0 (they share a page)");
	phdr(&im, PH_TEXT)->p_memsz = DATA_VADDR - TEXT_VADDR;
	accepted(&im);

	make_valid(&im); /* disjoint bytes, one page: [..0x401010) and [0x401800..) */
	phdr(&im, PH_DATA)->p_vaddr = TEXT_VADDR + 0x1800;
	phdr(&im, PH_DATA)->p_offset = 0x1800;
	refused(&im, "segment 1 overlaps segment 0 (they share a page)");

	make_valid(&im); /* a third segment in the bss's last page */
	add_read_only_segments(&im, 1);
	phdr(&im, PHNUM)->p_vaddr = DATA_VADDR + DATA_MEMSZ - FE_PAGE_SIZE;
	refused(&im, "segment 2 overlaps segment 1 (they share a page)");

	make_valid(&im); /* the same segment twice */
	add_read_only_segments(&im, 1);
	*phdr(&im, PHNUM) = *phdr(&im, PH_DATA);
	refused(&im, "segment 2 overlaps segment 1 (they share a page)");
}

CHECK_TEST(no_loadable_segment)
{
	struct image im;

	make_valid(&im);
	phdr(&im, PH_TEXT)->p_type = PT_NOTE;
	phdr(&im, PH_DATA)->p_type = PT_NULL;
	refused(&im, "no loadable segment");
}

CHECK_TEST(dynamically_linked)
{
	struct image im;

	make_valid(&im);
	phdr(&im, PH_STACK)->p_type = PT_INTERP;
	refused(&im, "dynamically linked programs are not supported");
	phdr(&im, PH_STACK)->p_type = PT_DYNAMIC;
	refused(&im, "dynamically linked programs are not supported");
}

CHECK_TEST(thread_local_storage)
{
	struct image im;

	make_valid(&im);
	phdr(&im, PH_STACK)->p_type = PT_TLS;
	refused(&im, "thread-local storage (PT_TLS) is not supported");
}

/* --- Linux programs ----------------------------------------------------- */

CHECK_TEST(without_the_note_a_program_is_linux_s_and_may_use_tls)
{
	struct image im;
	struct elf_image out;
	const char *why;

	make_linux(&im);
	phdr(&im, PH_STACK)->p_type = PT_TLS;
	CHECK_EQ(parse(&im, &out, &why), 0);
	CHECK_EQ(out.abi, ELF_ABI_LINUX);
	CHECK_EQ(out.bias, 0);
	CHECK_EQ(out.phdr, TEXT_VADDR + sizeof(Elf64_Ehdr)); /* loaded with the text */
	CHECK_EQ(out.phnum, PHNUM - 1);
	make_valid(&im);
	CHECK_EQ(parse(&im, &out, &why), 0);
	CHECK_EQ(out.abi, ELF_ABI_FERRITE);
}

CHECK_TEST(a_static_pie_is_loaded_at_the_bias)
{
	struct image im;
	struct elf_image out;
	const char *why;

	make_linux(&im);
	ehdr(&im)->e_type = ET_DYN;
	phdr(&im, PH_STACK)->p_type = PT_DYNAMIC; /* its own relocations */
	CHECK_EQ(parse(&im, &out, &why), 0);
	CHECK_EQ(out.bias, ELF_PIE_BIAS);
	CHECK_EQ(out.entry, ENTRY + ELF_PIE_BIAS);
	check_segment(&out.seg[0], TEXT_VADDR + ELF_PIE_BIAS, TEXT_SIZE, 0, TEXT_SIZE, RX);
	check_segment(&out.seg[1], DATA_VADDR + ELF_PIE_BIAS, DATA_MEMSZ, DATA_OFFSET,
		      DATA_FILESZ, RW);
	phdr(&im, PH_DATA)->p_align = 32ull << 20;
	refused(&im, "a position-independent program's segment asks for an alignment above 16 MiB");
}

/* set_interp -- make the stack's header a PT_INTERP of `len` bytes of `path` at 0x300 */
static void set_interp(struct image *im, const char *path, uint64_t len)
{
	memcpy(im->bytes + 0x300, path, len);
	*phdr(im, PH_STACK) = (Elf64_Phdr){
		.p_type = PT_INTERP, .p_offset = 0x300, .p_filesz = len};
}

CHECK_TEST(a_program_that_needs_an_interpreter_names_it)
{
	static const char path[] = "/lib64/ld-linux-x86-64.so.2";
	struct image im;
	struct elf_image out;
	const char *why;

	make_linux(&im);
	CHECK_EQ(parse(&im, &out, &why), 0);
	CHECK_STR_EQ(out.interp, "");           /* a static program */
	set_interp(&im, path, sizeof(path));
	CHECK_EQ(parse(&im, &out, &why), 0);
	CHECK_STR_EQ(out.interp, path);
	CHECK_EQ(out.bias, 0);                  /* a fixed-address program: where it says */
	phdr(&im, PH_STACK)->p_offset = IMAGE_SIZE; /* its path outside the file */
	refused(&im, "the interpreter's path (PT_INTERP) extends past the end of the file");
	set_interp(&im, path, sizeof(path) - 1); /* no NUL */
	refused(&im, "the interpreter's path (PT_INTERP) is not an absolute path ending in NUL");
	set_interp(&im, "lib/ld.so", 10);
	refused(&im, "the interpreter's path (PT_INTERP) is not an absolute path ending in NUL");
	set_interp(&im, "/lib/\001.so", 10);
	refused(&im, "the interpreter's path (PT_INTERP) holds a byte that is not printable");
	set_interp(&im, "", 1);
	refused(&im, "the interpreter's path (PT_INTERP) is empty or longer than 255 bytes");
	memset(im.bytes + 0x300, 'a', 300);
	im.bytes[0x300] = '/';
	im.bytes[0x300 + 255] = 0;
	*phdr(&im, PH_STACK) = (Elf64_Phdr){ .p_type = PT_INTERP, .p_offset = 0x300, .p_filesz = 256 };
	accepted(&im);                          /* 255 bytes and the NUL */
	phdr(&im, PH_STACK)->p_filesz = 257;
	im.bytes[0x300 + 255] = 'a';
	im.bytes[0x300 + 256] = 0;
	refused(&im, "the interpreter's path (PT_INTERP) is empty or longer than 255 bytes");
	make_valid(&im);                        /* a Ferrite program that names one */
	set_interp(&im, path, sizeof(path));
	refused(&im, "dynamically linked programs are not supported");
}

/* parse_interp -- elf_parse_interp over the image, in the whole user half */
static int parse_interp(struct image *im, struct elf_image *out, const char **why)
{
	im->reads = 0;
	return elf_parse_interp(read_image, im, im->size, FE_USER_BASE, FE_USER_TOP,
				out, why);
}

CHECK_TEST(an_interpreter_is_a_linux_shared_object_loaded_at_its_bias)
{
	struct image im;
	struct elf_image out;
	const char *why = NULL;

	make_linux(&im);
	ehdr(&im)->e_type = ET_DYN;
	phdr(&im, PH_STACK)->p_type = PT_DYNAMIC;
	CHECK_EQ(parse_interp(&im, &out, &why), 0);
	CHECK_EQ(out.bias, ELF_INTERP_BIAS);
	CHECK_EQ(out.entry, ENTRY + ELF_INTERP_BIAS);
	CHECK_STR_EQ(out.interp, "");
	check_segment(&out.seg[0], TEXT_VADDR + ELF_INTERP_BIAS, TEXT_SIZE, 0, TEXT_SIZE, RX);
	ehdr(&im)->e_type = ET_EXEC;
	CHECK_EQ(parse_interp(&im, &out, &why), -ERR_NOEXEC);
	CHECK_STR_EQ(why, "an interpreter must be position-independent (ET_DYN)");
	ehdr(&im)->e_type = ET_DYN;
	set_interp(&im, "/lib/ld.so", 11);
	CHECK_EQ(parse_interp(&im, &out, &why), -ERR_NOEXEC);
	CHECK_STR_EQ(why, "an interpreter that names an interpreter (PT_INTERP)");
	make_valid(&im);
	ehdr(&im)->e_type = ET_DYN;
	CHECK_EQ(parse_interp(&im, &out, &why), -ERR_NOEXEC);
	CHECK_STR_EQ(why, "an interpreter must be a Linux shared object, not a Ferrite program");
}

CHECK_TEST(a_ferrite_note_of_another_abi_is_refused)
{
	struct image im;

	make_valid(&im);
	set_note(&im, FE_NOTE_ABI + 1);
	refused(&im, "the program was built for another version of Ferrite's system calls");
	make_valid(&im);
	memcpy(im.bytes + NOTE_OFFSET + 4, &(uint32_t){ 8 }, 4); /* descsz */
	phdr(&im, PH_NOTE)->p_filesz = 28;
	refused(&im, "Ferrite's program note is malformed");
	phdr(&im, PH_NOTE)->p_filesz = 24; /* a note past its segment: not Ferrite's */
	CHECK_EQ(parse(&im, &(struct elf_image){ 0 }, &(const char *){ NULL }), 0);
}

CHECK_TEST(executable_stack)
{
	struct image im;

	make_valid(&im);
	phdr(&im, PH_STACK)->p_flags = PF_R | PF_W | PF_X;
	refused(&im, "the program asks for an executable stack");
}

CHECK_TEST(entry_point_outside_executable_file_contents)
{
	const char *outside = "the entry point is not inside an executable segment";
	struct image im;

	make_valid(&im);
	ehdr(&im)->e_entry = TEXT_VADDR + TEXT_SIZE; /* one past the end */
	refused(&im, outside);
	ehdr(&im)->e_entry = TEXT_VADDR + TEXT_SIZE - 1;
	accepted(&im);
	ehdr(&im)->e_entry = TEXT_VADDR - 1;
	refused(&im, outside);
	ehdr(&im)->e_entry = DATA_VADDR; /* readable, not executable */
	refused(&im, outside);
	ehdr(&im)->e_entry = 0;
	refused(&im, outside);

	make_valid(&im); /* in the text's memory but past its file contents */
	phdr(&im, PH_TEXT)->p_memsz = 0x1800;
	ehdr(&im)->e_entry = TEXT_VADDR + 0x1400;
	refused(&im, outside);
}

/* --- fuzz --------------------------------------------------------------- */

#define FUZZ_ROUNDS 10000
#define HEADERS_SIZE (sizeof(Elf64_Ehdr) + PHNUM * sizeof(Elf64_Phdr))

/* Values that sit on the edges the checks guard. */
static const uint64_t edge_values[] = {
	0, 1, 0xfff, 0x1000, 0x1001, FE_USER_BASE, FE_USER_TOP,
	FE_USER_TOP - 0x1000, IMAGE_SIZE, IMAGE_SIZE + 1, 1ull << 63,
	UINT64_MAX, UINT64_MAX - 0xfff, 0x7fffffffffffffffull,
};

/* mutate -- change the image at random: flip bits, plant edge values, truncate */
static void mutate(struct image *im, uint64_t *seed)
{
	unsigned changes = 1 + test_rand(seed) % 4;

	for (unsigned i = 0; i < changes; i++) {
		uint64_t r = test_rand(seed);
		/* three in four changes hit the headers, where the checks look */
		uint64_t where = r % 4 ? test_rand(seed) % HEADERS_SIZE :
					 test_rand(seed) % IMAGE_SIZE;

		switch ((r >> 8) % 3) {
		case 0:
			im->bytes[where] ^= (unsigned char)(1u << ((r >> 16) % 8));
			break;
		case 1:
			im->bytes[where] = (unsigned char)(r >> 24);
			break;
		default: {
			uint64_t v = edge_values[(r >> 16) %
				(sizeof(edge_values) / sizeof(edge_values[0]))];
			uint64_t at = (where & ~7ull) < IMAGE_SIZE - 8 ?
				where & ~7ull : IMAGE_SIZE - 8;

			memcpy(im->bytes + at, &v, sizeof(v));
		}
		}
	}
	if (test_rand(seed) % 8 == 0)
		im->size = test_rand(seed) % (IMAGE_SIZE + 1);
}

CHECK_TEST(fuzz_never_crashes_and_keeps_its_promises)
{
	uint64_t seed = 0xe1f;
	unsigned ok = 0, noexec = 0;
	struct image im;

	for (int round = 0; round < FUZZ_ROUNDS; round++) {
		struct elf_image out;
		const char *why = NULL;
		int err;

		make_valid(&im);
		mutate(&im, &seed);
		err = parse(&im, &out, &why);
		if (err == 0) {
			ok++;
			CHECK(why == NULL);
			check_promises(&out, im.size);
		} else {
			noexec++;
			CHECK_EQ(err, -ERR_NOEXEC);
			CHECK(why != NULL);
		}
		if (check_current_failed) {
			printf("  (fuzz round %d)\n", round);
			return;
		}
	}
	printf("  fuzz: %u accepted, %u refused\n", ok, noexec);
	CHECK(ok > 0 && noexec > 0);
}

/* --- a real executable -------------------------------------------------- */

/* load_sample -- the whole of elf_sample (built by unit.mk) into *im */
static bool load_sample(struct image *im)
{
	FILE *f = fopen(ELF_SAMPLE_PATH, "rb");
	bool whole;

	if (f == NULL) {
		CHECK(!"cannot open " ELF_SAMPLE_PATH);
		return false;
	}
	memset(im, 0, sizeof(*im));
	im->size = fread(im->bytes, 1, sizeof(im->bytes), f);
	whole = feof(f) != 0;
	fclose(f);
	CHECK(whole); /* it fits in IMAGE_CAP */
	return whole;
}

CHECK_TEST(host_gcc_static_executable)
{
	struct image *im = calloc(1, sizeof(*im));
	struct elf_image out;
	const char *why = "unset";
	unsigned loads = 0;
	bool has_text = false, has_data = false;

	if (im == NULL || !load_sample(im))
		goto out;
	if (!CHECK_EQ(parse(im, &out, &why), 0)) {
		CHECK_STR_EQ(why, NULL);
		goto out;
	}
	CHECK_EQ(out.entry, ehdr(im)->e_entry);
	CHECK_EQ(out.abi, ELF_ABI_LINUX); /* the host's gcc, not Ferrite's crt0 */
	check_promises(&out, im->size);
	for (unsigned i = 0; i < ehdr(im)->e_phnum; i++) {
		const Elf64_Phdr *ph = phdr(im, i);

		if (ph->p_type != PT_LOAD || loads >= out.count)
			continue;
		/* the linker lists PT_LOADs in address order, as elf_parse returns them */
		check_segment(&out.seg[loads++], ph->p_vaddr, ph->p_memsz,
			      ph->p_offset, ph->p_filesz,
			      (ph->p_flags & PF_R ? FE_PROT_READ : 0) |
			      (ph->p_flags & PF_W ? FE_PROT_WRITE : 0) |
			      (ph->p_flags & PF_X ? FE_PROT_EXEC : 0));
		has_text |= ph->p_flags == (PF_R | PF_X);
		has_data |= ph->p_flags == (PF_R | PF_W) && ph->p_filesz < ph->p_memsz;
	}
	CHECK_EQ(loads, out.count);
	CHECK(has_text && has_data);
out:
	free(im);
}

int main(void)
{
	return check_run_all();
}
