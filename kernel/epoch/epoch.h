/*
 * epoch.h -- the epoch: the kernel's one long transaction, when it
 * commits, and what every commit does (epoch.c).
 */
#ifndef PROC_EPOCH_H
#define PROC_EPOCH_H

#include <stdbool.h>
#include <stdint.h>

#include "ferrite/syscall.h"

/* The most one kernel entry (a system call or a fault) may log: FE_IO_MAX
 * of data plus metadata. Every entry starts with at least this much log
 * free (epoch_log_short), so objstore never runs out of log half way. */
#define EPOCH_ENTRY_LOG_MAX (FE_IO_MAX * 2 + (64u << 10))

/* epoch_start -- the system starts running: the undo log must hold two
 * kernel entries, the periodic commit follows ckpt= */
void epoch_start(void);

/* epoch_log_short -- at a kernel entry, before anything changes: whether
 * the log could not take one more entry; if so a commit is asked for, and
 * the caller backs out (a system call is restarted, a fault happens again) */
bool epoch_log_short(void);

/* epoch_user_logged -- whether user pages join the epoch: always, but
 * with `nopersist` on the command line, a mode for measuring what
 * persistence costs (no DRAM cache, user pages mapped onto the NVM
 * writable and never logged, no periodic commits; a power cut may leave
 * user memory newer than the last commit) */
bool epoch_user_logged(void);

/* epoch_log_keep -- undo log to keep free at a safe point, for the next
 * kernel entry and the next commit's write-back of the DRAM cache: what
 * work that may stop at any point (the reaper) leaves untouched */
uint64_t epoch_log_keep(void);

/* epoch_request -- commit at the next safe point (SYS_SYNC, a full written
 * set, a writer waiting for console room) */
void epoch_request(void);

/* epoch_due -- at a safe point: whether the epoch should end now */
bool epoch_due(void);

/* epoch_dirty -- whether the running epoch logged anything */
bool epoch_dirty(void);

/* epoch_commit -- end the running epoch at a safe point, the running
 * thread's registers saved: the one way the kernel commits */
void epoch_commit(void);

/* epoch_commit_since -- epoch_commit, its pause (the figures, the cost
 * rule) counted from `start`: when the scheduler began to stop the other
 * CPUs for it */
void epoch_commit_since(uint64_t start);

/* epoch_power_on_done -- the first thread of this power-on is loaded (or
 * every thread waits): say how long the power-on took, then send the
 * power-on's log lines and the output committed before the power went.
 * Once per power-on; later calls do nothing. */
void epoch_power_on_done(void);

/* epoch_figures -- the checkpoint figures of sysinfo */
void epoch_figures(struct fe_sysinfo *info);

#endif
