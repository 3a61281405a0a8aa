/*
 * ctype.h -- character classes, for the "C" locale (plain ASCII) only.
 *
 * Every function takes an int holding an unsigned char value or -1 (EOF);
 * anything outside 0..127 belongs to no class and is not case-converted.
 */
#ifndef LIBC_CTYPE_H
#define LIBC_CTYPE_H

/* isdigit -- '0'..'9' */
int isdigit(int c);

/* isxdigit -- '0'..'9', 'a'..'f', 'A'..'F' */
int isxdigit(int c);

/* isspace -- space, \t, \n, \v, \f or \r */
int isspace(int c);

/* isupper -- 'A'..'Z' */
int isupper(int c);

/* islower -- 'a'..'z' */
int islower(int c);

/* isalpha -- a letter */
int isalpha(int c);

/* isalnum -- a letter or a digit */
int isalnum(int c);

/* isprint -- printable, space included: 0x20..0x7e */
int isprint(int c);

/* toupper -- the upper-case letter for a lower-case one, else c */
int toupper(int c);

/* tolower -- the lower-case letter for an upper-case one, else c */
int tolower(int c);

#endif
