/*
 * ivshmem.h -- QEMU's inter-VM shared memory device (ivshmem-plain): a
 * piece of host memory the machine sees as a PCI BAR, which a host
 * program can map too. The host link carries bulk data through it
 * (hostlink/hostlink.c, docs/hostlink.md).
 */
#ifndef DEV_IVSHMEM_H
#define DEV_IVSHMEM_H

#include <stdbool.h>
#include <stdint.h>

struct ivshmem {
	uint8_t *base;          /* kernel address of the shared memory */
	uint64_t size;          /* bytes */
};

/* ivshmem_find -- the first ivshmem-plain device's shared memory, placed
 * and mapped (cached: it is ordinary host memory); false, after a line
 * saying why, when there is none that can be used */
bool ivshmem_find(struct ivshmem *out);

#endif
