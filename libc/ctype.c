/*
 * ctype.c -- character classes for plain ASCII (the "C" locale).
 *
 * Out-of-line functions rather than macros over a table: they are short,
 * evaluate their argument once, and take any int without indexing out of
 * bounds (EOF and bytes above 127 simply belong to no class).
 */
#include <ctype.h>

/* isdigit -- '0'..'9' */
int isdigit(int c)
{
	return c >= '0' && c <= '9';
}

/* isxdigit -- '0'..'9', 'a'..'f', 'A'..'F' */
int isxdigit(int c)
{
	return isdigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* isspace -- space, \t, \n, \v, \f or \r */
int isspace(int c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/* isupper -- 'A'..'Z' */
int isupper(int c)
{
	return c >= 'A' && c <= 'Z';
}

/* islower -- 'a'..'z' */
int islower(int c)
{
	return c >= 'a' && c <= 'z';
}

/* isalpha -- a letter */
int isalpha(int c)
{
	return isupper(c) || islower(c);
}

/* isalnum -- a letter or a digit */
int isalnum(int c)
{
	return isalpha(c) || isdigit(c);
}

/* isprint -- printable, space included: 0x20..0x7e */
int isprint(int c)
{
	return c >= 0x20 && c <= 0x7e;
}

/* toupper -- the upper-case letter for a lower-case one, else c */
int toupper(int c)
{
	return islower(c) ? c - 'a' + 'A' : c;
}

/* tolower -- the lower-case letter for an upper-case one, else c */
int tolower(int c)
{
	return isupper(c) ? c - 'A' + 'a' : c;
}
