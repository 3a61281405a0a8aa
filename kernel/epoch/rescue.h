/*
 * safe.h -- the safe power-on: the saved processes held, a rescue shell on
 * the console, and SYS_RESUME (safe.c).
 */
#ifndef PROC_SAFE_H
#define PROC_SAFE_H

#include <stdbool.h>
#include <stdint.h>

struct pctx;

/* safe_power_on -- at power-on, once the kernel root is found: a rescue
 * shell an earlier safe power-on left is dismissed; then with `safe` on
 * the command line every saved process is held and a rescue shell starts,
 * and without it the rescue reserve is filled */
void safe_power_on(void);

/* safe_holding -- whether a safe power-on holds processes (until SYS_RESUME) */
bool safe_holding(void);

/* safe_held -- whether p is held: the scheduler must not run it */
bool safe_held(const struct pctx *p);

/* safe_resume -- SYS_RESUME: every held process runs on, and the rescue
 * shell is dismissed; how many were released, -ERR_INVAL if nothing is
 * held, or SYSCALL_GONE if the caller was the rescue shell and ended */
int64_t safe_resume(struct pctx *caller);

#endif
