/*
 * numtext.c -- numbers as people type and read them (numtext.h).
 *
 * Strict on input: a number is its digits and nothing else -- no space,
 * no sign, no trailing text -- and one that does not fit in 64 bits is an
 * error, never a saturated value. Exact on output: size_text works in
 * integers, so the kernel (no floating point) and the host write the same
 * text for the same bytes.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <ferrite/errors.h>
#include <numtext.h>

/* digit_value -- the value of c as a hexadecimal digit; 99 if it is none */
static unsigned digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return (unsigned)(c - '0');
	if (c >= 'a' && c <= 'f')
		return (unsigned)(c - 'a' + 10);
	if (c >= 'A' && c <= 'F')
		return (unsigned)(c - 'A' + 10);
	return 99;
}

/* read_digits -- the digits of `base` at *s into *value, *s moved past
 * them; false if they make more than 64 bits */
static bool read_digits(const char **s, unsigned base, uint64_t *value)
{
	bool fits = true;
	unsigned d;

	*value = 0;
	for (; (d = digit_value(**s)) < base; (*s)++) {
		if (*value > (UINT64_MAX - d) / base)
			fits = false;
		else
			*value = *value * base + d;
	}
	return fits;
}

/* parse_number -- decimal, or hexadecimal after 0x; 0, -ERR_INVAL or -ERR_RANGE */
int parse_number(const char *text, uint64_t *out)
{
	const char *s = text, *digits;
	unsigned base = 10;
	uint64_t value;
	bool fits;

	if (s == NULL)
		return -ERR_INVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	digits = s;
	fits = read_digits(&s, base, &value);
	if (s == digits || *s != '\0')
		return -ERR_INVAL;
	if (!fits)
		return -ERR_RANGE;
	*out = value;
	return 0;
}

/* size_shift -- log2 of the unit a size suffix stands for; -1 if none */
static int size_shift(char c)
{
	switch (c) {
	case 'k': case 'K':
		return 10;
	case 'm': case 'M':
		return 20;
	case 'g': case 'G':
		return 30;
	case 't': case 'T':
		return 40;
	default:
		return -1;
	}
}

/* parse_size -- parse "<decimal>[KMGT]" into *out; 0, -ERR_INVAL or -ERR_RANGE */
int parse_size(const char *text, uint64_t *out)
{
	const char *s = text;
	uint64_t value;
	int shift = 0;
	bool fits;

	if (s == NULL || digit_value(*s) >= 10)
		return -ERR_INVAL;
	fits = read_digits(&s, 10, &value);
	if (*s != '\0' && (shift = size_shift(*s++)) < 0)
		return -ERR_INVAL;
	if (*s != '\0')
		return -ERR_INVAL;
	if (!fits || value > (UINT64_MAX >> shift))
		return -ERR_RANGE;
	*out = value << shift;
	return 0;
}

/* size_text -- "64 MiB", "10.5 KiB", "100 B" into buf */
const char *size_text(char *buf, size_t cap, uint64_t bytes)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	unsigned u = 0, shift = 0;
	uint64_t whole, tenths, rest, scale;

	while (u + 1 < sizeof(units) / sizeof(units[0]) && bytes >> shift >= 1024) {
		shift += 10;
		u++;
	}
	scale = 1ull << shift;
	whole = bytes >> shift;
	if (bytes % scale == 0) {
		snprintf(buf, cap, "%lu %s", (unsigned long)whole, units[u]);
		return buf;
	}
	tenths = bytes % scale * 10 >> shift;       /* below 2^44: no overflow */
	rest = bytes % scale * 10 % scale;
	if (rest * 2 > scale || (rest * 2 == scale && tenths % 2))
		tenths++;
	if (tenths == 10) {
		whole++;
		tenths = 0;
	}
	snprintf(buf, cap, "%lu.%lu %s", (unsigned long)whole, (unsigned long)tenths, units[u]);
	return buf;
}
