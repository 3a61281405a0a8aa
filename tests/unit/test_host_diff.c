/*
 * test_host_diff.c -- Ferrite's libc against the host's C library, on
 * generated inputs: every combination of printf flags, width, precision,
 * length modifier and conversion over a set of awkward values, the
 * strto* functions over generated strings in several bases, and size_text
 * against "%.1f" of the exact quotient (how objtool wrote sizes before
 * libc had size_text).
 *
 * Only behaviour C defines is compared; where Ferrite chose differently from
 * glibc (%p, %s of NULL, unknown conversions, invalid bases) test_libc.c
 * pins Ferrite's choice down. The host's functions are wrapped before
 * libc_names.h renames vsnprintf, strtoul... to Ferrite's.
 */
#include "check.h"

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>

/* host_vsnprintf -- the host C library's vsnprintf, the reference */
static int host_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	return vsnprintf(buf, size, fmt, ap);
}

/* host_snprintf -- the host's snprintf, to build the inputs */
__attribute__((format(printf, 3, 4)))
static void host_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	host_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

/* host_strtoull -- the host's strtoull, the reference */
static unsigned long long host_strtoull(const char *s, char **end, int base)
{
	return strtoull(s, end, base);
}

/* host_strtoll -- the host's strtoll, the reference */
static long long host_strtoll(const char *s, char **end, int base)
{
	return strtoll(s, end, base);
}

/* host_strtoul -- the host's strtoul, the reference */
static unsigned long host_strtoul(const char *s, char **end, int base)
{
	return strtoul(s, end, base);
}

/* host_strtol -- the host's strtol, the reference */
static long host_strtol(const char *s, char **end, int base)
{
	return strtol(s, end, base);
}

#include "libc_names.h"

#include "libc/include/numtext.h"
#include "libc/include/stdio.h"
#include "libc/include/stdlib.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Mismatches printed in full per test; the rest are only counted. */
#define MAX_REPORTS 20

static unsigned diff_reports;

/* report_format -- print one difference between the two formatters */
static void report_format(const char *fmt, size_t size, const char *ours,
			  int ours_n, const char *host, int host_n)
{
	check_current_failed = true;
	if (++diff_reports > MAX_REPORTS)
		return;
	printf("  format \"%s\" (size %zu): ours %d, host %d\n", fmt, size,
	       ours_n, host_n);
	check_show("ours", ours, ours_n > 0 ? (size_t)ours_n : 0);
	check_show("host", host, host_n > 0 ? (size_t)host_n : 0);
}

/* compare_sized -- format with both into buffers of `size`; report a difference */
static void compare_sized(size_t size, const char *fmt, va_list ap)
{
	char ours[256], host[256];
	va_list copy;
	int ours_n, host_n;

	for (size_t i = 0; i < sizeof(ours); i++)
		ours[i] = host[i] = 'G';
	va_copy(copy, ap);
	ours_n = vsnprintf(ours, size, fmt, copy);
	va_end(copy);
	va_copy(copy, ap);
	host_n = host_vsnprintf(host, size, fmt, copy);
	va_end(copy);
	if (ours_n != host_n || !check_bytes_eq(ours, host, sizeof(ours)))
		report_format(fmt, size, ours, ours_n, host, host_n);
}

/* compare -- format with both, whole and truncated to half */
static void compare(const char *fmt, ...)
{
	char probe[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	compare_sized(256, fmt, ap);
	va_end(ap);
	va_start(ap, fmt);
	n = host_vsnprintf(probe, sizeof(probe), fmt, ap);
	va_end(ap);
	va_start(ap, fmt);
	compare_sized(n > 0 ? (size_t)n / 2 : 0, fmt, ap);
	va_end(ap);
}

/* Pieces of conversion specifications. */
static const char *const widths[] = {"", "1", "2", "7", "24"};
static const char *const precisions[] = {"", ".", ".0", ".1", ".3", ".24"};
static const char *const lengths[] = {"hh", "h", "", "l", "ll", "z", "t", "j"};
static const char flag_chars[] = "-0+ #";

static const long long values[] = {
	0, 1, -1, 7, -8, 42, 127, -128, 255, 256, 32767, -32768, 65535,
	INT_MAX, INT_MIN, UINT_MAX, 0x123456789abll, LLONG_MAX, LLONG_MIN,
};

/* flags_text -- the flag characters for the bits of mask */
static void flags_text(unsigned mask, char *out)
{
	for (unsigned i = 0; flag_chars[i] != '\0'; i++) {
		if (mask & (1u << i))
			*out++ = flag_chars[i];
	}
	*out = '\0';
}

/* compare_integer -- compare one integer conversion, passing v as the right type */
static void compare_integer(const char *fmt, const char *length, char conv,
			    long long v)
{
	bool is_signed = conv == 'd' || conv == 'i';

	if (length[0] == 'h' || length[0] == '\0')
		compare(fmt, is_signed ? (int)v : (int)(unsigned)v);
	else if (length[0] == 'l' && length[1] == '\0')
		compare(fmt, is_signed ? (long)v : (long)(unsigned long)v);
	else if (length[0] == 'l')
		compare(fmt, (long long)v);
	else if (length[0] == 'z')
		compare(fmt, (size_t)v);
	else if (length[0] == 't')
		compare(fmt, (ptrdiff_t)v);
	else
		compare(fmt, (intmax_t)v);
}

/* compare_integer_spec -- every length, conversion and value for one
 * combination of flags, width and precision */
static void compare_integer_spec(const char *flags, const char *width,
				 const char *precision)
{
	const char *convs = "diuxXo";
	char fmt[64];

	for (size_t l = 0; l < ARRAY_SIZE(lengths); l++) {
		for (const char *c = convs; *c != '\0'; c++) {
			host_snprintf(fmt, sizeof(fmt), "[%%%s%s%s%s%c]", flags,
				      width, precision, lengths[l], *c);
			for (size_t v = 0; v < ARRAY_SIZE(values); v++)
				compare_integer(fmt, lengths[l], *c, values[v]);
		}
	}
}

CHECK_TEST(format_integers_every_combination)
{
	char flags[8];

	diff_reports = 0;
	for (unsigned mask = 0; mask < 32; mask++) {
		flags_text(mask, flags);
		for (size_t w = 0; w < ARRAY_SIZE(widths); w++) {
			for (size_t p = 0; p < ARRAY_SIZE(precisions); p++)
				compare_integer_spec(flags, widths[w], precisions[p]);
		}
	}
}

CHECK_TEST(format_star_every_combination)
{
	static const char *const fmts[] = {"[%*.*d]", "[%-*.*d]", "[%0*.*d]",
					   "[%+*.*x]", "[%#*.*o]", "[%*.*s]",
					   "[%-*.*s]", "[%*.*lld]"};

	diff_reports = 0;
	for (int w = -30; w <= 30; w += 3) {
		for (int p = -3; p <= 30; p += 3) {
			for (size_t v = 0; v < ARRAY_SIZE(values); v++) {
				compare(fmts[0], w, p, (int)values[v]);
				compare(fmts[1], w, p, (int)values[v]);
				compare(fmts[2], w, p, (int)values[v]);
				compare(fmts[3], w, p, (unsigned)values[v]);
				compare(fmts[4], w, p, (unsigned)values[v]);
				compare(fmts[7], w, p, values[v]);
			}
			compare(fmts[5], w, p, "some text");
			compare(fmts[6], w, p, "");
		}
	}
}

CHECK_TEST(format_strings_and_chars)
{
	static const char *const strings[] = {"", "a", "hello", "with spaces",
					      "a string of twenty-five"};
	static const char chars[] = {'a', ' ', '~', '%', '\0', '\x7f', '\xe9'};
	static const char *const flag_sets[] = {"", "-"};
	char fmt[64];

	diff_reports = 0;
	for (size_t f = 0; f < ARRAY_SIZE(flag_sets); f++) {
		for (size_t w = 0; w < ARRAY_SIZE(widths); w++) {
			for (size_t p = 0; p < ARRAY_SIZE(precisions); p++) {
				host_snprintf(fmt, sizeof(fmt), "<%%%s%s%ss>",
					      flag_sets[f], widths[w], precisions[p]);
				for (size_t s = 0; s < ARRAY_SIZE(strings); s++)
					compare(fmt, strings[s]);
			}
			host_snprintf(fmt, sizeof(fmt), "<%%%s%sc>", flag_sets[f],
				      widths[w]);
			for (size_t c = 0; c < ARRAY_SIZE(chars); c++)
				compare(fmt, chars[c]);
		}
	}
	compare("%s=%d%%, %c%c%c %5.2s|%-6u|%#X", "load", 93, 'o', 'k', '!',
		"abc", 17u, 48879u);
}

/* Pieces of the strings given to strto*. */
static const char *const num_leads[] = {"", " ", "\t\n ", "+", "-", " -",
					"0", "0x", "0X", "00x", "-0x", "x"};
static const char *const num_bodies[] = {
	"", "0", "1", "7", "8", "9", "a", "f", "g", "z", "Z", "10", "777",
	"fF", "zz", "x1", "101", "18446744073709551615",
	"18446744073709551616", "9223372036854775807", "9223372036854775808",
	"9223372036854775809", "1777777777777777777777",
	"2000000000000000000000", "ffffffffffffffff", "10000000000000000",
	"7fffffffffffffff", "8000000000000000", "3w5e11264sgsf",
	"3w5e11264sgsg", "99999999999999999999999999",
	"1111111111111111111111111111111111111111111111111111111111111111",
	"11111111111111111111111111111111111111111111111111111111111111111",
};
static const char *const num_tails[] = {"", " ", "x", "!", "9z"};
static const int bases[] = {0, 2, 8, 10, 16, 36};

/* report_strto -- print one difference in a strto* function */
static void report_strto(const char *fn, const char *s, int base,
			 unsigned long long ours, long ours_end,
			 unsigned long long host, long host_end)
{
	check_current_failed = true;
	if (++diff_reports > MAX_REPORTS)
		return;
	printf("  %s(\"%s\", %d): ours %#llx end %ld, host %#llx end %ld\n", fn,
	       s, base, ours, ours_end, host, host_end);
}

/* compare_strto -- run all four strto* functions of both libraries on s */
static void compare_strto(const char *s, int base)
{
	char *ours_end, *host_end;
	unsigned long long ours, host;

#define COMPARE_STRTO(fn)                                                     \
	do {                                                                  \
		ours = (unsigned long long)fn(s, &ours_end, base);            \
		host = (unsigned long long)host_##fn(s, &host_end, base);     \
		if (ours != host || ours_end != host_end)                     \
			report_strto(#fn, s, base, ours, ours_end - s, host,  \
				     host_end - s);                           \
	} while (0)

	COMPARE_STRTO(strtoul);
	COMPARE_STRTO(strtoull);
	COMPARE_STRTO(strtol);
	COMPARE_STRTO(strtoll);
#undef COMPARE_STRTO
}

CHECK_TEST(strto_every_combination)
{
	char s[128];

	diff_reports = 0;
	for (size_t l = 0; l < ARRAY_SIZE(num_leads); l++) {
		for (size_t b = 0; b < ARRAY_SIZE(num_bodies); b++) {
			for (size_t t = 0; t < ARRAY_SIZE(num_tails); t++) {
				host_snprintf(s, sizeof(s), "%s%s%s", num_leads[l],
					      num_bodies[b], num_tails[t]);
				for (size_t i = 0; i < ARRAY_SIZE(bases); i++)
					compare_strto(s, bases[i]);
			}
		}
	}
}

/* host_size_text -- the reference for size_text: the same unit, whole
 * when exact, else the host's "%.1f" of the quotient (exact in a double
 * below 2^53) */
static void host_size_text(char *buf, size_t cap, uint64_t bytes)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	unsigned u = 0;
	uint64_t scale = 1;

	while (u + 1 < ARRAY_SIZE(units) && bytes >= scale * 1024) {
		scale *= 1024;
		u++;
	}
	if (bytes % scale == 0)
		host_snprintf(buf, cap, "%llu %s", (unsigned long long)(bytes / scale), units[u]);
	else
		host_snprintf(buf, cap, "%.1f %s", (double)bytes / (double)scale, units[u]);
}

/* compare_size_text -- size_text of both ways for bytes; a mismatch reported */
static void compare_size_text(uint64_t bytes)
{
	char ours[SIZE_TEXT_MAX], host[64];

	size_text(ours, sizeof(ours), bytes);
	host_size_text(host, sizeof(host), bytes);
	if (!check_bytes_eq(ours, host, check_host_strlen(host) + 1) &&
	    diff_reports++ < MAX_REPORTS) {
		check_fail(__FILE__, __LINE__, "size_text differs from the host's %.1f");
		printf("    %llu bytes: ours \"%s\", host \"%s\"\n",
		       (unsigned long long)bytes, ours, host);
	}
}

CHECK_TEST(size_text_against_host_printf)
{
	uint64_t x = 88172645463325252ull;  /* xorshift64's state */

	diff_reports = 0;
	/* Every magnitude below 2^53. */
	for (unsigned i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		compare_size_text(x >> (11 + x % 53));
	}
	/* Each unit's quarters (the ties of a tenth: .25, .75), and a byte
	 * either side of them. */
	for (unsigned shift = 10; shift <= 40; shift += 10)
		for (uint64_t k = 1; k < 2048; k += 7)
			for (uint64_t q = 0; q < 4; q++)
				for (int d = -1; d <= 1; d++)
					compare_size_text((k << shift) + (q << (shift - 2)) + (uint64_t)d);
}

int main(void)
{
	return check_run_all();
}
