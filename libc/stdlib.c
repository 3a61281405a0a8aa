/*
 * stdlib.c -- number parsing: the strto* family (numtext.c has the strict
 * parsers of command lines: parse_number, parse_size).
 *
 * All four strto* functions share one parser that reads an unsigned
 * magnitude and notes the sign and whether the magnitude overflowed 64 bits;
 * each then clamps to its own type the way C does. There is no errno: on
 * overflow the result saturates (see stdlib.h).
 */
#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>


/* <limits.h> is not usable with -nostdinc; gcc predefines what we need. */
#define LIBC_LONG_MAX __LONG_MAX__
#define LIBC_ULONG_MAX (__LONG_MAX__ * 2ul + 1ul)
#define LIBC_LLONG_MAX __LONG_LONG_MAX__
#define LIBC_ULLONG_MAX (__LONG_LONG_MAX__ * 2ull + 1ull)

/* What the common parser found. */
struct num_parse {
	unsigned long long magnitude; /* valid only if !overflow */
	bool negative;                /* a '-' came before the digits */
	bool overflow;                /* the digits do not fit in 64 bits */
};

/* digit_value -- the value of c as a digit of base 36 or less; 99 if none */
static unsigned digit_value(int c)
{
	if (isdigit(c))
		return (unsigned)(c - '0');
	if (isalpha(c))
		return (unsigned)(tolower(c) - 'a' + 10);
	return 99;
}

/* has_hex_prefix -- whether s starts with "0x" or "0X" and a hex digit */
static bool has_hex_prefix(const char *s)
{
	return s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
	       isxdigit((unsigned char)s[2]);
}

/* parse_lead -- skip spaces, sign and base prefix; returns the first digit */
static const char *parse_lead(const char *s, int *base, bool *negative)
{
	while (isspace((unsigned char)*s))
		s++;
	if (*s == '+' || *s == '-')
		*negative = *s++ == '-';
	if ((*base == 0 || *base == 16) && has_hex_prefix(s)) {
		*base = 16;
		return s + 2;
	}
	if (*base == 0)
		*base = s[0] == '0' ? 8 : 10;
	return s;
}

/* parse_common -- the part common to the strto* functions */
static void parse_common(const char *nptr, char **endptr, int base,
			 struct num_parse *num)
{
	const char *s, *digits;
	unsigned d;

	*num = (struct num_parse){0, false, false};
	if (endptr != NULL)
		*endptr = (char *)nptr; /* until some digit is converted */
	if (base != 0 && (base < 2 || base > 36))
		return;
	s = digits = parse_lead(nptr, &base, &num->negative);
	for (; (d = digit_value((unsigned char)*s)) < (unsigned)base; s++) {
		if (num->magnitude > (LIBC_ULLONG_MAX - d) / (unsigned)base)
			num->overflow = true;
		else
			num->magnitude = num->magnitude * (unsigned)base + d;
	}
	if (s != digits && endptr != NULL)
		*endptr = (char *)s;
}

/* clamp_unsigned -- the C result of an unsigned conversion with maximum max */
static unsigned long long clamp_unsigned(const struct num_parse *num,
					 unsigned long long max)
{
	if (num->overflow || num->magnitude > max)
		return max;
	return num->negative ? (0 - num->magnitude) & max : num->magnitude;
}

/* clamp_signed -- the C result of a signed conversion with maximum max */
static long long clamp_signed(const struct num_parse *num, long long max)
{
	unsigned long long limit = (unsigned long long)max;

	if (!num->negative)
		return num->overflow || num->magnitude > limit ?
			       max : (long long)num->magnitude;
	if (num->overflow || num->magnitude > limit)
		return -max - 1;
	return -(long long)num->magnitude;
}

/* strtoul -- parse an unsigned long in base 0 (auto: 0x.., 0.., decimal) or 2..36 */
unsigned long strtoul(const char *restrict nptr, char **restrict endptr,
		      int base)
{
	struct num_parse num;

	parse_common(nptr, endptr, base, &num);
	return (unsigned long)clamp_unsigned(&num, LIBC_ULONG_MAX);
}

/* strtoull -- parse an unsigned long long, as strtoul */
unsigned long long strtoull(const char *restrict nptr, char **restrict endptr,
			    int base)
{
	struct num_parse num;

	parse_common(nptr, endptr, base, &num);
	return clamp_unsigned(&num, LIBC_ULLONG_MAX);
}

/* strtol -- parse a long, as strtoul but saturating at LONG_MIN/LONG_MAX */
long strtol(const char *restrict nptr, char **restrict endptr, int base)
{
	struct num_parse num;

	parse_common(nptr, endptr, base, &num);
	return (long)clamp_signed(&num, LIBC_LONG_MAX);
}

/* strtoll -- parse a long long, as strtol */
long long strtoll(const char *restrict nptr, char **restrict endptr, int base)
{
	struct num_parse num;

	parse_common(nptr, endptr, base, &num);
	return clamp_signed(&num, LIBC_LLONG_MAX);
}
