/*
 * parse.c -- a command line into words.
 *
 * Words are separated by blanks (space, tab). Inside a word:
 *   '...'   quotes literally: every byte up to the next ' is taken as is;
 *   "..."   quotes with \" \\ \$ as escapes, and $? expanded;
 *   \c      outside quotes takes c as it is (a blank, a quote, a &);
 *   $?      outside single quotes is the status of the last command.
 * An unquoted & ends the command and runs it in the background; another
 * command may follow it on the line (`counter 1 & counter 100 &`). A quote
 * left open is an error, never a guess.
 */
#include "osh.h"

/* The state of one split. */
struct splitter {
	const char *in;
	struct words *w;
	char *out, *end;         /* where the next byte of a word goes; the text's end */
};

/* put -- one byte of the current word; false when the text is full */
static bool put(struct splitter *s, char c)
{
	if (s->out == s->end)
		return false;
	*s->out++ = c;
	return true;
}

/* put_status -- $?: the last status in decimal */
static bool put_status(struct splitter *s)
{
	char digits[24];
	int i;

	snprintf(digits, sizeof(digits), "%ld", shell_status);
	for (i = 0; digits[i] != '\0'; i++)
		if (!put(s, digits[i]))
			return false;
	return true;
}

/* is_blank -- whether c separates words */
static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* one_word -- copy the word at s->in to s->out; 0, or an error message */
static const char *one_word(struct splitter *s, bool *ends_background)
{
	char quote = 0;
	bool ok = true;

	for (; *s->in != '\0' && ok; s->in++) {
		char c = *s->in;

		if (quote == 0 && is_blank(c))
			break;
		if (quote == 0 && c == '&') {
			*ends_background = true;
			s->in++;
			break;
		}
		if (quote == '\'' ) {
			if (c == '\'')
				quote = 0;
			else
				ok = put(s, c);
		} else if (c == '\\' && s->in[1] != '\0' &&
			   (quote == 0 || strchr("\"\\$", s->in[1]) != NULL)) {
			ok = put(s, *++s->in);
		} else if (c == '$' && s->in[1] == '?') {
			ok = put_status(s);
			s->in++;
		} else if (c == '"') {
			quote = quote ? 0 : '"';
		} else if (c == '\'' && quote == 0) {
			quote = '\'';
		} else {
			ok = put(s, c);
		}
	}
	if (!ok)
		return "osh: the line is too long";
	if (quote != 0)
		return "osh: unterminated quote";
	return NULL;
}

/* parse_command -- split the command at *line into w and move *line past
 * it (past its &, if any); false after saying what is wrong */
bool parse_command(const char **line, struct words *w)
{
	struct splitter s = {*line, w, w->text, w->text + sizeof(w->text)};
	const char *err = NULL;

	w->count = 0;
	w->background = false;
	for (;;) {
		while (is_blank(*s.in))
			s.in++;
		if (*s.in == '\0' || w->background)
			break;
		if (*s.in == '&') {  /* a lone & after the last word */
			w->background = true;
			s.in++;
			continue;
		}
		if (w->count == OSH_WORDS_MAX) {
			complain("osh: more than %d words", OSH_WORDS_MAX);
			return false;
		}
		w->word[w->count++] = s.out;
		err = one_word(&s, &w->background);
		if (err == NULL && !put(&s, '\0'))
			err = "osh: the line is too long";
		if (err != NULL)
			break;
	}
	w->word[w->count] = NULL;
	*line = s.in;
	if (err != NULL) {
		complain("%s", err);
		return false;
	}
	if (w->background && w->count == 0) {
		complain("osh: '&' needs a program before it");
		return false;
	}
	return true;
}
