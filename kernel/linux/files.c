/*
 * files.c -- a Linux program's files: descriptors, paths, and the
 * catalogue as its file system.
 *
 * Descriptors (klinux.fd) name open files (struct klxfile, kformat.h),
 * each a small kernel object held by every descriptor naming it, so dup
 * shares the offset as on Linux. An open file of the catalogue holds its
 * object; reading and writing go through the DRAM cache like SYS_OBJ_READ
 * and SYS_OBJ_WRITE, a call at most FE_IO_MAX bytes (a short count, which
 * programs take as they do from Linux).
 *
 * Paths. A program sees the catalogue below klinux.root as its `/`: the
 * path /a/b/c is the name root + "a/b/c". A relative path starts at the
 * current directory (or an openat's directory); "." and ".." are folded
 * away as the path is read, and ".." never climbs above `/`, so a program
 * reaches no name outside its root. A directory is a name prefix: "a/b" is
 * a directory when some name starts with "a/b/" (or it is the root).
 * Special files: /dev/null, /dev/zero, /dev/urandom (and /dev/random),
 * /dev/tty (the console), /proc/meminfo (the heap's figures, written as
 * its text when read).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "arch/arch.h"
#include "console/console.h"
#include "core/heap.h"
#include "core/time.h"
#include "epoch/durable.h"
#include "epoch/epoch.h"
#include "ferrite/errors.h"
#include "linux/lx.h"
#include "obj/kobj.h"
#include "objstore/catalogue.h"
#include "objstore/object.h"
#include "task/proc.h"
#include "uvm/pagecache.h"
#include "uvm/uvm.h"

#define CHUNK 4096u
#define USER_PATH_MAX 4096u            /* Linux's PATH_MAX */
#define NS 1000000000ll

/* Volatile: a bounce buffer; the kernel runs one call at a time. */
static uint8_t chunk[CHUNK];

/* --- descriptors ---------------------------------------------------------- */

/* file_of -- the open file of descriptor fd, its id in *id; NULL if none */
static struct klxfile *file_of(struct klinux *lx, int64_t fd, uint64_t *id)
{
	if (fd < 0 || fd >= KLINUX_FDS || !lx->fd[fd].file)
		return NULL;
	if (id)
		*id = lx->fd[fd].file;
	return kobj_data(lx->fd[fd].file, OS_TYPE_KERNEL, KLXFILE_MAGIC);
}

/* lx_fd_file -- the open file descriptor fd names, for the other rooms of
 * the personality (poll.c) */
struct klxfile *lx_fd_file(struct klinux *lx, int64_t fd, uint64_t *id)
{
	return file_of(lx, fd, id);
}

/* is_pipe -- whether open file f is an end of a pipe */
static bool is_pipe(const struct klxfile *f)
{
	return f->kind == KLXFILE_PIPE_READ || f->kind == KLXFILE_PIPE_WRITE;
}

/* count_end -- a descriptor now names (delta 1) or no longer names (-1)
 * open file f: the pipe of an end counts it */
static void count_end(const struct klxfile *f, int delta)
{
	if (f && is_pipe(f))
		lx_pipe_count(f->object, f->kind == KLXFILE_PIPE_WRITE, delta);
}

/* install -- descriptor for open file `file` (whose reference it takes),
 * the lowest free at or above `from`; -EMFILE if none (the reference is
 * then released) */
static int64_t install(struct klinux *lx, uint64_t file, uint32_t flags, int64_t from)
{
	for (int64_t fd = from < 0 ? 0 : from; fd < KLINUX_FDS; fd++)
		if (!lx->fd[fd].file) {
			KLOG(&lx->fd[fd]);
			lx->fd[fd].file = file;
			lx->fd[fd].flags = flags;
			count_end(kobj_data(file, OS_TYPE_KERNEL, KLXFILE_MAGIC), 1);
			return fd;
		}
	kobj_release(file);
	return -LX_EMFILE;
}

/* drop -- close descriptor fd (which names a file) */
static void drop(struct klinux *lx, int64_t fd)
{
	uint64_t file = lx->fd[fd].file;
	const struct klxfile *f = kobj_data(file, OS_TYPE_KERNEL, KLXFILE_MAGIC);

	if (f)
		lx_locks_closed(lx, f);
	KLOG(&lx->fd[fd]);
	lx->fd[fd].file = 0;
	lx->fd[fd].flags = 0;
	count_end(f, -1);
	kobj_release(file);
}

/* new_file -- a new open file of `kind`; its id in *id, its bytes returned */
static struct klxfile *new_file(uint16_t kind, uint32_t flags, uint64_t *id,
				int *err)
{
	void *data;
	struct klxfile *f;

	*err = kobj_new(OS_TYPE_KERNEL, sizeof(*f), KLXFILE_MAGIC, id, &data);
	if (*err)
		return NULL;
	f = data;                      /* a fresh block: no log */
	f->kind = kind;
	f->flags = flags;
	return f;
}

/* lx_files_start -- descriptors 0, 1 and 2: the objects the spawn gave
 * them (sys_process.c checked each: a blob or code object to read from
 * 0, a blob to write to 1 and 2), the others one open file of the console */
int lx_files_start(struct klinux *lx, const struct spawn_args *a)
{
	uint64_t console = 0, id;
	int err;

	for (unsigned fd = 0; fd < 3; fd++) {
		const struct fe_spawn_fd *d = &a->fd[fd];
		struct klxfile *f;

		if (!d->grant && console) {
			kobj_hold(console);
			id = console;
		} else if (!d->grant) {
			if (!new_file(KLXFILE_CONSOLE, LX_O_RDWR, &console, &err))
				return err;
			id = console;
		} else {
			f = new_file(KLXFILE_OBJECT, fd == 0 ? LX_O_RDONLY :
				     LX_O_WRONLY | (d->flags & FE_SPAWN_FD_APPEND ? LX_O_APPEND : 0),
				     &id, &err);
			if (!f)
				return err;
			f->object = a->grant[d->grant - 1].object;
			kobj_hold(f->object);
		}
		lx->fd[fd].file = id;  /* a fresh klinux: no log */
	}
	return 0;
}

/* lx_state_deleted -- the reaper deletes a klinux, klxfile or klxpipe:
 * release what it holds, clearing each field so that a second call
 * releases nothing */
void lx_state_deleted(uint64_t id, uint16_t type)
{
	struct klinux *lx;
	struct klxfile *f;

	if (type != OS_TYPE_KERNEL)
		return;
	if ((lx = kobj_data(id, OS_TYPE_KERNEL, KLINUX_MAGIC))) {
		for (unsigned fd = 0; fd < KLINUX_FDS; fd++)
			if (lx->fd[fd].file)
				drop(lx, fd);
		if (lx->brk_object) {
			kobj_release(lx->brk_object);
			KLOG(&lx->brk_object);
			lx->brk_object = 0;
		}
		if (lx->signals) {
			kobj_release(lx->signals);
			KLOG(&lx->signals);
			lx->signals = 0;
		}
		if (lx->version >= 2 && lx->threads) { /* version 1 has no threads */
			kobj_release(lx->threads);
			KLOG(&lx->threads);
			lx->threads = 0;
		}
		if (lx->version >= 2 && lx->locks) { /* nor locks */
			kobj_release(lx->locks);
			KLOG(&lx->locks);
			lx->locks = 0;
		}
	} else if ((f = kobj_data(id, OS_TYPE_KERNEL, KLXFILE_MAGIC))) {
		if (f->object) {
			kobj_release(f->object);
			KLOG(&f->object);
			f->object = 0;
		}
	} else {
		lx_pipe_deleted(id);
	}
}

/* lx_fd_object -- the catalogue object descriptor fd shows, and the flags it was opened with */
int64_t lx_fd_object(struct lxcall *c, int64_t fd, uint64_t *object, uint32_t *flags)
{
	struct klxfile *f = file_of(c->lx, fd, NULL);

	if (!f)
		return -LX_EBADF;
	if (f->kind != KLXFILE_OBJECT)
		return -LX_EACCES;
	*object = f->object;
	*flags = f->flags;
	return 0;
}

/* --- paths ---------------------------------------------------------------- */

/* append_part -- add one path component to name (len bytes so far), folding "." and ".." */
static int append_part(char *name, size_t *len, const char *part, size_t n,
		       size_t floor)
{
	if (n == 0 || (n == 1 && part[0] == '.'))
		return 0;
	if (n == 2 && part[0] == '.' && part[1] == '.') {
		if (*len <= floor)
			return 0; /* never above the root */
		(*len)--;                         /* its trailing '/' */
		while (*len > floor && name[*len - 1] != '/')
			(*len)--;
		return 0;
	}
	if (*len + n + 1 > FE_NAME_MAX + 1)
		return -LX_ENAMETOOLONG;
	memcpy(name + *len, part, n);
	*len += n;
	name[(*len)++] = '/';
	return 0;
}

/* append_path -- add each component of path to name (len bytes so far),
 * folding "." and ".." (never below `floor`) */
static int append_path(char *name, size_t *len, const char *path, size_t floor)
{
	size_t at = 0;

	while (path[at]) {
		size_t n = 0;
		int err;

		while (path[at] == '/')
			at++;
		while (path[at + n] && path[at + n] != '/')
			n++;
		err = append_part(name, len, path + at, n, floor);
		if (err)
			return err;
		at += n;
	}
	return 0;
}

/* end_name -- name (len bytes so far, `floor` of them the root) with
 * path's components added, ended: no trailing '/', NUL-terminated */
static int end_name(char *name, size_t len, const char *path, size_t floor)
{
	int err = append_path(name, &len, path, floor);

	if (err)
		return err;
	if (len > floor)
		len--; /* the last '/' */
	name[len] = 0;
	return 0;
}

/* lx_name_of -- the catalogue name (no trailing '/') of absolute path
 * `path` below `root`, folded as a program's paths are: 0 or
 * -LX_ENAMETOOLONG */
int lx_name_of(const char *root, const char *path, char name[KLINUX_PATH_MAX])
{
	size_t floor = strlen(root);

	memcpy(name, root, floor);
	return end_name(name, floor, path, floor);
}

/* resolve_path -- the catalogue name of `path`, relative to directory
 * `dirfd` (LX_AT_FDCWD: the current one). The name has no trailing '/'
 * ("" is the root); *special is set for /dev/ files. */
static int64_t resolve_path(struct lxcall *c, int64_t dirfd, const char *path,
			    char name[KLINUX_PATH_MAX], uint16_t *special)
{
	struct klinux *lx = c->lx;
	size_t len, floor = strlen(lx->root);
	int err;

	if (!path[0])
		return -LX_ENOENT;
	memcpy(name, lx->root, floor);
	len = floor;
	if (path[0] != '/') {
		const char *base = lx->cwd;
		size_t blen;

		if (dirfd != LX_AT_FDCWD) {
			struct klxfile *d = file_of(lx, dirfd, NULL);

			if (!d)
				return -LX_EBADF;
			if (d->kind != KLXFILE_DIR)
				return -LX_ENOTDIR;
			base = d->path; /* below the root already, with its '/' */
		}
		blen = strlen(base);
		if (len + blen > FE_NAME_MAX)
			return -LX_ENAMETOOLONG;
		memcpy(name + len, base, blen);
		len += blen;
	}
	err = end_name(name, len, path, floor);
	if (err)
		return err;
	*special = 0;
	if (!strcmp(name + floor, "dev/null"))
		*special = KLXFILE_NULL;
	else if (!strcmp(name + floor, "dev/zero"))
		*special = KLXFILE_ZERO;
	else if (!strcmp(name + floor, "dev/urandom") || !strcmp(name + floor, "dev/random"))
		*special = KLXFILE_RANDOM;
	else if (!strcmp(name + floor, "dev/tty"))
		*special = KLXFILE_CONSOLE;
	else if (!strcmp(name + floor, "proc/meminfo"))
		*special = KLXFILE_MEMINFO;
	return 0;
}

/* resolve -- resolve_path of the path at user address `upath` */
static int64_t resolve(struct lxcall *c, int64_t dirfd, uint64_t upath,
		       char name[KLINUX_PATH_MAX], uint16_t *special)
{
	static char path[USER_PATH_MAX];
	int err = uvm_copy_string(&c->p->mem, path, upath, sizeof(path));

	if (err == -ERR_RANGE || err == -ERR_TOOBIG)
		return -LX_ENAMETOOLONG;
	if (err < 0)
		return lx_errno(err);
	return resolve_path(c, dirfd, path, name, special);
}

/* lx_files_forked -- a fork's child's klinux, copied from its parent's:
 * each of its descriptors names its open file once more (a pipe counts it) */
void lx_files_forked(struct klinux *lx)
{
	for (unsigned fd = 0; fd < KLINUX_FDS; fd++)
		if (lx->fd[fd].file) {
			kobj_hold(lx->fd[fd].file);
			count_end(kobj_data(lx->fd[fd].file, OS_TYPE_KERNEL, KLXFILE_MAGIC), 1);
		}
}

/* lx_files_end -- proc.c's hook: Linux program p ends, and its
 * descriptors close at once, not when the reaper gets to its state: the
 * open files, pipes and locks it shares with others are theirs alone now */
void lx_files_end(struct pctx *p)
{
	for (unsigned fd = 0; fd < KLINUX_FDS; fd++)
		if (p->lx->fd[fd].file)
			drop(p->lx, fd);
}

/* lx_files_exec -- an execve: the descriptors marked close-on-exec close */
void lx_files_exec(struct klinux *lx)
{
	for (unsigned fd = 0; fd < KLINUX_FDS; fd++)
		if (lx->fd[fd].file && lx->fd[fd].flags & KLINUX_FD_CLOEXEC)
			drop(lx, fd);
}

/* is_dir -- whether catalogue name `name` (no trailing '/') is a directory:
 * the root, or a prefix of some name */
static bool is_dir(struct klinux *lx, const char *name)
{
	char prefix[KLINUX_PATH_MAX];
	struct os_cat_cursor cur;
	size_t len = strlen(name);
	uint64_t id;

	if (len <= strlen(lx->root))
		return true;
	if (len + 1 > FE_NAME_MAX)
		return false;
	memcpy(prefix, name, len);
	prefix[len] = '/';
	os_cat_cursor_init(&cur, prefix, len + 1);
	return os_cat_next(&kheap, &cur, prefix, len + 1, &id) == 0;
}

/* --- open and close ------------------------------------------------------- */

/* open_at -- open(2) and openat(2) */
static int64_t open_at(struct lxcall *c, int64_t dirfd, uint64_t upath,
		       uint64_t flags, uint64_t mode)
{
	char name[KLINUX_PATH_MAX];
	uint32_t acc = flags & LX_O_ACCMODE, keep;
	uint16_t special;
	struct klxfile *f;
	uint64_t object = 0, file;
	int64_t err = resolve(c, dirfd, upath, name, &special);
	int e;

	if (err)
		return err;
	if (acc == 3)
		return -LX_EINVAL;
	keep = (uint32_t)(flags & (LX_O_ACCMODE | LX_O_APPEND | LX_O_NONBLOCK));
	if (special == KLXFILE_MEMINFO && acc != LX_O_RDONLY)
		return -LX_EACCES;
	if (special) {
		f = new_file(special, keep, &file, &e);
		if (!f)
			return lx_errno(e);
	} else if (os_cat_lookup(&kheap, name, strlen(name), &object) == 0) {
		uint16_t type = kobj_type(object);

		if (flags & LX_O_DIRECTORY)
			return -LX_ENOTDIR;
		if ((flags & LX_O_CREAT) && (flags & LX_O_EXCL))
			return -LX_EEXIST;
		if (type != OS_TYPE_BLOB && type != OS_TYPE_CODE)
			return -LX_EACCES;
		if (acc != LX_O_RDONLY && type == OS_TYPE_CODE)
			return -LX_EACCES; /* code objects are read-only to programs */
		if ((flags & LX_O_TRUNC) && acc != LX_O_RDONLY) {
			e = os_obj_resize(&kheap, object, 0);
			if (!e)
				e = os_obj_touch(&kheap, object); /* even if it was empty */
			if (e)
				return lx_errno(e);
			pagecache_resized(object, 0);
		}
		f = new_file(KLXFILE_OBJECT, keep, &file, &e);
		if (!f)
			return lx_errno(e);
		kobj_hold(object);
		f->object = object;
	} else if (is_dir(c->lx, name)) {
		if (acc != LX_O_RDONLY || (flags & LX_O_CREAT))
			return -LX_EISDIR;
		f = new_file(KLXFILE_DIR, keep, &file, &e);
		if (!f)
			return lx_errno(e);
		if (strlen(name) > strlen(c->lx->root)) {
			snprintf(f->path, sizeof(f->path), "%s/", name + strlen(c->lx->root));
		}
	} else if (flags & LX_O_CREAT) {
		char parent[KLINUX_PATH_MAX];
		char *slash;

		if (flags & LX_O_DIRECTORY)
			return -LX_EINVAL;
		memcpy(parent, name, sizeof(parent));
		slash = strrchr(parent, '/');
		if (slash) {
			*slash = 0;
			if (!is_dir(c->lx, parent))
				return -LX_ENOENT;
		}
		e = os_obj_create(&kheap, OS_TYPE_BLOB, 0, &object);
		if (!e)
			e = os_obj_set_mode(&kheap, object, (uint16_t)(mode & 07777 & ~c->lx->umask));
		if (!e)
			e = os_cat_insert(&kheap, name, strlen(name), object);
		if (e) {
			if (object)
				kobj_release(object);
			return lx_errno(e);
		}
		f = new_file(KLXFILE_OBJECT, keep, &file, &e);
		if (!f)
			return lx_errno(e); /* the name stays: as after a cut */
		f->object = object; /* the name's reference was the creation's: one more for the file */
		kobj_hold(object);
	} else {
		return -LX_ENOENT;
	}
	return install(c->lx, file, flags & LX_O_CLOEXEC ? KLINUX_FD_CLOEXEC : 0, 0);
}

/* open (path, flags, mode) -> fd */
int64_t lx_open(struct lxcall *c)
{
	return open_at(c, LX_AT_FDCWD, c->arg[0], c->arg[1], c->arg[2]);
}

/* openat (dirfd, path, flags, mode) -> fd */
int64_t lx_openat(struct lxcall *c)
{
	return open_at(c, (int64_t)(int32_t)c->arg[0], c->arg[1], c->arg[2], c->arg[3]);
}

/* close (fd) -> 0 */
int64_t lx_close(struct lxcall *c)
{
	const int64_t fd = (int64_t)(int32_t)c->arg[0];

	if (!file_of(c->lx, fd, NULL))
		return -LX_EBADF;
	drop(c->lx, fd);
	return 0;
}

/* --- reading and writing -------------------------------------------------- */

/* console_mode -- how the console is read under the terminal modes
 * `lflag`: a line the kernel edits (ICANON), echoed or not (ECHO), or
 * the bytes as typed, never echoed (the program draws what it wants) */
static uint64_t console_mode(uint32_t lflag)
{
	if (!(lflag & LX_ICANON))
		return FE_CONSOLE_RAW;
	return FE_CONSOLE_LINE | (lflag & LX_ECHO ? 0 : FE_CONSOLE_NOECHO);
}

/* meminfo -- /proc/meminfo's text now, in `text`; its length. The heap is
 * the memory (sysinfo says the same): its pages in all, its free pages;
 * no buffers, page cache or swap of Linux's kind. */
static size_t meminfo(char *text, size_t cap)
{
	struct os_stats s;
	const uint64_t kib = FE_PAGE_SIZE / 1024;

	os_stats(&kheap, &s);
	return (size_t)snprintf(text, cap,
				"MemTotal:       %8llu kB\nMemFree:        %8llu kB\n"
				"MemAvailable:   %8llu kB\nBuffers:               0 kB\n"
				"Cached:                0 kB\nSwapCached:            0 kB\n"
				"SwapTotal:             0 kB\nSwapFree:              0 kB\n"
				"Shmem:                 0 kB\nSReclaimable:          0 kB\n",
				(unsigned long long)(s.page_count * kib),
				(unsigned long long)(s.pages_free * kib),
				(unsigned long long)(s.pages_free * kib));
}

/* read_file -- up to len bytes of open file f into the caller's buf;
 * -EAGAIN rather than waiting if `nonblock` or the file is O_NONBLOCK */
static int64_t read_file(struct lxcall *c, struct klxfile *f, uint64_t buf,
			 uint64_t len, uint64_t *offset, bool nonblock)
{
	uint64_t done = 0;
	int err;

	if ((f->flags & LX_O_ACCMODE) == LX_O_WRONLY)
		return -LX_EBADF;
	if (len > FE_IO_MAX)
		len = FE_IO_MAX;
	if (len && uvm_check(&c->p->mem, buf, len, UVM_WRITE))
		return -LX_EFAULT;
	nonblock |= (f->flags & LX_O_NONBLOCK) != 0;
	switch (f->kind) {
	case KLXFILE_CONSOLE:
		if (!len)
			return 0;
		return lx_errno(console_read(c->tf, c->p, buf, len,
					     console_mode(c->lx->termios.lflag) |
					     (nonblock ? FE_CONSOLE_NONBLOCK : 0)));
	case KLXFILE_NULL:
		return 0;
	case KLXFILE_MEMINFO: { /* the text as it is at each read, from the offset */
		const size_t n = meminfo((char *)chunk, CHUNK);

		if (*offset >= n)
			return 0;
		done = n - *offset < len ? n - *offset : len;
		err = uvm_copy_out(&c->p->mem, buf, chunk + *offset, done);
		if (err)
			return lx_errno(err);
		*offset += done;
		return (int64_t)done;
	}
	case KLXFILE_DIR:
		return -LX_EISDIR;
	case KLXFILE_PIPE_READ:
		return lx_pipe_read(c, f->object, buf, len, nonblock);
	case KLXFILE_PIPE_WRITE:
		return -LX_EBADF;
	case KLXFILE_ZERO:
	case KLXFILE_RANDOM:
		while (done < len) {
			uint64_t n = len - done < CHUNK ? len - done : CHUNK;

			if (f->kind == KLXFILE_ZERO)
				memset(chunk, 0, n);
			else
				for (uint64_t i = 0; i < n; i += 8) {
					uint64_t r = arch_random();

					memcpy(chunk + i, &r, n - i < 8 ? n - i : 8);
				}
			err = uvm_copy_out(&c->p->mem, buf + done, chunk, n);
			if (err)
				return done ? (int64_t)done : lx_errno(err);
			done += n;
		}
		return (int64_t)done;
	default: /* KLXFILE_OBJECT */
		while (done < len) {
			uint64_t want = len - done < CHUNK ? len - done : CHUNK;
			int64_t got = pagecache_read(f->object, *offset + done, chunk, want);

			if (got <= 0) {
				if (got < 0 && !done)
					return lx_errno(got);
				break;
			}
			err = uvm_copy_out(&c->p->mem, buf + done, chunk, (uint64_t)got);
			if (err)
				return done ? (int64_t)done : lx_errno(err);
			done += (uint64_t)got;
			if ((uint64_t)got < want)
				break;
		}
		*offset += done;
		return (int64_t)done;
	}
}

/* write_object -- up to len bytes of the caller's buf into object f at *offset, growing it */
static int64_t write_object(struct lxcall *c, struct klxfile *f, uint64_t buf,
			    uint64_t len, uint64_t *offset)
{
	struct os_obj_info info;
	uint64_t done = 0;
	int err = os_obj_stat(&kheap, f->object, &info);

	if (err)
		return lx_errno(err);
	if (f->flags & LX_O_APPEND)
		*offset = info.size;
	if (*offset > FE_USER_TOP)
		return -LX_EINVAL; /* far beyond any object this heap could hold */
	err = len ? os_obj_touch(&kheap, f->object) : 0; /* its mtime: the DRAM cache passes objstore by */
	if (err)
		return lx_errno(err);
	if (*offset + len > info.size) {
		err = os_obj_resize(&kheap, f->object, *offset + len);
		if (err)
			return lx_errno(err == -ERR_NOSPC ? -ERR_NOSPC : err);
		pagecache_resized(f->object, *offset + len);
	}
	while (done < len) {
		uint64_t want = len - done < CHUNK ? len - done : CHUNK;
		int64_t wrote;

		err = uvm_copy_in(&c->p->mem, chunk, buf + done, want);
		if (err)
			break;
		wrote = pagecache_write(f->object, *offset + done, chunk, want);
		if (wrote <= 0)
			break;
		done += (uint64_t)wrote;
	}
	if (done < len && *offset + len > info.size) { /* give back what was not written */
		uint64_t size = *offset + done > info.size ? *offset + done : info.size;

		if (os_obj_resize(&kheap, f->object, size) == 0)
			pagecache_resized(f->object, size);
	}
	if (!done && len)
		return -LX_EFAULT;
	*offset += done;
	return (int64_t)done;
}

/* write_file -- up to len bytes of the caller's buf to open file f; a
 * pipe's -EAGAIN rather than waiting if `nonblock` or it is O_NONBLOCK */
static int64_t write_file(struct lxcall *c, struct klxfile *f, uint64_t buf,
			  uint64_t len, uint64_t *offset, bool nonblock)
{
	if ((f->flags & LX_O_ACCMODE) == LX_O_RDONLY)
		return -LX_EBADF;
	if (len > FE_IO_MAX)
		len = FE_IO_MAX;
	if (len && uvm_check(&c->p->mem, buf, len, UVM_READ))
		return -LX_EFAULT;
	switch (f->kind) {
	case KLXFILE_CONSOLE: /* a later piece of writev never waits: the
			       * earlier ones are queued, and the call's
			       * count says so */
		if ((nonblock || (f->flags & LX_O_NONBLOCK)) && !console_writable(c->p))
			return -LX_EAGAIN;
		return lx_errno(console_write(c->tf, c->p, buf, len));
	case KLXFILE_DIR:
		return -LX_EISDIR;
	case KLXFILE_OBJECT:
		return write_object(c, f, buf, len, offset);
	case KLXFILE_PIPE_WRITE:
		return lx_pipe_write(c, f->object, buf, len,
				     nonblock || (f->flags & LX_O_NONBLOCK));
	case KLXFILE_PIPE_READ:
		return -LX_EBADF;
	default: /* null, zero, random: taken and forgotten */
		return (int64_t)len;
	}
}

/* io -- read or write on descriptor fd at its offset, which advances;
 * `nonblock`: as if the file were O_NONBLOCK */
static int64_t io(struct lxcall *c, int64_t fd, uint64_t buf, uint64_t len, bool write,
		  bool nonblock)
{
	uint64_t id, offset;
	struct klxfile *f = file_of(c->lx, fd, &id);
	int64_t n;

	if (!f)
		return -LX_EBADF;
	offset = f->offset;
	n = write ? write_file(c, f, buf, len, &offset, nonblock) :
		    read_file(c, f, buf, len, &offset, nonblock);
	if (n >= 0 && offset != f->offset) {
		KLOG(&f->offset);
		f->offset = offset;
	}
	return n;
}

/* read (fd, buf, len) -> bytes read */
int64_t lx_read(struct lxcall *c)
{
	return io(c, (int64_t)(int32_t)c->arg[0], c->arg[1], c->arg[2], false, false);
}

/* write (fd, buf, len) -> bytes written */
int64_t lx_write(struct lxcall *c)
{
	return io(c, (int64_t)(int32_t)c->arg[0], c->arg[1], c->arg[2], true, false);
}

/* pread64 (fd, buf, len, offset) -> bytes read at offset, the file's own unmoved */
int64_t lx_pread64(struct lxcall *c)
{
	struct klxfile *f = file_of(c->lx, (int64_t)(int32_t)c->arg[0], NULL);
	uint64_t offset = c->arg[3];

	if (!f)
		return -LX_EBADF;
	if (f->kind != KLXFILE_OBJECT)
		return -LX_ESPIPE;
	if ((int64_t)offset < 0)
		return -LX_EINVAL;
	return read_file(c, f, c->arg[1], c->arg[2], &offset, false);
}

/* vector_io -- readv and writev: each piece in turn, until one comes up
 * short; only the first may wait (a call that blocks is issued again
 * whole, so what the pieces before it moved would be moved twice) */
static int64_t vector_io(struct lxcall *c, bool write)
{
	const int64_t fd = (int64_t)(int32_t)c->arg[0];
	const uint64_t iov = c->arg[1], count = c->arg[2];
	int64_t total = 0;

	if (count > 1024)
		return -LX_EINVAL;
	for (uint64_t i = 0; i < count; i++) {
		struct lx_iovec v;
		int64_t n;
		int err = uvm_copy_in(&c->p->mem, &v, iov + i * sizeof(v), sizeof(v));

		if (err)
			return total ? total : -LX_EFAULT;
		if (!v.len)
			continue;
		n = io(c, fd, v.base, v.len, write, total > 0);
		if (n < 0 || n == SYSCALL_BLOCKED)
			return total && n != SYSCALL_BLOCKED ? total : n;
		total += n;
		if ((uint64_t)n < v.len)
			break;
	}
	return total;
}

/* readv (fd, iov, count) -> bytes read */
int64_t lx_readv(struct lxcall *c)
{
	return vector_io(c, false);
}

/* writev (fd, iov, count) -> bytes written */
int64_t lx_writev(struct lxcall *c)
{
	return vector_io(c, true);
}

/* lseek (fd, offset, whence) -> the new offset */
int64_t lx_lseek(struct lxcall *c)
{
	const int64_t fd = (int64_t)(int32_t)c->arg[0];
	const int64_t off = (int64_t)c->arg[1];
	const uint64_t whence = c->arg[2];
	struct klxfile *f = file_of(c->lx, fd, NULL);
	struct os_obj_info info;
	int64_t base;

	if (!f)
		return -LX_EBADF;
	if (f->kind == KLXFILE_DIR) {
		if (whence != LX_SEEK_SET || off != 0)
			return -LX_EINVAL;
		KLOG(f);
		f->offset = 0;
		f->cursor[0] = 0;
		return 0;
	}
	if (f->kind != KLXFILE_OBJECT && f->kind != KLXFILE_MEMINFO)
		return f->kind == KLXFILE_CONSOLE || is_pipe(f) ? -LX_ESPIPE : 0;
	switch (whence) {
	case LX_SEEK_SET:
		base = 0;
		break;
	case LX_SEEK_CUR:
		base = (int64_t)f->offset;
		break;
	case LX_SEEK_END: /* /proc/meminfo's size is 0, as /proc's files show it */
		if (f->kind == KLXFILE_MEMINFO)
			base = 0;
		else if (os_obj_stat(&kheap, f->object, &info))
			return -LX_EIO;
		else
			base = (int64_t)info.size;
		break;
	default:
		return -LX_EINVAL;
	}
	if ((off > 0 && base > INT64_MAX - off) || base + off < 0)
		return -LX_EINVAL;
	KLOG(&f->offset);
	f->offset = (uint64_t)(base + off);
	return (int64_t)f->offset;
}

/* --- metadata ------------------------------------------------------------- */

/* dir_ino -- the inode number of the directory named by the first len
 * bytes of catalogue name `name` (a trailing '/' not counted): 47 bits of
 * a hash of the name, and bit 47 set, never an object's id, so that each
 * directory has its own (du and find tell directories apart by it) */
static uint64_t dir_ino(const char *name, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	if (len && name[len - 1] == '/')
		len--;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)name[i]) * 0x100000001b3ull;
	return (h & ((1ull << 47) - 1)) | (1ull << 47);
}

/* file_ino -- the inode number of an open directory, or its object's id */
static uint64_t file_ino(struct klinux *lx, const struct klxfile *f)
{
	char name[2 * KLINUX_PATH_MAX];

	if (f->kind != KLXFILE_DIR)
		return f->object;
	return dir_ino(name, (size_t)snprintf(name, sizeof(name), "%s%s", lx->root, f->path));
}

/* object_mode -- the permission bits of an object: the mode a chmod or
 * its creation stored, else 0644 (0755 for code) */
static uint32_t object_mode(const struct os_obj_info *info)
{
	if (info->mode & OS_MODE_SET)
		return info->mode & OS_MODE_BITS;
	return info->type == OS_TYPE_CODE ? 0755 : 0644;
}

/* split_ns -- wall-clock ns into seconds and ns, rounding down */
static void split_ns(int64_t ns, int64_t *sec, int64_t *nsec)
{
	*sec = ns / NS;
	*nsec = ns % NS;
	if (*nsec < 0) {
		*nsec += NS;
		(*sec)--;
	}
}

/* fill_stat -- struct stat of an open file's kind: of object `id`, or the
 * directory whose inode number is `id`. An object's three times are its
 * mtime (Ferrite keeps one); everything else shows 1970-01-01. */
static int64_t fill_stat(uint16_t kind, uint64_t id, struct lx_stat *st)
{
	struct os_obj_info info;

	memset(st, 0, sizeof(*st));
	st->ino = id;
	st->nlink = 1;
	st->blksize = FE_PAGE_SIZE;
	switch (kind) {
	case KLXFILE_OBJECT:
		if (os_obj_stat(&kheap, id, &info))
			return -LX_EIO;
		st->mode = LX_S_IFREG | object_mode(&info);
		split_ns(info.mtime_ns, &st->mtime, &st->mtime_ns);
		st->atime = st->ctime = st->mtime;
		st->atime_ns = st->ctime_ns = st->mtime_ns;
		st->size = (int64_t)info.size;
		st->blocks = (int64_t)(info.pages * (FE_PAGE_SIZE / 512));
		break;
	case KLXFILE_DIR: /* a prefix takes no room; shown as a block, as ext4 shows one */
		st->mode = LX_S_IFDIR | 0755;
		st->nlink = 2;
		st->size = FE_PAGE_SIZE;
		st->blocks = FE_PAGE_SIZE / 512;
		break;
	case KLXFILE_CONSOLE:
		st->mode = LX_S_IFCHR | 0620;
		st->rdev = (4u << 8) | 64; /* a serial line, as ttyS0 */
		break;
	case KLXFILE_NULL:
		st->mode = LX_S_IFCHR | 0666;
		st->rdev = (1u << 8) | 3;
		break;
	case KLXFILE_ZERO:
		st->mode = LX_S_IFCHR | 0666;
		st->rdev = (1u << 8) | 5;
		break;
	case KLXFILE_PIPE_READ:
	case KLXFILE_PIPE_WRITE: /* both ends one inode, as on Linux: the pipe (id) */
		st->mode = LX_S_IFIFO | 0600;
		break;
	case KLXFILE_MEMINFO: /* its size unknown until read, as /proc's files */
		st->mode = LX_S_IFREG | 0444;
		break;
	default: /* KLXFILE_RANDOM */
		st->mode = LX_S_IFCHR | 0666;
		st->rdev = (1u << 8) | 9;
		break;
	}
	st->dev = 0xfe;
	return 0;
}

/* stat_path -- struct stat of the file at a path (relative to dirfd) */
static int64_t stat_path(struct lxcall *c, int64_t dirfd, uint64_t upath,
			 struct lx_stat *st)
{
	char name[KLINUX_PATH_MAX];
	uint16_t special;
	uint64_t object;
	int64_t err = resolve(c, dirfd, upath, name, &special);

	if (err)
		return err;
	if (special)
		return fill_stat(special, 0, st);
	if (os_cat_lookup(&kheap, name, strlen(name), &object) == 0)
		return fill_stat(KLXFILE_OBJECT, object, st);
	if (is_dir(c->lx, name))
		return fill_stat(KLXFILE_DIR, dir_ino(name, strlen(name)), st);
	return -LX_ENOENT;
}

/* put_stat -- copy a struct stat out, or pass err on */
static int64_t put_stat(struct lxcall *c, int64_t err, const struct lx_stat *st, uint64_t to)
{
	if (err)
		return err;
	return lx_errno(uvm_copy_out(&c->p->mem, to, st, sizeof(*st)));
}

/* stat_fd -- struct stat of descriptor fd's file (LX_AT_FDCWD: the
 * current directory) */
static int64_t stat_fd(struct lxcall *c, int64_t fd, struct lx_stat *st)
{
	char cwd[2 * KLINUX_PATH_MAX];
	struct klxfile *f;

	if (fd == LX_AT_FDCWD)
		return fill_stat(KLXFILE_DIR, dir_ino(cwd, (size_t)snprintf(cwd, sizeof(cwd), "%s%s",
						c->lx->root, c->lx->cwd)), st);
	f = file_of(c->lx, fd, NULL);
	if (!f)
		return -LX_EBADF;
	return fill_stat(f->kind, file_ino(c->lx, f), st);
}

/* stat_at -- struct stat of the file at a path relative to dirfd, or with
 * AT_EMPTY_PATH and "" of dirfd's own; the *at calls' flags checked */
static int64_t stat_at(struct lxcall *c, int64_t dirfd, uint64_t path, uint64_t flags,
		       struct lx_stat *st)
{
	char first;

	if (flags & ~(uint64_t)(LX_AT_EMPTY_PATH | LX_AT_SYMLINK_NOFOLLOW | 0x800 /* NO_AUTOMOUNT */))
		return -LX_EINVAL;
	if ((flags & LX_AT_EMPTY_PATH) &&
	    uvm_copy_in(&c->p->mem, &first, path, 1) == 0 && first == 0)
		return stat_fd(c, dirfd, st);
	return stat_path(c, dirfd, path, st);
}

/* fstat (fd, st) -> 0 */
int64_t lx_fstat(struct lxcall *c)
{
	const int64_t fd = (int64_t)(int32_t)c->arg[0];
	struct lx_stat st;

	return put_stat(c, fd == LX_AT_FDCWD ? -LX_EBADF : stat_fd(c, fd, &st), &st, c->arg[1]);
}

/* stat, lstat (path, st) -> 0 */
int64_t lx_stat(struct lxcall *c)
{
	struct lx_stat st;

	return put_stat(c, stat_path(c, LX_AT_FDCWD, c->arg[0], &st), &st, c->arg[1]);
}

/* newfstatat (dirfd, path, st, flags) -> 0 */
int64_t lx_newfstatat(struct lxcall *c)
{
	struct lx_stat st;

	return put_stat(c, stat_at(c, (int64_t)(int32_t)c->arg[0], c->arg[1], c->arg[3], &st),
			&st, c->arg[2]);
}

/* statx_time -- a statx timestamp of a struct stat's time */
static struct lx_statx_time statx_time(int64_t sec, int64_t nsec)
{
	struct lx_statx_time t = { sec, (uint32_t)nsec, 0 };

	return t;
}

/* statx (dirfd, path, flags, mask, buf) -> 0: what newfstatat gives, in
 * struct statx; every basic field is filled whatever `mask` asks (Linux
 * may give more than asked), the birth time never */
int64_t lx_statx(struct lxcall *c)
{
	const uint64_t flags = c->arg[2], mask = c->arg[3];
	struct lx_statx sx;
	struct lx_stat st;
	int64_t err;

	if ((flags & LX_AT_STATX_SYNC_TYPE) == LX_AT_STATX_SYNC_TYPE ||
	    (mask & LX_STATX_RESERVED))
		return -LX_EINVAL;
	if (flags & ~(uint64_t)(LX_AT_SYMLINK_NOFOLLOW | LX_AT_NO_AUTOMOUNT | LX_AT_EMPTY_PATH |
				LX_AT_STATX_SYNC_TYPE))
		return -LX_EINVAL;
	err = stat_at(c, (int64_t)(int32_t)c->arg[0], c->arg[1], flags & ~(uint64_t)LX_AT_STATX_SYNC_TYPE,
		      &st);
	if (err)
		return err;
	memset(&sx, 0, sizeof(sx));
	sx.mask = LX_STATX_BASIC_STATS;
	sx.blksize = (uint32_t)st.blksize;
	sx.nlink = (uint32_t)st.nlink;
	sx.mode = (uint16_t)st.mode;
	sx.ino = st.ino;
	sx.size = (uint64_t)st.size;
	sx.blocks = (uint64_t)st.blocks;
	sx.atime = statx_time(st.atime, st.atime_ns);
	sx.ctime = statx_time(st.ctime, st.ctime_ns);
	sx.mtime = statx_time(st.mtime, st.mtime_ns);
	sx.rdev_major = (uint32_t)(st.rdev >> 8);
	sx.rdev_minor = (uint32_t)(st.rdev & 0xff);
	sx.dev_minor = (uint32_t)st.dev;
	return lx_errno(uvm_copy_out(&c->p->mem, c->arg[4], &sx, sizeof(sx)));
}

/* --- owners and modes ----------------------------------------------------- */

/* to_root -- chown's answer: every file is root's, and stays so; giving
 * it to root (0, or -1 for "unchanged") succeeds, anyone else is EPERM */
static int64_t to_root(int64_t err, uint64_t uid, uint64_t gid)
{
	const uint32_t u = (uint32_t)uid, g = (uint32_t)gid;

	if (err)
		return err;
	return (u && u != UINT32_MAX) || (g && g != UINT32_MAX) ? -LX_EPERM : 0;
}

/* fchown (fd, uid, gid) */
int64_t lx_fchown(struct lxcall *c)
{
	const int64_t fd = (int64_t)(int32_t)c->arg[0];

	return to_root(file_of(c->lx, fd, NULL) ? 0 : -LX_EBADF, c->arg[1], c->arg[2]);
}

/* chown, lchown (path, uid, gid) */
int64_t lx_chown(struct lxcall *c)
{
	struct lx_stat st;

	return to_root(stat_path(c, LX_AT_FDCWD, c->arg[0], &st), c->arg[1], c->arg[2]);
}

/* fchownat (dirfd, path, uid, gid, flags) */
int64_t lx_fchownat(struct lxcall *c)
{
	struct lx_stat st;

	return to_root(stat_at(c, (int64_t)(int32_t)c->arg[0], c->arg[1], c->arg[4], &st),
		       c->arg[2], c->arg[3]);
}

/* set_mode -- chmod's answer for the file stat showed as st: a file of
 * the catalogue (its inode is its object) keeps the permission bits of
 * `mode`; anything else (a directory, a special file, a pipe) keeps the
 * mode it shows, so asking for that one succeeds (cp -a, tar -x do) and
 * any other is EPERM */
static int64_t set_mode(int64_t err, const struct lx_stat *st, uint64_t mode)
{
	if (err)
		return err;
	if ((st->mode & LX_S_IFMT) == LX_S_IFREG)
		return lx_errno(os_obj_set_mode(&kheap, st->ino, (uint16_t)(mode & 07777)));
	return (mode & 07777) == (st->mode & 07777) ? 0 : -LX_EPERM;
}

/* chmod (path, mode) */
int64_t lx_chmod(struct lxcall *c)
{
	struct lx_stat st;

	return set_mode(stat_path(c, LX_AT_FDCWD, c->arg[0], &st), &st, c->arg[1]);
}

/* fchmod (fd, mode) */
int64_t lx_fchmod(struct lxcall *c)
{
	const int64_t fd = (int64_t)(int32_t)c->arg[0];
	struct lx_stat st;

	return set_mode(fd == LX_AT_FDCWD ? -LX_EBADF : stat_fd(c, fd, &st), &st, c->arg[1]);
}

/* fchmodat (dirfd, path, mode) */
int64_t lx_fchmodat(struct lxcall *c)
{
	struct lx_stat st;

	return set_mode(stat_at(c, (int64_t)(int32_t)c->arg[0], c->arg[1], 0, &st), &st,
			  c->arg[2]);
}

/* access (path, mode) -> 0 if the file exists (everyone may do everything) */
int64_t lx_access(struct lxcall *c)
{
	struct lx_stat st;

	if (c->arg[1] & ~7ull)
		return -LX_EINVAL;
	return stat_path(c, LX_AT_FDCWD, c->arg[0], &st);
}

/* faccessat, faccessat2 (dirfd, path, mode, flags) -> 0 if it exists */
int64_t lx_faccessat(struct lxcall *c)
{
	struct lx_stat st;

	if (c->arg[2] & ~7ull)
		return -LX_EINVAL;
	return stat_path(c, (int64_t)(int32_t)c->arg[0], c->arg[1], &st);
}

/* mtime_of -- the mtime utimensat's second time asks for, in ns since
 * 1970 (clamped to what the header holds, as Linux clamps to what a file
 * system holds); false for UTIME_OMIT */
static bool mtime_of(const struct lx_timespec *t, int64_t *ns)
{
	const int64_t max_sec = INT64_MAX / NS - 1;

	if (t->nsec == LX_UTIME_OMIT)
		return false;
	if (t->nsec == LX_UTIME_NOW)
		*ns = (int64_t)time_wall_ns();
	else if (t->sec > max_sec || t->sec < -max_sec)
		*ns = t->sec > 0 ? max_sec * NS : -max_sec * NS;
	else
		*ns = t->sec * NS + t->nsec;
	return true;
}

/* utimensat (dirfd, path, times, flags) -> 0: a file's mtime set (NULL
 * times: now; UTIME_NOW, UTIME_OMIT). Ferrite keeps one time, the mtime:
 * the access time asked for is checked, then left (stat shows the mtime
 * for all three). A NULL path is dirfd's own file (futimens). A
 * directory or a special file has no time to keep: it is checked and
 * left. Linux's order: two UTIME_OMITs return 0 before the path is looked
 * at; the flags, then the file, then the times are checked. */
int64_t lx_utimensat(struct lxcall *c)
{
	const int64_t dirfd = (int64_t)(int32_t)c->arg[0];
	const uint64_t path = c->arg[1], times = c->arg[2], flags = c->arg[3];
	struct lx_timespec ts[2];
	struct lx_stat st;
	int64_t err, ns;

	if (times && uvm_copy_in(&c->p->mem, ts, times, sizeof(ts)))
		return -LX_EFAULT;
	if (times && ts[0].nsec == LX_UTIME_OMIT && ts[1].nsec == LX_UTIME_OMIT)
		return 0;
	if (flags & ~(uint64_t)(LX_AT_SYMLINK_NOFOLLOW | LX_AT_EMPTY_PATH))
		return -LX_EINVAL;
	if (!path && dirfd != LX_AT_FDCWD)
		err = flags ? -LX_EINVAL : stat_fd(c, dirfd, &st);
	else if (!path)
		err = -LX_EFAULT;
	else
		err = stat_at(c, dirfd, path, flags, &st);
	if (err)
		return err;
	for (unsigned i = 0; times && i < 2; i++)
		if (ts[i].nsec != LX_UTIME_NOW && ts[i].nsec != LX_UTIME_OMIT &&
		    (ts[i].nsec < 0 || ts[i].nsec >= NS))
			return -LX_EINVAL;
	if (!times) {
		ns = (int64_t)time_wall_ns();
	} else if (!mtime_of(&ts[1], &ns)) {
		return 0;
	}
	if ((st.mode & LX_S_IFMT) != LX_S_IFREG)
		return 0;
	return lx_errno(os_obj_set_mtime(&kheap, st.ino, ns));
}

/* exe_path -- /proc/self/exe: the program's path as it sees it, "/bin/"
 * and its argv[0], when that name below its root holds the code object it
 * runs (as osh starts programs: bin/NAME); into out, its length; 0 if not */
static size_t exe_path(struct lxcall *c, char out[KLINUX_PATH_MAX])
{
	const struct kproc *k = c->p->proc;
	const char *root = c->lx->root;
	uint64_t code;
	int n = snprintf(out, KLINUX_PATH_MAX, "%sbin/%s", root, k->name);

	if (n <= 0 || n >= KLINUX_PATH_MAX || strchr(k->name, '/') ||
	    os_cat_lookup(&kheap, out, (uint64_t)n, &code) || code != k->code)
		return 0;
	return (size_t)snprintf(out, KLINUX_PATH_MAX, "/bin/%s", k->name);
}

/* lx_exec_lookup -- the file execve's `path` names (a user address, or a
 * kernel string when upath is 0: an interpreter's): its catalogue name
 * in `name` and its object in *object; -ENOENT, -EACCES for a directory
 * or a special file */
int64_t lx_exec_lookup(struct lxcall *c, uint64_t upath, const char *path,
		       char name[KLINUX_PATH_MAX], uint64_t *object)
{
	uint16_t special;
	int64_t err = upath ? resolve(c, LX_AT_FDCWD, upath, name, &special)
			    : resolve_path(c, LX_AT_FDCWD, path, name, &special);

	if (err)
		return err;
	if (!strcmp(name + strlen(c->lx->root), "proc/self/exe")) { /* the program itself */
		*object = c->p->proc->code;
		snprintf(name, KLINUX_PATH_MAX, "%s", c->p->proc->name);
		return 0;
	}
	if (special)
		return -LX_EACCES;
	if (os_cat_lookup(&kheap, name, strlen(name), object))
		return is_dir(c->lx, name) ? -LX_EACCES : -LX_ENOENT;
	return 0;
}

/* readlink (path, buf, size), readlinkat (dirfd, path, buf, size): the
 * catalogue has no symbolic links, so an existing file is not one
 * (EINVAL); /proc/self/exe is the one link there is (exe_path), its path
 * copied without a NUL and cut to `size`, as Linux does */
static int64_t read_link(struct lxcall *c, int64_t dirfd, uint64_t path, uint64_t buf,
			 uint64_t size)
{
	char name[KLINUX_PATH_MAX], exe[KLINUX_PATH_MAX];
	size_t root = strlen(c->lx->root), len;
	struct lx_stat st;
	uint16_t special;
	int64_t err;

	if ((int64_t)(int32_t)size <= 0)
		return -LX_EINVAL;
	err = resolve(c, dirfd, path, name, &special);
	if (!err && !special && !strcmp(name + root, "proc/self/exe") &&
	    os_cat_lookup(&kheap, name, strlen(name), &st.ino)) {
		len = exe_path(c, exe);
		if (!len)
			return -LX_ENOENT;
		len = len < size ? len : size;
		err = uvm_copy_out(&c->p->mem, buf, exe, len);
		return err ? lx_errno(err) : (int64_t)len;
	}
	err = stat_path(c, dirfd, path, &st);
	return err ? err : -LX_EINVAL;
}

int64_t lx_readlink(struct lxcall *c)
{
	return read_link(c, LX_AT_FDCWD, c->arg[0], c->arg[1], c->arg[2]);
}

int64_t lx_readlinkat(struct lxcall *c)
{
	return read_link(c, (int64_t)(int32_t)c->arg[0], c->arg[1], c->arg[2], c->arg[3]);
}

/* --- terminals ------------------------------------------------------------ */

/* ready_bytes -- FIONREAD: the bytes a read of f would find now, as an
 * int at `arg`: the console's typed bytes (in line mode, its line once
 * complete), a pipe's bytes, a file's from the offset to the end */
static int64_t ready_bytes(struct lxcall *c, const struct klxfile *f, uint64_t arg)
{
	struct os_obj_info info;
	int32_t n;

	switch (f->kind) {
	case KLXFILE_CONSOLE:
		n = (int32_t)console_ready_bytes(c->p, c->lx->termios.lflag & LX_ICANON);
		break;
	case KLXFILE_PIPE_READ:
	case KLXFILE_PIPE_WRITE:
		n = (int32_t)lx_pipe_held(f->object);
		break;
	case KLXFILE_OBJECT: /* as Linux gives it for a regular file, an int */
		if (os_obj_stat(&kheap, f->object, &info))
			return -LX_EIO;
		n = (int32_t)(info.size - f->offset);
		break;
	default:
		return -LX_ENOTTY;
	}
	return lx_errno(uvm_copy_out(&c->p->mem, arg, &n, sizeof(n)));
}

/* terminal -- an ioctl of the console: its modes, its window's size, its group */
static int64_t terminal(struct lxcall *c, uint64_t request, uint64_t arg)
{
	struct klinux_termios t;
	struct lx_winsize ws = { 0 };
	int32_t group;
	int err;

	switch (request) {
	case LX_TCGETS:
		return lx_errno(uvm_copy_out(&c->p->mem, arg, &c->lx->termios,
					     sizeof(c->lx->termios)));
	case LX_TCSETS:
	case LX_TCSETSW:
	case LX_TCSETSF:
		err = uvm_copy_in(&c->p->mem, &t, arg, sizeof(t));
		if (err)
			return lx_errno(err);
		KLOG(&c->lx->termios);
		c->lx->termios = t;
		return 0;
	case LX_TIOCGWINSZ:
		console_window(&ws.row, &ws.col);
		return lx_errno(uvm_copy_out(&c->p->mem, arg, &ws, sizeof(ws)));
	case LX_TIOCSWINSZ: /* rows and columns kept; the pixels are not */
		err = uvm_copy_in(&c->p->mem, &ws, arg, sizeof(ws));
		if (err)
			return lx_errno(err);
		console_set_window(ws.row, ws.col);
		return 0;
	case LX_TIOCSPGRP: /* the console's foreground group: one of the caller's session */
		err = uvm_copy_in(&c->p->mem, &group, arg, sizeof(group));
		if (err)
			return lx_errno(err);
		if (group <= 0)
			return -LX_EINVAL;
		if (!lx_group_exists((uint64_t)group, lx_sid(c->p)))
			return -LX_EPERM;
		KLOG(&kroot->console_pgrp);
		kroot->console_pgrp = (uint32_t)group;
		return 0;
	case LX_TIOCGPGRP:
		group = (int32_t)lx_console_pgrp(c->p);
		return lx_errno(uvm_copy_out(&c->p->mem, arg, &group, sizeof(group)));
	default:
		return -LX_EINVAL;
	}
}

/* ioctl (fd, request, arg) -> 0: the terminal's modes and size; FIONREAD */
int64_t lx_ioctl(struct lxcall *c)
{
	const struct klxfile *f = file_of(c->lx, (int64_t)(int32_t)c->arg[0], NULL);
	const uint64_t request = c->arg[1] & 0xffffffffu, arg = c->arg[2];

	if (!f)
		return -LX_EBADF;
	if (request == LX_FIONREAD)
		return ready_bytes(c, f, arg);
	if (f->kind != KLXFILE_CONSOLE)
		return -LX_ENOTTY;
	return terminal(c, request, arg);
}

/* pwrite64 (fd, buf, len, offset) -> bytes written at offset, the file's own unmoved */
int64_t lx_pwrite64(struct lxcall *c)
{
	struct klxfile *f = file_of(c->lx, (int64_t)(int32_t)c->arg[0], NULL);
	uint64_t offset = c->arg[3];

	if (!f)
		return -LX_EBADF;
	if (f->kind != KLXFILE_OBJECT)
		return -LX_ESPIPE;
	if ((int64_t)offset < 0 || (f->flags & LX_O_APPEND))
		return -LX_EINVAL; /* (Linux appends then: not yet) */
	return write_file(c, f, c->arg[1], c->arg[2], &offset, false);
}

/* ftruncate (fd, length) */
int64_t lx_ftruncate(struct lxcall *c)
{
	struct klxfile *f = file_of(c->lx, (int64_t)(int32_t)c->arg[0], NULL);
	const int64_t length = (int64_t)c->arg[1];
	int err;

	if (!f)
		return -LX_EBADF;
	if (f->kind != KLXFILE_OBJECT || (f->flags & LX_O_ACCMODE) == LX_O_RDONLY)
		return -LX_EINVAL;
	if (length < 0 || (uint64_t)length > FE_USER_TOP)
		return -LX_EINVAL;
	err = os_obj_resize(&kheap, f->object, (uint64_t)length);
	if (err)
		return lx_errno(err);
	pagecache_resized(f->object, (uint64_t)length);
	return 0;
}

/* fsync, fdatasync (fd), sync, syncfs -- return once everything is
 * durable: the commit runs at the safe point on the way back to the
 * program, before it runs again */
int64_t lx_fsync(struct lxcall *c)
{
	const struct klxfile *f;

	if (c->nr == LX_fsync || c->nr == LX_fdatasync || c->nr == LX_syncfs) {
		f = file_of(c->lx, (int64_t)(int32_t)c->arg[0], NULL);
		if (!f)
			return -LX_EBADF;
		if (c->nr != LX_syncfs && is_pipe(f))
			return -LX_EINVAL; /* as Linux: a pipe has nothing to sync */
	}
	return durable_sync(c->tf) ? 0 : SYSCALL_BLOCKED;
}

/* umask (mask) -> the mask before */
int64_t lx_umask(struct lxcall *c)
{
	uint32_t old = c->lx->umask;

	KLOG(&c->lx->umask);
	c->lx->umask = (uint32_t)c->arg[0] & 0777;
	return old;
}

/* --- names: directories, links, removing and renaming ---------------- */

/* parent_exists -- whether the directory holding catalogue name `name` exists */
static bool parent_exists(struct klinux *lx, const char *name)
{
	char parent[KLINUX_PATH_MAX];
	char *slash;

	memcpy(parent, name, KLINUX_PATH_MAX);
	slash = strrchr(parent, '/');
	if (!slash || (size_t)(slash - parent) < strlen(lx->root))
		return true; /* the root's */
	*slash = 0;
	return is_dir(lx, parent);
}

/* name_of -- a path's catalogue name, for a call that changes names: the
 * root and special files are refused */
static int64_t name_of(struct lxcall *c, int64_t dirfd, uint64_t path,
		       char name[KLINUX_PATH_MAX])
{
	uint16_t special;
	int64_t err = resolve(c, dirfd, path, name, &special);

	if (err)
		return err;
	if (special || strlen(name) <= strlen(c->lx->root))
		return -LX_EBUSY;
	return 0;
}

/* make_dir -- mkdir: the directory recorded by a marker, its name and a
 * '/' bound to an empty blob, so that it exists before it holds a name */
static int64_t make_dir(struct lxcall *c, int64_t dirfd, uint64_t path)
{
	char name[KLINUX_PATH_MAX];
	uint64_t object;
	size_t len;
	int64_t err = name_of(c, dirfd, path, name);
	int e;

	if (err)
		return err == -LX_EBUSY ? -LX_EEXIST : err;
	len = strlen(name);
	if (os_cat_lookup(&kheap, name, len, &object) == 0 || is_dir(c->lx, name))
		return -LX_EEXIST;
	if (!parent_exists(c->lx, name))
		return -LX_ENOENT;
	if (len + 1 > FE_NAME_MAX)
		return -LX_ENAMETOOLONG;
	name[len] = '/';
	e = os_obj_create(&kheap, OS_TYPE_BLOB, 0, &object);
	if (e)
		return lx_errno(e);
	e = os_cat_insert(&kheap, name, len + 1, object);
	if (e)
		kobj_release(object);
	return lx_errno(e);
}

/* mkdir (path, mode) */
int64_t lx_mkdir(struct lxcall *c)
{
	return make_dir(c, LX_AT_FDCWD, c->arg[0]);
}

/* mkdirat (dirfd, path, mode) */
int64_t lx_mkdirat(struct lxcall *c)
{
	return make_dir(c, (int64_t)(int32_t)c->arg[0], c->arg[1]);
}

/* remove_dir -- rmdir: a directory holding nothing but its marker loses it */
static int64_t remove_dir(struct lxcall *c, int64_t dirfd, uint64_t path)
{
	char name[KLINUX_PATH_MAX];
	struct os_cat_cursor cur;
	uint64_t object, id;
	size_t len;
	int64_t err = name_of(c, dirfd, path, name);

	if (err)
		return err;
	len = strlen(name);
	if (os_cat_lookup(&kheap, name, len, &object) == 0)
		return -LX_ENOTDIR;
	if (!is_dir(c->lx, name))
		return -LX_ENOENT;
	name[len] = '/';
	os_cat_cursor_init(&cur, name, len + 1);
	while (os_cat_next(&kheap, &cur, name, len + 1, &id) == 0)
		if (cur.len != len + 1)
			return -LX_ENOTEMPTY; /* a name below it */
	err = os_cat_remove(&kheap, name, len + 1, &id);
	if (err)
		return lx_errno(err);
	kobj_release(id);
	return 0;
}

/* rmdir (path) */
int64_t lx_rmdir(struct lxcall *c)
{
	return remove_dir(c, LX_AT_FDCWD, c->arg[0]);
}

/* remove_name -- unlink: the name goes; its object with its last reference */
static int64_t remove_name(struct lxcall *c, int64_t dirfd, uint64_t path)
{
	char name[KLINUX_PATH_MAX];
	uint64_t id;
	int64_t err = name_of(c, dirfd, path, name);

	if (err)
		return err == -LX_EBUSY ? -LX_EISDIR : err;
	if (os_cat_remove(&kheap, name, strlen(name), &id) == 0) {
		kobj_release(id);
		return 0;
	}
	return is_dir(c->lx, name) ? -LX_EISDIR : -LX_ENOENT;
}

/* unlink (path) */
int64_t lx_unlink(struct lxcall *c)
{
	return remove_name(c, LX_AT_FDCWD, c->arg[0]);
}

/* unlinkat (dirfd, path, flags): AT_REMOVEDIR makes it rmdir */
int64_t lx_unlinkat(struct lxcall *c)
{
	const int64_t dirfd = (int64_t)(int32_t)c->arg[0];
	const uint64_t flags = c->arg[2];

	if (flags & ~(uint64_t)LX_AT_REMOVEDIR)
		return -LX_EINVAL;
	if (flags & LX_AT_REMOVEDIR)
		return remove_dir(c, dirfd, c->arg[1]);
	return remove_name(c, dirfd, c->arg[1]);
}

/* file_and_name -- link's and rename's paths: `from` must name a file,
 * whose object goes in *object (a directory is -`dir_error`), and `to`
 * any name below the root */
static int64_t file_and_name(struct lxcall *c, int64_t olddir, uint64_t oldpath,
			     int64_t newdir, uint64_t newpath, char from[KLINUX_PATH_MAX],
			     char to[KLINUX_PATH_MAX], int dir_error, uint64_t *object)
{
	int64_t err = name_of(c, olddir, oldpath, from);

	if (!err)
		err = name_of(c, newdir, newpath, to);
	if (err)
		return err;
	if (os_cat_lookup(&kheap, from, strlen(from), object))
		return is_dir(c->lx, from) ? -dir_error : -LX_ENOENT;
	return 0;
}

/* make_link -- link: a second name for a file's object */
static int64_t make_link(struct lxcall *c, int64_t olddir, uint64_t oldpath,
			 int64_t newdir, uint64_t newpath)
{
	char from[KLINUX_PATH_MAX], to[KLINUX_PATH_MAX];
	uint64_t object, other;
	int64_t err = file_and_name(c, olddir, oldpath, newdir, newpath, from, to,
				    LX_EPERM, &object);
	int e;

	if (err)
		return err == -LX_EBUSY ? -LX_EPERM : err;
	if (os_cat_lookup(&kheap, to, strlen(to), &other) == 0 || is_dir(c->lx, to))
		return -LX_EEXIST;
	if (!parent_exists(c->lx, to))
		return -LX_ENOENT;
	e = os_cat_insert(&kheap, to, strlen(to), object);
	if (e)
		return lx_errno(e);
	kobj_hold(object); /* the new name's reference */
	return 0;
}

/* link (old, new) */
int64_t lx_link(struct lxcall *c)
{
	return make_link(c, LX_AT_FDCWD, c->arg[0], LX_AT_FDCWD, c->arg[1]);
}

/* linkat (olddirfd, old, newdirfd, new, flags) */
int64_t lx_linkat(struct lxcall *c)
{
	if (c->arg[4] & ~(uint64_t)LX_AT_SYMLINK_FOLLOW /* no links to follow */)
		return -LX_EINVAL;
	return make_link(c, (int64_t)(int32_t)c->arg[0], c->arg[1],
			 (int64_t)(int32_t)c->arg[2], c->arg[3]);
}

/* first_under -- the first name below directory `dir` (its marker
 * included, if `marker`) into cur; false if none */
static bool first_under(const char *dir, bool marker, struct os_cat_cursor *cur)
{
	size_t len = strlen(dir);
	char prefix[FE_NAME_MAX + 1];
	uint64_t id;

	memcpy(prefix, dir, len);
	prefix[len] = '/';
	os_cat_cursor_init(cur, prefix, len + 1);
	if (os_cat_next(&kheap, cur, prefix, len + 1, &id))
		return false;
	return marker || cur->len != len + 1 || os_cat_next(&kheap, cur, prefix, len + 1, &id) == 0;
}

/* dir_move_fits -- whether the n names below `from` can all move to `to`
 * in this call: each new name short enough (else ENAMETOOLONG), and room
 * in the log and the heap for n renames at their worst (else ENOSPC: a
 * call never commits half way, so it must not run out half way either) */
static int64_t dir_move_fits(const char *from, const char *to)
{
	size_t flen = strlen(from), tlen = strlen(to);
	uint64_t n = 1, log, pages, id, avail = heap_log_free(), keep = epoch_log_keep();
	char prefix[FE_NAME_MAX + 1];
	struct os_cat_cursor cur;
	struct os_stats st;

	if (!first_under(from, true, &cur))
		return -LX_ENOENT;
	memcpy(prefix, from, flen);
	prefix[flen] = '/';
	do {
		if (tlen + cur.len - flen > FE_NAME_MAX)
			return -LX_ENAMETOOLONG;
		n++; /* one more than the names: the target's marker's removal */
	} while (os_cat_next(&kheap, &cur, prefix, flen + 1, &id) == 0);
	os_cat_rename_bounds(&kheap, 1, &log, &pages);
	os_stats(&kheap, &st);
	if (avail < keep || (avail - keep) / log < n || st.pages_free / pages < n)
		return -LX_ENOSPC;
	return 0;
}

/* move_dir -- rename directory `from` (every name below it, its marker
 * too) to `to`, which is free or an empty directory (whose marker goes).
 * The names move one by one, but within one call, hence one epoch: a
 * power cut finds all of them moved or none (docs/linux.md) */
static int64_t move_dir(struct klinux *lx, const char *from, const char *to)
{
	size_t flen = strlen(from), tlen = strlen(to);
	char target[FE_NAME_MAX + 1];
	struct os_cat_cursor cur;
	uint64_t object;
	int64_t err;
	int e;

	if (tlen > flen && !memcmp(to, from, flen) && to[flen] == '/')
		return -LX_EINVAL; /* into itself */
	if (!strcmp(from, to))
		return 0;
	if (os_cat_lookup(&kheap, to, tlen, &object) == 0)
		return -LX_ENOTDIR;
	if (is_dir(lx, to) && first_under(to, false, &cur))
		return -LX_ENOTEMPTY;
	if (!is_dir(lx, to) && !parent_exists(lx, to))
		return -LX_ENOENT;
	err = dir_move_fits(from, to);
	if (err)
		return err;
	memcpy(target, to, tlen);
	target[tlen] = '/';
	if (os_cat_remove(&kheap, target, tlen + 1, &object) == 0)
		kobj_release(object); /* the empty target's marker */
	while (first_under(from, true, &cur)) {
		memcpy(target + tlen, cur.name + flen, cur.len - flen);
		e = os_cat_rename(&kheap, cur.name, cur.len, target, tlen + cur.len - flen);
		if (e) /* dir_move_fits made room: a broken catalogue */
			return lx_errno(e);
	}
	return 0;
}

/* rename_at -- rename a file's name, replacing the name it moves to in
 * the same change of the catalogue; or a directory's names (move_dir) */
static int64_t rename_at(struct lxcall *c, int64_t olddir, uint64_t oldpath,
			 int64_t newdir, uint64_t newpath)
{
	char from[KLINUX_PATH_MAX], to[KLINUX_PATH_MAX];
	uint64_t object, old;
	int64_t err = file_and_name(c, olddir, oldpath, newdir, newpath, from, to,
				    LX_EXDEV, &object);
	int e;

	if (err == -LX_EXDEV)
		return move_dir(c->lx, from, to);
	if (err)
		return err;
	if (!strcmp(from, to))
		return 0;
	if (os_cat_lookup(&kheap, to, strlen(to), &old)) {
		if (is_dir(c->lx, to))
			return -LX_EISDIR;
		if (!parent_exists(c->lx, to))
			return -LX_ENOENT;
		return lx_errno(os_cat_rename(&kheap, from, strlen(from), to, strlen(to)));
	}
	e = os_cat_replace(&kheap, to, strlen(to), object, &old);
	if (!e)
		e = os_cat_remove(&kheap, from, strlen(from), NULL);
	if (e)
		return lx_errno(e);
	kobj_release(old); /* `to`'s old object; `object` moved names, its count stays */
	return 0;
}

/* rename (old, new) */
int64_t lx_rename(struct lxcall *c)
{
	return rename_at(c, LX_AT_FDCWD, c->arg[0], LX_AT_FDCWD, c->arg[1]);
}

/* renameat (olddirfd, old, newdirfd, new) */
int64_t lx_renameat(struct lxcall *c)
{
	return rename_at(c, (int64_t)(int32_t)c->arg[0], c->arg[1],
			 (int64_t)(int32_t)c->arg[2], c->arg[3]);
}

/* renameat2 (olddirfd, old, newdirfd, new, flags): no flags yet */
int64_t lx_renameat2(struct lxcall *c)
{
	if (c->arg[4])
		return -LX_EINVAL;
	return lx_renameat(c);
}

/* --- descriptors: dup and fcntl ------------------------------------------- */

/* dup_to -- descriptor `to` (closed first if open) names fd's file */
static int64_t dup_to(struct klinux *lx, int64_t fd, int64_t to, uint32_t flags)
{
	if (!file_of(lx, fd, NULL) || to < 0 || to >= KLINUX_FDS)
		return -LX_EBADF;
	if (to == fd)
		return to;
	if (lx->fd[to].file)
		drop(lx, to);
	kobj_hold(lx->fd[fd].file);
	return install(lx, lx->fd[fd].file, flags, to);
}

/* dup (fd) -> the lowest free descriptor, naming the same file */
int64_t lx_dup(struct lxcall *c)
{
	const int64_t fd = (int64_t)(int32_t)c->arg[0];

	if (!file_of(c->lx, fd, NULL))
		return -LX_EBADF;
	kobj_hold(c->lx->fd[fd].file);
	return install(c->lx, c->lx->fd[fd].file, 0, 0);
}

/* dup2 (fd, to) -> to */
int64_t lx_dup2(struct lxcall *c)
{
	return dup_to(c->lx, (int64_t)(int32_t)c->arg[0], (int64_t)(int32_t)c->arg[1], 0);
}

/* dup3 (fd, to, flags) -> to; fd == to is an error here */
int64_t lx_dup3(struct lxcall *c)
{
	const int64_t fd = (int64_t)(int32_t)c->arg[0], to = (int64_t)(int32_t)c->arg[1];
	const uint64_t flags = c->arg[2];

	if (fd == to || flags & ~(uint64_t)LX_O_CLOEXEC)
		return -LX_EINVAL;
	return dup_to(c->lx, fd, to, flags ? KLINUX_FD_CLOEXEC : 0);
}

/* make_pipe -- pipe and pipe2: a new pipe, its read end's descriptor at
 * fds[0] and its write end's at fds[1], the two lowest free ones */
static int64_t make_pipe(struct lxcall *c, uint64_t fds, uint64_t flags)
{
	const uint32_t fd_flags = flags & LX_O_CLOEXEC ? KLINUX_FD_CLOEXEC : 0;
	struct klinux *lx = c->lx;
	int32_t at[2];
	uint64_t pipe, end[2];
	unsigned found = 0;
	int e;

	if (flags & ~(uint64_t)(LX_O_CLOEXEC | LX_O_NONBLOCK))
		return -LX_EINVAL;
	for (int32_t fd = 0; fd < KLINUX_FDS && found < 2; fd++)
		if (!lx->fd[fd].file)
			at[found++] = fd;
	if (found < 2)
		return -LX_EMFILE;
	e = lx_pipe_new(&pipe);
	if (e)
		return lx_errno(e);
	for (unsigned i = 0; i < 2; i++) {
		struct klxfile *f = new_file(i ? KLXFILE_PIPE_WRITE : KLXFILE_PIPE_READ,
					     (i ? LX_O_WRONLY : LX_O_RDONLY) |
					     (uint32_t)(flags & LX_O_NONBLOCK), &end[i], &e);

		if (!f) {
			kobj_release(i ? end[0] : pipe); /* the read end lets go of the pipe */
			return lx_errno(e);
		}
		f->object = pipe; /* the creation's reference, then one more */
		if (i)
			kobj_hold(pipe);
	}
	e = uvm_copy_out(&c->p->mem, fds, at, sizeof(at));
	if (e) {
		kobj_release(end[0]);
		kobj_release(end[1]);
		return lx_errno(e);
	}
	install(lx, end[0], fd_flags, at[0]);
	install(lx, end[1], fd_flags, at[1]);
	return 0;
}

/* pipe (fds) -> 0 */
int64_t lx_pipe(struct lxcall *c)
{
	return make_pipe(c, c->arg[0], 0);
}

/* pipe2 (fds, flags: O_CLOEXEC, O_NONBLOCK) -> 0 */
int64_t lx_pipe2(struct lxcall *c)
{
	return make_pipe(c, c->arg[0], c->arg[1]);
}

/* fcntl (fd, cmd, arg) */
int64_t lx_fcntl(struct lxcall *c)
{
	const int64_t fd = (int64_t)(int32_t)c->arg[0];
	const uint64_t cmd = c->arg[1], arg = c->arg[2];
	struct klxfile *f = file_of(c->lx, fd, NULL);
	const uint32_t settable = LX_O_APPEND | LX_O_NONBLOCK;

	if (!f)
		return -LX_EBADF;
	switch (cmd) {
	case LX_F_DUPFD:
	case LX_F_DUPFD_CLOEXEC:
		if (arg >= KLINUX_FDS)
			return -LX_EINVAL;
		kobj_hold(c->lx->fd[fd].file);
		return install(c->lx, c->lx->fd[fd].file,
			       cmd == LX_F_DUPFD_CLOEXEC ? KLINUX_FD_CLOEXEC : 0, (int64_t)arg);
	case LX_F_GETFD:
		return c->lx->fd[fd].flags & KLINUX_FD_CLOEXEC ? LX_FD_CLOEXEC : 0;
	case LX_F_SETFD:
		KLOG(&c->lx->fd[fd].flags);
		c->lx->fd[fd].flags = arg & LX_FD_CLOEXEC ? KLINUX_FD_CLOEXEC : 0;
		return 0;
	case LX_F_GETFL:
		return f->flags;
	case LX_F_GETLK:
	case LX_F_SETLK:
	case LX_F_SETLKW:
		return lx_record_lock(c, f, cmd, arg);
	case LX_F_SETFL:
		KLOG(&f->flags);
		f->flags = (f->flags & ~settable) | ((uint32_t)arg & settable);
		return 0;
	default:
		return -LX_EINVAL;
	}
}

/* --- directories ---------------------------------------------------------- */

/* getcwd (buf, size) -> the length with its NUL */
int64_t lx_getcwd(struct lxcall *c)
{
	char path[KLINUX_PATH_MAX + 1];
	size_t len = strlen(c->lx->cwd);

	path[0] = '/';
	memcpy(path + 1, c->lx->cwd, len);
	if (len)
		len--; /* no trailing '/' */
	path[len + 1] = 0;
	if (c->arg[1] < len + 2)
		return -LX_ERANGE;
	return lx_errno(uvm_copy_out(&c->p->mem, c->arg[0], path, len + 2)) ?: (int64_t)(len + 2);
}

/* chdir (path) -> 0 */
int64_t lx_chdir(struct lxcall *c)
{
	char name[KLINUX_PATH_MAX];
	size_t floor = strlen(c->lx->root), len;
	uint16_t special;
	uint64_t object;
	int64_t err = resolve(c, LX_AT_FDCWD, c->arg[0], name, &special);

	if (err)
		return err;
	if (special || os_cat_lookup(&kheap, name, strlen(name), &object) == 0)
		return -LX_ENOTDIR;
	if (!is_dir(c->lx, name))
		return -LX_ENOENT;
	len = strlen(name + floor);
	KLOG(&c->lx->cwd);
	memcpy(c->lx->cwd, name + floor, len);
	if (len)
		c->lx->cwd[len++] = '/';
	c->lx->cwd[len] = 0;
	return 0;
}

/* put_dirent -- one linux_dirent64 at out + *at, if it fits in cap */
static bool put_dirent(uint8_t *out, uint64_t cap, uint64_t *at, uint64_t ino,
		       int64_t off, uint8_t type, const char *name, size_t len)
{
	struct lx_dirent64 d = { .ino = ino ? ino : 1, .off = off, .type = type };
	uint64_t reclen = (sizeof(d) + len + 1 + 7) & ~7ull;

	if (*at + reclen > cap)
		return false;
	d.reclen = (uint16_t)reclen;
	memset(out + *at, 0, reclen);
	memcpy(out + *at, &d, sizeof(d));
	memcpy(out + *at + sizeof(d), name, len);
	*at += reclen;
	return true;
}

/* getdents64 (fd, buf, len) -> bytes filled; 0 at the end. Entries: ".",
 * "..", then each name just below the directory, a deeper name showing as
 * its first component, a directory. f->offset counts entries given;
 * f->cursor is where the catalogue's listing resumes (below the directory). */
int64_t lx_getdents64(struct lxcall *c)
{
	struct klxfile *f = file_of(c->lx, (int64_t)(int32_t)c->arg[0], NULL);
	const uint64_t buf = c->arg[1];
	uint64_t cap = c->arg[2] < CHUNK ? c->arg[2] : CHUNK, at = 0, id, count;
	char prefix[KLINUX_PATH_MAX], start[2 * KLINUX_PATH_MAX];
	char resume[KLINUX_PATH_MAX];
	struct os_cat_cursor cur;
	bool full = false;
	size_t plen, up, floor = strlen(c->lx->root);
	int err;

	if (!f)
		return -LX_EBADF;
	if (f->kind != KLXFILE_DIR)
		return -LX_ENOTDIR;
	plen = (size_t)snprintf(prefix, sizeof(prefix), "%s%s", c->lx->root, f->path);
	up = plen > floor ? plen - 1 : plen; /* "..": the parent's name, the root's own */
	while (up > floor && prefix[up - 1] != '/')
		up--;
	count = f->offset;
	memcpy(resume, f->cursor, sizeof(resume));
	for (; count < 2 && !full; count += !full)
		full = !put_dirent(chunk, cap, &at, dir_ino(prefix, count ? up : plen),
				   (int64_t)count + 1, LX_DT_DIR, "..", count + 1); /* ".", ".." */
	while (!full) {
		const char *rel;
		size_t rlen, n = 0;
		bool dir;

		snprintf(start, sizeof(start), "%s%s", prefix, resume);
		os_cat_cursor_init(&cur, start, strlen(start));
		if (os_cat_next(&kheap, &cur, prefix, plen, &id))
			break;
		rel = cur.name + plen;
		rlen = cur.len - plen;
		while (n < rlen && rel[n] != '/')
			n++;
		dir = n < rlen;
		if (n && !put_dirent(chunk, cap, &at, dir ? dir_ino(cur.name, plen + n) : id,
				     (int64_t)count + 1, dir ? LX_DT_DIR : LX_DT_REG, rel, n)) {
			full = true;
			break;
		}
		count += n != 0;
		/* resume past this entry: past every name below a directory;
		 * NUL is never in a name, so "\x01" follows the name at once */
		memcpy(resume, rel, n);
		resume[n] = dir ? '/' + 1 : '\x01';
		resume[n + 1] = 0;
	}
	if (!at)
		return full ? -LX_EINVAL : 0; /* the next entry does not fit, or the end */
	err = uvm_copy_out(&c->p->mem, buf, chunk, at);
	if (err)
		return lx_errno(err);
	KLOG(f);
	f->offset = count;
	memcpy(f->cursor, resume, sizeof(f->cursor));
	return (int64_t)at;
}
