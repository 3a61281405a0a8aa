/*
 * edit.c -- edit NAME: a line editor for text objects, in the manner of ed.
 *
 * The object's bytes are split into lines (at '\n') held in malloc'ed
 * memory; commands change those lines, and `w` writes them back to the
 * object (resized to fit, every line ended by '\n'). Input is the
 * console's line mode, so the kernel echoes and edits each line, and the
 * editor is driven over a serial line as easily as by a person.
 *
 * Commands, at the "edit> " prompt; N and M are line numbers from 1, and
 * $ is the last line:
 *
 *   p  Np  N,Mp   print lines with their numbers (p alone: every line)
 *   a  Na         add lines after line N (a alone: at the end; 0a: at the top)
 *   i  Ni         insert lines before line N (i alone: at the top)
 *   c  Nc  N,Mc   change: replace lines N to M by the lines typed
 *   d  Nd  N,Md   delete lines
 *   w  [NAME]     write to the object (or to NAME, made if missing)
 *   q             quit (refused while changes are unsaved); Q quits anyway
 *   h             this list
 *
 * a, i and c read lines until one holding only ".". The editor's state is
 * the process's memory, persistent like the rest: a power cut in the
 * middle of an edit resumes it, unsaved changes and all.
 */
#include <fe.h>

#define EDIT_SIZE_MAX (4u << 20)     /* bytes of an object edit loads */
#define INPUT_CAP 1024

struct line {
	char *text;              /* malloc'ed, not NUL-terminated */
	size_t len;
};

struct range {
	size_t first, last;      /* line numbers, 1-based, first <= last */
	bool given;              /* false: the command's default applies */
};

static const char *edit_name;   /* the object edited */
static struct line *lines;
static size_t line_count, line_cap;
static bool dirty;              /* changed since loaded or written */

/* line_insert -- make text[len] line number at + 1 (0: the first); false if out of memory */
static bool line_insert(size_t at, const char *text, size_t len)
{
	char *copy = malloc(len ? len : 1);

	if (copy == NULL)
		return false;
	if (line_count == line_cap) {
		size_t cap = line_cap ? line_cap * 2 : 64;
		struct line *grown = realloc(lines, cap * sizeof(*grown));

		if (grown == NULL) {
			free(copy);
			return false;
		}
		lines = grown;
		line_cap = cap;
	}
	memcpy(copy, text, len);
	memmove(&lines[at + 1], &lines[at], (line_count - at) * sizeof(*lines));
	lines[at].text = copy;
	lines[at].len = len;
	line_count++;
	return true;
}

/* lines_delete -- remove lines first..last (1-based, valid) */
static void lines_delete(size_t first, size_t last)
{
	for (size_t i = first - 1; i < last; i++)
		free(lines[i].text);
	memmove(&lines[first - 1], &lines[last],
		(line_count - last) * sizeof(*lines));
	line_count -= last - first + 1;
}

/* split_into_lines -- the object's bytes as lines (a last line may lack its '\n') */
static bool split_into_lines(const char *buf, size_t size)
{
	size_t start = 0;

	for (size_t i = 0; i <= size; i++) {
		if (i < size && buf[i] != '\n')
			continue;
		if (i == size && start == size)
			break;
		if (!line_insert(line_count, buf + start, i - start))
			return false;
		start = i + 1;
	}
	return true;
}

/* load -- read the object NAME into lines; a missing NAME is a new, empty text */
static bool load(const char *name)
{
	struct fe_stat st;
	char *buf;
	uint64_t got = 0;
	long h = fe_open(name, FE_RIGHT_READ), n = 0;
	bool ok;

	if (h == -ERR_NOENT) {
		printf("edit: '%s' is new; w writes it\n", name);
		return true;
	}
	if (h < 0 || (n = fe_obj_stat((int32_t)h, &st)) < 0) {
		printf("edit: '%s': %s\n", name, err_str((int)(h < 0 ? h : n)));
		goto out_close;
	}
	if (st.type != FE_TYPE_BLOB) {
		printf("edit: '%s' is not a text (blob) object\n", name);
		goto out_close;
	}
	if (st.size > EDIT_SIZE_MAX) {
		printf("edit: '%s' is %lu bytes; edit loads at most %u\n", name,
		       st.size, EDIT_SIZE_MAX);
		goto out_close;
	}
	buf = malloc(st.size ? st.size : 1);
	while (buf != NULL && got < st.size &&
	       (n = fe_obj_read((int32_t)h, got, buf + got, st.size - got)) > 0)
		got += (uint64_t)n;
	ok = buf != NULL && n >= 0 && split_into_lines(buf, got);
	if (!ok)
		printf("edit: reading '%s': %s\n", name,
		       err_str(n < 0 ? (int)n : -ERR_NOMEM));
	else
		printf("edit: '%s': %zu lines, %lu bytes\n", name, line_count, got);
	free(buf);
	fe_close((int32_t)h);
	return ok;
out_close:
	if (h >= 0)
		fe_close((int32_t)h);
	return false;
}

/* text_bytes -- the lines joined, each ended by '\n', in a malloc'ed buffer */
static char *text_bytes(size_t *size)
{
	size_t total = 0, at = 0;
	char *buf;

	for (size_t i = 0; i < line_count; i++)
		total += lines[i].len + 1;
	buf = malloc(total ? total : 1);
	if (buf == NULL)
		return NULL;
	for (size_t i = 0; i < line_count; i++) {
		memcpy(buf + at, lines[i].text, lines[i].len);
		at += lines[i].len;
		buf[at++] = '\n';
	}
	*size = total;
	return buf;
}

/* write_object -- the lines into the object NAME (made if missing) -> 0 or -ERR_x */
static long write_object(const char *name, const char *buf, size_t size)
{
	long h = fe_open_or_create(name), err;
	size_t done = 0;

	if (h < 0)
		return h;
	err = fe_obj_resize((int32_t)h, size);
	while (err >= 0 && done < size) {
		err = fe_obj_write((int32_t)h, done, buf + done, size - done);
		if (err == 0)
			err = -ERR_IO;
		if (err > 0)
			done += (size_t)err;
	}
	fe_close((int32_t)h);
	return err < 0 ? err : 0;
}

/* cmd_write -- w [NAME]: write the text out */
static void cmd_write(const char *arg)
{
	const char *name = *arg != '\0' ? arg : edit_name;
	size_t size = 0;
	char *buf = text_bytes(&size);
	long err = buf != NULL ? write_object(name, buf, size) : -ERR_NOMEM;

	free(buf);
	if (err < 0) {
		printf("edit: writing '%s': %s\n", name, err_str((int)err));
		return;
	}
	if (name == edit_name || strcmp(name, edit_name) == 0)
		dirty = false;
	printf("edit: wrote %zu lines, %zu bytes to '%s'\n", line_count, size, name);
}

/* read_line -- one line from the console into buf[INPUT_CAP], without its
 * '\n': 1; 0 at the end of input (Ctrl-D on an empty line); -1 on error */
static int read_line(char *buf)
{
	long n = fe_console_read(buf, INPUT_CAP - 1, FE_CONSOLE_LINE);

	if (n < 0) {
		printf("edit: reading the console: %s\n", err_str((int)n));
		return -1;
	}
	if (n == 0)
		return 0;
	if (buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	return 1;
}

/* input_lines -- read lines up to one holding only ".", inserting them after line `after` */
static void input_lines(size_t after)
{
	static char buf[INPUT_CAP];

	while (read_line(buf) > 0 && strcmp(buf, ".") != 0) {
		if (!line_insert(after, buf, strlen(buf))) {
			printf("edit: out of memory; line dropped\n");
			continue;
		}
		after++;
		dirty = true;
	}
}

/* print_lines -- lines first..last with their numbers */
static void print_lines(size_t first, size_t last)
{
	for (size_t i = first; i <= last; i++)
		printf("%4zu  %.*s\n", i, (int)lines[i - 1].len, lines[i - 1].text);
}

/* parse_line -- a line number ("$": the last) at *s, advancing it; false if none */
static bool parse_line(const char **s, size_t *out)
{
	char *end;

	if (**s == '$') {
		*out = line_count;
		(*s)++;
		return true;
	}
	if (!isdigit((unsigned char)**s))
		return false;
	*out = strtoul(*s, &end, 10);
	*s = end;
	return true;
}

/* parse_range -- "", "N", "N,M" or "," (every line) at *s, advancing it; false if malformed */
static bool parse_range(const char **s, struct range *r)
{
	r->given = false;
	if (**s == ',') {
		(*s)++;
		r->first = 1;
		r->last = line_count;
		r->given = true;
		return true;
	}
	if (!parse_line(s, &r->first))
		return true;
	r->given = true;
	r->last = r->first;
	if (**s == ',') {
		(*s)++;
		if (!parse_line(s, &r->last))
			return false;
	}
	return true;
}

/* check_lines -- whether r names existing lines (and why not) */
static bool check_lines(const struct range *r)
{
	if (line_count == 0) {
		printf("edit: the text is empty (a adds lines)\n");
		return false;
	}
	if (r->first < 1 || r->last > line_count || r->first > r->last) {
		if (r->first == r->last)
			printf("edit: no line %zu: the text has %zu lines\n",
			       r->first, line_count);
		else
			printf("edit: no lines %zu to %zu: the text has %zu lines\n",
			       r->first, r->last, line_count);
		return false;
	}
	return true;
}

/* need_lines -- a command that needs an address was given none: say so */
static void need_lines(char cmd)
{
	printf("edit: %c needs line numbers, e.g. 2%c or 2,4%c\n", cmd, cmd, cmd);
}

/* cmd_help -- the command list */
static void cmd_help(void)
{
	printf("  p  Np  N,Mp   print lines with numbers (p: all)\n"
	       "  a  Na         add lines after line N (a: at the end, 0a: at the top)\n"
	       "  i  Ni         insert lines before line N (i: at the top)\n"
	       "  c  Nc  N,Mc   replace lines N to M\n"
	       "  d  Nd  N,Md   delete lines\n"
	       "  w  [NAME]     write (to NAME instead)\n"
	       "  q             quit (Q: without saving)\n"
	       "  a, i and c take lines until one holding only '.'; $ is the last line\n");
}

/* run_command -- one command line; false when the editor should end */
static bool run_command(const char *cmdline)
{
	const char *s = cmdline;
	struct range r;
	char cmd;

	if (!parse_range(&s, &r)) {
		printf("edit: '%s': a line number must follow ','\n", cmdline);
		return true;
	}
	cmd = *s;
	if (cmd != '\0')
		s++;
	if (cmd != 'w' && *s != '\0') {
		printf("edit: '%s' is not a command; h lists them\n", cmdline);
		return true;
	}
	switch (cmd) {
	case '\0':
		if (r.given && check_lines(&r))
			print_lines(r.first, r.last);
		break;
	case 'p':
		if (!r.given) {
			r.first = 1;
			r.last = line_count;
			if (line_count == 0) {
				printf("edit: the text is empty (a adds lines)\n");
				break;
			}
		}
		if (check_lines(&r))
			print_lines(r.first, r.last);
		break;
	case 'a':
		if (!r.given)
			r.last = line_count;
		if (r.last > line_count)
			printf("edit: no line %zu: the text has %zu lines\n",
			       r.last, line_count);
		else
			input_lines(r.last);
		break;
	case 'i':
		if (!r.given || r.first == 0)
			r.first = r.last = 1;
		if (line_count == 0 && r.first == 1)
			input_lines(0);
		else if (check_lines(&r))
			input_lines(r.first - 1);
		break;
	case 'c':
	case 'd':
		if (!r.given) {
			need_lines(cmd);
			break;
		}
		if (!check_lines(&r))
			break;
		lines_delete(r.first, r.last);
		dirty = true;
		if (cmd == 'c')
			input_lines(r.first - 1);
		break;
	case 'w':
		if (r.given) {
			printf("edit: w writes the whole text; no line numbers\n");
			break;
		}
		while (*s == ' ')
			s++;
		cmd_write(s);
		break;
	case 'q':
		if (!dirty)
			return false;
		printf("edit: unsaved changes: w writes them, Q quits without\n");
		break;
	case 'Q':
		return false;
	case 'h':
		cmd_help();
		break;
	default:
		printf("edit: '%s' is not a command; h lists them\n", cmdline);
	}
	return true;
}

/* main -- load NAME, then read and run commands until q (Ctrl-D is q) */
int main(int argc, char **argv)
{
	static char buf[INPUT_CAP];

	if (argc != 2) {
		printf("usage: edit NAME\n");
		return 2;
	}
	edit_name = argv[1];
	if (!load(edit_name))
		return 1;
	for (;;) {
		int got;

		printf("edit> ");
		got = read_line(buf);
		if (got < 0)
			break;
		if (got == 0) {
			printf("q\n");
			buf[0] = 'q';
			buf[1] = '\0';
		}
		if (!run_command(buf))
			break;
	}
	return 0;
}
