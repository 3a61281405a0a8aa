/*
 * cmdline.h -- the kernel command line.
 *
 * Words separated by spaces, each `key=value` or a bare `key` (whose value
 * is the empty string). The last word with a given key wins. Recognised
 * keys are listed in docs/cmdline.md; an unknown key draws a warning at
 * boot so a typo does not pass silently.
 */
#ifndef CORE_CMDLINE_H
#define CORE_CMDLINE_H

#include <stdbool.h>
#include <stdint.h>

/* cmdline_init -- keep a copy of the loader's command line and parse it */
void cmdline_init(const char *text);

/* cmdline_get -- the value of `key`, "" for a bare word, NULL if absent */
const char *cmdline_get(const char *key);

/* cmdline_is -- whether `key` is present with exactly `value` */
bool cmdline_is(const char *key, const char *value);

/* cmdline_has -- whether `key` is present at all */
bool cmdline_has(const char *key);

/* cmdline_number -- key=N, a decimal number from min to max, in *out;
 * `fallback` in *out when the key is absent (0) or its value is not such
 * a number (-ERR_INVAL: the caller says so, in its own words) */
int cmdline_number(const char *key, uint64_t min, uint64_t max,
		   uint64_t fallback, uint64_t *out);

/* cmdline_text -- the whole command line as given */
const char *cmdline_text(void);

/* cmdline_warn_unknown -- print a warning for every key nobody knows */
void cmdline_warn_unknown(void);

#endif
