/*
 * format.c -- printf-style formatting: vformat, vsnprintf, snprintf.
 *
 * vformat walks the format once. Literal text between conversions is passed
 * to the callback in one piece; each conversion is parsed into a struct
 * fmt_spec, its argument fetched with the right type, and its output built
 * from at most five parts: leading spaces, sign and prefix, zeros, digits or
 * text, trailing spaces. Nothing is buffered beyond one number's digits, so
 * the output may be arbitrarily long and the callback decides where it goes.
 *
 * Semantics are C99's for everything supported (see stdio.h). Cases that C
 * leaves undefined behave as follows: '#' and '+'/' ' are ignored where they
 * mean nothing, '0' pads with spaces for %s %c %p, %p honours only width and
 * '-', and an unsupported conversion is printed as it stands in the format.
 * No floating point: the kernel is built with -mgeneral-regs-only.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define FMT_INT_MAX __INT_MAX__

/* Flags of one conversion. */
#define FMT_LEFT 0x01  /* '-': pad on the right */
#define FMT_ZERO 0x02  /* '0': pad numbers with zeros */
#define FMT_PLUS 0x04  /* '+': '+' before non-negative signed numbers */
#define FMT_SPACE 0x08 /* ' ': ' ' before non-negative signed numbers */
#define FMT_ALT 0x10   /* '#': 0x prefix, or a leading 0 in octal */

enum fmt_length { LEN_NONE, LEN_HH, LEN_H, LEN_L, LEN_LL, LEN_Z, LEN_T, LEN_J };

/* One parsed conversion: %[flags][width][.precision][length]conv */
struct fmt_spec {
	unsigned flags;
	size_t width;   /* 0: none */
	int precision;  /* -1: none */
	enum fmt_length length;
	char conv;      /* the conversion character; '\0' if the format ended */
};

/* Where the output goes, and how much of it there has been. */
struct fmt_out {
	void (*emit)(void *ctx, const char *s, size_t len);
	void *ctx;
	size_t count;
};

/* One integer to print. */
struct fmt_number {
	uintmax_t magnitude;
	const char *head; /* sign or prefix: "", "-", "+", " ", "0x" or "0X" */
	unsigned base;
	bool upper;
};

_Static_assert(sizeof(size_t) == sizeof(ptrdiff_t),
	       "%zd reads a ptrdiff_t, %tu a size_t: they must be the same size");

/* out_write -- pass len bytes of s to the callback */
static void out_write(struct fmt_out *out, const char *s, size_t len)
{
	if (len == 0)
		return;
	out->emit(out->ctx, s, len);
	out->count += len;
}

/* out_fill -- write n copies of the character c (' ' or '0') */
static void out_fill(struct fmt_out *out, char c, size_t n)
{
	static const char spaces[] = "                                ";
	static const char zeros[] = "00000000000000000000000000000000";
	const char *run = c == '0' ? zeros : spaces;

	while (n > 0) {
		size_t chunk = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;
		out_write(out, run, chunk);
		n -= chunk;
	}
}

/* parse_decimal -- read digits at *p as a number saturated at INT_MAX */
static int parse_decimal(const char **p)
{
	int value = 0;

	for (; **p >= '0' && **p <= '9'; (*p)++) {
		int d = **p - '0';
		value = value > (FMT_INT_MAX - d) / 10 ? FMT_INT_MAX : value * 10 + d;
	}
	return value;
}

/* parse_flags -- read the flag characters at p into spec */
static const char *parse_flags(const char *p, struct fmt_spec *spec)
{
	for (;; p++) {
		switch (*p) {
		case '-': spec->flags |= FMT_LEFT; break;
		case '0': spec->flags |= FMT_ZERO; break;
		case '+': spec->flags |= FMT_PLUS; break;
		case ' ': spec->flags |= FMT_SPACE; break;
		case '#': spec->flags |= FMT_ALT; break;
		default: return p;
		}
	}
}

/* parse_width -- read the width at p (digits or '*') into spec */
static const char *parse_width(const char *p, struct fmt_spec *spec, va_list *ap)
{
	int width;

	if (*p != '*') {
		spec->width = (size_t)parse_decimal(&p);
		return p;
	}
	width = va_arg(*ap, int);
	if (width < 0) {
		spec->flags |= FMT_LEFT; /* C: a negative width is '-' and a width */
		width = width == -FMT_INT_MAX - 1 ? FMT_INT_MAX : -width;
	}
	spec->width = (size_t)width;
	return p + 1;
}

/* parse_precision -- read ".digits" or ".*" at p, if there, into spec */
static const char *parse_precision(const char *p, struct fmt_spec *spec,
				   va_list *ap)
{
	if (*p != '.')
		return p;
	p++;
	if (*p != '*') {
		spec->precision = parse_decimal(&p);
		return p;
	}
	spec->precision = va_arg(*ap, int);
	if (spec->precision < 0)
		spec->precision = -1; /* C: as if it were not given */
	return p + 1;
}

/* parse_length -- read a length modifier at p, if there, into spec */
static const char *parse_length(const char *p, struct fmt_spec *spec)
{
	switch (*p) {
	case 'h': spec->length = p[1] == 'h' ? LEN_HH : LEN_H; break;
	case 'l': spec->length = p[1] == 'l' ? LEN_LL : LEN_L; break;
	case 'z': spec->length = LEN_Z; break;
	case 't': spec->length = LEN_T; break;
	case 'j': spec->length = LEN_J; break;
	default: return p;
	}
	return p + (spec->length == LEN_HH || spec->length == LEN_LL ? 2 : 1);
}

/* parse_spec -- read the conversion after the '%' at p; returns its end */
static const char *parse_spec(const char *p, struct fmt_spec *spec, va_list *ap)
{
	*spec = (struct fmt_spec){0, 0, -1, LEN_NONE, '\0'};
	p = parse_flags(p + 1, spec);
	p = parse_width(p, spec, ap);
	p = parse_precision(p, spec, ap);
	p = parse_length(p, spec);
	spec->conv = *p;
	return *p == '\0' ? p : p + 1;
}

/* arg_signed -- fetch a signed integer argument of the spec's length */
static intmax_t arg_signed(const struct fmt_spec *spec, va_list *ap)
{
	switch (spec->length) {
	case LEN_HH: return (signed char)va_arg(*ap, int);
	case LEN_H: return (short)va_arg(*ap, int);
	case LEN_L: return va_arg(*ap, long);
	case LEN_LL: return va_arg(*ap, long long);
	case LEN_Z: /* the signed type of size_t's width */
	case LEN_T: return va_arg(*ap, ptrdiff_t);
	case LEN_J: return va_arg(*ap, intmax_t);
	default: return va_arg(*ap, int);
	}
}

/* arg_unsigned -- fetch an unsigned integer argument of the spec's length */
static uintmax_t arg_unsigned(const struct fmt_spec *spec, va_list *ap)
{
	switch (spec->length) {
	case LEN_HH: return (unsigned char)va_arg(*ap, unsigned);
	case LEN_H: return (unsigned short)va_arg(*ap, unsigned);
	case LEN_L: return va_arg(*ap, unsigned long);
	case LEN_LL: return va_arg(*ap, unsigned long long);
	case LEN_Z: return va_arg(*ap, size_t);
	case LEN_T: return (size_t)va_arg(*ap, ptrdiff_t);
	case LEN_J: return va_arg(*ap, uintmax_t);
	default: return va_arg(*ap, unsigned);
	}
}

/* to_digits -- write magnitude's digits so that they end at `end`; returns the first */
static char *to_digits(char *end, uintmax_t magnitude, unsigned base, bool upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";

	do {
		*--end = digits[magnitude % base];
		magnitude /= base;
	} while (magnitude != 0);
	return end;
}

/* emit_padded -- write head, zeros, body within the spec's width */
static void emit_padded(struct fmt_out *out, const struct fmt_spec *spec,
			const char *head, size_t zeros, const char *body,
			size_t body_len)
{
	size_t head_len = strlen(head);
	size_t len = head_len + zeros + body_len;
	size_t pad = spec->width > len ? spec->width - len : 0;

	if (!(spec->flags & FMT_LEFT))
		out_fill(out, ' ', pad);
	out_write(out, head, head_len);
	out_fill(out, '0', zeros);
	out_write(out, body, body_len);
	if (spec->flags & FMT_LEFT)
		out_fill(out, ' ', pad);
}

/* fmt_number -- print an integer with its sign, prefix, precision and width */
static void fmt_number(struct fmt_out *out, const struct fmt_spec *spec,
		       const struct fmt_number *num)
{
	char buf[3 * sizeof(uintmax_t) + 1];
	char *end = buf + sizeof(buf), *digits = end;
	size_t len, zeros;

	if (num->magnitude != 0 || spec->precision != 0)
		digits = to_digits(end, num->magnitude, num->base, num->upper);
	len = (size_t)(end - digits);
	zeros = spec->precision > 0 && (size_t)spec->precision > len ?
			(size_t)spec->precision - len : 0;
	/* '#' with %o: the first digit printed must be a 0. */
	if ((spec->flags & FMT_ALT) && num->base == 8 && zeros == 0 &&
	    (len == 0 || digits[0] != '0'))
		zeros = 1;
	/* '0' pads with zeros, unless '-' or a precision says otherwise. */
	if ((spec->flags & (FMT_ZERO | FMT_LEFT)) == FMT_ZERO &&
	    spec->precision < 0) {
		size_t used = strlen(num->head) + zeros + len;
		zeros += spec->width > used ? spec->width - used : 0;
	}
	emit_padded(out, spec, num->head, zeros, digits, len);
}

/* fmt_integer -- print %d %i %u %x %X %o */
static void fmt_integer(struct fmt_out *out, const struct fmt_spec *spec,
			va_list *ap)
{
	struct fmt_number num = {0, "", 10, spec->conv == 'X'};
	bool is_signed = spec->conv == 'd' || spec->conv == 'i';

	if (is_signed) {
		intmax_t value = arg_signed(spec, ap);
		num.magnitude = value < 0 ? 0 - (uintmax_t)value : (uintmax_t)value;
		if (value < 0)
			num.head = "-";
		else if (spec->flags & FMT_PLUS)
			num.head = "+";
		else if (spec->flags & FMT_SPACE)
			num.head = " ";
	} else {
		num.magnitude = arg_unsigned(spec, ap);
	}
	if (spec->conv == 'o')
		num.base = 8;
	if (spec->conv == 'x' || spec->conv == 'X') {
		num.base = 16;
		if ((spec->flags & FMT_ALT) && num.magnitude != 0)
			num.head = num.upper ? "0X" : "0x";
	}
	fmt_number(out, spec, &num);
}

/* fmt_pointer -- print %p: "0x" and 16 hex digits, within the width */
static void fmt_pointer(struct fmt_out *out, const struct fmt_spec *spec,
			va_list *ap)
{
	struct fmt_spec ptr = {spec->flags & FMT_LEFT, spec->width, 16, LEN_NONE, 'x'};
	struct fmt_number num = {(uintptr_t)va_arg(*ap, void *), "0x", 16, false};

	fmt_number(out, &ptr, &num);
}

/* fmt_string -- print %s, at most precision bytes of it */
static void fmt_string(struct fmt_out *out, const struct fmt_spec *spec,
		       va_list *ap)
{
	const char *s = va_arg(*ap, const char *);
	size_t len;

	if (s == NULL)
		s = "(null)";
	len = spec->precision < 0 ? strlen(s) : strnlen(s, (size_t)spec->precision);
	emit_padded(out, spec, "", 0, s, len);
}

/* fmt_char -- print %c */
static void fmt_char(struct fmt_out *out, const struct fmt_spec *spec,
		     va_list *ap)
{
	char c = (char)(unsigned char)va_arg(*ap, int);

	emit_padded(out, spec, "", 0, &c, 1);
}

/* is_integer_conv -- whether c is one of the integer conversions */
static bool is_integer_conv(char c)
{
	return c == 'd' || c == 'i' || c == 'u' || c == 'x' || c == 'X' ||
	       c == 'o';
}

/* fmt_conversion -- print one conversion, the text from start to end */
static void fmt_conversion(struct fmt_out *out, const struct fmt_spec *spec,
			   const char *start, const char *end, va_list *ap)
{
	bool plain = spec->length == LEN_NONE; /* no %lc, %hs, ... */

	if (is_integer_conv(spec->conv))
		fmt_integer(out, spec, ap);
	else if (plain && spec->conv == 'p')
		fmt_pointer(out, spec, ap);
	else if (plain && spec->conv == 's')
		fmt_string(out, spec, ap);
	else if (plain && spec->conv == 'c')
		fmt_char(out, spec, ap);
	else if (plain && spec->conv == '%')
		out_write(out, "%", 1);
	else
		out_write(out, start, (size_t)(end - start)); /* unsupported */
}

/* vformat -- format into the callback; returns the count of characters or -1 */
int vformat(void (*emit)(void *ctx, const char *s, size_t len), void *ctx,
	    const char *fmt, va_list ap)
{
	struct fmt_out out = {emit, ctx, 0};
	struct fmt_spec spec;
	va_list args;

	va_copy(args, ap); /* a va_list parameter cannot be passed on by address */
	while (*fmt != '\0') {
		const char *pct = fmt;
		while (*pct != '\0' && *pct != '%')
			pct++;
		out_write(&out, fmt, (size_t)(pct - fmt));
		if (*pct == '\0')
			break;
		fmt = parse_spec(pct, &spec, &args);
		fmt_conversion(&out, &spec, pct, fmt, &args);
	}
	va_end(args);
	return out.count > FMT_INT_MAX ? -1 : (int)out.count;
}

/* A buffer being filled by vsnprintf. */
struct snbuf {
	char *buf;
	size_t size;  /* room including the NUL */
	size_t len;   /* characters produced so far, stored or not */
};

/* snbuf_emit -- store what fits of s, keeping room for the NUL */
static void snbuf_emit(void *ctx, const char *s, size_t len)
{
	struct snbuf *sb = ctx;

	if (sb->len + 1 < sb->size) {
		size_t room = sb->size - 1 - sb->len;
		memcpy(sb->buf + sb->len, s, len < room ? len : room);
	}
	sb->len += len;
}

/* vsnprintf -- format into buf[size], NUL-terminated; returns the full length */
int vsnprintf(char *restrict buf, size_t size, const char *restrict fmt,
	      va_list ap)
{
	struct snbuf sb = {buf, size, 0};
	int n = vformat(snbuf_emit, &sb, fmt, ap);

	if (size > 0)
		buf[sb.len < size ? sb.len : size - 1] = '\0';
	return n;
}

/* snprintf -- vsnprintf with the arguments inline */
int snprintf(char *restrict buf, size_t size, const char *restrict fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
