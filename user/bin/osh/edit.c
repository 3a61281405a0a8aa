/*
 * edit.c -- osh's line editor over the raw console, its history, and the
 * bytes typed ahead.
 *
 * The console is read in FE_CONSOLE_RAW mode, so osh echoes and edits
 * itself, speaking VT100/ANSI to the terminal: keys arrive as bytes or as
 * escape sequences (ESC [ A for Up...), decoded one byte at a time by a
 * small state machine, so a sequence split across two reads still decodes.
 * The screen is redrawn as \r, the prompt, the line, CSI K (erase to the
 * end of the row) and CSI n D (the cursor back to its place); typing at
 * the end of the line simply echoes the byte. The line is one row: a line
 * longer than the terminal is wide still edits correctly, but its redraws
 * show only its last row.
 *
 * Keys: printable bytes insert; Enter runs; Backspace, Delete (CSI 3~ or
 * Ctrl-D); Left/Right (CSI D/C, Ctrl-B/F); Home/End (CSI H/F, CSI 1~/4~,
 * CSI 7~/8~, ESC O H/F, Ctrl-A/E); Up/Down (CSI A/B, Ctrl-P/N) walk the
 * history; Ctrl-U erases before the cursor, Ctrl-K from it, Ctrl-W the
 * word before it; Ctrl-L clears the screen; Tab completes (complete.c);
 * Ctrl-C abandons the line. Other control bytes and unknown sequences are
 * ignored. A control byte (ESC included) inside an unfinished sequence
 * ends it and acts as itself, so a broken sequence costs at most the
 * printable bytes that follow it up to a final byte. A line is at most
 * OSH_LINE_MAX bytes: typing past that says so once and drops the bytes.
 *
 * Persistence: the line, the cursor, the decoder's state and the history
 * are globals and heap blocks, so they are committed with the epoch that
 * consumed the keys that made them (SYS_CONSOLE_READ consumes input
 * durably with the epoch). After a power cut the editor is exactly as
 * committed; the kernel ends the read it was blocked in (-ERR_AGAIN), and
 * it notices the new power-on count (SYS_SYSINFO) and draws the prompt
 * and the half-typed line again at once.
 *
 * Typed ahead: while a builtin runs, interrupted() reads what was typed
 * (without blocking) to look for Ctrl-C; other bytes wait in `ahead` and
 * are edited at the next prompt, so nothing typed is lost.
 */
#include "osh.h"

#define HISTORY_MAX 500
#define HISTORY_BYTES (128u << 10)   /* the lines' bytes kept at most (OSH_HEAP_KEEP) */
#define AHEAD_CAP 4096
#define READ_CHUNK 256
#define PARAM_MAX 8

#define CTRL(c) ((c) & 0x1f)
#define ESC 0x1b
#define DEL 0x7f

/* Keys that arrive as escape sequences. */
enum key {
	KEY_NONE, KEY_UP, KEY_DOWN, KEY_RIGHT, KEY_LEFT, KEY_HOME, KEY_END,
	KEY_DELETE,
};

/* Where the escape decoder is. */
enum esc_state { ESC_NONE, ESC_SEEN, ESC_CSI, ESC_SS3 };

struct editor {
	char line[OSH_LINE_MAX + 1]; /* NUL-terminated */
	size_t len, cursor;
	const char *prompt;
	bool said_too_long;      /* the "too long" note was given for this line */
	bool last_was_tab;       /* a second Tab lists the choices */
	bool last_was_cr;        /* drop the \n of a \r\n pair */
	uint64_t power_ons;      /* the power-on the screen was drawn in */
	enum esc_state esc;
	char param[PARAM_MAX + 1];
	size_t param_len;
	size_t browsing;         /* history index shown; history_len: the new line */
	char *new_line;          /* the new line, kept while browsing (malloc) */
};

static struct editor ed;

/* The history: the last HISTORY_MAX lines run, oldest first (malloc'ed). */
static char *history[HISTORY_MAX];
static size_t history_len;
static size_t history_bytes;     /* their bytes, NULs included */
static uint64_t history_count;   /* lines ever added: numbers for `history` */

/* Bytes typed but not yet edited: ahead[ahead_at .. ahead_len). */
static char ahead[AHEAD_CAP];
static size_t ahead_at, ahead_len;

/* power_on_count -- this power-on's number, or 0 if sysinfo fails */
static uint64_t power_on_count(void)
{
	struct fe_sysinfo si;

	return fe_sysinfo(&si) < 0 ? 0 : si.power_ons;
}

/* edit_init -- get the editor ready at osh's start */
void edit_init(void)
{
	ed.power_ons = power_on_count();
}

/* read_ahead -- move typed bytes into `ahead` (blocking until one if block) */
static void read_ahead(bool block)
{
	long n;

	if (ahead_at == ahead_len)
		ahead_at = ahead_len = 0;
	if (ahead_len == AHEAD_CAP)
		return;
	out_flush();
	n = fe_console_read(ahead + ahead_len, AHEAD_CAP - ahead_len,
			    FE_CONSOLE_RAW | (block ? 0 : FE_CONSOLE_NONBLOCK));
	if (n > 0) {
		ahead_len += (size_t)n;
	} else if (n < 0 && n != -ERR_AGAIN) {
		out_printf("osh: reading the console: %s\n", err_str((int)n));
		out_flush();
		fe_sleep_ms(100);
	}
}

/* interrupted -- whether Ctrl-C was typed (polls the console; keeps other typed bytes) */
bool interrupted(void)
{
	size_t i;

	read_ahead(false);
	for (i = ahead_len; i > ahead_at; i--) {
		if (ahead[i - 1] == CTRL('C')) {
			ahead_at = i; /* what came before the Ctrl-C is dropped with it */
			shell_status = STATUS_INTERRUPTED;
			return true;
		}
	}
	return false;
}

/* move_left -- put the terminal's cursor n columns to the left */
static void move_left(size_t n)
{
	if (n > 0)
		out_printf("\x1b[%zuD", n);
}

/* draw_fresh -- draw the prompt and the line on a fresh row (nothing to erase) */
static void draw_fresh(void)
{
	out_printf("%s", ed.prompt);
	out_bytes(ed.line, ed.len);
	move_left(ed.len - ed.cursor);
}

/* redraw -- draw the prompt and the line on the cursor's row again */
static void redraw(void)
{
	out_printf("\r%s", ed.prompt);
	out_bytes(ed.line, ed.len);
	out_bytes("\x1b[K", 3);
	move_left(ed.len - ed.cursor);
}

/* set_line -- replace the line with text, the cursor at its end */
static void set_line(const char *text)
{
	size_t n = strnlen(text, OSH_LINE_MAX);

	memcpy(ed.line, text, n);
	ed.line[n] = '\0';
	ed.len = ed.cursor = n;
	redraw();
}

/* too_long -- say once per line that it cannot grow (later bytes drop silently) */
static void too_long(void)
{
	if (ed.said_too_long)
		return;
	out_printf("\nosh: a line holds at most %d bytes\n", OSH_LINE_MAX);
	ed.said_too_long = true;
	redraw();
}

/* insert -- put text[n] at the cursor; false if the line would be too long */
static bool insert(const char *text, size_t n)
{
	if (ed.len + n > OSH_LINE_MAX) {
		too_long();
		return false;
	}
	memmove(ed.line + ed.cursor + n, ed.line + ed.cursor,
		ed.len - ed.cursor + 1);
	memcpy(ed.line + ed.cursor, text, n);
	ed.len += n;
	ed.cursor += n;
	if (ed.cursor == ed.len)
		out_bytes(text, n);
	else
		redraw();
	return true;
}

/* erase -- take bytes [from, to) out of the line */
static void erase(size_t from, size_t to)
{
	if (from >= to)
		return;
	memmove(ed.line + from, ed.line + to, ed.len - to + 1);
	ed.len -= to - from;
	ed.cursor = from;
	redraw();
}

/* word_start -- where the word before the cursor begins (blanks before it skipped) */
static size_t word_start(void)
{
	size_t i = ed.cursor;

	while (i > 0 && ed.line[i - 1] == ' ')
		i--;
	while (i > 0 && ed.line[i - 1] != ' ')
		i--;
	return i;
}

/* browse -- show history entry `to` (history_len: the new line) */
static void browse(size_t to)
{
	if (to > history_len || to == ed.browsing)
		return;
	if (ed.browsing == history_len) {
		free(ed.new_line);
		ed.new_line = malloc(ed.len + 1);
		if (ed.new_line != NULL)
			memcpy(ed.new_line, ed.line, ed.len + 1);
	}
	ed.browsing = to;
	set_line(to == history_len ? (ed.new_line ? ed.new_line : "") : history[to]);
}

/* complete -- Tab: complete the word before the cursor */
static void complete(void)
{
	size_t start = ed.cursor, i;
	bool command = true;
	struct completion c;
	char word[FE_NAME_MAX + 1];

	while (start > 0 && !strchr(" <>", ed.line[start - 1])) /* a name after < > too */
		start--;
	for (i = 0; i < start; i++)
		if (ed.line[i] != ' ')
			command = false;
	if (ed.cursor - start > FE_NAME_MAX)
		return;
	memcpy(word, ed.line + start, ed.cursor - start);
	word[ed.cursor - start] = '\0';
	complete_word(word, command, &c);
	if (c.matches == 0) {
		out_bytes("\a", 1);
	} else if (c.common > strlen(word)) {
		if (insert(c.first + strlen(word), c.common - strlen(word)) &&
		    c.matches == 1)
			insert(" ", 1);
	} else if (c.matches == 1) {
		insert(" ", 1);
	} else if (ed.last_was_tab) {
		out_bytes("\n", 1);
		complete_list(word, command);
		redraw();
	} else {
		out_bytes("\a", 1);
	}
}

/* key -- act on a key that came as an escape sequence */
static void key(enum key k)
{
	switch (k) {
	case KEY_UP:
		if (ed.browsing > 0)
			browse(ed.browsing - 1);
		break;
	case KEY_DOWN:
		browse(ed.browsing + 1);
		break;
	case KEY_LEFT:
		if (ed.cursor > 0) {
			ed.cursor--;
			move_left(1);
		}
		break;
	case KEY_RIGHT:
		if (ed.cursor < ed.len) {
			ed.cursor++;
			out_bytes("\x1b[C", 3);
		}
		break;
	case KEY_HOME:
		move_left(ed.cursor);
		ed.cursor = 0;
		break;
	case KEY_END:
		ed.cursor = ed.len;
		redraw();
		break;
	case KEY_DELETE:
		if (ed.cursor < ed.len)
			erase(ed.cursor, ed.cursor + 1);
		break;
	case KEY_NONE:
		break;
	}
}

/* csi_key -- the key of CSI param final (ESC [ ...) */
static enum key csi_key(const char *param, char final)
{
	switch (final) {
	case 'A': return KEY_UP;
	case 'B': return KEY_DOWN;
	case 'C': return KEY_RIGHT;
	case 'D': return KEY_LEFT;
	case 'H': return KEY_HOME;
	case 'F': return KEY_END;
	case '~':
		if (strcmp(param, "1") == 0 || strcmp(param, "7") == 0)
			return KEY_HOME;
		if (strcmp(param, "4") == 0 || strcmp(param, "8") == 0)
			return KEY_END;
		if (strcmp(param, "3") == 0)
			return KEY_DELETE;
		return KEY_NONE;
	default:
		return KEY_NONE;
	}
}

/* escape -- feed one byte of an escape sequence to the decoder */
static void escape(char c)
{
	switch (ed.esc) {
	case ESC_SEEN:
		ed.esc = c == '[' ? ESC_CSI : c == 'O' ? ESC_SS3 : ESC_NONE;
		ed.param_len = 0;
		ed.param[0] = '\0';
		break;
	case ESC_SS3:
		ed.esc = ESC_NONE;
		key(csi_key("", c));
		break;
	case ESC_CSI:
		/* Parameter (0x30-0x3f) and intermediate (0x20-0x2f) bytes go
		 * on; a final byte (0x40-0x7e) ends it. Parameters past
		 * PARAM_MAX bytes are not kept (CSI 99999...9 A is still Up). */
		if (c >= 0x20 && c <= 0x3f) {
			if (ed.param_len < PARAM_MAX) {
				ed.param[ed.param_len++] = c;
				ed.param[ed.param_len] = '\0';
			}
			break;
		}
		ed.esc = ESC_NONE;
		if (c >= 0x40 && c <= 0x7e)
			key(csi_key(ed.param, c));
		break;
	case ESC_NONE:
		break;
	}
}

/* control -- act on a control byte (not Enter, not ESC); whether the line is abandoned */
static bool control(char c)
{
	switch (c) {
	case CTRL('A'): key(KEY_HOME); break;
	case CTRL('E'): key(KEY_END); break;
	case CTRL('B'): key(KEY_LEFT); break;
	case CTRL('F'): key(KEY_RIGHT); break;
	case CTRL('P'): key(KEY_UP); break;
	case CTRL('N'): key(KEY_DOWN); break;
	case CTRL('D'): key(KEY_DELETE); break;
	case CTRL('U'): erase(0, ed.cursor); break;
	case CTRL('K'): erase(ed.cursor, ed.len); break;
	case CTRL('W'): erase(word_start(), ed.cursor); break;
	case CTRL('I'): complete(); break;
	case CTRL('L'):
		out_bytes("\x1b[H\x1b[2J", 7);
		redraw();
		break;
	case CTRL('H'):
	case DEL:
		if (ed.cursor > 0)
			erase(ed.cursor - 1, ed.cursor);
		break;
	case CTRL('C'):
		out_bytes("^C\n", 3);
		shell_status = STATUS_INTERRUPTED;
		return true;
	default:
		break;
	}
	return false;
}

/* feed -- one typed byte; 1 when Enter ends the line, -1 when Ctrl-C abandons it */
static int feed(char c)
{
	bool was_tab = ed.last_was_tab, was_cr = ed.last_was_cr;

	ed.last_was_tab = c == '\t';
	ed.last_was_cr = c == '\r';
	if (ed.esc != ESC_NONE) {
		if ((unsigned char)c >= ' ' && c != DEL) {
			escape(c);
			return 0;
		}
		/* A control byte ends an unfinished sequence and acts as itself,
		 * so a broken sequence never eats an Enter, Ctrl-U or Ctrl-C. */
		ed.esc = ESC_NONE;
	}
	if (c == '\r' || (c == '\n' && !was_cr)) {
		out_bytes("\n", 1);
		return 1;
	}
	if (c == ESC) {
		ed.esc = ESC_SEEN;
		return 0;
	}
	if (c == '\t') {
		ed.last_was_tab = was_tab; /* complete() reads it */
		complete();
		ed.last_was_tab = true;
		return 0;
	}
	if ((unsigned char)c < ' ' || c == DEL)
		return control(c) ? -1 : 0;
	insert(&c, 1);
	return 0;
}

/* line_done -- forget the edited line's state, ready for the next */
static void line_done(void)
{
	ed.len = ed.cursor = 0;
	ed.line[0] = '\0';
	ed.said_too_long = false;
	ed.esc = ESC_NONE;
	ed.browsing = history_len;
	free(ed.new_line);
	ed.new_line = NULL;
}

/* edit_read_line -- edit a line after prompt until Enter; the line (NUL-terminated) */
const char *edit_read_line(const char *prompt)
{
	static char done[OSH_LINE_MAX + 1];

	ed.prompt = prompt;
	ed.browsing = history_len;
	draw_fresh();
	for (;;) {
		int r;

		if (ahead_at == ahead_len) {
			uint64_t power_ons;

			read_ahead(true);
			power_ons = power_on_count();
			if (power_ons != ed.power_ons) {
				/* Power came back: show where the person was,
				 * under the power-on's lines (a fresh row). */
				ed.power_ons = power_ons;
				draw_fresh();
			}
			continue;
		}
		r = feed(ahead[ahead_at++]);
		if (r == 0)
			continue;
		memcpy(done, ed.line, ed.len + 1);
		if (r < 0)
			done[0] = '\0';
		line_done();
		return done;
	}
}

/* history_add -- remember a line run */
void history_add(const char *line)
{
	char *copy;
	size_t n;

	while (*line == ' ')
		line++;
	n = strlen(line);
	if (*line == '\0' ||
	    (history_len > 0 && strcmp(history[history_len - 1], line) == 0))
		return;
	while (history_len && (history_len == HISTORY_MAX ||
				history_bytes + n + 1 > HISTORY_BYTES)) {
		history_bytes -= strlen(history[0]) + 1;
		free(history[0]);
		memmove(history, history + 1, (history_len - 1) * sizeof(history[0]));
		history_len--;
	}
	copy = malloc(n + 1);
	if (copy == NULL)
		return;
	memcpy(copy, line, n + 1);
	history_bytes += n + 1;
	history[history_len++] = copy;
	history_count++;
	ed.browsing = history_len;
}

/* cmd_history -- history: the lines run, oldest first */
void cmd_history(int argc, char **argv)
{
	size_t i;

	(void)argc;
	(void)argv;
	for (i = 0; i < history_len; i++)
		out_printf("%5lu  %s\n", history_count - history_len + i + 1,
			   history[i]);
}
