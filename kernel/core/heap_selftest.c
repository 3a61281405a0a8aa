/*
 * heap_selftest.c -- self-tests of the heap's kernel platform: the CPU's
 * CRC-32C must equal objstore's portable one, or every checksum the kernel
 * writes would be wrong for objtool and for a kernel on another CPU.
 */
#include <stdint.h>

#include "arch/arch.h"
#include "core/printk.h"
#include "core/selftest.h"
#include "objstore/objstore.h"

#define CRC_BUF_SIZE (4096 + 64)

static uint8_t crc_buf[CRC_BUF_SIZE];

SELFTEST(heap_crc32c_cpu_equals_portable)
{
	if (!arch_crc32c_supported()) {
		pr_info("selftest: no usable crc32 instruction here: the heap uses the portable CRC-32C\n");
		ST_CHECK_EQ(os_crc32c_reference(0, "123456789", 9), 0xe3069283u);
		return;
	}
	for (unsigned i = 0; i < CRC_BUF_SIZE; i++)
		crc_buf[i] = (uint8_t)(i * 131u + (i >> 7) * 7u);
	ST_CHECK_EQ(arch_crc32c(0, "123456789", 9), 0xe3069283u);
	ST_CHECK_EQ(arch_crc32c(0, "", 0), 0);
	/* Every length up to 200 at every alignment within a word, chained from 7. */
	for (unsigned len = 0; len < 200; len++)
		for (unsigned start = 0; start < 9; start++)
			ST_CHECK_EQ(arch_crc32c(7, crc_buf + start, len),
				    os_crc32c_reference(7, crc_buf + start, len));
	ST_CHECK_EQ(arch_crc32c(0, crc_buf, 4096), os_crc32c_reference(0, crc_buf, 4096));
	/* Continuing a crc equals one pass over the whole. */
	ST_CHECK_EQ(arch_crc32c(arch_crc32c(0, crc_buf, 1000), crc_buf + 1000, 3000),
		    os_crc32c_reference(0, crc_buf, 4000));
}
