/*
 * console.h -- the kernel's own console, until the object shell exists.
 */
#ifndef CORE_MONITOR_H
#define CORE_MONITOR_H

/* monitor_run -- read commands from the serial line forever */
__attribute__((noreturn)) void monitor_run(void);

#endif
