/*
 * acpi_priv.h -- what the files of kernel/acpi/ share and nobody else needs.
 *
 * Tables are byte arrays at any alignment (QEMU puts them at odd addresses),
 * so fields are read with the little-endian helpers below, at the offsets the
 * ACPI specification gives, never through a cast to a wider type.
 */
#ifndef ACPI_ACPI_PRIV_H
#define ACPI_ACPI_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "acpi/acpi.h"

/* The common header of every table (ACPI 6.x §5.2.6). Packed: any alignment. */
struct acpi_header {
	char signature[4];
	uint32_t length;            /* of the whole table, header included */
	uint8_t revision;
	uint8_t checksum;           /* makes the table's bytes sum to 0 */
	char oem_id[6];
	char oem_table_id[8];
	uint32_t oem_revision;
	uint32_t creator_id;
	uint32_t creator_revision;
} __attribute__((packed));

_Static_assert(sizeof(struct acpi_header) == ACPI_HEADER_LEN,
	       "the ACPI table header is 36 bytes");

/* acpi_get16 -- the little-endian 16-bit value at p */
static inline uint16_t acpi_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/* acpi_get32 -- the little-endian 32-bit value at p */
static inline uint32_t acpi_get32(const uint8_t *p)
{
	return acpi_get16(p) | (uint32_t)acpi_get16(p + 2) << 16;
}

/* acpi_get64 -- the little-endian 64-bit value at p */
static inline uint64_t acpi_get64(const uint8_t *p)
{
	return acpi_get32(p) | (uint64_t)acpi_get32(p + 4) << 32;
}

/* acpi_sig_str -- 4 signature bytes as a printable string ('?' for the rest) */
void acpi_sig_str(const void *sig, char out[5]);

/* acpi_table_check -- header valid and signature `sig`; 0 or -ERR_CORRUPT */
int acpi_table_check(const void *table, uint32_t length, const char sig[4]);

/* acpi_table_rejected -- acpi_init saw a table with this signature and left it out */
bool acpi_table_rejected(const char sig[4]);

/* acpi_missing -- report a table acpi_init did not keep: -ERR_NOENT or -ERR_CORRUPT */
int acpi_missing(const char sig[4], const char *purpose);

/* acpi_rsdp_phys -- the RSDP the last acpi_init used, or 0 (self-tests restore it) */
uint64_t acpi_rsdp_phys(void);

/* fadt_dsdt_phys -- the DSDT's address in a FADT of length bytes (X_DSDT first) */
uint64_t fadt_dsdt_phys(const void *fadt, uint32_t length);

#endif
