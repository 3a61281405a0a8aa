/*
 * virtio_pmem_selftest.c -- self-tests of the flush requests
 * (`selftest=virtio`), on the machine's own virtio-pmem device: the
 * contract of pmem_flush_start/poll/wait, the queue going round more than
 * once (each request takes two of its descriptors), and the counters. On a
 * machine without the device the test says so and passes.
 */
#include "arch/arch.h"
#include "core/printk.h"
#include "core/selftest.h"
#include "dev/virtio.h"
#include "dev/virtio_pmem.h"
#include "ferrite/errors.h"

#define ROUNDS (4 * VIRTQ_SIZE_MAX) /* the rings wrap several times */

/* poll_until_done -- spin on pmem_flush_poll until it says something */
static int poll_until_done(void)
{
	int done;

	while ((done = pmem_flush_poll()) == 0)
		arch_cpu_relax();
	return done;
}

SELFTEST(virtio_pmem_flush)
{
	struct pmem_stats before, after;
	int err = pmem_flush_start();

	if (err == -ERR_NOENT) {
		pr_info("selftest: no virtio-pmem device started; nothing to flush\n");
		return;
	}
	pmem_stats(&before);
	ST_CHECK_EQ(err, 0);
	ST_CHECK_EQ(pmem_flush_start(), -ERR_BUSY);  /* one in flight at a time */
	ST_CHECK_EQ(pmem_flush_wait(), -ERR_BUSY);
	ST_CHECK_EQ(poll_until_done(), 1);
	ST_CHECK_EQ(pmem_flush_poll(), 0);           /* none in flight now */
	for (unsigned i = 0; i < ROUNDS; i++)
		ST_CHECK_EQ(pmem_flush_wait(), 0);
	pmem_stats(&after);
	ST_CHECK_EQ(after.flushes, before.flushes + 1 + ROUNDS);
	ST_CHECK_EQ(after.errors, before.errors);
	ST_CHECK(after.total_ns >= before.total_ns + after.last_ns);
	ST_CHECK(after.max_ns >= after.last_ns && after.last_ns > 0);
	pr_info("selftest: %u flushes, the last %llu us, the longest %llu us\n",
		1 + ROUNDS, (unsigned long long)(after.last_ns / 1000),
		(unsigned long long)(after.max_ns / 1000));
}
