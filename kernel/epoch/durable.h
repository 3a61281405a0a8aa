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

struct trap_frame;

/* The flushes of this power-on (sysinfo, osh stats). */
struct durable_figures {
	bool requests;                 /* the NVM needs flush requests */
	bool journaled;                /* a journal protects the heap */
	uint64_t commits;              /* commits that waited for a flush */
	uint64_t groups;               /* flushes asked for */
	uint64_t flushes;              /* flushes completed (their cost: pmem_stats) */
	uint64_t failed;               /* flushes the device failed */
	uint64_t pages;                /* page images written to the journal */
	uint64_t journal_full;         /* groups that found the journal full */
	uint64_t sync_waits;           /* sync calls that blocked for a flush */
};

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

/* durable_poll -- at a safe or idle point: a completed flush lets its
 * output out, and the commits that waited start the next group */
void durable_poll(void);

/* durable_settle -- before the machine stops waiting for programs (power
 * off, the kernel's monitor): every commit made durable, its output out */
void durable_settle(void);

/* durable_release_link -- the link's output written while nothing changed
 * since the last commit: with the flush that covers that commit */
void durable_release_link(void);

/* durable_output_waiting -- whether output waits for a flush */
bool durable_output_waiting(void);

/* durable_sync -- SYS_SYNC, fsync: a commit is asked for; whether the
 * caller's state is durable now (else it is blocked, issued again when a
 * flush completes) */
bool durable_sync(struct trap_frame *tf);

/* durable_get_figures -- the flushes of this power-on */
void durable_get_figures(struct durable_figures *out);

#endif
