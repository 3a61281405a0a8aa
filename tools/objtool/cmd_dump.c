/*
 * cmd_dump.c -- dump --range OFFSET:LENGTH [--binary]: an image's raw bytes
 * (read-only).
 *
 * The bytes come from the file with pread, as the NVM holds them: an
 * unfinished transaction is not rolled back first, and a corrupt heap can
 * be dumped (the image is opened as check opens it). Hex as `hexdump -C`
 * prints it: the offset, 16 bytes, the same as text; a run of lines like
 * the one before is one `*`; the last line is the end offset. --binary
 * writes the bytes themselves to stdout.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "objtool.h"

#define DUMP_LINE 16
#define DUMP_CHUNK (1u << 20)

/* parse_offset -- a decimal number with an optional K/M/G/T suffix, or 0x hex */
static bool parse_offset(const char *text, uint64_t *value)
{
	if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
		return parse_number(text, value) == 0;
	return parse_size(text, value) == 0;
}

/* parse_range -- "OFFSET:LENGTH" into off and len; an exit status */
static int parse_range(const char *text, uint64_t *off, uint64_t *len)
{
	const char *colon = strchr(text, ':');
	char first[64];

	if (!colon || (size_t)(colon - text) >= sizeof(first))
		return fail(EXIT_USAGE, "dump: --range takes OFFSET:LENGTH (like 0x1000:256 or "
			    "4K:64), not '%s'", text);
	memcpy(first, text, (size_t)(colon - text));
	first[colon - text] = '\0';
	if (!parse_offset(first, off) || !parse_offset(colon + 1, len))
		return fail(EXIT_USAGE, "dump: --range takes OFFSET:LENGTH, numbers in decimal "
			    "(K, M, G suffixes) or 0x hex, not '%s'", text);
	return EXIT_OK;
}

/* hex_line -- one line of hex: offset, 16 bytes (n of them real), as text */
static void hex_line(uint64_t off, const uint8_t *b, size_t n)
{
	printf("%016" PRIx64 " ", off);
	for (size_t i = 0; i < DUMP_LINE; i++) {
		if (i % 8 == 0)
			putchar(' ');
		if (i < n)
			printf("%02x ", b[i]);
		else
			fputs("   ", stdout);
	}
	fputs(" |", stdout);
	for (size_t i = 0; i < n; i++)
		putchar(b[i] >= 0x20 && b[i] < 0x7f ? b[i] : '.');
	puts("|");
}

/* run_dump -- objtool IMAGE dump --range OFFSET:LENGTH [--binary] */
static int run_dump(struct image *img, const struct args *a)
{
	bool binary = a->opt[1] != NULL, starred = false;
	uint8_t *buf, last[DUMP_LINE];
	uint64_t off, len, done = 0;
	int status;

	if (!a->opt[0])
		return fail(EXIT_USAGE, "dump: --range OFFSET:LENGTH is required (see objtool "
			    "dump --help)");
	status = parse_range(a->opt[0], &off, &len);
	if (status)
		return status;
	if (off > img->size || len > img->size - off)
		return fail(EXIT_USAGE, "dump: %#" PRIx64 ":%" PRIu64 " runs past the image's end "
			    "(%" PRIu64 " bytes, 0x%" PRIx64 ")", off, len, img->size, img->size);
	buf = malloc(DUMP_CHUNK);
	if (!buf)
		return fail(EXIT_FAILED, "dump: out of memory");
	while (done < len) {
		size_t want = len - done < DUMP_CHUNK ? (size_t)(len - done) : DUMP_CHUNK;
		ssize_t got = pread(img->fd, buf, want, (off_t)(off + done));

		if (got <= 0) {
			free(buf);
			return fail(EXIT_FAILED, "dump: reading %s at %#" PRIx64 ": %s", img->path,
				    off + done, got ? strerror(errno) : "end of file");
		}
		if (binary) {
			if (write_all(STDOUT_FILENO, buf, (size_t)got)) {
				free(buf);
				return fail(EXIT_FAILED, "dump: writing: %s", strerror(errno));
			}
		} else {
			for (size_t i = 0; i < (size_t)got; i += DUMP_LINE) {
				size_t n = (size_t)got - i < DUMP_LINE ? (size_t)got - i : DUMP_LINE;
				uint64_t at = off + done + i;

				/* a whole line like the one before: one '*' for the run */
				if (at > off && n == DUMP_LINE && memcmp(last, buf + i, n) == 0) {
					if (!starred)
						puts("*");
					starred = true;
					continue;
				}
				starred = false;
				hex_line(at, buf + i, n);
				memcpy(last, buf + i, n);
			}
		}
		done += (uint64_t)got;
	}
	free(buf);
	if (!binary)
		printf("%016" PRIx64 "\n", off + len);
	return EXIT_OK;
}

const struct command cmd_dump = {
	.name = "dump",
	.access = ACCESS_CHECK,
	.min_pos = 0,
	.max_pos = 0,
	.opts = { { "--range", 0, true }, { "--binary", 0, false } },
	.usage = "dump --range OFFSET:LENGTH [--binary]",
	.summary = "an image's raw bytes, in hex or as they are",
	.help = "Prints LENGTH bytes of the image file from OFFSET as hexdump -C does:\n"
		"the offset, 16 bytes in hex, the same as text; a run of lines like the\n"
		"one before prints as one '*'; the last line is the end offset.\n"
		"Numbers are decimal (K, M, G suffixes) or 0x hex: --range 0:4K,\n"
		"--range 0x100:8. The bytes are the file's, as the NVM holds them: an\n"
		"unfinished transaction is not rolled back first, and a corrupt heap\n"
		"is dumped all the same (a file that is no Ferrite image is refused).\n\n"
		"  --range OFFSET:LENGTH  what to dump (required)\n"
		"  --binary               the bytes themselves to stdout\n",
	.run = run_dump,
};
