/*
 * objtool.h -- what objtool's modules share.
 *
 * objtool is the offline host tool for Ferrite NVM images, as pmempool is
 * for PMDK pools. Its modules:
 *
 *   main.c       command line: dispatch, options, --help
 *   image.c      an image file: open, lock, map, probe, open the heap,
 *                transactions' failure path, close
 *   lookup.c     NAME or #ID to an object, read-only
 *   output.c     messages, error texts, sizes, escaped names
 *   cmd_info.c   info, ls, stat            (read-only)
 *   cmd_du.c     du                        (read-only)
 *   cmd_dump.c   dump                      (read-only, the file's raw bytes)
 *   cmd_data.c   cat, export (read-only), import (one transaction)
 *   cmd_names.c  rm, mv                    (one transaction each)
 *   cmd_fill.c   fill                      (a transaction per batch)
 *   snapview.c   a snapshot's state as a heap to read (--snapshot, check)
 *   cmd_snapshot.c snapshots (read-only); snapshot take, snapshot rm
 *                (one transaction; rm's reclaim, one per log's worth)
 *   cmd_check.c  check                     (read-only, os_check; every snapshot)
 *   cmd_create.c create                    (a new file)
 *   cmd_resize.c grow, shrink              (one commit of the superblock each)
 *
 * Safety rules every command follows (docs/objtool.md):
 *  - read-only commands map the image MAP_PRIVATE from a read-only
 *    descriptor under a shared flock: an unfinished transaction is rolled
 *    back in objtool's private copy only, and the file is never written;
 *  - a command that writes holds an exclusive flock, does every lookup it
 *    depends on before os_tx_begin (so a corruption is found before any
 *    write), and makes all its changes in ONE transaction: killed at any
 *    instant, it leaves an image the next open rolls back to where it was.
 */
#ifndef OBJTOOL_H
#define OBJTOOL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <numtext.h>                /* libc's, after the host's headers */

#include "objstore/catalogue.h"
#include "objstore/object.h"
#include "objstore/journal.h"
#include "objstore/objstore.h"

/* Exit statuses: part of objtool's interface (docs/objtool.md, --help). */
enum objtool_exit {
	EXIT_OK = 0,
	EXIT_FAILED = 1,        /* the command failed: no such name, full, I/O... */
	EXIT_USAGE = 2,         /* bad command line */
	EXIT_NOT_IMAGE = 3,     /* not a Ferrite image */
	EXIT_VERSION = 4,       /* a layout version this objtool does not read */
	EXIT_CORRUPT = 5,       /* corrupt superblock, root block or structure */
	EXIT_IN_USE = 6,        /* locked by a running QEMU or another objtool */
	EXIT_PROBLEMS = 7,      /* check found problems */
	EXIT_NO_SNAPSHOT = 8,   /* no snapshot of that name, or no snapshot area */
};

/* How a command uses the image. */
enum image_access {
	ACCESS_NONE,            /* no image opened by main (create) */
	ACCESS_READ,            /* shared lock, private copy-on-write view */
	ACCESS_WRITE,           /* exclusive lock, shared mapping, one transaction */
	ACCESS_CHECK,           /* as ACCESS_READ, but a corrupt heap is mapped too */
	ACCESS_REPAIR,          /* as ACCESS_WRITE, without refusing a heap with problems
				 * (check --repair opens it itself, after checking) */
};

/* A snapshot's state as a heap: a private copy-on-write mapping of the
 * image with the snapshot materialized over it (snapview.c). */
struct snap_view {
	uint8_t *base;              /* the copy, PROT_READ once opened */
	uint64_t size;
	bool opened;                /* os_open of the copy succeeded: `os` is usable */
	struct objstore os;
};

/* An open image. Volatile: objtool's own state. */
struct image {
	const char *path;
	int fd;
	enum image_access access;
	uint8_t *base;              /* the mapping: private or shared */
	uint64_t size;              /* bytes of the heap: the file's, or a
				     * journaled image's working copy's */
	uint64_t map_size;          /* bytes mapped: the whole file */
	/* a virtio-pmem image (objstore/journal.h): its header in the
	 * mapping, and the writer of the record a write command leaves */
	struct jn_header *journal;
	struct jn_writer journal_writer;
	int probe;                  /* os_probe's verdict: 0 or -ERR_CORRUPT (check only) */
	bool opened;                /* os_open succeeded: `os` is usable */
	struct objstore os;
	uint64_t disk_epoch;        /* committed epoch as found in the file */
	bool had_unfinished_tx;     /* the log held a transaction that did not commit */
	bool tx_abandoned;          /* a transaction was left for the next open */
	uint64_t snap_dropped;      /* the area's drop count when opened */
	/* --snapshot NAME: `os` reads the snapshot's state (snapview.c), the
	 * live state's handle kept in `live` */
	const char *snapshot;
	struct snap_view view;
	struct objstore live;
};

/* --- image.c ---------------------------------------------------------- */

/* image_open -- open, lock, map and open the heap of `path`; an exit status */
int image_open(struct image *img, const char *path, enum image_access access);

/* image_close -- make a writer's changes durable, unmap, unlock; an exit status */
int image_close(struct image *img);

/* image_set_file_size -- make a writer's file `size` bytes (its changes
 * made durable first) and map and open the heap again; an exit status */
int image_set_file_size(struct image *img, uint64_t size);

/* image_reopen_for_writing -- a reader's image opened again as a writer
 * (exclusive lock, the writer's full check); an exit status */
int image_reopen_for_writing(struct image *img);

/* image_platform -- the host platform, with a fatal() that reports and exits */
const struct os_platform *image_platform(void);

/* image_tx_begin -- os_tx_begin, reported; an exit status */
int image_tx_begin(struct image *img, const char *cmd);

/* image_tx_commit -- os_tx_commit, reported; an exit status */
int image_tx_commit(struct image *img, const char *cmd);

/* image_tx_fail -- end a failed transaction (abort it, unless the heap
 * is corrupt) and report `err` for `what`; an exit status */
int image_tx_fail(struct image *img, const char *cmd, int err,
		  const char *what);

/* image_lock_file -- flock fd (exclusive or shared) without waiting; an exit status */
int image_lock_file(int fd, const char *path, bool exclusive);

/* --- snapview.c -------------------------------------------------------- */

/* snap_view_open -- the state of snapshot `name` of img's heap as a heap
 * in v: 0 with v->base mapped (and v->opened if it opens; else os_check
 * tells why), or -ERR_NOENT, -ERR_CORRUPT (a list on its path is
 * damaged), -ERR_NOMEM (cannot map: errno), with nothing left mapped */
int snap_view_open(struct image *img, const char *name, struct snap_view *v);

/* snap_view_close -- unmap v */
void snap_view_close(struct snap_view *v);

/* image_use_snapshot -- make img->os read snapshot `name` (--snapshot
 * NAME); an exit status, reported for `cmd` */
int image_use_snapshot(struct image *img, const char *cmd, const char *name);

/* snap_name_usage -- refuse a NAME no snapshot can have (before the
 * image is opened); an exit status, EXIT_USAGE */
int snap_name_usage(const char *cmd, const char *name);

/* snap_area_needed -- refuse an image without a snapshot area; an exit
 * status, EXIT_NO_SNAPSHOT */
int snap_area_needed(const struct image *img, const char *cmd);

/* --- output.c --------------------------------------------------------- */

/* fail -- print "objtool: MESSAGE" on stderr; returns `status` */
int fail(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* note -- print "objtool: MESSAGE" on stderr, not an error */
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* os_err_text -- a short message for an objstore error code (sign ignored) */
const char *os_err_text(int err);

/* os_err_exit -- the exit status for an objstore error met by a command */
int os_err_exit(int err);

/* fmt_time -- ns since 1970 as "2026-12-03 05:47:43" (UTC) into buf (at
 * least 32 bytes); `unknown` for 0 */
const char *fmt_time(char *buf, size_t len, uint64_t ns, const char *unknown);

/* NAME_TEXT_MAX -- room for an escaped name (\xNN for every byte) + NUL */
#define NAME_TEXT_MAX (4 * OS_NAME_MAX + 1)

/* name_text -- a name with control bytes and backslashes escaped, for one line */
const char *name_text(char *buf, const char *name, uint64_t len);

/* print_escaped -- print a name to stdout as name_text would write it */
void print_escaped(const char *name, uint64_t len);

/* json_string -- print bytes as a JSON string: printable ASCII as itself
 * (a quote and a backslash escaped), every other byte as \u00XX, its value */
void json_string(const char *s, uint64_t len);

/* write_all -- write len bytes to fd, retrying short writes; 0 or -1 (errno) */
int write_all(int fd, const void *buf, size_t len);

/* finish_stdout -- flush stdout, reporting a write error; an exit status */
int finish_stdout(int status);

/* --- main.c: command-line parsing shared by the commands ----------------- */

#define OPTS_MAX 5

/* One option of a command: "--type VALUE", "--long" / "-l". */
struct opt_spec {
	const char *name;           /* "--type" */
	char short_name;            /* 'l', or 0 for none */
	bool has_value;
};

/* A parsed command line. */
struct args {
	const char *command;
	const char *image;
	int npos;
	char **pos;                 /* positional arguments after the command */
	const char *opt[OPTS_MAX];  /* option i's value ("" for a flag); NULL if absent */
};

/* A command. */
struct command {
	const char *name;
	enum image_access access;
	bool several_tx;            /* writes in more than one transaction (its help says how) */
	int min_pos, max_pos;       /* positional arguments; max -1: no limit */
	struct opt_spec opts[OPTS_MAX];
	const char *usage;          /* after "objtool IMAGE " (or "objtool ") */
	const char *summary;        /* one line for objtool --help */
	const char *help;           /* objtool COMMAND --help, after the usage */
	int (*check)(const struct args *a); /* arguments, before the image opens; may be NULL */
	int (*run)(struct image *img, const struct args *a);
};

/* --- the commands ------------------------------------------------------- */

extern const struct command cmd_info, cmd_ls, cmd_stat, cmd_cat, cmd_export,
	cmd_import, cmd_rm, cmd_mv, cmd_fill, cmd_snapshots, cmd_snapshot,
	cmd_check, cmd_create, cmd_du, cmd_dump, cmd_grow, cmd_shrink;

/* resolve_object -- "NAME" or "#ID" to an id, with read-only lookups only;
 * the name in *name (NULL for #ID). An exit status, reported for `cmd`. */
int resolve_object(struct image *img, const char *cmd, const char *arg,
		   uint64_t *id, const char **name);

/* lookup_name -- os_cat_lookup for a C string, the name checked first */
int lookup_name(const struct objstore *os, const char *name, uint64_t *id);

#endif
