/*
 * acpi_selftest.c -- self-tests of the ACPI table code (`selftest=acpi`).
 *
 * Each test builds a table in a static buffer, byte by byte from the
 * specification's offsets (never from the parser's own constants), and checks
 * what the parser makes of it: the good case, then one corruption at a time.
 * The failing cases print their error line; that is expected. The last test
 * looks at the machine's own tables, as acpi_init found them.
 */
#include <string.h>

#include "acpi/acpi.h"
#include "acpi/acpi_priv.h"
#include "core/selftest.h"
#include "ferrite/errors.h"
#include "mm/phys.h"

#define BUF_LEN 512

static uint8_t buf[BUF_LEN] __attribute__((aligned(8)));

/* --- building tables ------------------------------------------------------ */

/* put16 -- store v little-endian at p */
static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

/* put32 -- store v little-endian at p */
static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
}

/* put64 -- store v little-endian at p */
static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

/* hex -- the value of one hex digit */
static uint8_t hex(char c)
{
	return (uint8_t)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
}

/* guid_bytes -- a GUID's text as it lies in memory: fields 1-3 little-endian */
static void guid_bytes(const char *text, uint8_t out[16])
{
	static const uint8_t order[16] = { 3, 2, 1, 0, 5, 4, 7, 6,
					   8, 9, 10, 11, 12, 13, 14, 15 };
	uint8_t plain[16];
	unsigned n = 0;

	for (const char *c = text; *c && n < 16; c++) {
		if (*c == '-')
			continue;
		plain[n++] = (uint8_t)(hex(c[0]) << 4 | hex(c[1]));
		c++;
	}
	for (unsigned i = 0; i < 16; i++)
		out[i] = plain[order[i]];
}

/* table_start -- a zeroed table with a header: signature, length, revision */
static void table_start(const char *sig, uint32_t len, uint8_t revision)
{
	memset(buf, 0, sizeof(buf));
	memcpy(buf, sig, 4);
	put32(buf + 4, len);
	buf[8] = revision;
	memcpy(buf + 10, "FERRIT", 6);
	memcpy(buf + 16, "SELFTEST", 8);
}

/* sum_bytes -- the sum modulo 256 of the first n bytes of buf */
static uint8_t sum_bytes(uint32_t n)
{
	uint8_t sum = 0;

	for (uint32_t i = 0; i < n; i++)
		sum = (uint8_t)(sum + buf[i]);
	return sum;
}

/* table_seal -- set the length and make the checksum right */
static uint32_t table_seal(uint32_t len)
{
	put32(buf + 4, len);
	buf[9] = 0;
	buf[9] = (uint8_t)-sum_bytes(len);
	return len;
}

#define PMEM_GUID "66F0D379-B4F3-4074-AC43-0D3318B78CDB"
#define VOLATILE_GUID "7305944F-FDDA-44E3-B16C-3F22D252E5D0"

/* nfit_spa -- an SPA range structure at off; the offset after it */
static uint32_t nfit_spa(uint32_t off, uint16_t index, const char *guid,
			 uint64_t base, uint64_t size)
{
	put16(buf + off, 0);
	put16(buf + off + 2, 56);
	put16(buf + off + 4, index);
	guid_bytes(guid, buf + off + 16);
	put64(buf + off + 32, base);
	put64(buf + off + 40, size);
	return off + 56;
}

/* nfit_caps -- a platform capabilities structure at off; the offset after it */
static uint32_t nfit_caps(uint32_t off, uint8_t highest, uint32_t caps)
{
	put16(buf + off, 7);
	put16(buf + off + 2, 16);
	buf[off + 4] = highest;
	put32(buf + off + 8, caps);
	return off + 16;
}

/* nfit_good -- QEMU's NFIT shape: 64 MiB of pmem at 4 GiB, eADR; its length */
static uint32_t nfit_good(void)
{
	uint32_t off;

	table_start("NFIT", 0, 1);
	off = nfit_spa(40, 2, PMEM_GUID, 0x100000000ull, 64ull << 20);
	off = nfit_caps(off, 1, 0x3);
	return table_seal(off);
}

#define MADT_NMI_OFF (44 + 8 + 12 + 10 + 10) /* the last entry of madt_good */

/* madt_good -- QEMU's MADT shape: one CPU, one I/O APIC, IRQ0 -> GSI2, IRQ9 level */
static uint32_t madt_good(void)
{
	static const uint8_t entries[] = {
		0, 8, 0, 0, 1, 0, 0, 0,                   /* LAPIC 0, enabled */
		1, 12, 0, 0, 0, 0, 0xc0, 0xfe, 0, 0, 0, 0, /* I/O APIC 0xfec00000, GSI 0 */
		2, 10, 0, 0, 2, 0, 0, 0, 0, 0,            /* ISA IRQ0 -> GSI2 */
		2, 10, 0, 9, 9, 0, 0, 0, 0x0d, 0,         /* ISA IRQ9: level, active high */
		4, 6, 0xff, 0, 0, 1,                      /* LAPIC NMI: skipped */
	};

	table_start("APIC", 0, 1);
	put32(buf + 36, 0xfee00000);
	put32(buf + 40, 1);
	memcpy(buf + 44, entries, sizeof(entries));
	return table_seal(44 + sizeof(entries));
}

/* fadt_start -- a FADT of len bytes with PM1a_CNT, SMI_CMD and DSDT set */
static void fadt_start(uint32_t len)
{
	table_start("FACP", len, len > 116 ? 3 : 1);
	put32(buf + 40, 0x7fe0040);       /* DSDT */
	put32(buf + 48, 0xb2);            /* SMI_CMD */
	buf[52] = 0xf1;                   /* ACPI_ENABLE */
	put32(buf + 64, 0x604);           /* PM1a_CNT_BLK */
	buf[89] = 2;                      /* PM1_CNT_LEN */
}

/* fadt_x_pm1a -- set X_PM1a_CNT_BLK to a GAS in address space `space` */
static void fadt_x_pm1a(uint8_t space, uint64_t address)
{
	buf[172] = space;
	buf[173] = 16;
	put64(buf + 176, address);
}

/* --- the checksum, the header and the RSDP --------------------------------- */

SELFTEST(acpi_checksum)
{
	static const uint8_t ok[] = { 0x10, 0x20, 0xd0 };
	static const uint8_t bad[] = { 0x10, 0x20, 0xd1 };

	ST_CHECK(acpi_checksum_ok(ok, sizeof(ok)));
	ST_CHECK(!acpi_checksum_ok(bad, sizeof(bad)));
	ST_CHECK(acpi_checksum_ok(bad, 0));
}

SELFTEST(acpi_header_checks)
{
	uint32_t len;

	table_start("TEST", 0, 1);
	len = table_seal(64);
	ST_CHECK_EQ(acpi_validate_header(buf, BUF_LEN), 0);
	ST_CHECK_EQ(acpi_validate_header(buf, len), 0);
	ST_CHECK_EQ(acpi_validate_header(buf, len - 1), -ERR_CORRUPT); /* runs past */
	ST_CHECK_EQ(acpi_validate_header(buf, 20), -ERR_CORRUPT);      /* no header */
	table_seal(35);
	ST_CHECK_EQ(acpi_validate_header(buf, BUF_LEN), -ERR_CORRUPT); /* < 36 */
	put32(buf + 4, 16u << 20);
	ST_CHECK_EQ(acpi_validate_header(buf, 1ull << 32), -ERR_CORRUPT); /* >= 16 MiB */
	table_seal(64);
	buf[50] ^= 0x01;
	ST_CHECK_EQ(acpi_validate_header(buf, BUF_LEN), -ERR_CORRUPT); /* checksum */
}

/* rsdp_build -- an RSDP of revision rev in buf, with both checksums right */
static void rsdp_build(uint8_t rev, uint32_t rsdt, uint64_t xsdt)
{
	memset(buf, 0, 36);
	memcpy(buf, "RSD PTR ", 8);
	memcpy(buf + 9, "FERRIT", 6);
	buf[15] = rev;
	put32(buf + 16, rsdt);
	put32(buf + 20, 36);
	put64(buf + 24, xsdt);
	buf[8] = (uint8_t)-sum_bytes(20);
	buf[32] = (uint8_t)-sum_bytes(36);
}

SELFTEST(acpi_rsdp_checks)
{
	rsdp_build(0, 0x7fe1000, 0);
	ST_CHECK_EQ(acpi_rsdp_validate(buf, true), 0);
	buf[16] ^= 0x40;                 /* the RSDT address, under the checksum */
	ST_CHECK_EQ(acpi_rsdp_validate(buf, true), -ERR_CORRUPT);

	rsdp_build(2, 0x7fe1000, 0x7fe2000);
	ST_CHECK_EQ(acpi_rsdp_validate(buf, true), 0);
	buf[30] ^= 0x01;                 /* the XSDT address: extended checksum only */
	ST_CHECK_EQ(acpi_rsdp_validate(buf, true), -ERR_CORRUPT);
	rsdp_build(2, 0x7fe1000, 0x7fe2000);
	buf[0] = 'r';
	ST_CHECK_EQ(acpi_rsdp_validate(buf, false), -ERR_CORRUPT);
	rsdp_build(2, 0x7fe1000, 0x7fe2000);
	put32(buf + 20, 20);             /* v2 length below 36 */
	ST_CHECK_EQ(acpi_rsdp_validate(buf, true), -ERR_CORRUPT);
}

/* --- NFIT ------------------------------------------------------------------ */

SELFTEST(acpi_nfit_good)
{
	struct nvm_region r;
	uint32_t len = nfit_good();

	ST_CHECK_EQ(nfit_parse(buf, len, &r), 0);
	ST_CHECK_EQ(r.base, 0x100000000ull);
	ST_CHECK_EQ(r.size, 64ull << 20);
	ST_CHECK_EQ(r.spa_index, 2);
	ST_CHECK(r.caps_present);
	ST_CHECK(r.cpu_cache_persistent);
	ST_CHECK_EQ(r.caps, 0x3);
	ST_CHECK_EQ(nfit_parse(buf, BUF_LEN, &r), 0); /* a larger buffer is fine */
}

SELFTEST(acpi_nfit_caps)
{
	struct nvm_region r;
	uint32_t off;

	table_start("NFIT", 0, 1);
	off = nfit_spa(40, 1, PMEM_GUID, 0x140000000ull, 1ull << 30);
	ST_CHECK_EQ(nfit_parse(buf, table_seal(off), &r), 0);
	ST_CHECK(!r.caps_present);       /* QEMU without nvdimm-persistence */
	ST_CHECK(!r.cpu_cache_persistent);

	off = nfit_caps(off, 0, 0x2);    /* bit 1 is beyond the highest valid bit */
	ST_CHECK_EQ(nfit_parse(buf, table_seal(off), &r), 0);
	ST_CHECK(r.caps_present);
	ST_CHECK(!r.cpu_cache_persistent);
	ST_CHECK_EQ(r.caps, 0);
}

SELFTEST(acpi_nfit_bad_checksum)
{
	struct nvm_region r;
	uint32_t len = nfit_good();

	buf[72] ^= 0x80;                 /* the SPA base */
	ST_CHECK_EQ(nfit_parse(buf, len, &r), -ERR_CORRUPT);
}

SELFTEST(acpi_nfit_truncated)
{
	struct nvm_region r;
	uint32_t len = nfit_good();

	ST_CHECK_EQ(nfit_parse(buf, len - 1, &r), -ERR_CORRUPT);
	table_start("NFIT", 0, 1);
	ST_CHECK_EQ(nfit_parse(buf, table_seal(38), &r), -ERR_CORRUPT);
	/* Two stray bytes after the last structure: no room for a header. */
	table_start("NFIT", 0, 1);
	len = nfit_spa(40, 1, PMEM_GUID, 0x100000000ull, 1ull << 26);
	ST_CHECK_EQ(nfit_parse(buf, table_seal(len + 2), &r), -ERR_CORRUPT);
}

SELFTEST(acpi_nfit_struct_len_zero)
{
	struct nvm_region r;
	uint32_t len = nfit_good();

	put16(buf + 40 + 56 + 2, 0);     /* the capabilities structure's length */
	ST_CHECK_EQ(nfit_parse(buf, table_seal(len), &r), -ERR_CORRUPT);
	put16(buf + 40 + 56 + 2, 3);     /* shorter than its own header */
	ST_CHECK_EQ(nfit_parse(buf, table_seal(len), &r), -ERR_CORRUPT);
}

SELFTEST(acpi_nfit_struct_overrun)
{
	struct nvm_region r;
	uint32_t len = nfit_good();

	put16(buf + 40 + 56 + 2, 17);    /* one byte past the table's end */
	ST_CHECK_EQ(nfit_parse(buf, table_seal(len), &r), -ERR_CORRUPT);
	put16(buf + 40 + 2, 0xffff);
	ST_CHECK_EQ(nfit_parse(buf, table_seal(len), &r), -ERR_CORRUPT);
	nfit_good();
	put16(buf + 40 + 2, 48);         /* SPA range shorter than 56 bytes */
	put16(buf + 40 + 48, 0x2a);      /* a type-42 filler so lengths add up */
	put16(buf + 40 + 50, 8);
	ST_CHECK_EQ(nfit_parse(buf, table_seal(len), &r), -ERR_CORRUPT);
}

SELFTEST(acpi_nfit_other_guid)
{
	struct nvm_region r;
	uint32_t off;

	table_start("NFIT", 0, 1);
	off = nfit_spa(40, 1, VOLATILE_GUID, 0x100000000ull, 1ull << 26);
	off = nfit_caps(off, 1, 0x3);
	ST_CHECK_EQ(nfit_parse(buf, table_seal(off), &r), -ERR_NOENT);
	table_start("NFIT", 0, 1);
	ST_CHECK_EQ(nfit_parse(buf, table_seal(40), &r), -ERR_NOENT);
}

SELFTEST(acpi_nfit_bad_ranges)
{
	struct nvm_region r;
	uint32_t off;

	table_start("NFIT", 0, 1);
	off = nfit_spa(40, 1, PMEM_GUID, 0x100000000ull, 0);
	ST_CHECK_EQ(nfit_parse(buf, table_seal(off), &r), -ERR_CORRUPT);
	table_start("NFIT", 0, 1);
	off = nfit_spa(40, 1, PMEM_GUID, 0xfffffffffff00000ull, 1ull << 20);
	ST_CHECK_EQ(nfit_parse(buf, table_seal(off), &r), -ERR_CORRUPT);
	table_start("NFIT", 0, 1);        /* a bad range that is not even pmem */
	off = nfit_spa(40, 1, VOLATILE_GUID, 1ull << 63, 1ull << 63);
	off = nfit_spa(off, 2, PMEM_GUID, 0x100000000ull, 1ull << 26);
	ST_CHECK_EQ(nfit_parse(buf, table_seal(off), &r), -ERR_CORRUPT);
}

SELFTEST(acpi_nfit_first_pmem_wins)
{
	struct nvm_region r;
	uint32_t off;

	table_start("NFIT", 0, 1);
	off = nfit_spa(40, 1, VOLATILE_GUID, 0x80000000ull, 1ull << 20);
	off = nfit_spa(off, 2, PMEM_GUID, 0x100000000ull, 1ull << 26);
	off = nfit_spa(off, 3, PMEM_GUID, 0x200000000ull, 1ull << 27);
	ST_CHECK_EQ(nfit_parse(buf, table_seal(off), &r), 0);
	ST_CHECK_EQ(r.spa_index, 2);
	ST_CHECK_EQ(r.base, 0x100000000ull);
	ST_CHECK_EQ(r.size, 1ull << 26);
	memcpy(buf, "NFIX", 4);
	ST_CHECK_EQ(nfit_parse(buf, table_seal(off), &r), -ERR_CORRUPT);
}

/* --- MADT ------------------------------------------------------------------ */

SELFTEST(acpi_madt_good)
{
	struct madt_info m;

	ST_CHECK_EQ(madt_parse(buf, madt_good(), &m), 0);
	ST_CHECK_EQ(m.lapic_phys, 0xfee00000);
	ST_CHECK_EQ(m.ioapic_phys, 0xfec00000);
	ST_CHECK_EQ(m.ioapic_gsi_base, 0);
	ST_CHECK_EQ(m.isa_irq[0].gsi, 2);
	ST_CHECK_EQ(m.isa_irq[0].flags, 0);
	ST_CHECK_EQ(m.isa_irq[1].gsi, 1);
	ST_CHECK_EQ(m.isa_irq[9].gsi, 9);
	ST_CHECK_EQ(m.isa_irq[9].flags & MADT_INTI_TRIGGER_MASK, MADT_INTI_LEVEL);
	ST_CHECK_EQ(m.isa_irq[9].flags & MADT_INTI_POLARITY_MASK,
		    MADT_INTI_ACTIVE_HIGH);
	ST_CHECK_EQ(m.isa_irq[15].gsi, 15);
	ST_CHECK_EQ(m.cpu_count, 1);
	ST_CHECK(m.pcat_compat);
}

SELFTEST(acpi_madt_lapic_override)
{
	struct madt_info m;
	uint32_t len = madt_good();

	buf[len] = 5;                    /* local APIC address override */
	buf[len + 1] = 12;
	put64(buf + len + 4, 0x1fee00000ull);
	ST_CHECK_EQ(madt_parse(buf, table_seal(len + 12), &m), 0);
	ST_CHECK_EQ(m.lapic_phys, 0x1fee00000ull);
}

SELFTEST(acpi_madt_bad_entry)
{
	struct madt_info m;
	uint32_t len = madt_good();

	buf[44 + 1] = 0;                 /* LAPIC entry of length 0 */
	ST_CHECK_EQ(madt_parse(buf, table_seal(len), &m), -ERR_CORRUPT);
	madt_good();
	buf[MADT_NMI_OFF + 1] = 7;       /* the last entry runs one byte past */
	ST_CHECK_EQ(madt_parse(buf, table_seal(len), &m), -ERR_CORRUPT);
	madt_good();
	buf[44 + 8 + 1] = 10;            /* an I/O APIC entry of 10 bytes, not 12 */
	ST_CHECK_EQ(madt_parse(buf, table_seal(len), &m), -ERR_CORRUPT);
	madt_good();
	ST_CHECK_EQ(madt_parse(buf, table_seal(len + 1), &m), -ERR_CORRUPT);
}

SELFTEST(acpi_madt_no_ioapic)
{
	struct madt_info m;
	uint32_t len = madt_good();

	buf[44 + 8] = 0x7f;              /* the I/O APIC becomes an unknown type */
	ST_CHECK_EQ(madt_parse(buf, table_seal(len), &m), -ERR_NOENT);
	ST_CHECK_EQ(m.isa_irq[0].gsi, 2);
}

/* --- FADT ------------------------------------------------------------------ */

SELFTEST(acpi_fadt_ports)
{
	struct fadt_info f;

	fadt_start(116);                 /* ACPI 1.0 FADT, as QEMU's pc has */
	ST_CHECK_EQ(fadt_parse(buf, table_seal(116), &f), 0);
	ST_CHECK_EQ(f.pm1a_cnt, 0x604);
	ST_CHECK_EQ(f.pm1b_cnt, 0);
	ST_CHECK_EQ(f.smi_cmd, 0xb2);
	ST_CHECK_EQ(f.acpi_enable, 0xf1);
	ST_CHECK_EQ(f.dsdt_phys, 0x7fe0040);

	fadt_start(244);                 /* X_ fields win when non-zero */
	fadt_x_pm1a(1, 0xb004);
	put64(buf + 140, 0x17fe0040ull);
	ST_CHECK_EQ(fadt_parse(buf, table_seal(244), &f), 0);
	ST_CHECK_EQ(f.pm1a_cnt, 0xb004);
	ST_CHECK_EQ(f.dsdt_phys, 0x17fe0040ull);

	fadt_x_pm1a(0, 0xfed00000);      /* memory space: back to the 32-bit field */
	ST_CHECK_EQ(fadt_parse(buf, table_seal(244), &f), 0);
	ST_CHECK_EQ(f.pm1a_cnt, 0x604);
}

SELFTEST(acpi_fadt_refusals)
{
	struct fadt_info f;

	fadt_start(244);
	fadt_x_pm1a(0, 0xfed00000);
	put32(buf + 64, 0);
	ST_CHECK_EQ(fadt_parse(buf, table_seal(244), &f), -ERR_NOTSUP);
	fadt_start(244);
	put32(buf + 112, 1u << 20);      /* hardware-reduced ACPI */
	ST_CHECK_EQ(fadt_parse(buf, table_seal(244), &f), -ERR_NOTSUP);
	fadt_start(116);
	put32(buf + 64, 0x10000);        /* not a port */
	ST_CHECK_EQ(fadt_parse(buf, table_seal(116), &f), -ERR_CORRUPT);
	fadt_start(100);
	ST_CHECK_EQ(fadt_parse(buf, table_seal(100), &f), -ERR_CORRUPT);
}

/* --- \_S5_ ----------------------------------------------------------------- */

SELFTEST(acpi_s5_qemu)
{
	/* What QEMU's DSDT holds: Name(_S5_, Package(4){0, 0, 0, 0}) */
	static const uint8_t aml[] = { 0x10, 0x08, 0x08, '_', 'S', '5', '_',
				       0x12, 0x06, 0x04, 0x00, 0x00, 0x00, 0x00,
				       0x14, 0x0a };
	uint8_t a = 9, b = 9;

	ST_CHECK_EQ(acpi_s5_decode(aml, sizeof(aml), &a, &b), 0);
	ST_CHECK_EQ(a, 0);
	ST_CHECK_EQ(b, 0);
}

SELFTEST(acpi_s5_root_prefix)
{
	/* Name(\_S5_, Package(2){0x05, One}), after a decoy "_S5_" string */
	static const uint8_t aml[] = { 0x0d, '_', 'S', '5', '_', 0x00,
				       0x08, '\\', '_', 'S', '5', '_', 0x12,
				       0x05, 0x02, 0x0a, 0x05, 0x01 };
	uint8_t a = 9, b = 9;

	ST_CHECK_EQ(acpi_s5_decode(aml, sizeof(aml), &a, &b), 0);
	ST_CHECK_EQ(a, 5);
	ST_CHECK_EQ(b, 1);
}

SELFTEST(acpi_s5_encodings)
{
	/* A 2-byte PkgLength (11), a WordPrefix and a DWordPrefix element. */
	static const uint8_t two_byte[] = { 0x08, '_', 'S', '5', '_', 0x12,
					    0x4b, 0x00, 0x02, 0x0b, 0x07, 0x00,
					    0x0c, 0x03, 0x00, 0x00, 0x00 };
	/* One element holding both: SLP_TYPa 5, SLP_TYPb 7. */
	static const uint8_t one[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x05,
				       0x01, 0x0b, 0x05, 0x07 };
	uint8_t a = 9, b = 9;

	ST_CHECK_EQ(acpi_s5_decode(two_byte, sizeof(two_byte), &a, &b), 0);
	ST_CHECK_EQ(a, 7);
	ST_CHECK_EQ(b, 3);
	ST_CHECK_EQ(acpi_s5_decode(one, sizeof(one), &a, &b), 0);
	ST_CHECK_EQ(a, 5);
	ST_CHECK_EQ(b, 7);
}

SELFTEST(acpi_s5_truncated)
{
	static const uint8_t aml[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x06,
				       0x04, 0x0a, 0x05, 0x0a, 0x05 };
	uint8_t a, b;

	/* Cut before the PackageOp: no \_S5_ package at all. */
	for (uint32_t len = 0; len < 6; len++)
		ST_CHECK_EQ(acpi_s5_decode(aml, len, &a, &b), -ERR_NOENT);
	/* Cut anywhere inside the package: malformed, never read past. */
	for (uint32_t len = 6; len < sizeof(aml); len++)
		ST_CHECK_EQ(acpi_s5_decode(aml, len, &a, &b), -ERR_CORRUPT);
	ST_CHECK_EQ(acpi_s5_decode(aml, sizeof(aml), &a, &b), 0);
}

SELFTEST(acpi_s5_refusals)
{
	static const uint8_t too_big[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x05,
					   0x02, 0x0a, 0x08, 0x00 };
	static const uint8_t not_const[] = { 0x08, '_', 'S', '5', '_', 0x12,
					     0x04, 0x02, 0x60, 0x00 }; /* Local0 */
	static const uint8_t reserved[] = { 0x08, '_', 'S', '5', '_', 0x12,
					    0x70, 0x00, 0x02, 0x00, 0x00 };
	static const uint8_t empty[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x02,
					 0x00 };
	uint8_t a, b;

	ST_CHECK_EQ(acpi_s5_decode(too_big, sizeof(too_big), &a, &b), -ERR_CORRUPT);
	ST_CHECK_EQ(acpi_s5_decode(not_const, sizeof(not_const), &a, &b), -ERR_NOTSUP);
	ST_CHECK_EQ(acpi_s5_decode(reserved, sizeof(reserved), &a, &b), -ERR_CORRUPT);
	ST_CHECK_EQ(acpi_s5_decode(empty, sizeof(empty), &a, &b), -ERR_CORRUPT);
}

/* --- acpi_init over a made-up firmware ------------------------------------ */

/* Where world_build puts each piece; the kernel reaches them by physical address. */
#define W_RSDP 0
#define W_XSDT 64
#define W_RSDT 160
#define W_FACP 224
#define W_DSDT 352
#define W_APIC 416
#define W_NFIT 512
#define WORLD_LEN 640

static uint8_t world[WORLD_LEN] __attribute__((aligned(16)));

/* world_put -- copy len bytes of buf to world at off; their physical address */
static uint64_t world_put(uint32_t off, uint32_t len)
{
	memcpy(world + off, buf, len);
	return virt_to_phys(world + off);
}

/* world_phys -- the physical address of world at off */
static uint64_t world_phys(uint32_t off)
{
	return virt_to_phys(world + off);
}

/* world_build -- RSDP v2 -> XSDT {FACP, APIC, NFIT with a bad checksum}, RSDT {FACP, APIC} */
static uint64_t world_build(void)
{
	/* Name(_S5_, Package(4){5, 0, 0, 0}) */
	static const uint8_t s5[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x07,
				      0x04, 0x0a, 0x05, 0x00, 0x00, 0x00 };

	memset(world, 0, sizeof(world));
	table_start("DSDT", 0, 2);
	memcpy(buf + 36, s5, sizeof(s5));
	world_put(W_DSDT, table_seal(36 + sizeof(s5)));
	fadt_start(116);
	put32(buf + 40, (uint32_t)world_phys(W_DSDT));
	world_put(W_FACP, table_seal(116));
	world_put(W_APIC, madt_good());
	world_put(W_NFIT, nfit_good());
	world[W_NFIT + 72] ^= 1;
	table_start("XSDT", 0, 1);
	put64(buf + 36, world_phys(W_FACP));
	put64(buf + 44, world_phys(W_APIC));
	put64(buf + 52, world_phys(W_NFIT));
	world_put(W_XSDT, table_seal(60));
	table_start("RSDT", 0, 1);
	put32(buf + 36, (uint32_t)world_phys(W_FACP));
	put32(buf + 40, (uint32_t)world_phys(W_APIC));
	world_put(W_RSDT, table_seal(44));
	rsdp_build(2, (uint32_t)world_phys(W_RSDT), world_phys(W_XSDT));
	return world_put(W_RSDP, 36);
}

/* found_at -- acpi_find_table(sig, 0) is the table at world + off */
static bool found_at(const char *sig, uint32_t off)
{
	const void *t = acpi_find_table(sig, 0);

	return t && virt_to_phys(t) == world_phys(off);
}

SELFTEST(acpi_init_walk)
{
	uint64_t real = acpi_rsdp_phys();  /* restored at the end */
	uint64_t rsdp = world_build();
	struct nvm_region r;
	struct madt_info m;

	ST_CHECK_EQ(acpi_init(rsdp), 0);   /* through the XSDT */
	ST_CHECK(found_at("FACP", W_FACP));
	ST_CHECK(found_at("APIC", W_APIC));
	ST_CHECK(found_at("DSDT", W_DSDT));
	ST_CHECK(acpi_find_table("NFIT", 0) == NULL);
	ST_CHECK_EQ(acpi_nfit_find_nvm(&r), -ERR_CORRUPT); /* rejected, not absent */
	ST_CHECK_EQ(acpi_madt_parse(&m), 0);
	ST_CHECK_EQ(acpi_rsdp_phys(), rsdp);

	world[W_XSDT + 40] ^= 1;           /* a bad XSDT: the RSDT takes over */
	ST_CHECK_EQ(acpi_init(rsdp), 0);
	ST_CHECK(found_at("APIC", W_APIC));
	ST_CHECK(found_at("DSDT", W_DSDT));
	ST_CHECK_EQ(acpi_nfit_find_nvm(&r), -ERR_NOENT); /* the RSDT lists none */

	world[W_RSDP + 16] ^= 1;           /* a bad RSDP: nothing to believe */
	ST_CHECK_EQ(acpi_init(rsdp), -ERR_CORRUPT);
	ST_CHECK(acpi_find_table("FACP", 0) == NULL);

	if (real)
		ST_CHECK_EQ(acpi_init(real), 0);
}

/* --- this machine ---------------------------------------------------------- */

SELFTEST(acpi_this_machine)
{
	struct madt_info m;
	struct nvm_region r;
	const void *nfit = acpi_find_table("NFIT", 0);

	ST_CHECK(acpi_find_table("FACP", 0) != NULL);
	ST_CHECK(acpi_find_table("DSDT", 0) != NULL);
	ST_CHECK(acpi_find_table("FACP", 1) == NULL);
	ST_CHECK_EQ(acpi_madt_parse(&m), 0);
	ST_CHECK(m.cpu_count >= 1);
	ST_CHECK_EQ(m.isa_irq[0].gsi, 2); /* QEMU routes the PIT to GSI 2 */
	if (nfit) {
		ST_CHECK_EQ(acpi_nfit_find_nvm(&r), 0);
		ST_CHECK(r.size > 0);
	} else {
		ST_CHECK_EQ(acpi_nfit_find_nvm(&r), -ERR_NOENT);
	}
}
