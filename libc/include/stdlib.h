/*
 * stdlib.h -- number parsing.
 *
 * The strto* functions follow C, with one difference: there is no errno.
 * On overflow they saturate (strtoul: ULONG_MAX, strtol: LONG_MAX or
 * LONG_MIN, ...) and still consume every digit; a caller that must tell
 * "18446744073709551615" from an overflow should use parse_number
 * (numtext.h) or check the digits itself. An invalid base (not 0 or
 * 2..36) or a string without digits gives 0 with *endptr = nptr.
 */
#ifndef LIBC_STDLIB_H
#define LIBC_STDLIB_H

#include <stdint.h>

/* strtoul -- parse an unsigned long in base 0 (auto: 0x.., 0.., decimal) or 2..36 */
unsigned long strtoul(const char *restrict nptr, char **restrict endptr,
		      int base);

/* strtoull -- parse an unsigned long long, as strtoul */
unsigned long long strtoull(const char *restrict nptr, char **restrict endptr,
			    int base);

/* strtol -- parse a long, as strtoul but saturating at LONG_MIN/LONG_MAX */
long strtol(const char *restrict nptr, char **restrict endptr, int base);

/* strtoll -- parse a long long, as strtol */
long long strtoll(const char *restrict nptr, char **restrict endptr, int base);

#endif
