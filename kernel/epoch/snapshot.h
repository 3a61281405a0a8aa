/*
 * snapshot.h -- whole-system snapshots: the kernel's policy (snapshot.c).
 */
#ifndef EPOCH_SNAPSHOT_H
#define EPOCH_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>

/* Power-on snapshots kept by default (`snapshot keep N` changes it):
 * docs/snapshots.md says why two. */
#define SNAPSHOT_KEEP_DEFAULT 2
#define SNAPSHOT_POWER_ON_PREFIX "power-on-"

/* snapshot_init -- at power-on, the heap open; at genesis, the default
 * retention is set in the running transaction */
void snapshot_init(bool genesis);

/* snapshot_power_on -- keep the state this power-on starts from
 * (power-on-N), and only the `keep` newest such; whether power-on-N was
 * taken, alone in the epoch that just began: the caller commits at once */
bool snapshot_power_on(uint64_t power_on);

/* snapshot_request -- take `name` at the commit that ends this call */
int snapshot_request(const char *name);

/* snapshot_remove -- remove a snapshot; its pages go back over commits */
int snapshot_remove(const char *name);

/* snapshot_set_keep -- keep the `keep` newest power-on snapshots */
int snapshot_set_keep(unsigned keep);

/* snapshot_take_pending -- right after a commit: take the snapshot asked
 * for, alone in the epoch that just began; whether one was taken (the
 * caller commits at once) */
bool snapshot_take_pending(void);

/* snapshot_after_commit -- after each commit (and its snapshot): a step
 * of giving back removed snapshots' pages, a full area reported */
void snapshot_after_commit(void);

#endif
