/*
 * test_libc.c -- host unit tests of Ferrite's libc: strings, ctype, number
 * parsing, numbers as text, error names and formatting, each against expected values written
 * out here (test_host_diff.c compares with the host's C library instead).
 *
 * The order of the includes matters: the host's headers and check.h first,
 * then libc_names.h (memcpy -> ferrite_memcpy, ...), then Ferrite's headers
 * by their path, so that every libc call below reaches Ferrite's code.
 */
#include "check.h"

#include <limits.h>
#include <stdarg.h>

#include "libc_names.h"

#include "libc/include/crc32.h"
#include "libc/include/ctype.h"
#include "libc/include/errstr.h"
#include "libc/include/numtext.h"
#include "libc/include/stdio.h"
#include "libc/include/stdlib.h"
#include "libc/include/string.h"

#include <ferrite/errors.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* --- memory ------------------------------------------------------------- */

/* A buffer with guard bytes around every region the tests touch. */
#define BUF_SIZE 160
#define GUARD 0xa5

/* fill_pattern -- fill buf with bytes that differ from their neighbours */
static void fill_pattern(unsigned char *buf, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = (unsigned char)(seed + i * 7 + 1);
}

/* ref_move -- what memmove must do, through a separate copy */
static void ref_move(unsigned char *buf, size_t dst, size_t src, size_t n)
{
	unsigned char tmp[BUF_SIZE];

	for (size_t i = 0; i < n; i++)
		tmp[i] = buf[src + i];
	for (size_t i = 0; i < n; i++)
		buf[dst + i] = tmp[i];
}

CHECK_TEST(memcpy_all_alignments_and_lengths)
{
	unsigned char src[BUF_SIZE], dst[BUF_SIZE], want[BUF_SIZE];

	fill_pattern(src, sizeof(src), 3);
	for (size_t s_off = 0; s_off < 16; s_off++) {
		for (size_t d_off = 0; d_off < 16; d_off++) {
			for (size_t n = 0; n <= 100; n++) {
				for (size_t i = 0; i < BUF_SIZE; i++)
					dst[i] = want[i] = GUARD;
				for (size_t i = 0; i < n; i++)
					want[d_off + i] = src[s_off + i];
				CHECK(memcpy(dst + d_off, src + s_off, n) == dst + d_off);
				CHECK_MEM_EQ(dst, want, sizeof(dst));
			}
		}
	}
}

CHECK_TEST(memcpy_zero_length_touches_nothing)
{
	char a[4] = "abc", b[4] = "xyz";

	CHECK(memcpy(a, b, 0) == a);
	CHECK_STR_EQ(a, "abc");
	CHECK(memcpy(NULL, NULL, 0) == NULL);
}

CHECK_TEST(memmove_overlap_both_directions)
{
	unsigned char buf[BUF_SIZE], want[BUF_SIZE];

	for (size_t src = 0; src < 24; src++) {
		for (size_t dst = 0; dst < 24; dst++) {
			for (size_t n = 0; n <= 100; n++) {
				fill_pattern(buf, sizeof(buf), (unsigned)n);
				fill_pattern(want, sizeof(want), (unsigned)n);
				ref_move(want, dst, src, n);
				CHECK(memmove(buf + dst, buf + src, n) == buf + dst);
				CHECK_MEM_EQ(buf, want, sizeof(buf));
			}
		}
	}
}

CHECK_TEST(memmove_simple_cases)
{
	char s[16] = "abcdefgh";

	memmove(s + 2, s, 6); /* dst above src: must copy downwards */
	CHECK_STR_EQ(s, "ababcdef");
	memmove(s, s + 3, 5); /* dst below src */
	CHECK_STR_EQ(s, "bcdefdef");
	memmove(s, s, 8); /* same place */
	CHECK_STR_EQ(s, "bcdefdef");
	CHECK(memmove(s, s + 1, 0) == s);
	CHECK_STR_EQ(s, "bcdefdef");
}

CHECK_TEST(memset_all_alignments_and_lengths)
{
	unsigned char buf[BUF_SIZE], want[BUF_SIZE];

	for (size_t off = 0; off < 16; off++) {
		for (size_t n = 0; n <= 100; n++) {
			for (size_t i = 0; i < BUF_SIZE; i++)
				buf[i] = want[i] = GUARD;
			for (size_t i = 0; i < n; i++)
				want[off + i] = 0x3c;
			CHECK(memset(buf + off, 0x3c, n) == buf + off);
			CHECK_MEM_EQ(buf, want, sizeof(buf));
		}
	}
}

CHECK_TEST(memset_uses_the_low_byte_only)
{
	unsigned char buf[9] = {0};

	memset(buf, 0x1ff, 8);
	for (size_t i = 0; i < 8; i++)
		CHECK_EQ(buf[i], 0xff);
	CHECK_EQ(buf[8], 0);
	memset(buf, -2, 3);
	CHECK_EQ(buf[0], 0xfe);
	CHECK_EQ(buf[3], 0xff);
}

CHECK_TEST(memcmp_order_and_length)
{
	CHECK_EQ(memcmp("abc", "abc", 3), 0);
	CHECK(memcmp("abc", "abd", 3) < 0);
	CHECK(memcmp("abd", "abc", 3) > 0);
	CHECK(memcmp("xbc", "abc", 3) > 0);
	CHECK_EQ(memcmp("abc", "abd", 2), 0);
	CHECK_EQ(memcmp("a", "b", 0), 0);
	CHECK_EQ(memcmp(NULL, NULL, 0), 0);
	/* bytes compare as unsigned char */
	CHECK(memcmp("\x80", "\x01", 1) > 0);
	CHECK(memcmp("\x01", "\xff", 1) < 0);
	/* NUL bytes are data */
	CHECK(memcmp("a\0b", "a\0c", 3) < 0);
}

CHECK_TEST(memchr_finds_within_n_only)
{
	const char s[] = "hello\0world", high[] = "a\x80";

	CHECK(memchr(s, 'l', 11) == s + 2);
	CHECK(memchr(s, 'w', 11) == s + 6); /* past the NUL */
	CHECK(memchr(s, '\0', 11) == s + 5);
	CHECK(memchr(s, 'w', 6) == NULL);
	CHECK(memchr(s, 'h', 0) == NULL);
	CHECK(memchr(s, 'z', 12) == NULL);
	CHECK(memchr(high, 0x180, 2) == high + 1); /* c as unsigned char */
	CHECK(memchr(high, -128, 2) == high + 1);
}

/* --- strings ------------------------------------------------------------ */

CHECK_TEST(strlen_and_strnlen)
{
	char unterminated[4] = {'a', 'b', 'c', 'd'};
	char big[300];

	CHECK_EQ(strlen(""), 0);
	CHECK_EQ(strlen("a"), 1);
	CHECK_EQ(strlen("hello"), 5);
	CHECK_EQ(strlen("ab\0cd"), 2);
	for (size_t i = 0; i < sizeof(big) - 1; i++)
		big[i] = 'x';
	big[sizeof(big) - 1] = '\0';
	CHECK_EQ(strlen(big), 299);

	CHECK_EQ(strnlen("hello", 10), 5);
	CHECK_EQ(strnlen("hello", 5), 5);
	CHECK_EQ(strnlen("hello", 3), 3);
	CHECK_EQ(strnlen("hello", 0), 0);
	CHECK_EQ(strnlen("", 4), 0);
	/* must not read past maxlen: ASan watches this buffer */
	CHECK_EQ(strnlen(unterminated, 4), 4);
}

CHECK_TEST(strcmp_order)
{
	CHECK_EQ(strcmp("", ""), 0);
	CHECK_EQ(strcmp("abc", "abc"), 0);
	CHECK(strcmp("abc", "abd") < 0);
	CHECK(strcmp("abd", "abc") > 0);
	CHECK(strcmp("ab", "abc") < 0);
	CHECK(strcmp("abc", "ab") > 0);
	CHECK(strcmp("", "a") < 0);
	CHECK(strcmp("\x80", "a") > 0); /* unsigned char */
	CHECK(strcmp("a", "\xff") < 0);
}

CHECK_TEST(strncmp_stops_at_n_and_nul)
{
	CHECK_EQ(strncmp("abc", "abd", 2), 0);
	CHECK(strncmp("abc", "abd", 3) < 0);
	CHECK(strncmp("abd", "abc", 100) > 0);
	CHECK_EQ(strncmp("abc", "xyz", 0), 0);
	CHECK_EQ(strncmp("abc", "abc", 100), 0);
	CHECK(strncmp("ab", "abc", 3) < 0);
	CHECK(strncmp("abc", "ab", 3) > 0);
	CHECK_EQ(strncmp("ab\0x", "ab\0y", 4), 0); /* nothing after the NUL */
	CHECK(strncmp("\x80", "\x7f", 1) > 0);
}

CHECK_TEST(strchr_and_strrchr)
{
	const char *s = "hello";

	CHECK(strchr(s, 'l') == s + 2);
	CHECK(strchr(s, 'h') == s);
	CHECK(strchr(s, 'o') == s + 4);
	CHECK(strchr(s, 'z') == NULL);
	CHECK(strchr(s, '\0') == s + 5);
	CHECK(strchr("", '\0') != NULL);
	CHECK(strchr(s, 'l' + 256) == s + 2); /* converted to char */
	CHECK(strchr("a\xe9", 0xe9) != NULL);

	CHECK(strrchr(s, 'l') == s + 3);
	CHECK(strrchr(s, 'h') == s);
	CHECK(strrchr(s, 'z') == NULL);
	CHECK(strrchr(s, '\0') == s + 5);
	CHECK(strrchr("", 'a') == NULL);
	CHECK(strrchr("a\xe9\xe9", 0xe9) != NULL);
}

CHECK_TEST(strstr_cases)
{
	const char *s = "aaabaab";

	CHECK(strstr(s, "aab") == s + 1);
	CHECK(strstr(s, "baab") == s + 3);
	CHECK(strstr(s, "b") == s + 3);
	CHECK(strstr(s, "aaabaab") == s);
	CHECK(strstr(s, "aaabaabx") == NULL);
	CHECK(strstr(s, "c") == NULL);
	CHECK(strstr(s, "") == s);
	CHECK(strstr("", "") != NULL);
	CHECK(strstr("", "a") == NULL);
	CHECK(strstr("abc", "c") != NULL);
	CHECK_STR_EQ(strstr("key=value", "="), "=value");
}

CHECK_TEST(strlcpy_bsd_semantics)
{
	char buf[8];

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = 'Z';
	CHECK_EQ(strlcpy(buf, "abc", sizeof(buf)), 3);
	CHECK_STR_EQ(buf, "abc");
	CHECK_EQ(buf[4], 'Z'); /* nothing written past the NUL */

	CHECK_EQ(strlcpy(buf, "abcdefg", sizeof(buf)), 7); /* exactly fits */
	CHECK_STR_EQ(buf, "abcdefg");

	CHECK_EQ(strlcpy(buf, "abcdefghij", sizeof(buf)), 10); /* truncated */
	CHECK_STR_EQ(buf, "abcdefg");

	CHECK_EQ(strlcpy(buf, "xyz", 1), 3);
	CHECK_STR_EQ(buf, "");
	CHECK_EQ(buf[1], 'b');

	buf[0] = 'Q';
	CHECK_EQ(strlcpy(buf, "xyz", 0), 3); /* size 0: touches nothing */
	CHECK_EQ(buf[0], 'Q');
	CHECK_EQ(strlcpy(NULL, "hello", 0), 5);

	CHECK_EQ(strlcpy(buf, "", sizeof(buf)), 0);
	CHECK_STR_EQ(buf, "");
}

/* --- ctype -------------------------------------------------------------- */

/* in_set -- whether c is one of the characters of set */
static bool in_set(int c, const char *set)
{
	for (; *set != '\0'; set++) {
		if ((unsigned char)*set == c)
			return true;
	}
	return false;
}

#define UPPER "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
#define LOWER "abcdefghijklmnopqrstuvwxyz"
#define DIGITS "0123456789"

CHECK_TEST(ctype_every_value)
{
	for (int c = -1; c <= 255; c++) {
		bool up = in_set(c, UPPER), low = in_set(c, LOWER);
		bool digit = in_set(c, DIGITS);

		CHECK_EQ(!!isdigit(c), digit);
		CHECK_EQ(!!isxdigit(c), digit || in_set(c, "abcdefABCDEF"));
		CHECK_EQ(!!isspace(c), in_set(c, " \t\n\v\f\r"));
		CHECK_EQ(!!isupper(c), up);
		CHECK_EQ(!!islower(c), low);
		CHECK_EQ(!!isalpha(c), up || low);
		CHECK_EQ(!!isalnum(c), up || low || digit);
		CHECK_EQ(!!isprint(c), c >= 32 && c <= 126);
		CHECK_EQ(toupper(c), low ? c - 32 : c);
		CHECK_EQ(tolower(c), up ? c + 32 : c);
	}
	CHECK_EQ(toupper('q'), 'Q');
	CHECK_EQ(tolower('Q'), 'q');
	CHECK_EQ(toupper(INT_MIN), INT_MIN);
	CHECK_EQ(!!isprint(INT_MAX), 0);
}

/* --- strto* ------------------------------------------------------------- */

/* END_AT -- how many characters *endptr is past the start of s */
#define END_AT(s, end) ((end) - (s))

CHECK_TEST(strtoul_bases_and_prefixes)
{
	const char *s;
	char *end;

	CHECK_EQ(strtoul(s = "123", &end, 10), 123);
	CHECK_EQ(END_AT(s, end), 3);
	CHECK_EQ(strtoul(s = " \t\n+42x", &end, 10), 42);
	CHECK_EQ(END_AT(s, end), 6);
	CHECK_EQ(strtoul(s = "0x1F", &end, 0), 31);
	CHECK_EQ(END_AT(s, end), 4);
	CHECK_EQ(strtoul(s = "0X1f", &end, 16), 31);
	CHECK_EQ(END_AT(s, end), 4);
	CHECK_EQ(strtoul(s = "1f", &end, 16), 31);
	CHECK_EQ(strtoul(s = "017", &end, 0), 15);
	CHECK_EQ(END_AT(s, end), 3);
	CHECK_EQ(strtoul(s = "019", &end, 0), 1); /* octal stops at 9 */
	CHECK_EQ(END_AT(s, end), 2);
	CHECK_EQ(strtoul(s = "017", &end, 10), 17);
	CHECK_EQ(strtoul(s = "0", &end, 0), 0);
	CHECK_EQ(END_AT(s, end), 1);
	CHECK_EQ(strtoul(s = "101102", &end, 2), 22);
	CHECK_EQ(END_AT(s, end), 5);
	CHECK_EQ(strtoul(s = "777", &end, 8), 511);
	CHECK_EQ(strtoul(s = "zZ", &end, 36), 35 * 36 + 35);
	CHECK_EQ(END_AT(s, end), 2);
	CHECK_EQ(strtoul(s = "z", &end, 35), 0);
	CHECK_EQ(END_AT(s, end), 0);
	CHECK_EQ(strtoul("12", NULL, 10), 12); /* endptr may be NULL */
	CHECK_EQ(strtoul(s = "1_000", &end, 10), 1);
	CHECK_EQ(END_AT(s, end), 1);
}

CHECK_TEST(strtoul_hex_prefix_without_digits)
{
	const char *s;
	char *end;

	/* "0x" not followed by a hex digit is the number 0, then "x..." */
	CHECK_EQ(strtoul(s = "0x", &end, 0), 0);
	CHECK_EQ(END_AT(s, end), 1);
	CHECK_EQ(strtoul(s = "0xg", &end, 16), 0);
	CHECK_EQ(END_AT(s, end), 1);
	CHECK_EQ(strtoul(s = " 0x", &end, 16), 0);
	CHECK_EQ(END_AT(s, end), 2);
	CHECK_EQ(strtoul(s = "0x10", &end, 10), 0); /* no prefix in base 10 */
	CHECK_EQ(END_AT(s, end), 1);
	CHECK_EQ(strtoul(s = "0x10", &end, 36), 0 * 36 * 36 * 36 + 33 * 36 * 36 + 36);
	CHECK_EQ(END_AT(s, end), 4);
}

CHECK_TEST(strtoul_no_digits_leaves_endptr_at_start)
{
	const char *inputs[] = {"", "   ", "-", "+", " + 1", "x", "-x", "+-1"};
	const char *two = "2";
	char *end;

	for (size_t i = 0; i < ARRAY_SIZE(inputs); i++) {
		end = NULL;
		CHECK_EQ(strtoul(inputs[i], &end, 10), 0);
		CHECK(end == inputs[i]);
		end = NULL;
		CHECK_EQ(strtoll(inputs[i], &end, 0), 0);
		CHECK(end == inputs[i]);
	}
	CHECK_EQ(strtoul(two, &end, 2), 0); /* base 2 has no digit 2 */
	CHECK(end == two);
}

CHECK_TEST(strtoul_invalid_base)
{
	const char *s = "123";
	int bases[] = {1, -1, 37, 100, INT_MIN};
	char *end;

	for (size_t i = 0; i < ARRAY_SIZE(bases); i++) {
		end = NULL;
		CHECK_EQ(strtoul(s, &end, bases[i]), 0);
		CHECK(end == s);
		CHECK_EQ(strtol(s, &end, bases[i]), 0);
		CHECK(end == s);
	}
}

CHECK_TEST(strtoul_overflow_saturates)
{
	const char *s;
	char *end;

	CHECK_EQ(strtoul(s = "18446744073709551615", &end, 10), ULONG_MAX);
	CHECK_EQ(END_AT(s, end), 20);
	CHECK_EQ(strtoul(s = "18446744073709551616", &end, 10), ULONG_MAX);
	CHECK_EQ(END_AT(s, end), 20); /* every digit is consumed */
	CHECK_EQ(strtoul(s = "99999999999999999999999abc", &end, 10), ULONG_MAX);
	CHECK_EQ(END_AT(s, end), 23);
	CHECK_EQ(strtoul(s = "0xffffffffffffffff", &end, 0), ULONG_MAX);
	CHECK_EQ(strtoul(s = "0x10000000000000000", &end, 0), ULONG_MAX);
	CHECK_EQ(END_AT(s, end), 19);
	CHECK_EQ(strtoul("1777777777777777777777", NULL, 8), ULONG_MAX);
	CHECK_EQ(strtoul("2000000000000000000000", NULL, 8), ULONG_MAX);
	CHECK_EQ(strtoul("1777777777777777777776", NULL, 8), ULONG_MAX - 1);
	CHECK_EQ(strtoul("3w5e11264sgsf", NULL, 36), ULONG_MAX);
	CHECK_EQ(strtoul("3w5e11264sgsg", NULL, 36), ULONG_MAX);
	CHECK_EQ(strtoul("3w5e11264sgse", NULL, 36), ULONG_MAX - 1);
	CHECK_EQ(strtoull("18446744073709551616", NULL, 10), ULLONG_MAX);
	CHECK_EQ(strtoull("18446744073709551614", NULL, 10), ULLONG_MAX - 1);
}

CHECK_TEST(strtoul_negative_wraps_like_c)
{
	CHECK_EQ(strtoul("-1", NULL, 10), ULONG_MAX);
	CHECK_EQ(strtoul("-0", NULL, 10), 0);
	CHECK_EQ(strtoul("  -2", NULL, 10), ULONG_MAX - 1);
	CHECK_EQ(strtoul("-18446744073709551615", NULL, 10), 1);
	CHECK_EQ(strtoul("-18446744073709551616", NULL, 10), ULONG_MAX);
	CHECK_EQ(strtoull("-0x10", NULL, 0), ULLONG_MAX - 15);
}

CHECK_TEST(strtol_limits)
{
	const char *s;
	char *end;

	CHECK_EQ(strtol("42", NULL, 10), 42);
	CHECK_EQ(strtol("-42", NULL, 10), -42);
	CHECK_EQ(strtol("+7", NULL, 10), 7);
	CHECK_EQ(strtol("  -017", NULL, 0), -15);
	CHECK_EQ(strtol("-0x10", NULL, 0), -16);
	CHECK_EQ(strtol("-0", NULL, 0), 0);
	CHECK_EQ(strtol(s = "9223372036854775807", &end, 10), LONG_MAX);
	CHECK_EQ(END_AT(s, end), 19);
	CHECK_EQ(strtol(s = "9223372036854775808", &end, 10), LONG_MAX);
	CHECK_EQ(END_AT(s, end), 19);
	CHECK_EQ(strtol("99999999999999999999999", NULL, 10), LONG_MAX);
	CHECK_EQ(strtol("-9223372036854775807", NULL, 10), LONG_MIN + 1);
	CHECK_EQ(strtol("-9223372036854775808", NULL, 10), LONG_MIN);
	CHECK_EQ(strtol("-9223372036854775809", NULL, 10), LONG_MIN);
	CHECK_EQ(strtol("-99999999999999999999999", NULL, 10), LONG_MIN);
	CHECK_EQ(strtol("0x7fffffffffffffff", NULL, 16), LONG_MAX);
	CHECK_EQ(strtol("-0x8000000000000000", NULL, 16), LONG_MIN);
	CHECK_EQ(strtol("0x8000000000000000", NULL, 16), LONG_MAX);
	CHECK_EQ(strtol(s = "-", &end, 10), 0);
	CHECK(end == s);

	CHECK_EQ(strtoll("9223372036854775807", NULL, 10), LLONG_MAX);
	CHECK_EQ(strtoll("9223372036854775808", NULL, 10), LLONG_MAX);
	CHECK_EQ(strtoll("-9223372036854775808", NULL, 10), LLONG_MIN);
	CHECK_EQ(strtoll("-9223372036854775809", NULL, 10), LLONG_MIN);
	CHECK_EQ(strtoll("-zz", NULL, 36), -(35 * 36 + 35));
	CHECK_EQ(strtoll("-101", NULL, 2), -5);
}

/* --- numtext: parse_number, parse_size, size_text ----------------------- */

/* CHECK_NUMBER -- parse_number(text) succeeds with the value want */
#define CHECK_NUMBER(text, want)                                              \
	do {                                                                  \
		uint64_t got_ = 0xdeadbeef;                                   \
		CHECK_EQ(parse_number(text, &got_), 0);                       \
		CHECK_EQ(got_, want);                                         \
	} while (0)

/* CHECK_NUMBER_ERR -- parse_number(text) fails with err and leaves *out alone */
#define CHECK_NUMBER_ERR(text, err)                                           \
	do {                                                                  \
		uint64_t got_ = 0xdeadbeef;                                   \
		CHECK_EQ(parse_number(text, &got_), err);                     \
		CHECK_EQ(got_, 0xdeadbeef);                                   \
	} while (0)

CHECK_TEST(parse_number_values)
{
	CHECK_NUMBER("0", 0);
	CHECK_NUMBER("7", 7);
	CHECK_NUMBER("007", 7);            /* decimal: no octal */
	CHECK_NUMBER("4096", 4096);
	CHECK_NUMBER("0x0", 0);
	CHECK_NUMBER("0x1f", 31);
	CHECK_NUMBER("0X1F", 31);
	CHECK_NUMBER("0xDeadBeef", 0xdeadbeef);
	CHECK_NUMBER("18446744073709551615", UINT64_MAX);
	CHECK_NUMBER("0xffffffffffffffff", UINT64_MAX);
	CHECK_NUMBER("0x000000000000000000001", 1);
}

CHECK_TEST(parse_number_errors)
{
	CHECK_NUMBER_ERR(NULL, -ERR_INVAL);
	CHECK_NUMBER_ERR("", -ERR_INVAL);
	CHECK_NUMBER_ERR("0x", -ERR_INVAL);
	CHECK_NUMBER_ERR("x1", -ERR_INVAL);
	CHECK_NUMBER_ERR(" 1", -ERR_INVAL);
	CHECK_NUMBER_ERR("1 ", -ERR_INVAL);
	CHECK_NUMBER_ERR("+1", -ERR_INVAL);
	CHECK_NUMBER_ERR("-1", -ERR_INVAL);
	CHECK_NUMBER_ERR("0x-1", -ERR_INVAL);
	CHECK_NUMBER_ERR("0x+1", -ERR_INVAL);
	CHECK_NUMBER_ERR("1f", -ERR_INVAL);  /* hex digits only after 0x */
	CHECK_NUMBER_ERR("1K", -ERR_INVAL);  /* sizes are parse_size's */
	CHECK_NUMBER_ERR("0x1g", -ERR_INVAL);
	CHECK_NUMBER_ERR("1.0", -ERR_INVAL);
	CHECK_NUMBER_ERR("99999999999999999999x", -ERR_INVAL);

	CHECK_NUMBER_ERR("18446744073709551616", -ERR_RANGE);
	CHECK_NUMBER_ERR("99999999999999999999999999", -ERR_RANGE);
	CHECK_NUMBER_ERR("0x10000000000000000", -ERR_RANGE);
}

/* CHECK_SIZE_TEXT -- size_text(bytes) writes want */
#define CHECK_SIZE_TEXT(bytes, want)                                          \
	do {                                                                  \
		char buf_[SIZE_TEXT_MAX];                                     \
		CHECK_STR_EQ(size_text(buf_, sizeof(buf_), bytes), want);     \
	} while (0)

CHECK_TEST(size_text_units_and_tenths)
{
	char small[4];

	CHECK_SIZE_TEXT(0, "0 B");
	CHECK_SIZE_TEXT(100, "100 B");
	CHECK_SIZE_TEXT(1023, "1023 B");
	CHECK_SIZE_TEXT(1024, "1 KiB");
	CHECK_SIZE_TEXT(1536, "1.5 KiB");
	CHECK_SIZE_TEXT(10752, "10.5 KiB");
	CHECK_SIZE_TEXT(360760, "352.3 KiB");
	CHECK_SIZE_TEXT(3000000, "2.9 MiB");
	CHECK_SIZE_TEXT(64ull << 20, "64 MiB");
	CHECK_SIZE_TEXT((64ull << 20) + 1, "64.0 MiB");
	CHECK_SIZE_TEXT(1ull << 40, "1 TiB");
	CHECK_SIZE_TEXT(1ull << 50, "1024 TiB");  /* no unit past TiB */
	/* Tenths rounded to nearest, a tie to the even tenth, as "%.1f". */
	CHECK_SIZE_TEXT(1024 + 256, "1.2 KiB");   /* 1.25 */
	CHECK_SIZE_TEXT(1024 + 768, "1.8 KiB");   /* 1.75 */
	CHECK_SIZE_TEXT(1024 + 257, "1.3 KiB");
	CHECK_SIZE_TEXT(1024 + 51, "1.0 KiB");    /* 1.0498 */
	CHECK_SIZE_TEXT(1024 + 52, "1.1 KiB");    /* 1.0508 */
	CHECK_SIZE_TEXT((1ull << 20) - 1, "1024.0 KiB"); /* rounds up, unit kept */
	CHECK_SIZE_TEXT(UINT64_MAX, "16777216.0 TiB");
	CHECK_EQ(check_host_strlen(size_text(small, sizeof(small), 1536)), 3); /* cut to fit */
}

/* --- parse_size --------------------------------------------------------- */

/* CHECK_SIZE -- parse_size(text) succeeds with the value want */
#define CHECK_SIZE(text, want)                                                \
	do {                                                                  \
		uint64_t got_ = 0xdeadbeef;                                   \
		CHECK_EQ(parse_size(text, &got_), 0);                         \
		CHECK_EQ(got_, want);                                         \
	} while (0)

/* CHECK_SIZE_ERR -- parse_size(text) fails with err and leaves *out alone */
#define CHECK_SIZE_ERR(text, err)                                             \
	do {                                                                  \
		uint64_t got_ = 0xdeadbeef;                                   \
		CHECK_EQ(parse_size(text, &got_), err);                       \
		CHECK_EQ(got_, 0xdeadbeef);                                   \
	} while (0)

CHECK_TEST(parse_size_values)
{
	CHECK_SIZE("0", 0);
	CHECK_SIZE("1", 1);
	CHECK_SIZE("007", 7);
	CHECK_SIZE("4096", 4096);
	CHECK_SIZE("0K", 0);
	CHECK_SIZE("1K", 1024);
	CHECK_SIZE("1k", 1024);
	CHECK_SIZE("64M", 64ull << 20);
	CHECK_SIZE("64m", 64ull << 20);
	CHECK_SIZE("3G", 3ull << 30);
	CHECK_SIZE("3g", 3ull << 30);
	CHECK_SIZE("1T", 1ull << 40);
	CHECK_SIZE("2t", 2ull << 40);
	CHECK_SIZE("16777215T", 16777215ull << 40);
	CHECK_SIZE("17179869183G", 17179869183ull << 30);
	CHECK_SIZE("18014398509481983K", 18014398509481983ull << 10);
	CHECK_SIZE("18446744073709551615", UINT64_MAX);
}

CHECK_TEST(parse_size_errors)
{
	CHECK_SIZE_ERR(NULL, -ERR_INVAL);
	CHECK_SIZE_ERR("", -ERR_INVAL);
	CHECK_SIZE_ERR("K", -ERR_INVAL);
	CHECK_SIZE_ERR(" 1", -ERR_INVAL);
	CHECK_SIZE_ERR("1 ", -ERR_INVAL);
	CHECK_SIZE_ERR("1 K", -ERR_INVAL);
	CHECK_SIZE_ERR("+1", -ERR_INVAL);
	CHECK_SIZE_ERR("-1", -ERR_INVAL);
	CHECK_SIZE_ERR("0x10", -ERR_INVAL);
	CHECK_SIZE_ERR("1.5K", -ERR_INVAL);
	CHECK_SIZE_ERR("1KB", -ERR_INVAL);
	CHECK_SIZE_ERR("1KiB", -ERR_INVAL);
	CHECK_SIZE_ERR("1B", -ERR_INVAL);
	CHECK_SIZE_ERR("1E", -ERR_INVAL);
	CHECK_SIZE_ERR("1P", -ERR_INVAL);
	CHECK_SIZE_ERR("1KK", -ERR_INVAL);
	CHECK_SIZE_ERR("12abc", -ERR_INVAL);
	CHECK_SIZE_ERR("abc", -ERR_INVAL);
	CHECK_SIZE_ERR("99999999999999999999x", -ERR_INVAL);

	CHECK_SIZE_ERR("18446744073709551616", -ERR_RANGE);
	CHECK_SIZE_ERR("99999999999999999999999999", -ERR_RANGE);
	CHECK_SIZE_ERR("16777216T", -ERR_RANGE);
	CHECK_SIZE_ERR("17179869184G", -ERR_RANGE);
	CHECK_SIZE_ERR("18014398509481984K", -ERR_RANGE);
	CHECK_SIZE_ERR("18446744073709551615K", -ERR_RANGE);
	CHECK_SIZE_ERR("99999999999999999999K", -ERR_RANGE);
}

/* --- err_name / err_str ------------------------------------------------- */

CHECK_TEST(errstr_every_code)
{
	static const struct {
		int code;
		const char *name, *message;
	} want[] = {
		{ERR_NONE, "ERR_NONE", "success"},
		{ERR_PERM, "ERR_PERM", "operation not permitted"},
		{ERR_NOENT, "ERR_NOENT", "no such object or name"},
		{ERR_NOMEM, "ERR_NOMEM", "out of memory"},
		{ERR_FAULT, "ERR_FAULT", "bad address"},
		{ERR_BUSY, "ERR_BUSY", "resource in use"},
		{ERR_EXIST, "ERR_EXIST", "already exists"},
		{ERR_INVAL, "ERR_INVAL", "invalid argument"},
		{ERR_NOSPC, "ERR_NOSPC", "no space left"},
		{ERR_RANGE, "ERR_RANGE", "value out of range"},
		{ERR_NOSYS, "ERR_NOSYS", "no such call or feature"},
		{ERR_BADF, "ERR_BADF", "bad handle"},
		{ERR_CORRUPT, "ERR_CORRUPT", "checksum or structure check failed"},
		{ERR_VERSION, "ERR_VERSION", "incompatible layout or format version"},
		{ERR_NOTSUP, "ERR_NOTSUP", "not supported on this platform"},
		{ERR_TOOBIG, "ERR_TOOBIG", "argument too large"},
		{ERR_AGAIN, "ERR_AGAIN", "try again later"},
		{ERR_IO, "ERR_IO", "I/O error"},
		{ERR_NOEXEC, "ERR_NOEXEC", "not a valid program"},
		{ERR_PEER, "ERR_PEER", "the other end is closed"},
		{ERR_RESET, "ERR_RESET", "the other side started over"},
	};

	CHECK_EQ(ARRAY_SIZE(want), ERR__COUNT); /* a new code needs a line here */
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		CHECK_EQ(want[i].code, i);
		CHECK_STR_EQ(err_name(want[i].code), want[i].name);
		CHECK_STR_EQ(err_name(-want[i].code), want[i].name);
		CHECK_STR_EQ(err_str(want[i].code), want[i].message);
		CHECK_STR_EQ(err_str(-want[i].code), want[i].message);
	}
}

CHECK_TEST(errstr_unknown_codes)
{
	int unknown[] = {ERR__COUNT, -ERR__COUNT, 1000, -1000, INT_MAX,
			 INT_MIN, INT_MIN + 1};

	for (size_t i = 0; i < ARRAY_SIZE(unknown); i++) {
		CHECK_STR_EQ(err_name(unknown[i]), "ERR_?");
		CHECK_STR_EQ(err_str(unknown[i]), "unknown error");
	}
}

/* --- formatting --------------------------------------------------------- */

/* What a vformat callback received. */
struct sink {
	char buf[1024];
	size_t len;
	bool empty_piece; /* the callback was called with len == 0 */
};

/* sink_emit -- a vformat callback appending to a struct sink */
static void sink_emit(void *ctx, const char *s, size_t len)
{
	struct sink *sink = ctx;

	if (len == 0)
		sink->empty_piece = true;
	for (size_t i = 0; i < len && sink->len < sizeof(sink->buf); i++)
		sink->buf[sink->len++] = s[i];
}

/* check_truncated -- vsnprintf into every smaller buffer gives a prefix */
static void check_truncated(const char *file, int line, const char *want,
			    size_t want_len, const char *fmt, va_list ap)
{
	char buf[1024];
	bool ok;

	for (size_t size = 0; size <= want_len + 1; size++) {
		size_t kept = size == 0 ? 0 : (want_len < size ? want_len : size - 1);
		va_list copy;

		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = (char)GUARD;
		va_copy(copy, ap);
		ok = check_eq(file, line, "vsnprintf(size)", "length", (uintmax_t)
			      vsnprintf(size == 0 ? NULL : buf, size, fmt, copy),
			      want_len);
		va_end(copy);
		ok &= check_mem_eq(file, line, "truncated", "expected", buf, want, kept);
		if (size > 0)
			ok &= check_eq(file, line, "buf[kept]", "NUL",
				       (unsigned char)buf[kept], 0);
		for (size_t i = size; i < sizeof(buf) && ok; i++) {
			if (buf[i] != (char)GUARD) {
				check_fail(file, line, "vsnprintf wrote past size");
				ok = false;
			}
		}
		if (!ok) {
			printf("    (with size %zu)\n", size);
			return; /* one failing size is enough to read */
		}
	}
}

/* check_vformat -- format with vsnprintf and vformat; both must give want */
static void check_vformat(const char *file, int line, const char *want,
			  size_t want_len, const char *fmt, va_list ap)
{
	struct sink sink = {.len = 0, .empty_piece = false};
	char buf[1024];
	va_list copy;
	int n;

	va_copy(copy, ap);
	n = vsnprintf(buf, sizeof(buf), fmt, copy);
	va_end(copy);
	check_eq(file, line, fmt, "expected length", (uintmax_t)n, want_len);
	check_mem_eq(file, line, fmt, "expected", buf, want, want_len + 1);

	va_copy(copy, ap);
	n = vformat(sink_emit, &sink, fmt, copy);
	va_end(copy);
	check_eq(file, line, "vformat", "expected length", (uintmax_t)n, want_len);
	check_eq(file, line, "vformat's pieces", "expected length", sink.len, want_len);
	check_mem_eq(file, line, "vformat's pieces", "expected", sink.buf, want, want_len);
	if (sink.empty_piece)
		check_fail(file, line, "vformat emitted an empty piece");

	check_truncated(file, line, want, want_len, fmt, ap);
}

/* check_format -- check_vformat of a format gcc checks */
__attribute__((format(printf, 5, 6)))
static void check_format(const char *file, int line, const char *want,
			 size_t want_len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	check_vformat(file, line, want, want_len, fmt, ap);
	va_end(ap);
}

/* check_format_odd -- check_vformat of a format gcc would warn about */
static void check_format_odd(const char *file, int line, const char *want,
			     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	check_vformat(file, line, want, check_host_strlen(want), fmt, ap);
	va_end(ap);
}

/* CHECK_FMT(want, fmt, args...): all ways of formatting give want */
#define CHECK_FMT(want, ...)                                                  \
	check_format(__FILE__, __LINE__, want, check_host_strlen(want), __VA_ARGS__)

/* CHECK_FMT_N: the same for output with NUL bytes in it */
#define CHECK_FMT_N(want, len, ...)                                           \
	check_format(__FILE__, __LINE__, want, len, __VA_ARGS__)

/* CHECK_FMT_ODD: the same, for flag combinations C defines but gcc frowns on,
 * or formats it cannot check */
#define CHECK_FMT_ODD(want, ...)                                              \
	check_format_odd(__FILE__, __LINE__, want, __VA_ARGS__)

CHECK_TEST(format_literal_text)
{
	CHECK_FMT("", "%s", "");
	CHECK_FMT_ODD("", "");
	CHECK_FMT_ODD("hello, world", "hello, world");
	CHECK_FMT("%", "%%");
	CHECK_FMT("a%b", "a%%b");
	CHECK_FMT("%d", "%%d");
	CHECK_FMT("100%", "%d%%", 100);
}

CHECK_TEST(format_decimal)
{
	CHECK_FMT("0", "%d", 0);
	CHECK_FMT("1", "%d", 1);
	CHECK_FMT("-1", "%d", -1);
	CHECK_FMT("42", "%i", 42);
	CHECK_FMT("2147483647", "%d", INT_MAX);
	CHECK_FMT("-2147483648", "%d", INT_MIN);
	CHECK_FMT("-2147483648", "%i", INT_MIN);
	CHECK_FMT("0", "%u", 0u);
	CHECK_FMT("4294967295", "%u", UINT_MAX);
	CHECK_FMT("4294967295", "%u", -1);
}

CHECK_TEST(format_hex_and_octal)
{
	CHECK_FMT("ff", "%x", 255);
	CHECK_FMT("FF", "%X", 255);
	CHECK_FMT("0", "%x", 0);
	CHECK_FMT("deadbeef", "%x", 0xdeadbeefu);
	CHECK_FMT("DEADBEEF", "%X", 0xdeadbeefu);
	CHECK_FMT("ffffffff", "%x", UINT_MAX);
	CHECK_FMT("10", "%o", 8);
	CHECK_FMT("0", "%o", 0);
	CHECK_FMT("777", "%o", 511);
	CHECK_FMT("37777777777", "%o", UINT_MAX);
}

CHECK_TEST(format_length_modifiers)
{
	CHECK_FMT("44", "%hhd", 300);
	CHECK_FMT("127", "%hhd", -129);
	CHECK_FMT("-128", "%hhd", 128);
	CHECK_FMT("1", "%hhu", 257);
	CHECK_FMT("ff", "%hhx", -1);
	CHECK_FMT("-1", "%hd", 65535);
	CHECK_FMT("-32768", "%hd", 32768);
	CHECK_FMT("5", "%hu", 65536 + 5);
	CHECK_FMT("ffff", "%hx", -1);
	CHECK_FMT("177777", "%ho", -1);

	CHECK_FMT("-9223372036854775808", "%ld", LONG_MIN);
	CHECK_FMT("9223372036854775807", "%li", LONG_MAX);
	CHECK_FMT("18446744073709551615", "%lu", ULONG_MAX);
	CHECK_FMT("ffffffffffffffff", "%lx", ULONG_MAX);
	CHECK_FMT("-9223372036854775808", "%lld", LLONG_MIN);
	CHECK_FMT("9223372036854775807", "%lld", LLONG_MAX);
	CHECK_FMT("18446744073709551615", "%llu", ULLONG_MAX);
	CHECK_FMT("1777777777777777777777", "%llo", ULLONG_MAX);
	CHECK_FMT("FFFFFFFFFFFFFFFF", "%llX", ULLONG_MAX);

	CHECK_FMT("18446744073709551615", "%zu", SIZE_MAX);
	CHECK_FMT("ffffffffffffffff", "%zx", SIZE_MAX);
	CHECK_FMT("-5", "%zd", (ptrdiff_t)-5);
	CHECK_FMT("-7", "%td", (ptrdiff_t)-7);
	CHECK_FMT("9223372036854775807", "%td", PTRDIFF_MAX);
	CHECK_FMT("-9223372036854775808", "%jd", INTMAX_MIN);
	CHECK_FMT("18446744073709551615", "%ju", UINTMAX_MAX);
	CHECK_FMT("ffffffffffffffff", "%jx", UINTMAX_MAX);
	CHECK_FMT("12345678901", "%ld", 12345678901l);
}

CHECK_TEST(format_int64_limits)
{
	CHECK_FMT("-9223372036854775808", "%" PRId64, INT64_MIN);
	CHECK_FMT("9223372036854775807", "%" PRIi64, INT64_MAX);
	CHECK_FMT("18446744073709551615", "%" PRIu64, UINT64_MAX);
	CHECK_FMT("ffffffffffffffff", "%" PRIx64, UINT64_MAX);
	CHECK_FMT("1777777777777777777777", "%" PRIo64, UINT64_MAX);
	CHECK_FMT("[-9223372036854775808]", "[%5" PRId64 "]", INT64_MIN);
	CHECK_FMT("[  -9223372036854775808]", "[%22" PRId64 "]", INT64_MIN);
	CHECK_FMT("[-0009223372036854775808]", "[%023" PRId64 "]", INT64_MIN);
	CHECK_FMT("[-009223372036854775808]", "[%.21" PRId64 "]", INT64_MIN);
	CHECK_FMT("[0xffffffffffffffff]", "[%#" PRIx64 "]", UINT64_MAX);
	CHECK_FMT("[01777777777777777777777]", "[%#" PRIo64 "]", UINT64_MAX);
}

CHECK_TEST(format_width_and_flags)
{
	CHECK_FMT("[   42]", "[%5d]", 42);
	CHECK_FMT("[42   ]", "[%-5d]", 42);
	CHECK_FMT("[00042]", "[%05d]", 42);
	CHECK_FMT("[-0042]", "[%05d]", -42);
	CHECK_FMT("[  -42]", "[%5d]", -42);
	CHECK_FMT("[-42  ]", "[%-5d]", -42);
	CHECK_FMT("[+42]", "[%+d]", 42);
	CHECK_FMT("[-42]", "[%+d]", -42);
	CHECK_FMT("[+0]", "[%+d]", 0);
	CHECK_FMT("[ 42]", "[% d]", 42);
	CHECK_FMT("[-42]", "[% d]", -42);
	CHECK_FMT("[+0042]", "[%+05d]", 42);
	CHECK_FMT("[ 0042]", "[% 05d]", 42);
	CHECK_FMT("[+42  ]", "[%-+5d]", 42);
	CHECK_FMT("[ 42  ]", "[%- 5d]", 42);
	CHECK_FMT("[12345]", "[%1d]", 12345);
	CHECK_FMT("[12345]", "[%5d]", 12345);
	CHECK_FMT("[ 12345]", "[%6d]", 12345);
	CHECK_FMT("[0000000000]", "[%010u]", 0u);
	CHECK_FMT("[     ff]", "[%7x]", 255);
	CHECK_FMT("[00000ff]", "[%07x]", 255);
	CHECK_FMT("[ff     ]", "[%-7x]", 255);
	CHECK_FMT("[    0xff]", "[%#8x]", 255);
	CHECK_FMT("[0x0000ff]", "[%#08x]", 255);
	CHECK_FMT("[0X0000FF]", "[%#08X]", 255);
	CHECK_FMT("[0xff    ]", "[%#-8x]", 255);
	CHECK_FMT("[     017]", "[%#8o]", 15);
	CHECK_FMT("[00000017]", "[%#08o]", 15);
	/* flags that mean nothing here, or are overridden */
	CHECK_FMT_ODD("[+42]", "[%+ d]", 42);
	CHECK_FMT_ODD("[+42]", "[% +d]", 42);
	CHECK_FMT_ODD("[42   ]", "[%-05d]", 42);
	CHECK_FMT_ODD("[42   ]", "[%0-5d]", 42);
	CHECK_FMT_ODD("[42]", "[%+u]", 42u);
	CHECK_FMT_ODD("[42]", "[% u]", 42u);
	CHECK_FMT_ODD("[ff]", "[%+x]", 255u);
	CHECK_FMT_ODD("[42]", "[%#d]", 42);
	CHECK_FMT_ODD("[42]", "[%#u]", 42u);
	CHECK_FMT_ODD("[42   ]", "[%--5d]", 42);
	CHECK_FMT_ODD("[00042]", "[%00005d]", 42);
}

CHECK_TEST(format_precision)
{
	CHECK_FMT("[007]", "[%.3d]", 7);
	CHECK_FMT("[-007]", "[%.3d]", -7);
	CHECK_FMT("[+007]", "[%+.3d]", 7);
	CHECK_FMT("[ 007]", "[% .3d]", 7);
	CHECK_FMT("[12345]", "[%.3d]", 12345);
	CHECK_FMT("[]", "[%.0d]", 0);
	CHECK_FMT("[]", "[%.d]", 0);
	CHECK_FMT("[]", "[%.0u]", 0u);
	CHECK_FMT("[]", "[%.0x]", 0u);
	CHECK_FMT("[]", "[%.0o]", 0u);
	CHECK_FMT("[1]", "[%.0d]", 1);
	CHECK_FMT("[+]", "[%+.0d]", 0);
	CHECK_FMT("[ ]", "[% .0d]", 0);
	CHECK_FMT("[     ]", "[%5.0d]", 0);
	CHECK_FMT("[     ]", "[%-5.0d]", 0);
	CHECK_FMT("[     007]", "[%8.3d]", 7);
	CHECK_FMT("[007     ]", "[%-8.3d]", 7);
	CHECK_FMT("[    -007]", "[%8.3d]", -7);
	CHECK_FMT("[-0000000001]", "[%.10d]", -1);
	CHECK_FMT("[00ff]", "[%.4x]", 255);
	CHECK_FMT("[0x00ff]", "[%#.4x]", 255);
	CHECK_FMT("[  0x00ff]", "[%#8.4x]", 255);
	CHECK_FMT("[0000000000000000000000000000000042]", "[%.34d]", 42);
	/* '#' with %o: the first digit is a 0, precision or not */
	CHECK_FMT("[0]", "[%#o]", 0);
	CHECK_FMT("[0]", "[%#.0o]", 0);
	CHECK_FMT("[010]", "[%#o]", 8);
	CHECK_FMT("[010]", "[%#.2o]", 8);
	CHECK_FMT("[010]", "[%#.3o]", 8);
	CHECK_FMT("[00010]", "[%#.5o]", 8);
	CHECK_FMT("[0]", "[%#x]", 0);
	CHECK_FMT("[]", "[%#.0x]", 0);
	/* a precision turns the '0' flag off */
	CHECK_FMT_ODD("[     007]", "[%08.3d]", 7);
	CHECK_FMT_ODD("[    -007]", "[%08.3d]", -7);
	CHECK_FMT_ODD("[     ]", "[%05.0d]", 0);
	CHECK_FMT_ODD("[  0x00ff]", "[%#08.4x]", 255);
}

CHECK_TEST(format_star_width_and_precision)
{
	CHECK_FMT("[   42]", "[%*d]", 5, 42);
	CHECK_FMT("[42   ]", "[%*d]", -5, 42); /* negative width: '-' */
	CHECK_FMT("[42   ]", "[%-*d]", -5, 42);
	CHECK_FMT("[42   ]", "[%-*d]", 5, 42);
	CHECK_FMT("[42]", "[%*d]", 0, 42);
	CHECK_FMT("[-0003]", "[%0*d]", 5, -3);
	CHECK_FMT("[-3   ]", "[%0*d]", -5, -3);
	CHECK_FMT("[007]", "[%.*d]", 3, 7);
	CHECK_FMT("[7]", "[%.*d]", -1, 7); /* negative precision: none */
	CHECK_FMT("[0]", "[%.*d]", -1, 0);
	CHECK_FMT("[]", "[%.*d]", 0, 0);
	CHECK_FMT_ODD("[00042]", "[%05.*d]", -1, 42);
	CHECK_FMT_ODD("[  042]", "[%05.*d]", 3, 42);
	CHECK_FMT("[  -007]", "[%*.*d]", 6, 3, -7);
	CHECK_FMT("[-007  ]", "[%*.*d]", -6, 3, -7);
	CHECK_FMT("[   ab]", "[%*.*s]", 5, 2, "abc");
	CHECK_FMT("[ab]", "[%.*s]", 2, "abc");
	CHECK_FMT("[abc]", "[%.*s]", -2, "abc");
	CHECK_FMT("[x    |7]", "[%-*c|%d]", 5, 'x', 7);
}

CHECK_TEST(format_strings)
{
	char unterminated[3] = {'a', 'b', 'c'};
	const char *null = NULL;

	CHECK_FMT("[abc]", "[%s]", "abc");
	CHECK_FMT("[]", "[%s]", "");
	CHECK_FMT("[  abc]", "[%5s]", "abc");
	CHECK_FMT("[abc  ]", "[%-5s]", "abc");
	CHECK_FMT("[abc]", "[%2s]", "abc");
	CHECK_FMT("[ab]", "[%.2s]", "abc");
	CHECK_FMT("[]", "[%.0s]", "abc");
	CHECK_FMT("[    a]", "[%5.1s]", "abc");
	CHECK_FMT("[a    ]", "[%-5.1s]", "abc");
	CHECK_FMT("[abc]", "[%.10s]", "abc");
	CHECK_FMT("[     ]", "[%5s]", "");
	/* with a precision, %s reads no further: ASan watches this */
	CHECK_FMT("[abc]", "[%.3s]", unterminated);
	CHECK_FMT("[ab]", "[%.2s]", unterminated);
	/* NULL (which gcc warns about when it sees it) */
	CHECK_FMT_ODD("[(null)]", "[%s]", null);
	CHECK_FMT_ODD("[  (null)]", "[%8s]", null);
	CHECK_FMT_ODD("[(null)  ]", "[%-8s]", null);
	CHECK_FMT_ODD("[(nu]", "[%.3s]", null);
	/* flags that mean nothing for %s */
	CHECK_FMT_ODD("[  abc]", "[%05s]", "abc");
	CHECK_FMT_ODD("[abc]", "[%+s]", "abc");
	CHECK_FMT_ODD("[abc]", "[%#s]", "abc");
	CHECK_FMT("[a long string, longer than any padding buffer inside]",
		  "[%s]", "a long string, longer than any padding buffer inside");
}

CHECK_TEST(format_chars)
{
	CHECK_FMT("[x]", "[%c]", 'x');
	CHECK_FMT("[  x]", "[%3c]", 'x');
	CHECK_FMT("[x  ]", "[%-3c]", 'x');
	CHECK_FMT("[A]", "[%c]", 256 + 'A');
	CHECK_FMT("[\xe9]", "[%c]", 0xe9);
	CHECK_FMT("[\xff]", "[%c]", -1);
	CHECK_FMT_N("[\0]", 3, "[%c]", 0);
	CHECK_FMT_N("a\0b\0c", 5, "a%cb%cc", 0, '\0');
	CHECK_FMT_ODD("[    x]", "[%05c]", 'x');
	CHECK_FMT_ODD("[x]", "[%.0c]", 'x');
}

CHECK_TEST(format_pointers)
{
	int local;
	char buf[64], *end;

	CHECK_FMT("0x0000000000000000", "%p", (void *)0);
	CHECK_FMT("0x0000000000001234", "%p", (void *)0x1234);
	CHECK_FMT("0xffffffffffffffff", "%p", (void *)UINTPTR_MAX);
	CHECK_FMT("0xffff800000000000", "%p", (void *)0xffff800000000000ull);
	CHECK_FMT("[  0x0000000000001234]", "[%20p]", (void *)0x1234);
	CHECK_FMT("[0x0000000000001234  ]", "[%-20p]", (void *)0x1234);
	CHECK_FMT("[0x0000000000001234]", "[%5p]", (void *)0x1234);
	CHECK_FMT_ODD("[  0x0000000000001234]", "[%020p]", (void *)0x1234);
	CHECK_FMT_ODD("[0x0000000000001234]", "[%#+ .3p]", (void *)0x1234);

	CHECK_EQ(snprintf(buf, sizeof(buf), "%p", (void *)&local), 18);
	CHECK_EQ(strtoull(buf, &end, 16), (uintptr_t)&local);
	CHECK_EQ(END_AT(buf, end), 18);
}

CHECK_TEST(format_unknown_conversions_print_as_is)
{
	CHECK_FMT_ODD("%q", "%q");
	CHECK_FMT_ODD("[%5q]", "[%5q]");
	CHECK_FMT_ODD("[%-#05.3q]", "[%-#05.3q]");
	CHECK_FMT_ODD("[%lq]", "[%lq]");
	CHECK_FMT_ODD("[%n]", "[%n]");
	CHECK_FMT_ODD("[%f]", "[%f]");
	CHECK_FMT_ODD("[%L]", "[%L]");
	CHECK_FMT_ODD("[%lc]", "[%lc]");
	CHECK_FMT_ODD("[%ls]", "[%ls]");
	CHECK_FMT_ODD("[%hp]", "[%hp]");
	CHECK_FMT_ODD("[%l%]", "[%l%]");
	CHECK_FMT_ODD("[%", "[%");
	CHECK_FMT_ODD("%", "%");
	CHECK_FMT_ODD("abc%-5", "abc%-5");
	CHECK_FMT_ODD("abc%ll", "abc%ll");
	/* no argument is taken by what is not understood */
	CHECK_FMT_ODD("%f 5", "%f %d", 5);
	/* a width on "%%" is ignored */
	CHECK_FMT_ODD("%", "%5%");
	/* '*' takes its argument even if the conversion is unknown */
	CHECK_FMT_ODD("%*q 6", "%*q %d", 5, 6);
}

CHECK_TEST(format_mixed)
{
	CHECK_FMT("[abc|   42|ff  |x|-7|0x0000000000000010|%]",
		  "[%s|%5d|%-4x|%c|%ld|%p|%%]", "abc", 42, 255u, 'x', -7l,
		  (void *)16);
	CHECK_FMT("name=objstore size=16777216 (16M) err=-7",
		  "name=%s size=%llu (%lluM) err=%d", "objstore",
		  16777216ull, 16ull, -ERR_INVAL);
	CHECK_FMT("1 2 3 4 5 6 7 8 9 10 11 12", "%d %d %d %d %d %d %d %d %d %d %d %d",
		  1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
	CHECK_FMT("[   -1|18446744073709551615|  -128]", "[%5hhd|%zu|%6hd]", 255,
		  SIZE_MAX, -128);
}

CHECK_TEST(vsnprintf_size_zero_and_one)
{
	char buf[4] = "xyz";

	CHECK_EQ(snprintf(NULL, 0, "%d", 12345), 5);
	CHECK_EQ(snprintf(buf, 0, "%d", 12345), 5);
	CHECK_STR_EQ(buf, "xyz"); /* size 0: nothing written */
	CHECK_EQ(snprintf(buf, 1, "%d", 12345), 5);
	CHECK_EQ(buf[0], '\0');
	CHECK_EQ(buf[1], 'y');
	CHECK_EQ(snprintf(buf, 1, "%s", ""), 0);
	CHECK_EQ(buf[0], '\0');
	CHECK_EQ(snprintf(buf, 4, "abcdef"), 6);
	CHECK_STR_EQ(buf, "abc");
	CHECK_EQ(snprintf(buf, 4, "abc"), 3);
	CHECK_STR_EQ(buf, "abc");
	CHECK_EQ(snprintf(buf, 4, "%s%s", "a", "bcdef"), 6);
	CHECK_STR_EQ(buf, "abc");
}

/* counter_emit -- a vformat callback that only counts */
static void counter_emit(void *ctx, const char *s, size_t len)
{
	(void)s;
	*(size_t *)ctx += len;
}

/* format_count -- vformat into counter_emit; the return and the count */
static int format_count(size_t *count, const char *fmt, ...)
{
	va_list ap;
	int n;

	*count = 0;
	va_start(ap, fmt);
	n = vformat(counter_emit, count, fmt, ap);
	va_end(ap);
	return n;
}

CHECK_TEST(vformat_counts_past_int_max)
{
	size_t count;

	/* A width of INT_MAX: the count still fits, one more does not. */
	CHECK_EQ(format_count(&count, "%*d", INT_MAX, 1), INT_MAX);
	CHECK_EQ(count, INT_MAX);
	CHECK_EQ(format_count(&count, "%*d", INT_MIN, 1), INT_MAX); /* -INT_MIN */
	CHECK_EQ(count, INT_MAX);
	CHECK_EQ(format_count(&count, "x%2147483647d", 1), -1);
	CHECK_EQ(count, (size_t)INT_MAX + 1);
	/* widths and precisions written in the format saturate at INT_MAX */
	CHECK_EQ(format_count(&count, "%99999999999999999999d", 1), INT_MAX);
	CHECK_EQ(format_count(&count, "%.99999999999999999999d", 1), INT_MAX);
}

/* --- compiler helpers (builtins.c) ------------------------------------ */

int __popcountdi2(long long value);

CHECK_TEST(popcount_helper)
{
	CHECK_EQ(__popcountdi2(0), 0);
	CHECK_EQ(__popcountdi2(-1), 64);
	CHECK_EQ(__popcountdi2(0x8000000000000001ll), 2);
	for (int i = 0; i < 64; i++) {
		CHECK_EQ(__popcountdi2((long long)(1ull << i)), 1);
		CHECK_EQ(__popcountdi2((long long)((1ull << i) - 1)), i);
	}
}

/* --- CRC-32 (crc32.c) --------------------------------------------------- */

/* crc32_bitwise -- the definition, a bit at a time: what slicing must equal */
static uint32_t crc32_bitwise(uint32_t crc, const uint8_t *p, size_t len)
{
	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
	}
	return ~crc;
}

CHECK_TEST(crc32_matches_the_definition)
{
	static uint8_t buf[600];
	uint32_t seed = 12345;

	CHECK_EQ(crc32(0, "123456789", 9), 0xcbf43926u); /* zlib.crc32(b"123456789") */
	CHECK_EQ(crc32(0, "", 0), 0u);
	for (size_t i = 0; i < sizeof(buf); i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = (uint8_t)(seed >> 16);
	}
	/* every start alignment and many lengths, and continued in two pieces */
	for (size_t at = 0; at < 16; at++)
		for (size_t len = 0; len + at <= sizeof(buf); len += 37) {
			uint32_t want = crc32_bitwise(0, buf + at, len);

			CHECK_EQ(crc32(0, buf + at, len), want);
			CHECK_EQ(crc32(crc32(0, buf + at, len / 3), buf + at + len / 3,
				       len - len / 3), want);
		}
}

int main(void)
{
	return check_run_all();
}
