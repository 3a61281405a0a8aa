/*
 * virtio_pmem.h -- the virtio-pmem device (PCI 1af4:105b): persistent
 * memory a hypervisor backs with a host file, made durable by FLUSH
 * requests (virtio_pmem.c).
 *
 * Every call below is made under the kernel lock (power-on holds it on
 * the boot CPU); any CPU may make it. The flushes matter when the device
 * holds the heap: nvm.flush_requests (dev/nvm.h).
 */
#ifndef DEV_VIRTIO_PMEM_H
#define DEV_VIRTIO_PMEM_H

#include <stdbool.h>
#include <stdint.h>

struct boot_info;

/* The device's memory, as pmem_init found and mapped it. */
struct pmem_region {
	uint64_t phys;          /* guest-physical base (the device's `start`) */
	uint64_t size;          /* bytes */
	uint8_t slot, function; /* its PCI address on bus 0, for messages */
};

/* What the flushes cost (pmem_stats); latencies in ns from the clock
 * pmem_set_clock gave (0 before one was given). */
struct pmem_stats {
	uint64_t flushes;       /* completed, successful or not */
	uint64_t errors;        /* completed with the device's error */
	uint64_t total_ns, last_ns, max_ns;
};

/* pmem_init -- find the device, start it (virtio.c), check its region
 * against the memory map and map it cached into the direct map; 0,
 * -ERR_NOENT when there is no such device (nothing said), or another
 * negative error after a precise message (the device is then not used) */
int pmem_init(const struct boot_info *bi, struct pmem_region *out);

/* pmem_set_clock -- the clock flush latencies are measured with (main.c
 * gives time_ns once time runs) */
void pmem_set_clock(uint64_t (*now_ns)(void));

/* pmem_flush_start -- ask the device to make every store so far durable:
 * 0, or -ERR_BUSY while one is in flight (-ERR_NOENT: no device started;
 * -ERR_IO: the device broke its queue's rules before, which was said) */
int pmem_flush_start(void);

/* pmem_flush_poll -- 1: the flush asked for completed and the device said
 * it succeeded (then none is in flight), 0: still in flight (or none
 * asked), -ERR_IO: it completed with an error (the first such message
 * printed, later ones counted in pmem_stats) */
int pmem_flush_poll(void);

/* pmem_flush_wait -- start a flush and spin until it completes: 0 or
 * -ERR_IO (power-on and tests); -ERR_BUSY if one was already in flight
 * (its completion is its starter's to poll), -ERR_NOENT: no device */
int pmem_flush_wait(void);

/* pmem_flush_report -- power-on's flush: one pmem_flush_wait, and what it
 * cost said on the console (`virtio-pmem: a flush took N us`); 0 or its
 * error, said too */
int pmem_flush_report(void);

/* pmem_stats -- the flush counters so far */
void pmem_stats(struct pmem_stats *out);

#endif
