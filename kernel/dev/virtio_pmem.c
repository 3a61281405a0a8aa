/*
 * virtio_pmem.c -- the virtio-pmem device: persistent memory with a
 * flush request (virtio 1.2, section 5.19 "PMEM Device").
 *
 * The device shows a host file as a range of guest-physical memory
 * outside RAM; its configuration says where (`start`, `size`, le64
 * each). The guest maps it like RAM, cached, and loads and stores there
 * directly: a store reaches the host's page cache at once (it survives a
 * kill of the hypervisor), and the host's disk only when the guest sends
 * a FLUSH request and the device answers it -- the host then has fsynced
 * the file. So durability against a host crash is a request, not a cache
 * line write-back (nvm.c chooses no CPU flush for this device).
 *
 * The request: a device-readable le32 type (0, FLUSH) chained to a
 * device-writable le32 ret; ret 0 means the flush succeeded. One queue
 * (the request queue, number 0), one request in flight at a time, polled
 * (virtio.c). Both words live in one DRAM frame of the driver's; ret is
 * set to a value the device never writes before each request, so an
 * answer that wrote nothing reads as a failure.
 *
 * No feature is taken beyond VIRTIO_F_VERSION_1: not even
 * VIRTIO_PMEM_F_SHMEM_REGION, so the region is where `start` says.
 *
 * Locking: every call is made under the kernel lock (like the rest of
 * dev/'s drivers, which assume one caller at a time: power-on holds the
 * lock on the boot CPU, and the kernel's entries take it); any CPU may
 * make it. The state below is volatile, rebuilt at every power-on.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/arch.h"
#include "core/bootinfo.h"
#include "core/printk.h"
#include "dev/virtio.h"
#include "dev/virtio_pmem.h"
#include "ferrite/errors.h"
#include "ferrite/nvmtrace.h"
#include "mm/frame.h"
#include "mm/phys.h"
#include "mm/vm.h"

#define VIRTIO_ID_PMEM 27               /* PCI 1af4:105b */
#define REQUEST_QUEUE 0
#define REQ_TYPE_FLUSH 0
#define RET_UNANSWERED 0xffffffffu      /* ret before the device writes it */

/* struct virtio_pmem_config (spec 5.19.4) */
#define CONFIG_START 0
#define CONFIG_SIZE 8

/* The request's two words, in their frame. */
#define REQ_TYPE_AT 0
#define REQ_RET_AT 64

static struct {
	/* set once by pmem_init */
	bool started;
	struct virtio_device dev;
	struct virtq queue;
	uint64_t req_phys;              /* the frame holding type and ret */
	volatile uint32_t *type, *ret;
	uint64_t (*now_ns)(void);
	/* under the kernel lock */
	bool in_flight;
	bool broken;                    /* the device broke the queue's rules: FAILED */
	bool error_said;
	uint64_t started_ns;
	struct pmem_stats stats;
} pmem;

/* read_region -- the device's `start` and `size`; 0 or a negative error after a message */
static int read_region(struct pmem_region *out)
{
	uint64_t config[2];

	if (virtio_config_read(&pmem.dev, CONFIG_START, config, sizeof(config))) {
		pr_err("virtio-pmem: its configuration has no start and size (or they keep changing); not used\n");
		return -ERR_INVAL;
	}
	out->phys = config[CONFIG_START / 8];
	out->size = config[CONFIG_SIZE / 8];
	out->slot = pmem.dev.pci.slot;
	out->function = pmem.dev.pci.function;
	return 0;
}

/* overlaps_ram -- whether [phys, phys+size) meets a RAM range of the memory map */
static bool overlaps_ram(const struct boot_info *bi, uint64_t phys, uint64_t size)
{
	for (unsigned i = 0; i < bi->mmap_count; i++) {
		const struct boot_mem_range *r = &bi->mmap[i];

		if (r->type == BOOT_MEM_USABLE && phys < r->base + r->size &&
		    r->base < phys + size)
			return true;
	}
	return false;
}

/* check_region -- the region is usable as the NVM; 0 or -ERR_INVAL after a message */
static int check_region(const struct boot_info *bi, const struct pmem_region *r)
{
	const char *wrong = NULL;

	if (!r->size)
		wrong = "is empty";
	else if (r->phys % PAGE_SIZE || r->size % PAGE_SIZE)
		wrong = "is not page aligned";
	else if (r->phys + r->size < r->phys)
		wrong = "wraps around the address space";
	else if (overlaps_ram(bi, r->phys, r->size))
		wrong = "overlaps RAM in the boot memory map";
	if (!wrong)
		return 0;
	pr_err("virtio-pmem: 00:%02x.%u: its region %#llx+%#llx %s; not used\n",
	       r->slot, r->function, (unsigned long long)r->phys,
	       (unsigned long long)r->size, wrong);
	return -ERR_INVAL;
}

/* start_device -- the transport's steps and the request frame; 0 or a
 * negative error after a message */
static int start_device(void)
{
	uint64_t agreed;
	int err = virtio_start(&pmem.dev, 0, &agreed);

	if (err)
		return err;
	err = virtio_queue_setup(&pmem.dev, REQUEST_QUEUE, &pmem.queue);
	if (err)
		return err;
	if (frame_alloc(&pmem.req_phys)) {
		pr_err("virtio-pmem: no DRAM frame for its requests; not used\n");
		virtio_fail(&pmem.dev);
		return -ERR_NOMEM;
	}
	pmem.type = (volatile uint32_t *)((uint8_t *)phys_to_virt(pmem.req_phys) + REQ_TYPE_AT);
	pmem.ret = (volatile uint32_t *)((uint8_t *)phys_to_virt(pmem.req_phys) + REQ_RET_AT);
	return 0;
}

/* pmem_init -- find and start the device, check and map its region */
int pmem_init(const struct boot_info *bi, struct pmem_region *out)
{
	struct pmem_region r;
	int err = virtio_find(VIRTIO_ID_PMEM, "virtio-pmem", &pmem.dev);

	if (err)
		return err;
	err = start_device();
	if (err)
		return err;
	err = read_region(&r);
	if (!err)
		err = check_region(bi, &r);
	if (!err && vm_map_physical(r.phys, r.size)) {
		pr_err("virtio-pmem: out of DRAM for the page tables mapping its region; not used\n");
		err = -ERR_NOMEM;
	}
	if (!err)
		err = virtio_ready(&pmem.dev);
	if (err) {
		virtio_fail(&pmem.dev);
		return err;
	}
	pmem.started = true;
	*out = r;
	return 0;
}

/* pmem_set_clock -- the clock flush latencies are measured with */
void pmem_set_clock(uint64_t (*now_ns)(void))
{
	pmem.now_ns = now_ns;
}

/* now -- the time for latencies, 0 before a clock is given */
static uint64_t now(void)
{
	return pmem.now_ns ? pmem.now_ns() : 0;
}

/* pmem_flush_start -- send a FLUSH request unless one is in flight */
int pmem_flush_start(void)
{
	struct virtq_buf bufs[2] = {
		{ .phys = pmem.req_phys + REQ_TYPE_AT, .len = 4, .device_writes = false },
		{ .phys = pmem.req_phys + REQ_RET_AT, .len = 4, .device_writes = true },
	};
	int head;

	if (!pmem.started)
		return -ERR_NOENT;
	if (pmem.broken)
		return -ERR_IO;
	if (pmem.in_flight)
		return -ERR_BUSY;
	*pmem.type = REQ_TYPE_FLUSH;
	*pmem.ret = RET_UNANSWERED;
	pmem.started_ns = now();
	arch_trace_event(NVT_EVENT_PMEM_FLUSH_BEGIN); /* every store before it is covered */
	head = virtq_submit(&pmem.queue, bufs, 2);
	if (head < 0)
		return head; /* Invariant: none in flight, so the queue is free */
	pmem.in_flight = true;
	return 0;
}

/* count -- a completed flush into the counters */
static void count(bool failed)
{
	uint64_t took = now() - pmem.started_ns;

	pmem.stats.flushes++;
	pmem.stats.errors += failed;
	pmem.stats.total_ns += took;
	pmem.stats.last_ns = took;
	if (took > pmem.stats.max_ns)
		pmem.stats.max_ns = took;
}

/* pmem_flush_poll -- whether the flush in flight completed, and how */
int pmem_flush_poll(void)
{
	uint32_t written = 0, ret;
	int head;

	if (!pmem.in_flight)
		return 0;
	head = virtq_poll(&pmem.queue, &written);
	if (head == -ERR_AGAIN)
		return 0;
	pmem.in_flight = false;
	arch_trace_event(NVT_EVENT_PMEM_FLUSH_END); /* answered: durable if ret says so */
	ret = *pmem.ret;
	if (head >= 0 && written >= sizeof(ret) && ret == 0) {
		count(false);
		return 1;
	}
	count(true);
	if (head < 0) { /* its descriptors are lost: no request can follow */
		pmem.broken = true;
		virtio_fail(&pmem.dev);
	}
	if (!pmem.error_said) {
		pr_err("virtio-pmem: a flush failed (%s %#x): stores since the last good flush may not be durable on the host\n",
		       head < 0 ? "the device returned a descriptor not ours, and is not used any more;" :
		       written < sizeof(ret) ? "no answer written, ret" : "ret",
		       ret);
		pmem.error_said = true;
	}
	return -ERR_IO;
}

/* pmem_flush_wait -- one flush, start to end */
int pmem_flush_wait(void)
{
	int err = pmem_flush_start(), done;

	if (err)
		return err;
	while ((done = pmem_flush_poll()) == 0)
		arch_cpu_relax();
	return done < 0 ? done : 0;
}

/* pmem_stats -- the flush counters so far */
void pmem_stats(struct pmem_stats *out)
{
	*out = pmem.stats;
}

/* pmem_flush_report -- one flush at power-on, its cost said */
int pmem_flush_report(void)
{
	int err = pmem_flush_wait();

	if (err) {
		pr_err("virtio-pmem: the power-on flush failed (error %d): the host may lose what is not flushed\n",
		       err);
		return err;
	}
	pr_info("virtio-pmem: a flush took %llu us\n",
		(unsigned long long)(pmem.stats.last_ns / 1000));
	return 0;
}
