/*
 * durable.h -- when a commit is durable on a device with flush requests
 * (virtio-pmem): group commits through the journal, output that waits for
 * its flush, sync. On an NVDIMM every call but durable_power_on is the
 * commit's own release. The design: durable.c.
 */
#ifndef EPOCH_DURABLE_H
#define EPOCH_DURABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "dev/nvm.h"
#include "ferrite/syscall.h"

struct trap_frame;


/* durable_power_on -- before the heap opens: on a device with flush
 * requests, rebuild the heap from its base copy and journal, or lay a
 * blank device out; nvm->size becomes the heap's. 0, or an error after a
 * clear message (the caller halts) */
int durable_power_on(struct nvm *nvm);

/* durable_power_on_done -- the heap is open and the kernel root found:
 * what it holds is durable; syncs the power cut short are issued again */
void durable_power_on_done(void);

/* durable_committed -- at the end of every commit, every other CPU
 * stopped: the epoch's output goes out (`running`: the system runs; power-on's own
 * commits release nothing), now or once the flush of its group completed */
void durable_committed(bool running);

/* durable_group_full -- whether the pages changed since the last group
 * fill a quarter of the journal's room: a commit is due (at a kernel
 * entry, epoch_reserve_entry) */
bool durable_group_full(void);

/* durable_poll -- at a safe or idle point: a completed flush lets its
 * output out, and the commits that waited start the next group */
void durable_poll(void);

/* durable_settle -- before the machine stops waiting for programs (power
 * off, the kernel's monitor): every commit made durable, its output out */
void durable_settle(void);

/* durable_release_link -- the link's output written while nothing changed
 * since the last commit: with the flush that covers that commit */
void durable_release_link(void);

/* durable_sync -- SYS_SYNC, fsync: a commit is asked for; whether the
 * caller's state is durable now (else it is blocked, issued again when a
 * flush completes) */
bool durable_sync(struct trap_frame *tf);

/* durable_figures -- sysinfo's figures of the flushes of this power-on */
void durable_figures(struct fe_sysinfo *info);

#endif
