/*
 * printk.h -- the kernel's log.
 *
 * Every line goes to the serial console, prefixed by its level when the level
 * is not INFO. Lines above the `loglevel=` command-line setting are dropped.
 */
#ifndef CORE_PRINTK_H
#define CORE_PRINTK_H

#include <stdarg.h>

enum log_level {
	LOG_EMERG = 0, /* the system is going down */
	LOG_ERR = 3,   /* something failed */
	LOG_WARN = 4,  /* something is odd */
	LOG_INFO = 6,  /* what the system is doing (default) */
	LOG_DEBUG = 7, /* details for developers */
};

/* printk -- format and print one log message at a level */
void printk(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* vprintk -- printk with a va_list */
void vprintk(enum log_level level, const char *fmt, va_list ap);

/* printk_defer -- from now on, keep lines in the kernel's ring (in DRAM)
 * until printk_flush: power-on prints without a UART exit per byte */
void printk_defer(void);

/* printk_flush -- write every deferred line to the UART; lines go out at
 * once from now on. Called once the first user thread is loaded and on
 * every path that stops the machine; harmless when nothing is deferred. */
void printk_flush(void);

/* printk_set_level -- drop messages less important than `level` */
void printk_set_level(enum log_level level);

#define pr_err(...) printk(LOG_ERR, __VA_ARGS__)
#define pr_warn(...) printk(LOG_WARN, __VA_ARGS__)
#define pr_info(...) printk(LOG_INFO, __VA_ARGS__)
#define pr_debug(...) printk(LOG_DEBUG, __VA_ARGS__)

#endif
