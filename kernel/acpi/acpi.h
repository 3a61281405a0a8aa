/*
 * acpi.h -- the firmware's description of the machine: ACPI tables.
 *
 * acpi_init() finds the RSDP, walks the RSDT or XSDT and remembers every
 * table whose header checks out (signature, length, checksum). The parsers
 * below then read the few tables Ferrite needs -- NFIT (where the NVM is),
 * MADT (the interrupt controllers), FADT and DSDT (how to power off) --
 * and check every structure against the table's bounds before using it.
 *
 * Tables are read in place, through the direct map, at power-on; all of this
 * state is volatile and is rebuilt at every power-on. The memory manager must
 * keep ACPI-reclaimable ranges reserved: acpi_find_table() returns pointers
 * into them.
 *
 * Every action returns 0 or -ERR_* (include/ferrite/errors.h) and has printed
 * a precise message (what is wrong, at which offset) before failing:
 * -ERR_CORRUPT for a malformed table, -ERR_NOENT for a missing one.
 */
#ifndef ACPI_ACPI_H
#define ACPI_ACPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ACPI_HEADER_LEN 36               /* the common table header */
#define ACPI_TABLE_MAX_LEN (16u << 20)   /* a longer "table" is garbage */

/* What the NFIT says about the persistent memory. */
struct nvm_region {
	uint64_t base;              /* physical address */
	uint64_t size;              /* bytes */
	uint16_t spa_index;         /* SPA range structure index */
	bool caps_present;          /* a platform capabilities structure exists */
	bool cpu_cache_persistent;  /* capability bit 0: CPU caches are in the persistence domain (eADR) */
	uint32_t caps;              /* all valid capability bits (bit 1: memory controller flush) */
};

#define MADT_MAX_CPUS 64

struct madt_info {
	uint64_t lapic_phys;
	uint64_t ioapic_phys;       /* the first I/O APIC */
	uint32_t ioapic_gsi_base;
	struct { uint32_t gsi; uint16_t flags; } isa_irq[16]; /* identity unless an override says otherwise; flags = MPS INTI flags */
	uint32_t cpu_count;         /* enabled or online-capable local (x2)APICs */
	uint32_t cpu_apic_id[MADT_MAX_CPUS]; /* the first MADT_MAX_CPUS of them, in MADT order */
	bool pcat_compat;           /* dual 8259 PICs present: mask them */
};

/* MPS INTI flags of an interrupt source override (polarity, trigger mode). */
#define MADT_INTI_POLARITY_MASK 0x3
#define MADT_INTI_ACTIVE_HIGH 0x1
#define MADT_INTI_ACTIVE_LOW 0x3
#define MADT_INTI_TRIGGER_MASK 0xc
#define MADT_INTI_EDGE 0x4
#define MADT_INTI_LEVEL 0xc

/* The PM1 control ports and the DSDT, as the FADT gives them. */
struct fadt_info {
	uint16_t pm1a_cnt;          /* PM1a control block I/O port (never 0) */
	uint16_t pm1b_cnt;          /* PM1b control block I/O port, or 0 */
	uint16_t smi_cmd;           /* port to ask for ACPI mode, or 0 */
	uint8_t acpi_enable;        /* value to write there */
	uint64_t dsdt_phys;         /* the DSDT (X_DSDT when present) */
};

/*
 * acpi_init -- find the RSDP and the root table, validate and remember the
 * tables. rsdp_phys comes from multiboot (tag 14/15: the loader's copy), or
 * is 0: then the EBDA's first KiB and 0xE0000-0xFFFFF are scanned on 16-byte
 * boundaries. A table with a bad header is reported and left out (firmware
 * ships such tables); a bad RSDP or root table fails. The DSDT, reached
 * through the FADT, is remembered too. Prints one line listing the tables.
 */
int acpi_init(uint64_t rsdp_phys);

/* acpi_find_table -- the index-th validated table with this signature (header included), or NULL */
const void *acpi_find_table(const char signature[4], unsigned index);

/*
 * acpi_nfit_find_nvm -- the NVM, from the NFIT found by acpi_init.
 * -ERR_NOENT if there is no NFIT (nothing said) or no persistent-memory
 * SPA range,
 * -ERR_CORRUPT if the NFIT was rejected or is malformed.
 */
int acpi_nfit_find_nvm(struct nvm_region *out);

/*
 * nfit_parse -- read an NFIT of `length` readable bytes (header included).
 * Returns the first SPA range with the persistent-memory GUID; any further
 * one is reported with pr_warn and ignored (Ferrite uses one NVM region).
 * The first platform capabilities structure gives caps/cpu_cache_persistent.
 * Every structure is checked, pmem or not: a length below its type's size
 * or past the table's end, an SPA range of length 0 or whose end overflows
 * are -ERR_CORRUPT. No pmem range: -ERR_NOENT.
 */
int nfit_parse(const void *table, uint32_t length, struct nvm_region *out);

/* acpi_madt_parse -- madt_parse on the MADT ("APIC") found by acpi_init */
int acpi_madt_parse(struct madt_info *out);

/*
 * madt_parse -- read a MADT of `length` readable bytes. The first I/O APIC
 * wins; ISA overrides (bus 0, IRQ < 16) replace the identity mapping; a local
 * APIC address override replaces the 32-bit address. An entry shorter than
 * 2 bytes, than its type's size, or past the end is -ERR_CORRUPT; no I/O
 * APIC is -ERR_NOENT (out is still filled with what was found).
 */
int madt_parse(const void *table, uint32_t length, struct madt_info *out);

/*
 * acpi_poweroff_prepare -- at boot, read the FADT's PM1 control ports and
 * the DSDT's \_S5_ sleep types, so that powering off needs no parsing.
 * -ERR_NOENT, -ERR_CORRUPT or -ERR_NOTSUP (hardware-reduced ACPI, registers
 * outside I/O space, \_S5_ not a constant package) when impossible.
 */
int acpi_poweroff_prepare(void);

/*
 * acpi_poweroff -- enter S5: enable ACPI mode if the firmware left it off,
 * then write SLP_TYPx<<10 | SLP_EN to PM1a_CNT (and PM1b_CNT when present),
 * keeping the register's other bits. Returns only if the machine did not
 * power off (or acpi_poweroff_prepare failed).
 */
void acpi_poweroff(void);

/* --- pieces exposed for the self-tests --------------------------------- */

/* acpi_checksum_ok -- the len bytes at p sum to 0 modulo 256 */
bool acpi_checksum_ok(const void *p, size_t len);

/*
 * acpi_validate_header -- a table whose first max_len bytes are readable:
 * max_len >= 36, 36 <= length < 16 MiB, length <= max_len, checksum over
 * length. 0 or -ERR_CORRUPT (printed, naming the signature).
 */
int acpi_validate_header(const void *table, uint64_t max_len);

/*
 * acpi_rsdp_validate -- "RSD PTR ", the checksum of the 20-byte v1 part and,
 * for revision >= 2, a sane length (36..1024 bytes, all readable) and the
 * extended checksum. 0 or -ERR_CORRUPT; quiet unless `verbose`.
 */
int acpi_rsdp_validate(const void *rsdp, bool verbose);

/*
 * acpi_s5_decode -- find `Name(\_S5_, Package(){SLP_TYPa, SLP_TYPb, ...})`
 * in len bytes of AML and decode the two sleep types (each 0..7). A
 * one-element package holds both: SLP_TYPa in bits 0-7, SLP_TYPb in 8-15.
 * -ERR_NOENT (no such name), -ERR_CORRUPT (truncated, bad PkgLength, value
 * > 7), -ERR_NOTSUP (an element that is not an integer constant).
 */
int acpi_s5_decode(const void *aml, uint32_t len, uint8_t *slp_typa,
		   uint8_t *slp_typb);

/* fadt_parse -- read a FADT ("FACP") of `length` readable bytes */
int fadt_parse(const void *table, uint32_t length, struct fadt_info *out);

#endif
