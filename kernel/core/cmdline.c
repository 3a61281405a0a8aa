/*
 * cmdline.c -- parsing `key=value` words of the kernel command line.
 *
 * The text is copied once into `text` and split in place into `words`;
 * lookups are linear (a handful of words, read a few times at boot).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ferrite/errors.h"

#include "core/cmdline.h"
#include "core/printk.h"

#define CMDLINE_MAX 1024
#define CMDLINE_WORDS_MAX 64

struct cmdline_word {
	const char *key;
	const char *value;
};

static char original[CMDLINE_MAX];
static char text[CMDLINE_MAX];
static struct cmdline_word words[CMDLINE_WORDS_MAX];
static unsigned word_count;

/* Every key the kernel reads; see docs/cmdline.md. */
static const char *const known_keys[] = {
	"panic", "loglevel", "earlyprintk", "flush", "selftest", "crash",
	"nvm", "nvm.min", "import", "ckpt", "logcheck", "resume", "safe", "cpus",
	"cache", "nopersist", "shell",
};

/* cmdline_init -- keep a copy of the loader's command line and parse it */
void cmdline_init(const char *line)
{
	char *p = text;

	strlcpy(original, line ? line : "", sizeof(original));
	strlcpy(text, original, sizeof(text));
	word_count = 0;
	while (*p && word_count < CMDLINE_WORDS_MAX) {
		while (*p == ' ')
			*p++ = '\0';
		if (!*p)
			break;
		words[word_count].key = p;
		while (*p && *p != ' ' && *p != '=')
			p++;
		if (*p == '=') {
			*p++ = '\0';
			words[word_count].value = p;
			while (*p && *p != ' ')
				p++;
		} else {
			words[word_count].value = p; /* the empty string at the separator */
		}
		word_count++;
		if (*p)
			*p++ = '\0';
	}
}

/* cmdline_get -- the value of `key`, "" for a bare word, NULL if absent */
const char *cmdline_get(const char *key)
{
	const char *value = NULL;

	for (unsigned i = 0; i < word_count; i++)
		if (strcmp(words[i].key, key) == 0)
			value = words[i].value;
	return value;
}

/* cmdline_is -- whether `key` is present with exactly `value` */
bool cmdline_is(const char *key, const char *value)
{
	const char *v = cmdline_get(key);

	return v && strcmp(v, value) == 0;
}

/* cmdline_has -- whether `key` is present at all */
bool cmdline_has(const char *key)
{
	return cmdline_get(key) != NULL;
}

/* cmdline_number -- key=N, a decimal from min to max, in *out; `fallback`
 * when the key is absent (0) or N is not such a number (-ERR_INVAL) */
int cmdline_number(const char *key, uint64_t min, uint64_t max,
		   uint64_t fallback, uint64_t *out)
{
	const char *value = cmdline_get(key);
	unsigned long long n;
	char *end;

	*out = fallback;
	if (!value)
		return 0;
	n = strtoull(value, &end, 10);
	if (*value < '0' || *value > '9' || *end || n < min || n > max)
		return -ERR_INVAL;
	*out = n;
	return 0;
}

/* cmdline_text -- the whole command line as given */
const char *cmdline_text(void)
{
	return original;
}

/* is_known -- whether the kernel reads `key` */
static bool is_known(const char *key)
{
	for (size_t i = 0; i < sizeof(known_keys) / sizeof(known_keys[0]); i++)
		if (strcmp(known_keys[i], key) == 0)
			return true;
	return false;
}

/* cmdline_warn_unknown -- print a warning for every key nobody knows */
void cmdline_warn_unknown(void)
{
	for (unsigned i = 0; i < word_count; i++)
		if (!is_known(words[i].key))
			pr_warn("cmdline: unknown option '%s' ignored\n",
				words[i].key);
}
