/*
 * virtio.h -- the virtio 1.x transport over PCI ("modern" virtio) and its
 * split virtqueues, polled: one home for every virtio device Ferrite
 * drives (today virtio-pmem, virtio_pmem.c). The design is in virtio.c.
 */
#ifndef DEV_VIRTIO_H
#define DEV_VIRTIO_H

#include <stdbool.h>
#include <stdint.h>

#include "dev/pci.h"

#define VIRTIO_VENDOR 0x1af4
#define VIRTIO_PCI_MODERN_BASE 0x1040 /* + the virtio device id (spec 4.1.2.1) */

/* Feature bits the transport knows (spec 6). */
#define VIRTIO_F_VERSION_1 32

/* The most descriptors a queue is given, whatever the device offers: a
 * polled driver with one request in flight needs few. */
#define VIRTQ_SIZE_MAX 8

/* The split virtqueue's three parts, as the device reads them (spec 2.7);
 * all little-endian, which x86 is. */
struct virtq_desc {
	uint64_t addr;  /* guest-physical */
	uint32_t len;
	uint16_t flags; /* VIRTQ_DESC_F_* */
	uint16_t next;
};
#define VIRTQ_DESC_F_NEXT 1
#define VIRTQ_DESC_F_WRITE 2 /* the device writes this buffer */

struct virtq_avail {
	uint16_t flags; /* VIRTQ_AVAIL_F_NO_INTERRUPT */
	uint16_t idx;
	uint16_t ring[];
};
#define VIRTQ_AVAIL_F_NO_INTERRUPT 1

struct virtq_used_elem {
	uint32_t id;  /* the head of the chain used */
	uint32_t len; /* bytes the device wrote */
};

struct virtq_used {
	uint16_t flags;
	uint16_t idx;
	struct virtq_used_elem ring[];
};

_Static_assert(sizeof(struct virtq_desc) == 16, "virtq_desc is 16 bytes (spec 2.7.5)");
_Static_assert(sizeof(struct virtq_used_elem) == 8, "virtq_used_elem is 8 bytes (spec 2.7.8)");

/* One split virtqueue; volatile, in DRAM frames (virtio_queue_setup).
 * Driver-only fields are the driver's own, under its caller's lock. */
struct virtq {
	uint16_t index;                 /* the queue's number on its device */
	uint16_t size;                  /* entries: a power of two, <= VIRTQ_SIZE_MAX */
	struct virtq_desc *desc;        /* the rings, in one frame (virtio.c) */
	struct virtq_avail *avail;
	struct virtq_used *used;
	volatile uint16_t *notify;      /* the queue's doorbell */
	uint16_t avail_idx;             /* chains ever made available (mod 2^16) */
	uint16_t used_seen;             /* used entries taken back (mod 2^16) */
	uint16_t free_head;             /* the free descriptors, linked by .next */
	uint16_t free_count;
};

/* A virtio PCI function, found and mapped (virtio_find). */
struct virtio_device {
	struct pci_device pci;
	volatile uint8_t *common;       /* struct virtio_pci_common_cfg (virtio.c) */
	volatile uint8_t *notify_base;  /* the notify capability's area */
	uint32_t notify_length;
	uint32_t notify_multiplier;     /* notify_off_multiplier */
	volatile uint8_t *isr;          /* the ISR status byte (unused: polled) */
	volatile uint8_t *device_cfg;   /* the device-specific configuration */
	uint32_t device_cfg_length;
	const char *name;               /* for messages: "virtio-pmem" */
};

/* One buffer of a request: device-readable, or device-writable. */
struct virtq_buf {
	uint64_t phys;
	uint32_t len;
	bool device_writes;
};

/* virtio_find -- the first modern virtio function of device id `type`
 * (1af4:1040+type) on the bus: its capabilities found and checked, its
 * BARs placed, its registers mapped uncached, bus mastering on; `name`
 * says it in messages. 0, -ERR_NOENT when there is none, or another
 * negative error after a precise message (then the device is not used). */
int virtio_find(uint16_t type, const char *name, struct virtio_device *out);

/* virtio_start -- reset, ACKNOWLEDGE, DRIVER, features: VERSION_1 and
 * those of `wanted` the device offers, FEATURES_OK read back; the
 * features agreed in *agreed. 0, or -ERR_NOTSUP after a precise message
 * (the device is then left FAILED). */
int virtio_start(struct virtio_device *dev, uint64_t wanted, uint64_t *agreed);

/* virtio_queue_setup -- queue `index` of dev, min(the device's size,
 * VIRTQ_SIZE_MAX) entries, its rings in a zeroed DRAM frame, interrupts
 * suppressed, enabled; 0, or a negative error after a message (the device
 * is then left FAILED) */
int virtio_queue_setup(struct virtio_device *dev, uint16_t index, struct virtq *q);

/* virtio_ready -- DRIVER_OK: the device may now use its queues; 0, or
 * -ERR_IO when it says it needs a reset */
int virtio_ready(struct virtio_device *dev);

/* virtio_fail -- say the driver gave up on dev (status FAILED) */
void virtio_fail(struct virtio_device *dev);

/* virtio_config_read -- `len` bytes (a multiple of 4) at `offset` of the
 * device-specific configuration, read consistently (config_generation);
 * 0 or -ERR_RANGE when they are not all there */
int virtio_config_read(struct virtio_device *dev, uint32_t offset, void *buf, uint32_t len);

/* virtq_submit -- make one chain of `count` buffers available (the
 * device-readable ones first) and notify the device; its head (>= 0), or
 * -ERR_BUSY when the queue lacks free descriptors */
int virtq_submit(struct virtq *q, const struct virtq_buf *bufs, unsigned count);

/* virtq_poll -- a chain the device has used: its head (>= 0) with the
 * bytes it wrote in *written, its descriptors free again; -ERR_AGAIN when
 * none is used yet */
int virtq_poll(struct virtq *q, uint32_t *written);

#endif
