/*
 * acpi.c -- finding and validating the firmware's ACPI tables.
 *
 * Ferrite asks the firmware three questions: where is the persistent memory
 * (NFIT), where are the interrupt controllers (MADT), and how does the machine
 * power off (FADT and the DSDT's \_S5_). The answers come from tables the
 * firmware left in memory; this file finds them and decides which to believe.
 *
 * What is trusted: that physical memory below 4 GiB is readable through the
 * direct map (phys.h), and that the boot loader's RSDP copy, if it gave one,
 * is where it says. Nothing else. Every pointer read from a table is checked
 * before it is followed, and every table is checked before it is remembered:
 *
 *  - the RSDP: its signature, the checksum of its 20-byte ACPI 1.0 part and,
 *    from revision 2 on, a sane length and the extended checksum;
 *  - the root table (XSDT when the RSDP has revision >= 2 and a non-zero
 *    XSDT address, else the RSDT; a bad XSDT falls back to the RSDT): its
 *    signature, header and that its body is a whole number of entries;
 *  - each table it points to: non-zero address, header inside the direct
 *    map, 36 <= length < 16 MiB, the whole table inside the direct map, and
 *    the checksum over all of it.
 *
 * A bad RSDP or root table fails acpi_init: nothing the firmware says can be
 * found then. A bad leaf table is reported and left out, with its signature
 * noted, so a vendor's broken table does not stop the boot while a broken
 * NFIT is still reported as broken (-ERR_CORRUPT), not as absent.
 *
 * A valid checksum proves the bytes are what the firmware wrote, not that the
 * firmware wrote sense; so the parsers (nfit.c, madt.c, sleep.c) check every
 * structure against the table's bounds again and never read outside it.
 *
 * Tables are used in place and never copied; all state here is volatile and
 * rebuilt at each power-on (the NVM may even sit elsewhere after a restart).
 */
#include <stdio.h>
#include <string.h>

#include "acpi/acpi.h"
#include "acpi/acpi_priv.h"
#include "core/printk.h"
#include "ferrite/errors.h"
#include "mm/phys.h"

#define ACPI_MAX_TABLES 64
#define ACPI_PHYS_LIMIT (1ull << 32) /* what the direct map covers at boot */

#define RSDP_V1_LEN 20
#define RSDP_V2_MIN_LEN 36
#define RSDP_MAX_LEN 1024
#define BDA_EBDA_SEGMENT 0x40e      /* real-mode segment of the EBDA */
#define EBDA_SCAN_LEN 1024
#define BIOS_AREA_START 0xe0000
#define BIOS_AREA_END 0x100000

/* The Root System Description Pointer (ACPI 6.x §5.2.5.3). */
struct acpi_rsdp {
	char signature[8];          /* "RSD PTR " */
	uint8_t checksum;           /* of the first 20 bytes */
	char oem_id[6];
	uint8_t revision;           /* 0: ACPI 1.0, 2: ACPI 2.0 and later */
	uint32_t rsdt_phys;
	/* revision >= 2 only: */
	uint32_t length;            /* of the whole RSDP */
	uint64_t xsdt_phys;
	uint8_t ext_checksum;       /* of all `length` bytes */
	uint8_t reserved[3];
} __attribute__((packed));

_Static_assert(sizeof(struct acpi_rsdp) == RSDP_V2_MIN_LEN, "RSDP v2 is 36 bytes");

/* Volatile: rebuilt by acpi_init at every power-on. */
static const struct acpi_header *acpi_tables[ACPI_MAX_TABLES];
static unsigned acpi_table_count;
static char acpi_rejected[ACPI_MAX_TABLES][4]; /* signatures left out */
static unsigned acpi_rejected_count;
static uint64_t acpi_rsdp_used;        /* physical address, 0 until found */

/* acpi_checksum_ok -- the len bytes at p sum to 0 modulo 256 */
bool acpi_checksum_ok(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint8_t sum = 0;

	for (size_t i = 0; i < len; i++)
		sum = (uint8_t)(sum + b[i]);
	return sum == 0;
}

/* acpi_sig_str -- 4 signature bytes as a printable string ('?' for the rest) */
void acpi_sig_str(const void *sig, char out[5])
{
	const uint8_t *s = sig;

	for (int i = 0; i < 4; i++)
		out[i] = s[i] >= 0x20 && s[i] < 0x7f ? (char)s[i] : '?';
	out[4] = '\0';
}

/* acpi_validate_header -- the header is sane and the checksum holds */
int acpi_validate_header(const void *table, uint64_t max_len)
{
	const struct acpi_header *h = table;
	char sig[5];

	if (max_len < ACPI_HEADER_LEN) {
		pr_err("acpi: table: only %llu bytes readable, less than a header\n",
		       (unsigned long long)max_len);
		return -ERR_CORRUPT;
	}
	acpi_sig_str(h->signature, sig);
	if (h->length < ACPI_HEADER_LEN || h->length >= ACPI_TABLE_MAX_LEN) {
		pr_err("acpi: table %s: length %u is not in [36, 16 MiB)\n", sig,
		       h->length);
		return -ERR_CORRUPT;
	}
	if (h->length > max_len) {
		pr_err("acpi: table %s: length %u runs past the %llu readable bytes\n",
		       sig, h->length, (unsigned long long)max_len);
		return -ERR_CORRUPT;
	}
	if (!acpi_checksum_ok(h, h->length)) {
		pr_err("acpi: table %s: checksum over %u bytes fails\n", sig,
		       h->length);
		return -ERR_CORRUPT;
	}
	return 0;
}

/* acpi_table_check -- header valid and signature `sig`; 0 or -ERR_CORRUPT */
int acpi_table_check(const void *table, uint32_t length, const char sig[4])
{
	const struct acpi_header *h = table;
	char want[5], got[5];
	int err = acpi_validate_header(table, length);

	if (err)
		return err;
	if (memcmp(h->signature, sig, 4) != 0) {
		acpi_sig_str(sig, want);
		acpi_sig_str(h->signature, got);
		pr_err("acpi: expected a %s table, found %s\n", want, got);
		return -ERR_CORRUPT;
	}
	return 0;
}

/* acpi_rsdp_validate -- signature, v1 checksum, and the v2 length and checksum */
int acpi_rsdp_validate(const void *rsdp, bool verbose)
{
	const struct acpi_rsdp *r = rsdp;

	if (memcmp(r->signature, "RSD PTR ", 8) != 0) {
		if (verbose)
			pr_err("acpi: RSDP: no \"RSD PTR \" signature\n");
		return -ERR_CORRUPT;
	}
	if (!acpi_checksum_ok(r, RSDP_V1_LEN)) {
		if (verbose)
			pr_err("acpi: RSDP: the checksum of its first 20 bytes fails\n");
		return -ERR_CORRUPT;
	}
	if (r->revision < 2)
		return 0;
	if (r->length < RSDP_V2_MIN_LEN || r->length > RSDP_MAX_LEN) {
		if (verbose)
			pr_err("acpi: RSDP: revision %u with length %u, not in [36, 1024]\n",
			       r->revision, r->length);
		return -ERR_CORRUPT;
	}
	if (!acpi_checksum_ok(r, r->length)) {
		if (verbose)
			pr_err("acpi: RSDP: the extended checksum over %u bytes fails\n",
			       r->length);
		return -ERR_CORRUPT;
	}
	return 0;
}

/* rsdp_scan -- the first valid RSDP on a 16-byte boundary in [start, end), or 0 */
static uint64_t rsdp_scan(uint64_t start, uint64_t end)
{
	for (uint64_t p = start; p + RSDP_V1_LEN <= end; p += 16)
		if (acpi_rsdp_validate(phys_to_virt(p), false) == 0)
			return p;
	return 0;
}

/* rsdp_search -- where the firmware put the RSDP: the EBDA, then the BIOS area */
static uint64_t rsdp_search(void)
{
	const uint8_t *bda = phys_to_virt(BDA_EBDA_SEGMENT);
	uint64_t ebda = (uint64_t)acpi_get16(bda) << 4;
	uint64_t found = 0;

	/* A real EBDA lies in conventional memory, above the BDA. */
	if (ebda >= 0x500 && ebda + EBDA_SCAN_LEN <= BIOS_AREA_START)
		found = rsdp_scan(ebda, ebda + EBDA_SCAN_LEN);
	if (!found)
		found = rsdp_scan(BIOS_AREA_START, BIOS_AREA_END);
	return found;
}

/* table_map -- the validated table at phys, or an error (what names it) */
static int table_map(uint64_t phys, const char *what,
		     const struct acpi_header **out)
{
	int err;

	if (phys == 0) {
		pr_err("acpi: %s: null address\n", what);
		return -ERR_CORRUPT;
	}
	if (phys >= ACPI_PHYS_LIMIT - ACPI_HEADER_LEN) {
		pr_err("acpi: %s at %#llx: outside the first 4 GiB\n", what,
		       (unsigned long long)phys);
		return -ERR_CORRUPT;
	}
	err = acpi_validate_header(phys_to_virt(phys), ACPI_PHYS_LIMIT - phys);
	if (err) {
		pr_err("acpi: %s at %#llx rejected\n", what,
		       (unsigned long long)phys);
		return err;
	}
	*out = phys_to_virt(phys);
	return 0;
}

/* root_map -- the root table at phys with signature sig ("RSDT" or "XSDT"), whole entries only */
static int root_map(uint64_t phys, const char *sig, unsigned entry_size,
		    const struct acpi_header **out)
{
	const struct acpi_header *root;
	int err = table_map(phys, sig, &root);

	if (err)
		return err;
	if (memcmp(root->signature, sig, 4) != 0) {
		pr_err("acpi: the %s at %#llx has another signature\n", sig,
		       (unsigned long long)phys);
		return -ERR_CORRUPT;
	}
	if ((root->length - ACPI_HEADER_LEN) % entry_size != 0) {
		pr_err("acpi: the %s at %#llx has length %u: not whole %u-byte entries\n",
		       sig, (unsigned long long)phys, root->length, entry_size);
		return -ERR_CORRUPT;
	}
	*out = root;
	return 0;
}

/* root_pick -- the XSDT when the RSDP offers one that checks out, else the RSDT */
static int root_pick(const struct acpi_rsdp *rsdp,
		     const struct acpi_header **root, unsigned *entry_size)
{
	if (rsdp->revision >= 2 && rsdp->xsdt_phys != 0) {
		*entry_size = 8;
		if (root_map(rsdp->xsdt_phys, "XSDT", 8, root) == 0)
			return 0;
		if (rsdp->rsdt_phys == 0)
			return -ERR_CORRUPT;
		pr_warn("acpi: falling back to the RSDT at %#x\n",
			rsdp->rsdt_phys);
	}
	*entry_size = 4;
	return root_map(rsdp->rsdt_phys, "RSDT", 4, root);
}

/* remember -- keep a validated table for acpi_find_table */
static void remember(const struct acpi_header *table)
{
	char sig[5];

	if (acpi_table_count == ACPI_MAX_TABLES) {
		acpi_sig_str(table->signature, sig);
		pr_warn("acpi: more than %u tables; ignoring %s\n",
			ACPI_MAX_TABLES, sig);
		return;
	}
	acpi_tables[acpi_table_count++] = table;
}

/* reject_sig -- note the signature of a table left out */
static void reject_sig(const void *sig)
{
	if (acpi_rejected_count < ACPI_MAX_TABLES)
		memcpy(acpi_rejected[acpi_rejected_count++], sig, 4);
}

/* reject -- note the signature of the table at phys, if it can be read */
static void reject(uint64_t phys)
{
	if (phys != 0 && phys <= ACPI_PHYS_LIMIT - 4)
		reject_sig(phys_to_virt(phys));
}

/* root_entry -- the physical address in entry i of the root table */
static uint64_t root_entry(const struct acpi_header *root, unsigned entry_size,
			   unsigned i)
{
	const uint8_t *e = (const uint8_t *)root + ACPI_HEADER_LEN + i * entry_size;

	return entry_size == 8 ? acpi_get64(e) : acpi_get32(e);
}

/* walk_root -- validate and remember every table the root table lists */
static void walk_root(const struct acpi_header *root, unsigned entry_size)
{
	unsigned n = (root->length - ACPI_HEADER_LEN) / entry_size;
	char what[32];

	for (unsigned i = 0; i < n; i++) {
		uint64_t phys = root_entry(root, entry_size, i);
		const struct acpi_header *t;

		snprintf(what, sizeof(what), "%.4s entry %u", root->signature, i);
		if (table_map(phys, what, &t) == 0)
			remember(t);
		else
			reject(phys);
	}
}

/* add_dsdt -- remember the DSDT, which only the FADT points to */
static void add_dsdt(void)
{
	const struct acpi_header *fadt = acpi_find_table("FACP", 0);
	const struct acpi_header *dsdt;
	uint64_t phys;
	char sig[5];

	if (!fadt)
		return;
	phys = fadt_dsdt_phys(fadt, fadt->length);
	if (table_map(phys, "the FADT's DSDT", &dsdt) != 0) {
		reject_sig("DSDT");
	} else if (memcmp(dsdt->signature, "DSDT", 4) != 0) {
		acpi_sig_str(dsdt->signature, sig);
		pr_err("acpi: the FADT's DSDT at %#llx has signature %s\n",
		       (unsigned long long)phys, sig);
		reject_sig("DSDT");
	} else {
		remember(dsdt);
	}
}

/* oem_str -- the 6-byte OEM id, printable and without trailing spaces */
static void oem_str(const char oem[6], char out[7])
{
	int n = 6;

	for (int i = 0; i < 6; i++)
		out[i] = oem[i] >= 0x20 && oem[i] < 0x7f ? oem[i] : '?';
	while (n > 0 && (out[n - 1] == ' ' || out[n - 1] == '?'))
		n--;
	out[n] = '\0';
}

/* print_summary -- one line: the root table and the signatures found */
static void print_summary(const struct acpi_header *root)
{
	char list[ACPI_MAX_TABLES * 5 + 1] = "";
	char oem[7];
	size_t used = 0;

	for (unsigned i = 0; i < acpi_table_count; i++) {
		char sig[5];

		acpi_sig_str(acpi_tables[i]->signature, sig);
		if (used < sizeof(list))
			used += (size_t)snprintf(list + used, sizeof(list) - used,
						 " %s", sig);
	}
	oem_str(root->oem_id, oem);
	pr_info("acpi: %.4s rev %u at %#llx (%s):%s\n", root->signature,
		root->revision, (unsigned long long)virt_to_phys(root), oem, list);
}

/* rsdp_locate -- the loader's RSDP if it gave one, else a search */
static int rsdp_locate(uint64_t rsdp_phys, const struct acpi_rsdp **out)
{
	if (rsdp_phys == 0) {
		rsdp_phys = rsdp_search();
		if (rsdp_phys == 0) {
			pr_err("acpi: the boot loader gave no RSDP and there is none in the EBDA or 0xe0000-0xfffff\n");
			return -ERR_NOENT;
		}
	} else if (rsdp_phys > ACPI_PHYS_LIMIT - RSDP_MAX_LEN ||
		   acpi_rsdp_validate(phys_to_virt(rsdp_phys), true) != 0) {
		pr_err("acpi: the RSDP the boot loader gave, at %#llx, is not valid\n",
		       (unsigned long long)rsdp_phys);
		return -ERR_CORRUPT;
	}
	*out = phys_to_virt(rsdp_phys);
	return 0;
}

/* acpi_init -- find the RSDP and the root table, validate and remember the tables */
int acpi_init(uint64_t rsdp_phys)
{
	const struct acpi_rsdp *rsdp;
	const struct acpi_header *root;
	unsigned entry_size;
	int err;

	acpi_table_count = 0;
	acpi_rejected_count = 0;
	acpi_rsdp_used = 0;
	err = rsdp_locate(rsdp_phys, &rsdp);
	if (err)
		return err;
	err = root_pick(rsdp, &root, &entry_size);
	if (err) {
		pr_err("acpi: RSDP rev %u at %#llx leads to no valid root table\n",
		       rsdp->revision, (unsigned long long)virt_to_phys(rsdp));
		return err;
	}
	acpi_rsdp_used = virt_to_phys(rsdp);
	walk_root(root, entry_size);
	add_dsdt();
	print_summary(root);
	return 0;
}

/* acpi_rsdp_phys -- the RSDP the last acpi_init used, or 0 */
uint64_t acpi_rsdp_phys(void)
{
	return acpi_rsdp_used;
}

/* acpi_find_table -- the index-th validated table with this signature, or NULL */
const void *acpi_find_table(const char signature[4], unsigned index)
{
	for (unsigned i = 0; i < acpi_table_count; i++) {
		if (memcmp(acpi_tables[i]->signature, signature, 4) != 0)
			continue;
		if (index-- == 0)
			return acpi_tables[i];
	}
	return NULL;
}

/* acpi_table_rejected -- acpi_init saw a table with this signature and left it out */
bool acpi_table_rejected(const char sig[4])
{
	for (unsigned i = 0; i < acpi_rejected_count; i++)
		if (memcmp(acpi_rejected[i], sig, 4) == 0)
			return true;
	return false;
}

/* acpi_missing -- report a table acpi_init did not keep: -ERR_NOENT or -ERR_CORRUPT */
int acpi_missing(const char sig[4], const char *purpose)
{
	char s[5];

	acpi_sig_str(sig, s);
	if (acpi_table_rejected(sig)) {
		pr_err("acpi: the %s table, which says %s, was rejected at boot (see above)\n",
		       s, purpose);
		return -ERR_CORRUPT;
	}
	pr_err("acpi: no %s table, which says %s\n", s, purpose);
	return -ERR_NOENT;
}
