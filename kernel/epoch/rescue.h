/*
 * rescue.h -- the console's shell, kept alive; the safe power-on (`safe`
 * on the command line): the saved processes held, a rescue shell on the
 * console, and SYS_RESUME (rescue.c).
 */
#ifndef EPOCH_RESCUE_H
#define EPOCH_RESCUE_H

#include <stdint.h>

struct pctx;

/* rescue_power_on -- at power-on, once the kernel root is found: a rescue
 * shell an earlier safe power-on left is dismissed; then with `safe` on
 * the command line every saved process is held (sched_hold) and a rescue
 * shell starts, and without it the rescue reserve is filled */
void rescue_power_on(void);

/* rescue_keep_shell -- the console always has a shell: at power-on (after
 * rescue_power_on), and at every safe point after a process ended, a
 * fresh osh starts if none holds the console, and the console says why */
void rescue_keep_shell(void);

/* rescue_resume -- SYS_RESUME: every held process runs on, and the rescue
 * shell is dismissed; how many were released, -ERR_INVAL if nothing is
 * held, or SYSCALL_GONE if the caller was the rescue shell and ended */
int64_t rescue_resume(struct pctx *caller);

#endif
