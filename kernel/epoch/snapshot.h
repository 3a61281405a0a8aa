/*
 * snapshot.h -- whole-system snapshots: the kernel's policy (snapshot.c).
 */
#ifndef PROC_SNAPSHOT_H
#define PROC_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>

/* Power-on snapshots kept by default (`snapshot keep N` changes it):
 * docs/snapshots.md says why two. */
#define SNAPSHOT_KEEP_DEFAULT 2
#define SNAPSHOT_POWER_ON_PREFIX "power-on-"

/* snapshot_init -- at power-on, the heap open */
void snapshot_init(void);

/* snapshot_power_on -- keep the state this power-on starts from
 * (power-on-N), and only the `keep` newest such; at genesis, set `keep` */
void snapshot_power_on(uint64_t power_on, bool genesis);

/* snapshot_request -- take `name` at the commit that ends this call */
int snapshot_request(const char *name);

/* snapshot_remove -- remove a snapshot; its pages go back over commits */
int snapshot_remove(const char *name);

/* snapshot_set_keep -- keep the `keep` newest power-on snapshots */
int snapshot_set_keep(unsigned keep);

/* snapshot_after_commit -- right after each commit: a take asked for, a
 * step of giving back, a full area reported */
void snapshot_after_commit(void);

#endif
