/*
 * string.c -- memory and string functions of Ferrite's C library.
 *
 * Plain C, no assembly, so that the kernel, user programs and host tests all
 * run the same code. memcpy, memmove and memset move whole 64-bit words when
 * both pointers share their alignment; everything else goes byte by byte.
 *
 * gcc turns loops that look like a copy or a fill into calls to memcpy,
 * memmove or memset, even in freestanding code. Inside those three functions
 * that would be a call to themselves, so they are compiled without that
 * transformation (LIBC_NO_LIBCALL).
 */
#include <stdint.h>
#include <string.h>

#define LIBC_NO_LIBCALL __attribute__((optimize("no-tree-loop-distribute-patterns")))

/* One aligned machine word that may alias any other type. */
struct libc_word {
	uint64_t value;
} __attribute__((may_alias));

#define WORD_SIZE sizeof(struct libc_word)

/* same_alignment -- whether a and b are equally far from a word boundary */
static inline int same_alignment(const void *a, const void *b)
{
	return (((uintptr_t)a ^ (uintptr_t)b) & (WORD_SIZE - 1)) == 0;
}

/* copy_forward -- copy n bytes from the lowest address up */
LIBC_NO_LIBCALL
static void copy_forward(unsigned char *d, const unsigned char *s, size_t n)
{
	if (same_alignment(d, s)) {
		while (n > 0 && ((uintptr_t)d & (WORD_SIZE - 1)) != 0) {
			*d++ = *s++;
			n--;
		}
		for (; n >= WORD_SIZE; n -= WORD_SIZE) {
			((struct libc_word *)d)->value =
				((const struct libc_word *)s)->value;
			d += WORD_SIZE;
			s += WORD_SIZE;
		}
	}
	while (n-- > 0)
		*d++ = *s++;
}

/* copy_backward -- copy n bytes from the highest address down */
LIBC_NO_LIBCALL
static void copy_backward(unsigned char *d, const unsigned char *s, size_t n)
{
	d += n;
	s += n;
	if (same_alignment(d, s)) {
		while (n > 0 && ((uintptr_t)d & (WORD_SIZE - 1)) != 0) {
			*--d = *--s;
			n--;
		}
		for (; n >= WORD_SIZE; n -= WORD_SIZE) {
			d -= WORD_SIZE;
			s -= WORD_SIZE;
			((struct libc_word *)d)->value =
				((const struct libc_word *)s)->value;
		}
	}
	while (n-- > 0)
		*--d = *--s;
}

/* memcpy -- copy n bytes between buffers that do not overlap */
LIBC_NO_LIBCALL
void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
	copy_forward(dst, src, n);
	return dst;
}

/* memmove -- copy n bytes between buffers that may overlap */
LIBC_NO_LIBCALL
void *memmove(void *dst, const void *src, size_t n)
{
	uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;

	/* Going up is safe unless dst starts inside [src, src + n). */
	if (d - s >= n)
		copy_forward(dst, src, n);
	else
		copy_backward(dst, src, n);
	return dst;
}

/* memset -- fill n bytes with the byte value c */
LIBC_NO_LIBCALL
void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	unsigned char byte = (unsigned char)c;
	uint64_t pattern = byte * 0x0101010101010101ull;

	while (n > 0 && ((uintptr_t)d & (WORD_SIZE - 1)) != 0) {
		*d++ = byte;
		n--;
	}
	for (; n >= WORD_SIZE; n -= WORD_SIZE) {
		((struct libc_word *)d)->value = pattern;
		d += WORD_SIZE;
	}
	while (n-- > 0)
		*d++ = byte;
	return dst;
}

/* memcmp -- compare n bytes as unsigned chars: <0, 0 or >0 */
int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *p = a, *q = b;

	for (size_t i = 0; i < n; i++) {
		if (p[i] != q[i])
			return p[i] < q[i] ? -1 : 1;
	}
	return 0;
}

/* memchr -- the first byte equal to c in the first n bytes, or NULL */
void *memchr(const void *s, int c, size_t n)
{
	const unsigned char *p = s;

	for (size_t i = 0; i < n; i++) {
		if (p[i] == (unsigned char)c)
			return (void *)(p + i);
	}
	return NULL;
}

/* strlen -- the number of bytes before the terminating NUL */
size_t strlen(const char *s)
{
	size_t n = 0;

	while (s[n] != '\0')
		n++;
	return n;
}

/* strnlen -- strlen, but reading at most maxlen bytes */
size_t strnlen(const char *s, size_t maxlen)
{
	size_t n = 0;

	while (n < maxlen && s[n] != '\0')
		n++;
	return n;
}

/* strcmp -- compare two strings as unsigned chars: <0, 0 or >0 */
int strcmp(const char *a, const char *b)
{
	const unsigned char *p = (const unsigned char *)a;
	const unsigned char *q = (const unsigned char *)b;

	while (*p != '\0' && *p == *q) {
		p++;
		q++;
	}
	return *p == *q ? 0 : (*p < *q ? -1 : 1);
}

/* strncmp -- strcmp of at most the first n bytes */
int strncmp(const char *a, const char *b, size_t n)
{
	const unsigned char *p = (const unsigned char *)a;
	const unsigned char *q = (const unsigned char *)b;

	for (size_t i = 0; i < n; i++) {
		if (p[i] != q[i])
			return p[i] < q[i] ? -1 : 1;
		if (p[i] == '\0')
			break;
	}
	return 0;
}

/* strchr -- the first c in s (c may be NUL: the terminator), or NULL */
char *strchr(const char *s, int c)
{
	char ch = (char)c;

	for (;; s++) {
		if (*s == ch)
			return (char *)s;
		if (*s == '\0')
			return NULL;
	}
}

/* strrchr -- the last c in s (c may be NUL: the terminator), or NULL */
char *strrchr(const char *s, int c)
{
	char ch = (char)c;
	const char *last = NULL;

	for (;; s++) {
		if (*s == ch)
			last = s;
		if (*s == '\0')
			return (char *)last;
	}
}

/* strstr -- the first occurrence of needle in haystack, or NULL */
char *strstr(const char *haystack, const char *needle)
{
	size_t n = strlen(needle);

	for (; *haystack != '\0'; haystack++) {
		if (strncmp(haystack, needle, n) == 0)
			return (char *)haystack;
	}
	return n == 0 ? (char *)haystack : NULL;
}

/* strlcpy -- copy src into dst[size], NUL-terminated; returns strlen(src) */
size_t strlcpy(char *restrict dst, const char *restrict src, size_t size)
{
	size_t len = strlen(src);

	if (size > 0) {
		size_t n = len < size - 1 ? len : size - 1;
		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}
