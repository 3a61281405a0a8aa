/*
 * nfit.c -- where the persistent memory is: the NVDIMM Firmware Interface
 * Table (ACPI 6.x §5.2.25).
 *
 * After the 36-byte header and 4 reserved bytes the NFIT is a list of
 * structures, each starting with a 2-byte type and a 2-byte length. Ferrite
 * reads two types: the System Physical Address (SPA) Range structure (type
 * 0), whose address range type GUID says "persistent memory", and the
 * Platform Capabilities structure (type 7), whose bit 0 says CPU caches are
 * flushed to the NVDIMM on power loss (eADR). Other types are skipped by
 * their length. The walk never reads a byte outside the table: a structure
 * that is shorter than its header or its type, or runs past the end, stops
 * the parse with -ERR_CORRUPT.
 */
#include <string.h>

#include "acpi/acpi.h"
#include "acpi/acpi_priv.h"
#include "core/printk.h"
#include "ferrite/errors.h"

#define NFIT_FIRST_STRUCT 40        /* header + 4 reserved bytes */
#define NFIT_STRUCT_HDR_LEN 4       /* type, length */

#define NFIT_TYPE_SPA 0
#define SPA_MIN_LEN 56              /* ACPI 6.0; 6.4 adds a location cookie */
#define SPA_INDEX 4
#define SPA_GUID 16
#define SPA_BASE 32
#define SPA_LENGTH 40

#define NFIT_TYPE_CAPS 7
#define CAPS_MIN_LEN 16
#define CAPS_HIGHEST 4              /* bit index of the highest valid capability */
#define CAPS_BITS 8
#define CAPS_CPU_CACHE_FLUSH 0x1    /* CPU caches are in the persistence domain */

/*
 * 66F0D379-B4F3-4074-AC43-0D3318B78CDB, "Persistent Memory Region", as it
 * lies in memory: the first three fields little-endian, the rest in order.
 */
static const uint8_t nfit_pmem_guid[16] = {
	0x79, 0xd3, 0xf0, 0x66, 0xf3, 0xb4, 0x74, 0x40,
	0xac, 0x43, 0x0d, 0x33, 0x18, 0xb7, 0x8c, 0xdb,
};

/* What the walk has found so far. */
struct nfit_walk {
	struct nvm_region *out;
	bool found;                 /* out holds a pmem range */
};

/* nfit_spa -- check an SPA range structure; take it if it is the first pmem one */
static int nfit_spa(const uint8_t *s, uint32_t off, uint16_t len,
		    struct nfit_walk *w)
{
	uint16_t index;
	uint64_t base, size;

	if (len < SPA_MIN_LEN) {
		pr_err("acpi: NFIT SPA range at offset %#x: length %u < %u\n",
		       off, len, SPA_MIN_LEN);
		return -ERR_CORRUPT;
	}
	index = acpi_get16(s + SPA_INDEX);
	base = acpi_get64(s + SPA_BASE);
	size = acpi_get64(s + SPA_LENGTH);
	if (size == 0 || base > UINT64_MAX - size) {
		pr_err("acpi: NFIT SPA range %u at offset %#x: base %#llx length %#llx is %s\n",
		       index, off, (unsigned long long)base,
		       (unsigned long long)size, size ? "past 2^64" : "empty");
		return -ERR_CORRUPT;
	}
	if (memcmp(s + SPA_GUID, nfit_pmem_guid, sizeof(nfit_pmem_guid)) != 0)
		return 0;
	if (w->found) {
		pr_warn("acpi: NFIT: ignoring persistent-memory range %u at %#llx (%llu MiB): only the first is used\n",
			index, (unsigned long long)base,
			(unsigned long long)(size >> 20));
		return 0;
	}
	w->out->base = base;
	w->out->size = size;
	w->out->spa_index = index;
	w->found = true;
	return 0;
}

/* nfit_caps -- read a platform capabilities structure; the first one counts */
static int nfit_caps(const uint8_t *s, uint32_t off, uint16_t len,
		     struct nfit_walk *w)
{
	uint8_t highest;
	uint32_t valid;

	if (len < CAPS_MIN_LEN) {
		pr_err("acpi: NFIT platform capabilities at offset %#x: length %u < %u\n",
		       off, len, CAPS_MIN_LEN);
		return -ERR_CORRUPT;
	}
	if (w->out->caps_present) {
		pr_warn("acpi: NFIT: ignoring a second platform capabilities structure at offset %#x\n",
			off);
		return 0;
	}
	highest = s[CAPS_HIGHEST];
	/* Bits above the highest valid one mean nothing (2u << 31 wraps to 0). */
	valid = highest >= 31 ? UINT32_MAX : (2u << highest) - 1;
	w->out->caps = acpi_get32(s + CAPS_BITS) & valid;
	w->out->caps_present = true;
	w->out->cpu_cache_persistent = (w->out->caps & CAPS_CPU_CACHE_FLUSH) != 0;
	return 0;
}

/* nfit_struct_len -- the length of the structure at off, checked against the table */
static int nfit_struct_len(const uint8_t *t, uint32_t len, uint32_t off,
			   uint16_t *out)
{
	uint16_t type, slen;

	if (len - off < NFIT_STRUCT_HDR_LEN) {
		pr_err("acpi: NFIT: structure header at offset %#x runs past the end (%u bytes)\n",
		       off, len);
		return -ERR_CORRUPT;
	}
	type = acpi_get16(t + off);
	slen = acpi_get16(t + off + 2);
	if (slen < NFIT_STRUCT_HDR_LEN) {
		pr_err("acpi: NFIT: structure at offset %#x (type %u) has length %u\n",
		       off, type, slen);
		return -ERR_CORRUPT;
	}
	if (slen > len - off) {
		pr_err("acpi: NFIT: structure at offset %#x (type %u, length %u) runs past the end (%u bytes)\n",
		       off, type, slen, len);
		return -ERR_CORRUPT;
	}
	*out = slen;
	return 0;
}

/* nfit_parse -- the first persistent-memory range and the platform capabilities */
int nfit_parse(const void *table, uint32_t length, struct nvm_region *out)
{
	const uint8_t *t = table;
	struct nfit_walk w = { .out = out };
	uint32_t len, off;
	uint16_t slen;
	int err = acpi_table_check(table, length, "NFIT");

	if (err)
		return err;
	len = ((const struct acpi_header *)table)->length;
	if (len < NFIT_FIRST_STRUCT) {
		pr_err("acpi: NFIT: length %u leaves no room for its reserved field\n",
		       len);
		return -ERR_CORRUPT;
	}
	memset(out, 0, sizeof(*out));
	for (off = NFIT_FIRST_STRUCT; off < len; off += slen) {
		err = nfit_struct_len(t, len, off, &slen);
		if (!err && acpi_get16(t + off) == NFIT_TYPE_SPA)
			err = nfit_spa(t + off, off, slen, &w);
		else if (!err && acpi_get16(t + off) == NFIT_TYPE_CAPS)
			err = nfit_caps(t + off, off, slen, &w);
		if (err)
			return err;
	}
	if (!w.found) {
		pr_err("acpi: NFIT: no SPA range with the persistent-memory GUID\n");
		return -ERR_NOENT;
	}
	return 0;
}

/* acpi_nfit_find_nvm -- the NVM, from the NFIT found by acpi_init; no
 * NFIT at all is -ERR_NOENT with nothing said (a machine may have its NVM
 * elsewhere: dev/nvm.c says what it found) */
int acpi_nfit_find_nvm(struct nvm_region *out)
{
	const struct acpi_header *nfit = acpi_find_table("NFIT", 0);

	if (!nfit && !acpi_table_rejected("NFIT"))
		return -ERR_NOENT;
	if (!nfit)
		return acpi_missing("NFIT", "where the NVDIMM is");
	return nfit_parse(nfit, nfit->length, out);
}
