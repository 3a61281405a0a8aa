/*
 * string.h -- Ferrite's memory and string functions.
 *
 * The standard names and signatures, so that gcc's own calls to memcpy,
 * memset, memmove and memcmp (struct copies, zeroed arrays) land here.
 * strlcpy has BSD semantics: it always NUL-terminates when size > 0 and
 * returns strlen(src), so truncation shows as a result >= size.
 */
#ifndef LIBC_STRING_H
#define LIBC_STRING_H

#include <stddef.h>

/* memcpy -- copy n bytes between buffers that do not overlap */
void *memcpy(void *restrict dst, const void *restrict src, size_t n);

/* memmove -- copy n bytes between buffers that may overlap */
void *memmove(void *dst, const void *src, size_t n);

/* memset -- fill n bytes with the byte value c */
void *memset(void *dst, int c, size_t n);

/* memcmp -- compare n bytes as unsigned chars: <0, 0 or >0 */
int memcmp(const void *a, const void *b, size_t n);

/* memchr -- the first byte equal to c in the first n bytes, or NULL */
void *memchr(const void *s, int c, size_t n);

/* strlen -- the number of bytes before the terminating NUL */
size_t strlen(const char *s);

/* strnlen -- strlen, but reading at most maxlen bytes */
size_t strnlen(const char *s, size_t maxlen);

/* strcmp -- compare two strings as unsigned chars: <0, 0 or >0 */
int strcmp(const char *a, const char *b);

/* strncmp -- strcmp of at most the first n bytes */
int strncmp(const char *a, const char *b, size_t n);

/* strchr -- the first c in s (c may be NUL: the terminator), or NULL */
char *strchr(const char *s, int c);

/* strrchr -- the last c in s (c may be NUL: the terminator), or NULL */
char *strrchr(const char *s, int c);

/* strstr -- the first occurrence of needle in haystack, or NULL */
char *strstr(const char *haystack, const char *needle);

/* strlcpy -- copy src into dst[size], NUL-terminated; returns strlen(src) */
size_t strlcpy(char *restrict dst, const char *restrict src, size_t size);

#endif
