/*
 * virtio.c -- the virtio 1.x PCI transport and split virtqueues, polled.
 *
 * Written from the virtio 1.2 specification (sections 2.7 "Split
 * Virtqueues", 3.1 "Device Initialization", 4.1 "Virtio Over PCI Bus").
 * Only the modern interface: a device is found by its vendor-specific
 * PCI capabilities, which say in which BAR and where the common
 * configuration, the notify area (with its multiplier), the ISR byte and
 * the device-specific configuration are. Each is checked against its BAR
 * and mapped uncached (vm_map_mmio): they are registers, not memory.
 *
 * Initialisation is the spec's sequence, in virtio_start,
 * virtio_queue_setup and virtio_ready: reset (status 0, read back until
 * 0), ACKNOWLEDGE, DRIVER, the features (VIRTIO_F_VERSION_1 is required
 * -- without it the device would expect the legacy layout -- and nothing
 * else unless the driver asks), FEATURES_OK written and read back, the
 * queues, DRIVER_OK. Whatever step the device refuses, the driver says
 * which in one line and sets FAILED: the device is not used.
 *
 * The queue. One frame holds a queue's three parts (VIRTQ_SIZE_MAX is
 * small: 8 descriptors take 128 bytes, the available ring 22, the used
 * ring 70), each at the alignment the spec asks (16, 2, 4). The driver
 * asks for no interrupts (VIRTQ_AVAIL_F_NO_INTERRUPT, and INTx disabled
 * in the PCI command register): it polls the used ring. The free
 * descriptors are a list linked through their `next` fields.
 *
 * Invariants of a queue (the driver's side):
 *  - avail_idx - used_seen (mod 2^16) chains are with the device; their
 *    descriptors are the device's, the other free_count are the driver's.
 *  - A chain's descriptors and its available-ring entry are written
 *    before the store of avail->idx that publishes them (a release store:
 *    the device, reading idx, then reads the rest).
 *  - avail->idx is visible before the doorbell rings (a full fence; on
 *    x86 the uncached doorbell store is not reordered with earlier stores
 *    anyway, but the compiler must not move it either).
 *  - used->idx is read with acquire, before the used element and before
 *    any buffer the device wrote: the device wrote those before idx.
 * x86 keeps the memory order of normal stores and loads, so the release
 * and acquire cost nothing but the compiler's obedience.
 *
 * Locking: the transport keeps no state of its own; a queue is its
 * driver's, used under the driver's lock (the kernel lock today).
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/printk.h"
#include "dev/pci.h"
#include "dev/virtio.h"
#include "ferrite/errors.h"
#include "mm/frame.h"
#include "mm/phys.h"
#include "mm/vm.h"

#define PCI_CAP_VENDOR 0x09
#define PCI_COMMAND_INTX_DISABLE 0x400

/* struct virtio_pci_cap (spec 4.1.4), offsets in configuration space */
#define CAP_CFG_TYPE 3
#define CAP_BAR 4
#define CAP_OFFSET 8
#define CAP_LENGTH 12
#define CAP_NOTIFY_MULTIPLIER 16
#define CAP_MIN_LEN 16
#define CAP_NOTIFY_MIN_LEN 20

enum cfg_type { CFG_COMMON = 1, CFG_NOTIFY = 2, CFG_ISR = 3, CFG_DEVICE = 4 };

/* struct virtio_pci_common_cfg (spec 4.1.4.3), offsets */
#define COMMON_DEVICE_FEATURE_SELECT 0x00
#define COMMON_DEVICE_FEATURE 0x04
#define COMMON_DRIVER_FEATURE_SELECT 0x08
#define COMMON_DRIVER_FEATURE 0x0c
#define COMMON_NUM_QUEUES 0x12
#define COMMON_DEVICE_STATUS 0x14
#define COMMON_CONFIG_GENERATION 0x15
#define COMMON_QUEUE_SELECT 0x16
#define COMMON_QUEUE_SIZE 0x18
#define COMMON_QUEUE_ENABLE 0x1c
#define COMMON_QUEUE_NOTIFY_OFF 0x1e
#define COMMON_QUEUE_DESC 0x20
#define COMMON_QUEUE_DRIVER 0x28
#define COMMON_QUEUE_DEVICE 0x30
#define COMMON_MIN_LEN 0x38

/* Device status bits (spec 2.1) */
#define STATUS_ACKNOWLEDGE 1
#define STATUS_DRIVER 2
#define STATUS_DRIVER_OK 4
#define STATUS_FEATURES_OK 8
#define STATUS_NEEDS_RESET 64
#define STATUS_FAILED 128

#define RESET_POLLS 1000000u    /* reads of the status before a reset is given up */
#define GENERATION_TRIES 16     /* reads of a changing configuration */

/* Where a queue's parts sit in its frame. */
#define RING_AVAIL_AT 256       /* after 16 descriptors at most */
#define RING_USED_AT 512
_Static_assert(VIRTQ_SIZE_MAX * sizeof(struct virtq_desc) <= RING_AVAIL_AT,
	       "the descriptors fit below the available ring");
_Static_assert(RING_AVAIL_AT + 6 + 2 * VIRTQ_SIZE_MAX <= RING_USED_AT,
	       "the available ring fits below the used ring");
_Static_assert(RING_USED_AT + 6 + 8 * VIRTQ_SIZE_MAX <= PAGE_SIZE,
	       "the used ring fits in the frame");
_Static_assert((VIRTQ_SIZE_MAX & (VIRTQ_SIZE_MAX - 1)) == 0,
	       "a split queue's size is a power of two");

static uint8_t rd8(volatile uint8_t *base, uint32_t off)
{
	return base[off];
}

static uint16_t rd16(volatile uint8_t *base, uint32_t off)
{
	return *(volatile uint16_t *)(base + off);
}

static uint32_t rd32(volatile uint8_t *base, uint32_t off)
{
	return *(volatile uint32_t *)(base + off);
}

static void wr8(volatile uint8_t *base, uint32_t off, uint8_t v)
{
	base[off] = v;
}

static void wr16(volatile uint8_t *base, uint32_t off, uint16_t v)
{
	*(volatile uint16_t *)(base + off) = v;
}

static void wr32(volatile uint8_t *base, uint32_t off, uint32_t v)
{
	*(volatile uint32_t *)(base + off) = v;
}

/* wr64 -- a 64-bit register as two 32-bit stores, low first (spec 4.1.3.1) */
static void wr64(volatile uint8_t *base, uint32_t off, uint64_t v)
{
	wr32(base, off, (uint32_t)v);
	wr32(base, off + 4, (uint32_t)(v >> 32));
}

/* say -- one line about dev, prefixed with its name and PCI address */
#define say(level, dev, fmt, ...)                                              \
	pr_##level("%s: 00:%02x.%u: " fmt "\n", (dev)->name, (dev)->pci.slot,   \
		   (dev)->pci.function, ##__VA_ARGS__)

/* status_set -- add `bits` to the device status */
static void status_set(struct virtio_device *dev, uint8_t bits)
{
	uint8_t now = rd8(dev->common, COMMON_DEVICE_STATUS);

	wr8(dev->common, COMMON_DEVICE_STATUS, now | bits);
}

/* virtio_fail -- say the driver gave up on dev (status FAILED) */
void virtio_fail(struct virtio_device *dev)
{
	if (dev->common)
		status_set(dev, STATUS_FAILED);
}

/* map_cap -- the capability at `at`: its area checked against its BAR
 * and mapped; 0 or -ERR_INVAL after a message */
static int map_cap(struct virtio_device *dev, uint8_t at, volatile uint8_t **area,
		   uint32_t *length)
{
	const struct pci_device *d = &dev->pci;
	uint8_t bar_index = pci_read8(d, at + CAP_BAR);
	uint32_t offset = pci_read32(d, at + CAP_OFFSET);
	uint32_t len = pci_read32(d, at + CAP_LENGTH);
	struct pci_bar bar;

	if (pci_bar(d, bar_index, &bar) || bar.io) {
		say(err, dev, "capability type %u names BAR %u, which is not a memory BAR",
		    pci_read8(d, at + CAP_CFG_TYPE), bar_index);
		return -ERR_INVAL;
	}
	if (!len || (uint64_t)offset + len > bar.size) {
		say(err, dev, "capability type %u: %#x+%#x is outside BAR %u's %#llx bytes",
		    pci_read8(d, at + CAP_CFG_TYPE), offset, len, bar_index,
		    (unsigned long long)bar.size);
		return -ERR_INVAL;
	}
	*area = vm_map_mmio(bar.phys + offset, len);
	*length = len;
	return 0;
}

/* take_cap -- the vendor capability at `at`, if it is one this driver
 * uses and the first of its type (the spec lets a device offer several,
 * the preferred first); 0 or a negative error after a message */
static int take_cap(struct virtio_device *dev, uint8_t at)
{
	uint8_t type = pci_read8(&dev->pci, at + CAP_CFG_TYPE);
	uint8_t cap_len = pci_read8(&dev->pci, at + 2);
	uint32_t length;

	if (cap_len < CAP_MIN_LEN)
		return 0; /* not a virtio_pci_cap: another vendor's */
	if (type == CFG_COMMON && !dev->common) {
		if (map_cap(dev, at, &dev->common, &length))
			return -ERR_INVAL;
		if (length < COMMON_MIN_LEN) {
			say(err, dev, "its common configuration has %u bytes, fewer than %u",
			    length, COMMON_MIN_LEN);
			return -ERR_INVAL;
		}
		return 0;
	}
	if (type == CFG_NOTIFY && !dev->notify_base) {
		if (cap_len < CAP_NOTIFY_MIN_LEN) {
			say(err, dev, "its notify capability has %u bytes, fewer than %u",
			    cap_len, CAP_NOTIFY_MIN_LEN);
			return -ERR_INVAL;
		}
		dev->notify_multiplier = pci_read32(&dev->pci, at + CAP_NOTIFY_MULTIPLIER);
		return map_cap(dev, at, &dev->notify_base, &dev->notify_length);
	}
	if (type == CFG_ISR && !dev->isr)
		return map_cap(dev, at, &dev->isr, &length);
	if (type == CFG_DEVICE && !dev->device_cfg)
		return map_cap(dev, at, &dev->device_cfg, &dev->device_cfg_length);
	return 0;
}

/* find_caps -- every capability the driver needs, or a message naming the first missing */
static int find_caps(struct virtio_device *dev)
{
	for (uint8_t at = pci_next_capability(&dev->pci, PCI_CAP_VENDOR, 0); at;
	     at = pci_next_capability(&dev->pci, PCI_CAP_VENDOR, at)) {
		int err = take_cap(dev, at);

		if (err)
			return err;
	}
	if (!dev->common || !dev->notify_base || !dev->isr || !dev->device_cfg) {
		say(err, dev, "it lacks the virtio capability of its %s; not a virtio 1.x device?",
		    !dev->common ? "common configuration" : !dev->notify_base ? "notifications"
		    : !dev->isr ? "ISR status" : "device configuration");
		return -ERR_NOTSUP;
	}
	return 0;
}

/* virtio_find -- find, check and map the first function of virtio device `type` */
int virtio_find(uint16_t type, const char *name, struct virtio_device *out)
{
	struct virtio_device dev = { .name = name };
	int err;

	if (!pci_find(VIRTIO_VENDOR, VIRTIO_PCI_MODERN_BASE + type, &dev.pci))
		return -ERR_NOENT;
	if (pci_enable(&dev.pci, true)) {
		say(err, &dev, "no room to place its registers (BARs)");
		return -ERR_NOSPC;
	}
	pci_write16(&dev.pci, PCI_COMMAND,
		    pci_read16(&dev.pci, PCI_COMMAND) | PCI_COMMAND_INTX_DISABLE);
	err = find_caps(&dev);
	if (err) {
		virtio_fail(&dev);
		return err;
	}
	*out = dev;
	return 0;
}

/* reset -- write status 0 and wait until the device reads back 0 */
static int reset(struct virtio_device *dev)
{
	wr8(dev->common, COMMON_DEVICE_STATUS, 0);
	for (unsigned i = 0; i < RESET_POLLS; i++)
		if (rd8(dev->common, COMMON_DEVICE_STATUS) == 0)
			return 0;
	return -ERR_IO;
}

/* device_features -- the 64 feature bits the device offers */
static uint64_t device_features(struct virtio_device *dev)
{
	uint64_t bits;

	wr32(dev->common, COMMON_DEVICE_FEATURE_SELECT, 0);
	bits = rd32(dev->common, COMMON_DEVICE_FEATURE);
	wr32(dev->common, COMMON_DEVICE_FEATURE_SELECT, 1);
	return bits | (uint64_t)rd32(dev->common, COMMON_DEVICE_FEATURE) << 32;
}

/* driver_features -- tell the device the 64 feature bits the driver takes */
static void driver_features(struct virtio_device *dev, uint64_t bits)
{
	wr32(dev->common, COMMON_DRIVER_FEATURE_SELECT, 0);
	wr32(dev->common, COMMON_DRIVER_FEATURE, (uint32_t)bits);
	wr32(dev->common, COMMON_DRIVER_FEATURE_SELECT, 1);
	wr32(dev->common, COMMON_DRIVER_FEATURE, (uint32_t)(bits >> 32));
}

/* virtio_start -- reset, acknowledge, negotiate, FEATURES_OK */
int virtio_start(struct virtio_device *dev, uint64_t wanted, uint64_t *agreed)
{
	uint64_t offered, taken;

	if (reset(dev)) {
		say(err, dev, "it does not finish its reset (status stays %#x); not used",
		    rd8(dev->common, COMMON_DEVICE_STATUS));
		goto failed;
	}
	status_set(dev, STATUS_ACKNOWLEDGE);
	status_set(dev, STATUS_DRIVER);
	offered = device_features(dev);
	if (!(offered & 1ull << VIRTIO_F_VERSION_1)) {
		say(err, dev, "it does not offer VIRTIO_F_VERSION_1 (features %#llx): a legacy device; not used",
		    (unsigned long long)offered);
		goto failed;
	}
	taken = (offered & wanted) | 1ull << VIRTIO_F_VERSION_1;
	driver_features(dev, taken);
	status_set(dev, STATUS_FEATURES_OK);
	if (!(rd8(dev->common, COMMON_DEVICE_STATUS) & STATUS_FEATURES_OK)) {
		say(err, dev, "it refused the features %#llx (FEATURES_OK not kept); not used",
		    (unsigned long long)taken);
		goto failed;
	}
	*agreed = taken;
	return 0;
failed:
	virtio_fail(dev);
	return -ERR_NOTSUP;
}

/* ring_init -- a queue's parts laid out in the zeroed frame at `phys` */
static void ring_init(struct virtq *q, uint64_t phys, uint16_t size)
{
	uint8_t *frame = phys_to_virt(phys);

	q->size = size;
	q->desc = (struct virtq_desc *)frame;
	q->avail = (struct virtq_avail *)(frame + RING_AVAIL_AT);
	q->used = (struct virtq_used *)(frame + RING_USED_AT);
	q->avail->flags = VIRTQ_AVAIL_F_NO_INTERRUPT;
	for (uint16_t i = 0; i + 1 < size; i++)
		q->desc[i].next = i + 1;
	q->free_head = 0;
	q->free_count = size;
	q->avail_idx = q->used_seen = 0;
}

/* queue_size -- the entries queue `index` gets: min(device's, ours); 0 if none */
static uint16_t queue_size(struct virtio_device *dev, uint16_t index)
{
	uint16_t offered;

	if (index >= rd16(dev->common, COMMON_NUM_QUEUES))
		return 0;
	wr16(dev->common, COMMON_QUEUE_SELECT, index);
	offered = rd16(dev->common, COMMON_QUEUE_SIZE);
	if (!offered || (offered & (offered - 1)))
		return 0; /* none, or not a power of two: no split queue */
	return offered < VIRTQ_SIZE_MAX ? offered : VIRTQ_SIZE_MAX;
}

/* find_doorbell -- the queue's notify address (spec 4.1.4.4); NULL if
 * it lies outside the notify area */
static volatile uint16_t *find_doorbell(struct virtio_device *dev)
{
	uint64_t at = (uint64_t)rd16(dev->common, COMMON_QUEUE_NOTIFY_OFF) *
		      dev->notify_multiplier;

	if (at + sizeof(uint16_t) > dev->notify_length)
		return NULL;
	return (volatile uint16_t *)(dev->notify_base + at);
}

/* virtio_queue_setup -- one split queue, its rings in DRAM, enabled */
int virtio_queue_setup(struct virtio_device *dev, uint16_t index, struct virtq *q)
{
	uint16_t size = queue_size(dev, index);
	uint64_t phys;

	if (!size) {
		say(err, dev, "it has no usable queue %u (none, or its size is not a power of two); not used",
		    index);
		goto failed;
	}
	q->index = index;
	q->notify = find_doorbell(dev);
	if (!q->notify) {
		say(err, dev, "queue %u's doorbell is outside its notify area; not used", index);
		goto failed;
	}
	if (frame_alloc(&phys)) {
		say(err, dev, "no DRAM frame for queue %u; not used", index);
		goto failed;
	}
	ring_init(q, phys, size);
	wr16(dev->common, COMMON_QUEUE_SIZE, size);
	wr64(dev->common, COMMON_QUEUE_DESC, phys);
	wr64(dev->common, COMMON_QUEUE_DRIVER, phys + RING_AVAIL_AT);
	wr64(dev->common, COMMON_QUEUE_DEVICE, phys + RING_USED_AT);
	wr16(dev->common, COMMON_QUEUE_ENABLE, 1);
	return 0;
failed:
	virtio_fail(dev);
	return -ERR_NOTSUP;
}

/* virtio_ready -- DRIVER_OK, and whether the device took it */
int virtio_ready(struct virtio_device *dev)
{
	status_set(dev, STATUS_DRIVER_OK);
	if (rd8(dev->common, COMMON_DEVICE_STATUS) & STATUS_NEEDS_RESET) {
		say(err, dev, "it needs a reset right after DRIVER_OK; not used");
		virtio_fail(dev);
		return -ERR_IO;
	}
	return 0;
}

/* virtio_config_read -- device configuration bytes, one generation's */
int virtio_config_read(struct virtio_device *dev, uint32_t offset, void *buf, uint32_t len)
{
	uint32_t *out = buf;

	if (len % 4 || offset % 4 || (uint64_t)offset + len > dev->device_cfg_length)
		return -ERR_RANGE;
	for (unsigned tries = 0; tries < GENERATION_TRIES; tries++) {
		uint8_t generation = rd8(dev->common, COMMON_CONFIG_GENERATION);

		for (uint32_t i = 0; i < len / 4; i++)
			out[i] = rd32(dev->device_cfg, offset + 4 * i);
		if (rd8(dev->common, COMMON_CONFIG_GENERATION) == generation)
			return 0;
	}
	return -ERR_AGAIN;
}

/* virtq_submit -- one chain made available, the device notified */
int virtq_submit(struct virtq *q, const struct virtq_buf *bufs, unsigned count)
{
	uint16_t head = q->free_head, at = head;

	if (!count || count > q->free_count)
		return -ERR_BUSY;
	for (unsigned i = 0; i < count; i++) {
		struct virtq_desc *d = &q->desc[at];

		d->addr = bufs[i].phys;
		d->len = bufs[i].len;
		d->flags = (bufs[i].device_writes ? VIRTQ_DESC_F_WRITE : 0) |
			   (i + 1 < count ? VIRTQ_DESC_F_NEXT : 0);
		if (i + 1 < count)
			at = d->next;
	}
	q->free_head = q->desc[at].next;
	q->free_count -= count;
	q->avail->ring[q->avail_idx % q->size] = head;
	q->avail_idx++;
	/* Invariant: the chain and its ring entry are written before idx. */
	__atomic_store_n(&q->avail->idx, q->avail_idx, __ATOMIC_RELEASE);
	/* Invariant: idx is visible before the doorbell rings. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	*q->notify = q->index;
	return head;
}

/* virtq_poll -- the next chain the device used, its descriptors freed */
int virtq_poll(struct virtq *q, uint32_t *written)
{
	uint16_t used_idx = __atomic_load_n(&q->used->idx, __ATOMIC_ACQUIRE);
	struct virtq_used_elem e;
	uint16_t at;

	if (used_idx == q->used_seen)
		return -ERR_AGAIN;
	e = q->used->ring[q->used_seen % q->size];
	q->used_seen++;
	if (e.id >= q->size)
		return -ERR_IO; /* the device names no descriptor of ours */
	/* give the chain back: its last descriptor links to the old free list */
	at = (uint16_t)e.id;
	q->free_count++;
	while (q->desc[at].flags & VIRTQ_DESC_F_NEXT) {
		at = q->desc[at].next;
		q->free_count++;
	}
	q->desc[at].next = q->free_head;
	q->free_head = (uint16_t)e.id;
	*written = e.len;
	return (int)e.id;
}
