/*
 * cmds_catalogue.c -- the builtins over named objects: ls, stat, cat,
 * hexdump, new, write, append, cp, mv, rm, ln, find.
 *
 * Names are walked with SYS_NAME_LIST 64 at a time, in byte order, and
 * bytes move in FE_IO_MAX (64 KiB) chunks: a listing of 100,000 names or
 * a cat of 10 MiB streams through the console queue, blocking only until
 * the next commit releases it, and Ctrl-C stops it between chunks. An
 * object is named NAME, or #ID for a blob or code object by its id
 * (stat, cat, hexdump, cp). Every mistake is reported as
 * "CMD: what is wrong" and makes $? 1.
 */
#include "osh.h"

#define LIST_BATCH 64
#define HEX_LINE 16

static char io_buf[FE_IO_MAX];

/* walk -- name_walk, checking for Ctrl-C after each batch if asked */
static long walk(const char *prefix, bool (*fn)(const struct fe_name_entry *e, void *ctx),
		 void *ctx, bool interruptible)
{
	static struct fe_name_entry entries[LIST_BATCH];
	struct fe_cursor cursor;
	long n, i;

	memset(&cursor, 0, sizeof(cursor));
	for (;;) {
		n = fe_name_list(prefix, strlen(prefix), &cursor, entries, LIST_BATCH);
		if (n <= 0)
			return n;
		for (i = 0; i < n; i++)
			if (!fn(&entries[i], ctx))
				return 0;
		if (interruptible && interrupted())
			return WALK_INTERRUPTED;
	}
}

/* name_walk -- fn for each name with prefix, in order, until fn returns false */
long name_walk(const char *prefix, bool (*fn)(const struct fe_name_entry *e, void *ctx),
	       void *ctx)
{
	return walk(prefix, fn, ctx, false);
}

/* name_walk_interruptible -- name_walk that stops at Ctrl-C */
long name_walk_interruptible(const char *prefix,
			     bool (*fn)(const struct fe_name_entry *e, void *ctx),
			     void *ctx)
{
	return walk(prefix, fn, ctx, true);
}

/* walk_end -- say how an interactive walk ended; whether it went to the end */
static bool walk_end(const char *cmd, long r)
{
	if (r == WALK_INTERRUPTED)
		out_bytes("^C\n", 3);
	else if (r < 0)
		complain("%s: listing the catalogue: %s", cmd, err_str((int)r));
	return r == 0;
}

/* open_object -- a handle with rights to NAME or #ID; reports failure for cmd */
long open_object(const char *cmd, const char *arg, uint32_t rights)
{
	uint64_t id;
	long h;

	if (arg[0] == '#' && parse_number(arg + 1, &id) == 0) {
		h = fe_obj_open_id(id, rights);
		if (h == -ERR_NOENT)
			complain("%s: no object #%lu", cmd, id);
		else if (h == -ERR_PERM)
			complain("%s: object #%lu is not a blob or code object", cmd, id);
		else if (h < 0)
			complain("%s: #%lu: %s", cmd, id, err_str((int)h));
		return h;
	}
	h = fe_open(arg, rights);
	if (h == -ERR_PERM)
		complain("%s: '%s' is not a blob or code object", cmd, arg);
	else if (h < 0)
		name_error(cmd, arg, h);
	return h;
}

/* stat_or_complain -- fe_obj_stat, reported for cmd */
static bool stat_or_complain(const char *cmd, const char *arg, long h,
			     struct fe_stat *st)
{
	long err = fe_obj_stat((int32_t)h, st);

	if (err < 0)
		complain("%s: '%s': %s", cmd, arg, err_str((int)err));
	return err >= 0;
}

/* --- ls, find ------------------------------------------------------------ */

/* What ls prints per name. */
struct ls_state {
	bool long_form;
	uint64_t shown;
};

/* ls_one -- one line of ls */
static bool ls_one(const struct fe_name_entry *e, void *ctx)
{
	struct ls_state *ls = ctx;
	struct fe_stat st;
	char id[24];
	long h;

	ls->shown++;
	if (ls->long_form) {
		h = fe_obj_open(e->name, e->len, 0);
		if (h < 0 || fe_obj_stat((int32_t)h, &st) < 0)
			memset(&st, 0, sizeof(st)); /* gone meanwhile: 0s */
		if (h >= 0)
			fe_close((int32_t)h);
		snprintf(id, sizeof(id), "#%lu", e->id);
		out_printf("%-8s %-7s %12lu %4u %8lu  ", id, type_name(e->type),
			   e->size, st.refcount ? st.refcount - 1 : 0, st.modified_epoch);
	}
	out_name(e->name);
	out_bytes("\n", 1);
	return true;
}

/* cmd_ls -- ls [-l] [PREFIX] */
void cmd_ls(int argc, char **argv)
{
	struct ls_state ls = {false, 0};
	const char *prefix = NULL;
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-l") == 0) {
			ls.long_form = true;
		} else if (argv[i][0] == '-' && prefix == NULL) {
			complain("ls: unknown option '%s' (usage: ls [-l] [PREFIX])", argv[i]);
			return;
		} else if (prefix != NULL) {
			complain("ls: one PREFIX at most (usage: ls [-l] [PREFIX])");
			return;
		} else {
			prefix = argv[i];
		}
	}
	if (prefix != NULL && strlen(prefix) > FE_NAME_MAX) {
		complain("ls: a prefix is at most %d bytes", FE_NAME_MAX);
		return;
	}
	if (ls.long_form)
		out_printf("%-8s %-7s %12s %4s %8s  %s\n", "ID", "TYPE", "SIZE",
			   "REFS", "EPOCH", "NAME");
	if (walk_end("ls", name_walk_interruptible(prefix ? prefix : "", ls_one, &ls)) &&
	    ls.shown == 0 && prefix != NULL)
		complain("ls: no name starts with '%s'", prefix);
}

/* What find looks for. */
struct find_state {
	const char *part;
	uint64_t found;
};

/* find_one -- print the name if it holds the substring */
static bool find_one(const struct fe_name_entry *e, void *ctx)
{
	struct find_state *f = ctx;

	if (strstr(e->name, f->part) != NULL) {
		out_name(e->name);
		out_bytes("\n", 1);
		f->found++;
	}
	return true;
}

/* cmd_find -- find SUBSTRING: the names that hold it, in order */
void cmd_find(int argc, char **argv)
{
	struct find_state f = {argv[1], 0};

	(void)argc;
	if (walk_end("find", name_walk_interruptible("", find_one, &f)) && f.found == 0)
		complain("find: no name contains '%s'", argv[1]);
}

/* --- stat, cat, hexdump -------------------------------------------------- */

/* cmd_stat -- stat NAME|#ID */
void cmd_stat(int argc, char **argv)
{
	struct fe_stat st;
	char size[32];
	long h;

	(void)argc;
	h = open_object("stat", argv[1], 0);
	if (h < 0)
		return;
	if (stat_or_complain("stat", argv[1], h, &st)) {
		out_printf("name:     %s\nid:       #%lu\ntype:     %s\n", argv[1],
			   st.id, type_name(st.type));
		out_printf("size:     %lu bytes (%s)\npages:    %lu\n", st.size,
			   size_text(size, sizeof(size), st.size), st.pages);
		out_printf("refcount: %u\nmodified: epoch %lu\n", st.refcount - 1,
			   st.modified_epoch);
	}
	fe_close((int32_t)h);
}

/* cmd_cat -- cat NAME|#ID: an object's bytes */
void cmd_cat(int argc, char **argv)
{
	uint64_t offset = 0;
	long h, n;

	(void)argc;
	h = open_object("cat", argv[1], FE_RIGHT_READ);
	if (h < 0)
		return;
	out_flush();
	while ((n = fe_obj_read((int32_t)h, offset, io_buf, sizeof(io_buf))) > 0) {
		fe_write_all(io_buf, (uint64_t)n);
		offset += (uint64_t)n;
		if (interrupted()) {
			out_bytes("^C\n", 3);
			break;
		}
	}
	if (n < 0)
		complain("cat: '%s': %s", argv[1], err_str((int)n));
	fe_close((int32_t)h);
}

/* hex_line -- one line of hexdump: offset, 16 bytes in hex, the same as text */
static void hex_line(uint64_t offset, const unsigned char *bytes, size_t n)
{
	size_t i;

	out_printf("%08lx ", offset);
	for (i = 0; i < HEX_LINE; i++) {
		if (i % 8 == 0)
			out_bytes(" ", 1);
		if (i < n)
			out_printf("%02x ", bytes[i]);
		else
			out_bytes("   ", 3);
	}
	out_bytes(" |", 2);
	for (i = 0; i < n; i++)
		out_bytes(isprint(bytes[i]) ? (const char *)&bytes[i] : ".", 1);
	out_bytes("|\n", 2);
}

/* hex_range -- hexdump's OFF and LEN arguments; false after complaining */
static bool hex_range(int argc, char **argv, uint64_t size, uint64_t *off,
		      uint64_t *len)
{
	*off = 0;
	*len = size;
	if (argc > 2 && parse_number(argv[2], off) < 0) {
		complain("hexdump: offset '%s' is not a number", argv[2]);
		return false;
	}
	if (*off > size) {
		complain("hexdump: offset %lu is past the end of '%s' (%lu bytes)",
			 *off, argv[1], size);
		return false;
	}
	if (argc > 3 && parse_number(argv[3], len) < 0) {
		complain("hexdump: length '%s' is not a number", argv[3]);
		return false;
	}
	if (*len > size - *off)
		*len = size - *off;
	return true;
}

/* cmd_hexdump -- hexdump NAME|#ID [OFF [LEN]]: 16 bytes a line, hex and text */
void cmd_hexdump(int argc, char **argv)
{
	uint64_t off, len, done = 0;
	struct fe_stat st;
	long h, n = 0;

	h = open_object("hexdump", argv[1], FE_RIGHT_READ);
	if (h < 0)
		return;
	if (!stat_or_complain("hexdump", argv[1], h, &st) ||
	    !hex_range(argc, argv, st.size, &off, &len))
		goto out_close;
	while (done < len) {
		uint64_t want = len - done < sizeof(io_buf) ? len - done : sizeof(io_buf);
		long i;

		n = fe_obj_read((int32_t)h, off + done, io_buf, want);
		if (n <= 0)
			break;
		for (i = 0; i < n; i += HEX_LINE)
			hex_line(off + done + (uint64_t)i, (unsigned char *)io_buf + i,
				 n - i < HEX_LINE ? (size_t)(n - i) : HEX_LINE);
		done += (uint64_t)n;
		if (interrupted()) {
			out_bytes("^C\n", 3);
			goto out_close;
		}
	}
	if (n < 0)
		complain("hexdump: '%s': %s", argv[1], err_str((int)n));
	else
		out_printf("%08lx\n", off + done);
out_close:
	fe_close((int32_t)h);
}

/* --- new, write, append, cp ---------------------------------------------- */

/* bind_new -- bind name to the object of h; reports failure for cmd */
static bool bind_new(const char *cmd, const char *name, long h)
{
	long err = fe_bind((int32_t)h, name);

	if (err == -ERR_EXIST)
		complain("%s: '%s' already exists", cmd, name);
	else if (err < 0)
		name_error(cmd, name, err);
	return err >= 0;
}

/* cmd_new -- new NAME SIZE: a zero-filled blob */
void cmd_new(int argc, char **argv)
{
	uint64_t size;
	long h;

	(void)argc;
	if (parse_size(argv[2], &size) < 0) {
		complain("new: size must be a number with an optional K/M/G suffix");
		return;
	}
	if (size > FE_OBJ_SIZE_MAX) {
		complain("new: size must be at most 1T (1 TiB)");
		return;
	}
	h = fe_obj_create(FE_TYPE_BLOB, size);
	if (h < 0) {
		complain("new: %s", err_str((int)h));
		return;
	}
	bind_new("new", argv[1], h);
	fe_close((int32_t)h);
}

/* open_or_create -- a handle with rights (write among them) to the blob
 * NAME, made and bound if missing; reports failure for cmd */
long open_or_create(const char *cmd, const char *name, uint32_t rights)
{
	long h = fe_open(name, rights);

	if (h == -ERR_PERM) {
		complain("%s: '%s' is not a blob: only blobs can be written", cmd, name);
		return h;
	}
	if (h != -ERR_NOENT) {
		if (h < 0)
			name_error(cmd, name, h);
		return h;
	}
	h = fe_obj_create(FE_TYPE_BLOB, 0);
	if (h < 0) {
		complain("%s: %s", cmd, err_str((int)h));
		return h;
	}
	if (!bind_new(cmd, name, h)) {
		fe_close((int32_t)h);
		return -ERR_INVAL;
	}
	return h;
}

/* join -- the words joined by spaces, and a newline, into io_buf -> length */
static size_t join(int argc, char **argv)
{
	size_t len = 0;
	int i;

	/* Invariant: the words come from one line of at most OSH_LINE_MAX
	 * bytes, with $? expanded: they fit io_buf. */
	for (i = 0; i < argc; i++)
		len += (size_t)snprintf(io_buf + len, sizeof(io_buf) - len, "%s%s",
					argv[i], i + 1 < argc ? " " : "\n");
	return len;
}

/* put_text -- write the words at offset (append) or as the whole object */
static void put_text(const char *cmd, int argc, char **argv, bool append)
{
	size_t len = join(argc - 2, argv + 2);
	struct fe_stat st;
	uint64_t at = 0;
	long h, err = 0;

	h = open_or_create(cmd, argv[1], FE_RIGHT_READ | FE_RIGHT_WRITE);
	if (h < 0)
		return;
	if (append)
		err = fe_obj_stat((int32_t)h, &st);
	if (err >= 0)
		at = append ? st.size : 0;
	if (err >= 0)  /* writes never grow an object: resize first */
		err = fe_obj_resize((int32_t)h, at + len);
	if (err >= 0)
		err = fe_obj_write((int32_t)h, at, io_buf, len);
	if (err >= 0 && (size_t)err != len)
		err = -ERR_IO;
	if (err < 0)
		complain("%s: '%s': %s", cmd, argv[1], err_str((int)err));
	fe_close((int32_t)h);
}

/* cmd_write -- write NAME TEXT...: NAME holds the words and a newline */
void cmd_write(int argc, char **argv)
{
	put_text("write", argc, argv, false);
}

/* cmd_append -- append NAME TEXT...: add the words and a newline to NAME */
void cmd_append(int argc, char **argv)
{
	put_text("append", argc, argv, true);
}

/* copy_bytes -- every byte of src into dst; 0, WALK_INTERRUPTED or -ERR_x */
static long copy_bytes(long src, long dst, uint64_t size)
{
	uint64_t off = 0;

	while (off < size) {
		long n = fe_obj_read((int32_t)src, off, io_buf, sizeof(io_buf));
		long w;

		if (n <= 0)
			return n < 0 ? n : -ERR_IO;
		w = fe_obj_write((int32_t)dst, off, io_buf, (uint64_t)n);
		if (w < 0)
			return w;
		if (w != n)
			return -ERR_IO;
		off += (uint64_t)n;
		if (interrupted())
			return WALK_INTERRUPTED;
	}
	return 0;
}

/* cmd_cp -- cp SRC DST: a new blob DST with SRC's bytes */
void cmd_cp(int argc, char **argv)
{
	struct fe_stat st;
	long src, dst, err, h;

	(void)argc;
	h = fe_open(argv[2], 0);
	if (h >= 0) {
		fe_close((int32_t)h);
		complain("cp: '%s' already exists", argv[2]);
		return;
	}
	src = open_object("cp", argv[1], FE_RIGHT_READ);
	if (src < 0)
		return;
	if (!stat_or_complain("cp", argv[1], src, &st))
		goto out_src;
	if (st.type != FE_TYPE_BLOB) {
		complain("cp: '%s' is %s, not a blob (ln gives it a second name)",
			 argv[1], type_name(st.type));
		goto out_src;
	}
	dst = fe_obj_create(FE_TYPE_BLOB, st.size);
	if (dst < 0) {
		complain("cp: %s", err_str((int)dst));
		goto out_src;
	}
	err = copy_bytes(src, dst, st.size);
	if (err == WALK_INTERRUPTED)
		complain("^C\ncp: interrupted; '%s' not made", argv[2]);
	else if (err < 0)
		complain("cp: copying '%s': %s", argv[1], err_str((int)err));
	else
		bind_new("cp", argv[2], dst);
	fe_close((int32_t)dst);  /* deletes the copy unless it was bound */
out_src:
	fe_close((int32_t)src);
}

/* --- mv, rm, ln ---------------------------------------------------------- */

/* cmd_mv -- mv OLD NEW: move a name */
void cmd_mv(int argc, char **argv)
{
	long err;

	(void)argc;
	err = fe_name_rename(argv[1], strlen(argv[1]), argv[2], strlen(argv[2]));
	if (err == -ERR_EXIST)
		complain("mv: '%s' already exists", argv[2]);
	else if (err == -ERR_INVAL && (argv[2][0] == '\0' || strlen(argv[2]) > FE_NAME_MAX))
		name_error("mv", argv[2], err);
	else if (err < 0)
		name_error("mv", argv[1], err);
}

/* cmd_rm -- rm NAME...: unbind each name */
void cmd_rm(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		long err = fe_unbind(argv[i]);

		if (err < 0)
			name_error("rm", argv[i], err);
	}
}

/* cmd_ln -- ln NAME ALIAS: a second name for NAME's object */
void cmd_ln(int argc, char **argv)
{
	long h;

	(void)argc;
	h = fe_open(argv[1], FE_RIGHT_GRANT);
	if (h == -ERR_PERM) {
		complain("ln: '%s' cannot have a second name (only blobs, code and channels can)",
			 argv[1]);
		return;
	}
	if (h < 0) {
		name_error("ln", argv[1], h);
		return;
	}
	bind_new("ln", argv[2], h);
	fe_close((int32_t)h);
}
