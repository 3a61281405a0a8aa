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
 *
 * Redirections, anywhere among the words: an unquoted `< NAME` gives a
 * program NAME as its standard input, `> NAME` as its standard output
 * (`>> NAME` appending), `2> NAME` and `2>> NAME` as its standard error
 * (`2>` only where a word starts). The operator ends the word before it,
 * so `sort<in>out` is `sort < in > out`; its NAME is the next word.
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
		if (quote == 0 && (c == '<' || c == '>'))
			break;  /* a redirection follows the word */
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

/* redirect_at -- the redirection operator at `in` (<, >, >>, 2>, 2>>):
 * the descriptor it redirects, its length in *len and whether it appends
 * in *append; -1 if none is there */
static int redirect_at(const char *in, size_t *len, bool *append)
{
	size_t at = 0;               /* where the < or > is */
	int fd;

	if (in[0] == '<') {
		fd = 0;
	} else if (in[0] == '>') {
		fd = 1;
	} else if (in[0] == '2' && in[1] == '>') {
		fd = 2;
		at = 1;
	} else {
		return -1;
	}
	*append = fd != 0 && in[at + 1] == '>';
	*len = at + 1 + *append;
	return fd;
}

/* one_redirect -- the redirection at s->in and its name into w; an error
 * message, or NULL */
static const char *one_redirect(struct splitter *s, struct words *w, bool *ends_background)
{
	static const char *const what[3] = {"standard input", "standard output",
					    "standard error"};
	static char message[64];
	const char *op = s->in, *err;
	bool append;
	size_t len;
	int fd = redirect_at(s->in, &len, &append);
	struct redirect *r = &w->redirect[fd];

	if (r->name != NULL) {
		snprintf(message, sizeof(message), "osh: %s is redirected twice", what[fd]);
		return message;
	}
	s->in += len;
	while (is_blank(*s->in))
		s->in++;
	if (*s->in == '\0' || *s->in == '&' || *s->in == '<' || *s->in == '>') {
		snprintf(message, sizeof(message), "osh: '%.*s' needs a name after it",
			 (int)len, op);
		return message;
	}
	r->name = s->out;
	r->append = append;
	err = one_word(s, ends_background);
	if (err == NULL && !put(s, '\0'))
		err = "osh: the line is too long";
	return err;
}

/* parse_command -- split the command at *line into w and move *line past
 * it (past its &, if any); false after saying what is wrong */
bool parse_command(const char **line, struct words *w)
{
	struct splitter s = {*line, w, w->text, w->text + sizeof(w->text)};
	const char *err = NULL;
	bool append;
	size_t len;

	w->count = 0;
	w->background = false;
	memset(w->redirect, 0, sizeof(w->redirect));
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
		if (redirect_at(s.in, &len, &append) >= 0) {
			err = one_redirect(&s, w, &w->background);
			if (err != NULL)
				break;
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
	if (w->count == 0 && (w->redirect[0].name || w->redirect[1].name ||
			      w->redirect[2].name)) {
		complain("osh: a redirection needs a program to run");
		return false;
	}
	return true;
}
