/*
 * size_text.c -- libc's size_text (libc/numtext.c) on the command line,
 * for tests/system/test_numtext.py: each argument, a number of bytes, is
 * printed as size_text writes it, one a line.
 */
#include <stdio.h>
#include <stdlib.h>

#include <numtext.h>

/* main -- size_text of every argument */
int main(int argc, char **argv)
{
	char text[SIZE_TEXT_MAX];

	for (int i = 1; i < argc; i++)
		puts(size_text(text, sizeof(text), strtoull(argv[i], NULL, 10)));
	return 0;
}
