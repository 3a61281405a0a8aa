/*
 * complete.c -- Tab completion.
 *
 * The first word of a line completes to a builtin or a program (a name
 * bin/NAME in the catalogue, offered as NAME); any other word completes to
 * a catalogue name. One Tab extends the word by what all candidates share
 * (and a space when only one is left); when that adds nothing, a second
 * Tab lists the candidates in columns. Catalogue names come from
 * SYS_NAME_LIST by prefix, in order, so even a catalogue of 100,000 names
 * is read only from the word's place on.
 */
#include "osh.h"

#define PROGRAM_DIR "bin/"
#define SHOWN_MAX 200            /* candidates listed; the rest are counted */
#define SCREEN_COLUMNS 80

/* What a walk over candidates gathers. */
struct gather {
	struct completion *c;
	size_t skip;             /* bytes of the name not offered (bin/) */
	bool command;            /* skip programs that share a builtin's name */
	bool listing;            /* keep up to SHOWN_MAX of them for complete_list */
};

static char shown[SHOWN_MAX][FE_NAME_MAX + 1];

/* add -- one candidate */
static void add(struct gather *g, const char *candidate)
{
	struct completion *c = g->c;
	size_t i;

	if (c->matches == 0) {
		strlcpy(c->first, candidate, sizeof(c->first));
		c->common = strlen(c->first);
	} else {
		for (i = 0; i < c->common && c->first[i] == candidate[i]; i++)
			;
		c->common = i;
	}
	if (g->listing && c->matches < SHOWN_MAX)
		strlcpy(shown[c->matches], candidate, sizeof(shown[0]));
	c->matches++;
}

/* add_name -- name_walk's callback: a catalogue name as a candidate */
static bool add_name(const struct fe_name_entry *e, void *ctx)
{
	struct gather *g = ctx;
	const char *offered = e->name + g->skip;

	if (g->command && (*offered == '\0' || find_builtin(offered) != NULL))
		return true;
	add(g, offered);
	return true;
}

/* gather -- every candidate for word */
static void gather(const char *word, bool command, bool listing,
		   struct completion *c)
{
	struct gather g = {c, 0, command, listing};
	char prefix[FE_NAME_MAX + 1];
	size_t i;

	memset(c, 0, sizeof(*c));
	if (!command) {
		name_walk(word, add_name, &g);
		return;
	}
	for (i = 0; i < builtin_count; i++)
		if (strncmp(builtins[i].name, word, strlen(word)) == 0)
			add(&g, builtins[i].name);
	if (snprintf(prefix, sizeof(prefix), PROGRAM_DIR "%s", word) >=
	    (int)sizeof(prefix))
		return;
	g.skip = strlen(PROGRAM_DIR);
	name_walk(prefix, add_name, &g);
}

/* complete_word -- what word (the prefix of the first word when command) may complete to */
void complete_word(const char *word, bool command, struct completion *c)
{
	gather(word, command, false, c);
}

/* complete_list -- print the candidates for word, in columns */
void complete_list(const char *word, bool command)
{
	struct completion c;
	size_t i, width = 0, shown_count, columns;

	gather(word, command, true, &c);
	shown_count = c.matches < SHOWN_MAX ? c.matches : SHOWN_MAX;
	for (i = 0; i < shown_count; i++)
		if (strlen(shown[i]) > width)
			width = strlen(shown[i]);
	columns = SCREEN_COLUMNS / (width + 2);
	if (columns == 0)
		columns = 1;
	for (i = 0; i < shown_count; i++) {
		out_name(shown[i]);
		if ((i + 1) % columns == 0 || i + 1 == shown_count)
			out_bytes("\n", 1);
		else
			out_printf("%*s", (int)(width + 2 - strlen(shown[i])), "");
	}
	if (c.matches > shown_count)
		out_printf("... and %zu more\n", c.matches - shown_count);
}
