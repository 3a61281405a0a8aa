/*
 * sleep.c -- powering off through ACPI sleep state S5.
 *
 * Entering S5 means writing the S5 sleep type (SLP_TYP) with the sleep
 * enable bit (SLP_EN) into the PM1 control register(s). The FADT says where
 * those registers are; the sleep type is the first elements of the
 * `\_S5_` package in the DSDT, which is AML. Ferrite has no AML interpreter:
 * it finds the byte pattern NameOp "_S5_" PackageOp and decodes the package
 * only if its elements are integer constants (what QEMU, SeaBIOS, qboot and
 * the firmware of most real machines emit). Anything else is refused with a
 * message, never guessed.
 *
 * All parsing happens at boot, in acpi_poweroff_prepare(); acpi_poweroff()
 * only does port I/O, so powering off works whatever state the kernel is in.
 */
#include <string.h>

#include "acpi/acpi.h"
#include "acpi/acpi_priv.h"
#include "arch/arch.h"
#include "core/printk.h"
#include "ferrite/errors.h"

/* FADT fields (ACPI 6.x §5.2.9, Table 5.9), by offset. */
#define FADT_DSDT 40
#define FADT_SMI_CMD 48
#define FADT_ACPI_ENABLE 52
#define FADT_PM1A_CNT 64
#define FADT_PM1B_CNT 68
#define FADT_PM1_CNT_LEN 89
#define FADT_FLAGS 112
#define FADT_V1_LEN 116             /* the ACPI 1.0 FADT ends here */
#define FADT_X_DSDT 140
#define FADT_X_PM1A_CNT 172
#define FADT_X_PM1B_CNT 184
#define FADT_HW_REDUCED_ACPI (1u << 20)

/* A Generic Address Structure (§5.2.3.2): space id, widths, 64-bit address. */
#define GAS_LEN 12
#define GAS_SPACE 0
#define GAS_ADDRESS 4
#define GAS_SPACE_IO 1

/* PM1 control register bits (§4.8.3.2.1). */
#define PM1_SCI_EN 0x0001
#define PM1_GBL_RLS 0x0004          /* write-only: 1 would signal the BIOS */
#define PM1_SLP_TYP_SHIFT 10
#define PM1_SLP_TYP_MASK (0x7 << PM1_SLP_TYP_SHIFT)
#define PM1_SLP_EN 0x2000
#define SLP_TYP_MAX 7

/* AML encodings (§20.2) used by `Name(_S5_, Package(){...})`. */
#define AML_NAME_OP 0x08
#define AML_ROOT_CHAR '\\'
#define AML_PACKAGE_OP 0x12
#define AML_ZERO_OP 0x00
#define AML_ONE_OP 0x01
#define AML_BYTE_PREFIX 0x0a
#define AML_WORD_PREFIX 0x0b
#define AML_DWORD_PREFIX 0x0c
#define AML_QWORD_PREFIX 0x0e
#define AML_ONES_OP 0xff

/* Bounded waits: port reads, each a VM exit under QEMU (~1 us or more). */
#define ACPI_ENABLE_SPINS 300000
#define POWEROFF_SPINS 300000

/* Volatile: filled at boot by acpi_poweroff_prepare. */
static struct {
	bool ready;
	struct fadt_info fadt;
	uint8_t slp_typa, slp_typb;
} s5;

/* fadt_dsdt_phys -- the DSDT's address in a FADT of length bytes (X_DSDT first) */
uint64_t fadt_dsdt_phys(const void *fadt, uint32_t length)
{
	const uint8_t *f = fadt;
	uint64_t x = length >= FADT_X_DSDT + 8 ? acpi_get64(f + FADT_X_DSDT) : 0;

	return x ? x : acpi_get32(f + FADT_DSDT);
}

/* fadt_io_port -- an address that must be an I/O port */
static int fadt_io_port(uint64_t addr, const char *name, uint16_t *port)
{
	if (addr > 0xffff) {
		pr_err("acpi: FADT %s %#llx is not a 16-bit I/O port\n", name,
		       (unsigned long long)addr);
		return -ERR_CORRUPT;
	}
	*port = (uint16_t)addr;
	return 0;
}

/* fadt_port -- a register from its X_ field when present and non-zero, else the 32-bit one */
static int fadt_port(const uint8_t *f, uint32_t len, unsigned legacy_off,
		     unsigned x_off, const char *name, uint16_t *port)
{
	uint32_t legacy = acpi_get32(f + legacy_off);
	uint64_t x = 0;
	uint8_t space = 0;

	if (len >= x_off + GAS_LEN) {
		x = acpi_get64(f + x_off + GAS_ADDRESS);
		space = f[x_off + GAS_SPACE];
	}
	if (x != 0 && space == GAS_SPACE_IO)
		return fadt_io_port(x, name, port);
	if (x != 0 && legacy == 0) {
		pr_err("acpi: FADT X_%s is in address space %u, not I/O; unsupported\n",
		       name, space);
		return -ERR_NOTSUP;
	}
	if (x != 0)
		pr_warn("acpi: FADT X_%s is in address space %u; using the 32-bit %s\n",
			name, space, name);
	return fadt_io_port(legacy, name, port);
}

/* fadt_parse -- the PM1 control ports, the ACPI-enable handshake and the DSDT */
int fadt_parse(const void *table, uint32_t length, struct fadt_info *out)
{
	const uint8_t *f = table;
	uint32_t len;
	int err = acpi_table_check(table, length, "FACP");

	if (err)
		return err;
	len = ((const struct acpi_header *)table)->length;
	if (len < FADT_V1_LEN) {
		pr_err("acpi: FADT: length %u < %u, the ACPI 1.0 size\n", len,
		       FADT_V1_LEN);
		return -ERR_CORRUPT;
	}
	if (acpi_get32(f + FADT_FLAGS) & FADT_HW_REDUCED_ACPI) {
		pr_err("acpi: FADT: hardware-reduced ACPI (no PM1 registers); unsupported\n");
		return -ERR_NOTSUP;
	}
	memset(out, 0, sizeof(*out));
	err = fadt_port(f, len, FADT_PM1A_CNT, FADT_X_PM1A_CNT, "PM1a_CNT_BLK",
			&out->pm1a_cnt);
	if (!err)
		err = fadt_port(f, len, FADT_PM1B_CNT, FADT_X_PM1B_CNT,
				"PM1b_CNT_BLK", &out->pm1b_cnt);
	if (!err)
		err = fadt_io_port(acpi_get32(f + FADT_SMI_CMD), "SMI_CMD",
				   &out->smi_cmd);
	if (err)
		return err;
	if (out->pm1a_cnt == 0 || f[FADT_PM1_CNT_LEN] < 2) {
		pr_err("acpi: FADT: PM1a_CNT_BLK at port %#x with length %u: no usable PM1a control register\n",
		       out->pm1a_cnt, f[FADT_PM1_CNT_LEN]);
		return -ERR_CORRUPT;
	}
	out->acpi_enable = f[FADT_ACPI_ENABLE];
	out->dsdt_phys = fadt_dsdt_phys(f, len);
	return 0;
}

/* aml_is_s5_name -- "_S5_" at i is declared by NameOp (maybe with '\') and names a package */
static bool aml_is_s5_name(const uint8_t *p, uint32_t len, uint32_t i)
{
	if (i < 1 || len - i < 5 || memcmp(p + i, "_S5_", 4) != 0 ||
	    p[i + 4] != AML_PACKAGE_OP)
		return false;
	if (p[i - 1] == AML_NAME_OP)
		return true;
	return i >= 2 && p[i - 1] == AML_ROOT_CHAR && p[i - 2] == AML_NAME_OP;
}

/* aml_pkg_length -- decode the PkgLength at *pos (1 to 4 bytes); advance *pos */
static int aml_pkg_length(const uint8_t *p, uint32_t len, uint32_t *pos,
			  uint32_t *value)
{
	uint32_t at = *pos;
	uint8_t lead;
	unsigned follow;

	if (at >= len)
		return -ERR_CORRUPT;
	lead = p[at];
	follow = lead >> 6;
	if (follow == 0) {
		*value = lead & 0x3f;
	} else {
		/* Bits 4-5 of a multi-byte lead byte are reserved (zero). */
		if ((lead & 0x30) != 0 || len - at - 1 < follow)
			return -ERR_CORRUPT;
		*value = lead & 0x0f;
		for (unsigned k = 0; k < follow; k++)
			*value |= (uint32_t)p[at + 1 + k] << (4 + 8 * k);
	}
	*pos = at + 1 + follow;
	return 0;
}

/* aml_data_size -- data bytes after an integer-constant opcode, or -1 if it is none */
static int aml_data_size(uint8_t op)
{
	switch (op) {
	case AML_ZERO_OP:
	case AML_ONE_OP:
	case AML_ONES_OP:
		return 0;
	case AML_BYTE_PREFIX:
		return 1;
	case AML_WORD_PREFIX:
		return 2;
	case AML_DWORD_PREFIX:
		return 4;
	case AML_QWORD_PREFIX:
		return 8;
	default:
		return -1;
	}
}

/* aml_const_int -- decode an integer constant at *pos, ending before end; advance *pos */
static int aml_const_int(const uint8_t *p, uint32_t end, uint32_t *pos,
			 uint64_t *value)
{
	uint32_t at = *pos;
	uint8_t op = p[at];
	int size = aml_data_size(op);

	if (size < 0) {
		pr_err("acpi: \\_S5_ element at AML offset %#x is opcode %#x, not an integer constant\n",
		       at, op);
		return -ERR_NOTSUP;
	}
	if (end - at - 1 < (uint32_t)size) {
		pr_err("acpi: \\_S5_ element at AML offset %#x runs past its package\n", at);
		return -ERR_CORRUPT;
	}
	if (size == 0)
		*value = op == AML_ZERO_OP ? 0 : op == AML_ONE_OP ? 1 : UINT64_MAX;
	else
		*value = 0;
	for (int k = 0; k < size; k++)
		*value |= (uint64_t)p[at + 1 + k] << (8 * k);
	*pos = at + 1 + (uint32_t)size;
	return 0;
}

/* s5_elements -- the two sleep types from the package's elements at pos */
static int s5_elements(const uint8_t *p, uint32_t end, uint32_t pos,
		       uint8_t count, uint8_t *a, uint8_t *b)
{
	uint64_t va, vb;
	int err = aml_const_int(p, end, &pos, &va);

	if (err)
		return err;
	if (count == 1) {           /* one integer: SLP_TYPa | SLP_TYPb << 8 */
		vb = (va >> 8) & 0xff;
		va &= 0xff;
	} else if (pos >= end) {
		pr_err("acpi: \\_S5_ package ends before its second element\n");
		return -ERR_CORRUPT;
	} else {
		err = aml_const_int(p, end, &pos, &vb);
		if (err)
			return err;
	}
	if (va > SLP_TYP_MAX || vb > SLP_TYP_MAX) {
		pr_err("acpi: \\_S5_ sleep types %#llx/%#llx do not fit in 3 bits\n",
		       (unsigned long long)va, (unsigned long long)vb);
		return -ERR_CORRUPT;
	}
	*a = (uint8_t)va;
	*b = (uint8_t)vb;
	return 0;
}

/* s5_package -- decode the package whose PkgLength is at pos */
static int s5_package(const uint8_t *p, uint32_t len, uint32_t pos,
		      uint8_t *a, uint8_t *b)
{
	uint32_t start = pos, pkg_len, end;

	if (aml_pkg_length(p, len, &pos, &pkg_len) != 0) {
		pr_err("acpi: \\_S5_ package at AML offset %#x: bad or truncated PkgLength\n",
		       start);
		return -ERR_CORRUPT;
	}
	if (pkg_len > len - start || start + pkg_len <= pos) {
		pr_err("acpi: \\_S5_ package at AML offset %#x: PkgLength %u does not fit the %u bytes of AML\n",
		       start, pkg_len, len);
		return -ERR_CORRUPT;
	}
	end = start + pkg_len;
	if (p[pos] == 0 || pos + 1 >= end) {
		pr_err("acpi: \\_S5_ package at AML offset %#x has no elements\n",
		       start);
		return -ERR_CORRUPT;
	}
	return s5_elements(p, end, pos + 1, p[pos], a, b);
}

/* acpi_s5_decode -- the sleep types of Name(\_S5_, Package(){...}) in AML */
int acpi_s5_decode(const void *aml, uint32_t len, uint8_t *slp_typa,
		   uint8_t *slp_typb)
{
	const uint8_t *p = aml;

	for (uint32_t i = 1; i < len; i++)
		if (aml_is_s5_name(p, len, i))
			return s5_package(p, len, i + 5, slp_typa, slp_typb);
	pr_err("acpi: no Name(\\_S5_, Package) in %u bytes of AML\n", len);
	return -ERR_NOENT;
}

/* acpi_poweroff_prepare -- read the PM1 ports and the S5 sleep types, at boot */
int acpi_poweroff_prepare(void)
{
	const struct acpi_header *fadt = acpi_find_table("FACP", 0);
	const struct acpi_header *dsdt = acpi_find_table("DSDT", 0);
	const uint8_t *aml;
	int err;

	s5.ready = false;
	if (!fadt)
		return acpi_missing("FACP", "where the power-management registers are");
	err = fadt_parse(fadt, fadt->length, &s5.fadt);
	if (err)
		return err;
	if (!dsdt)
		return acpi_missing("DSDT", "the S5 sleep type");
	aml = (const uint8_t *)dsdt + ACPI_HEADER_LEN;
	err = acpi_s5_decode(aml, dsdt->length - ACPI_HEADER_LEN, &s5.slp_typa,
			     &s5.slp_typb);
	if (err)
		return err;
	s5.ready = true;
	pr_info("acpi: power-off: S5 SLP_TYP %u/%u, PM1a_CNT port %#x, PM1b_CNT port %#x\n",
		s5.slp_typa, s5.slp_typb, s5.fadt.pm1a_cnt, s5.fadt.pm1b_cnt);
	return 0;
}

/* acpi_enter_acpi_mode -- ask the firmware for ACPI mode if it left it off */
static void acpi_enter_acpi_mode(void)
{
	if (arch_inw(s5.fadt.pm1a_cnt) & PM1_SCI_EN)
		return;
	if (s5.fadt.smi_cmd == 0 || s5.fadt.acpi_enable == 0)
		return;             /* nothing to ask: try S5 as it is */
	arch_outb(s5.fadt.smi_cmd, s5.fadt.acpi_enable);
	for (int i = 0; i < ACPI_ENABLE_SPINS; i++)
		if (arch_inw(s5.fadt.pm1a_cnt) & PM1_SCI_EN)
			return;
	pr_warn("acpi: the firmware did not enter ACPI mode; trying S5 anyway\n");
}

/* pm1_write -- set SLP_TYP (and SLP_EN if asked) in one PM1 control register */
static void pm1_write(uint16_t port, uint8_t slp_typ, bool enable)
{
	uint16_t v = arch_inw(port);

	v &= (uint16_t)~(PM1_SLP_TYP_MASK | PM1_SLP_EN | PM1_GBL_RLS);
	v |= (uint16_t)(slp_typ << PM1_SLP_TYP_SHIFT);
	if (enable)
		v |= PM1_SLP_EN;
	arch_outw(port, v);
}

/* acpi_poweroff -- enter S5; returns only if the machine is still on */
void acpi_poweroff(void)
{
	if (!s5.ready) {
		pr_err("acpi: cannot power off: no S5 information (see the boot log)\n");
		return;
	}
	acpi_enter_acpi_mode();
	/* The sleep types first, then SLP_EN: a first, b second (§7.4.2.5). */
	pm1_write(s5.fadt.pm1a_cnt, s5.slp_typa, false);
	if (s5.fadt.pm1b_cnt)
		pm1_write(s5.fadt.pm1b_cnt, s5.slp_typb, false);
	pm1_write(s5.fadt.pm1a_cnt, s5.slp_typa, true);
	if (s5.fadt.pm1b_cnt)
		pm1_write(s5.fadt.pm1b_cnt, s5.slp_typb, true);
	/* The machine goes off asynchronously; give it time before giving up. */
	for (int i = 0; i < POWEROFF_SPINS; i++)
		(void)arch_inw(s5.fadt.pm1a_cnt);
}
