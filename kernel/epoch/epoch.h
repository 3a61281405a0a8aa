/*
 * epoch.h -- the epoch: the kernel's one long transaction, when it
 * commits, and what every commit does (epoch.c).
 */
#ifndef EPOCH_EPOCH_H
#define EPOCH_EPOCH_H

#include <stdbool.h>
#include <stdint.h>

#include "ferrite/syscall.h"

struct trap_frame;

/* epoch_start -- the system starts running: the undo log must hold two
 * kernel entries, the periodic commit follows ckpt=, nopersist is read */
void epoch_start(void);

/* epoch_reserve_entry -- at a kernel entry, before anything changes:
 * whether the log can take one more entry (HEAP_ENTRY_LOG_MAX); if not, a
 * commit is asked for, and the caller backs out (a system call is
 * restarted, a fault happens again) */
bool epoch_reserve_entry(void);

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

/* epoch_safe_point -- at a safe point (tf: this CPU's thread, NULL if it
 * runs none): commit if asked for, if the log is short, or if the
 * periodic interval is over and anything changed (then link output made
 * while nothing changed goes out: no commit will come for it); whether it
 * committed */
bool epoch_safe_point(struct trap_frame *tf);

/* epoch_idle_point -- this CPU found no thread to run: commit if anything
 * changed and the whole system would idle (`others_run` false) or output
 * waits to be seen; whether it committed */
bool epoch_idle_point(bool others_run);

/* epoch_commit -- end the running epoch at a safe point, every running
 * thread's registers saved (this CPU's from tf; NULL: it runs none, as at
 * power-on): the one way the kernel commits (the recipe: epoch.c) */
void epoch_commit(struct trap_frame *tf);

/* epoch_power_on_done -- the first thread of this power-on is loaded (or
 * every thread waits): say how long the power-on took, then send the
 * power-on's log lines and the output committed before the power went.
 * Once per power-on; later calls do nothing. */
void epoch_power_on_done(void);

/* epoch_figures -- the checkpoint figures of sysinfo */
void epoch_figures(struct fe_sysinfo *info);

#endif
