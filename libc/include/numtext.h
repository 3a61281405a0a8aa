/*
 * numtext.h -- numbers as people type and read them: a count or an offset
 * on a command line, a size with a binary unit ("64M"), and a size written
 * for a person ("10.5 KiB").
 *
 * The one home of these for the kernel (its command line), the programs
 * (osh, fe_parse_arg) and the host tools (objtool, the benchmarks), so
 * that every part of Ferrite reads "4K" and writes "1.5 MiB" alike.
 * libc/numtext.c needs nothing but snprintf: the host tools compile it
 * against their own C library, finding this header after the host's
 * (-idirafter libc/include). tools/numtext.py reads and writes sizes by
 * the same rules for the host's Python (tests/system/test_numtext.py
 * compares).
 */
#ifndef LIBC_NUMTEXT_H
#define LIBC_NUMTEXT_H

#include <stddef.h>
#include <stdint.h>

/* The longest size_text, "16777216.0 TiB", and its NUL. */
#define SIZE_TEXT_MAX 16

/*
 * parse_number -- a decimal number, or a hexadecimal one after "0x" or
 * "0X", into *out; 0, -ERR_INVAL (no digits, a sign, a space, anything
 * after the digits) or -ERR_RANGE (more than 64 bits). *out is untouched
 * on error.
 */
int parse_number(const char *text, uint64_t *out);

/*
 * parse_size -- parse "<decimal>[KMGT]" (binary units, either case) into
 * *out; 0, -ERR_INVAL (empty, no digits, anything else after them) or
 * -ERR_RANGE (does not fit in 64 bits). *out is untouched on error.
 */
int parse_size(const char *text, uint64_t *out);

/*
 * size_text -- bytes in the largest binary unit they reach (B, KiB, MiB,
 * GiB, TiB): whole when exact ("64 MiB", "100 B"), else to a tenth,
 * rounded to nearest, ties to even ("10.5 KiB", as printf's "%.1f" would
 * round the exact quotient); into buf (cap bytes, SIZE_TEXT_MAX for any),
 * which it returns.
 */
const char *size_text(char *buf, size_t cap, uint64_t bytes);

#endif
