/*
 * numtext_cli.c -- libc's numtext (libc/numtext.c) on the command line,
 * for tests/system/test_numtext.py, one line out for each argument:
 *
 *   numtext_cli text BYTES...   size_text of each number of bytes
 *   numtext_cli size TEXT...    parse_size of each text: the bytes, or
 *                               the error (-ERR_INVAL, -ERR_RANGE)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ferrite/errors.h>
#include <numtext.h>

/* main -- size_text or parse_size of every argument after the first */
int main(int argc, char **argv)
{
	char text[SIZE_TEXT_MAX];
	uint64_t bytes;

	if (argc < 2 || (strcmp(argv[1], "text") && strcmp(argv[1], "size"))) {
		fputs("usage: numtext_cli text BYTES... | numtext_cli size TEXT...\n", stderr);
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		int err;

		if (!strcmp(argv[1], "text")) {
			puts(size_text(text, sizeof(text), strtoull(argv[i], NULL, 10)));
			continue;
		}
		err = parse_size(argv[i], &bytes);
		if (err)
			printf("%s\n", err == -ERR_RANGE ? "range" : "invalid");
		else
			printf("%llu\n", (unsigned long long)bytes);
	}
	return 0;
}
