/*
 * console.h -- the kernel's own console, until the object shell exists.
 */
#ifndef CORE_CONSOLE_H
#define CORE_CONSOLE_H

/* console_run -- read commands from the serial line forever */
__attribute__((noreturn)) void console_run(void);

#endif
