/*
 * pipe.c -- pipes of Linux programs: the bytes one end writes and the
 * other reads, kept in the heap.
 *
 * A pipe is a small kernel object (struct klxpipe, kformat.h) and a ring
 * of KLXPIPE_BYTES in an anonymous object, addressed by two counts that
 * only grow, the bytes ever written and ever read. Every change is logged
 * like any other in the running epoch, so what a pipe holds outlives a
 * power cut with the program that wrote it. Its two ends are open files
 * (struct klxfile, files.c), each holding the pipe; the pipe counts the
 * descriptors that name each end (lx_pipe_count, called by files.c as
 * descriptors come and go), which is all that end of file and EPIPE ask:
 * a read of an empty pipe ends (0) once no descriptor names the write
 * end, and a write fails (-EPIPE, and SIGPIPE) once none names the read
 * end.
 *
 * Waiting. A read of an empty pipe, and a write finding too little room,
 * block on the pipe (KWAIT_PIPE) and are issued again when woken (no
 * continuation is kept): by a write into an empty pipe, by a read that
 * leaves room where there was less than LX_PIPE_BUF, and by the last
 * descriptor of an end closing -- the moments a waiter may go on. Those
 * moments also wake every poll and select (KWAIT_POLL), which look again.
 * A write of at most LX_PIPE_BUF bytes goes in whole or waits, as POSIX
 * asks; a longer one writes what fits and returns that count, waiting
 * only while nothing fits. O_NONBLOCK turns each wait into -EAGAIN.
 */
#include <stdbool.h>
#include <stdint.h>

#include "core/heap.h"
#include "ferrite/errors.h"
#include "linux/lx.h"
#include "obj/kobj.h"
#include "objstore/object.h"
#include "task/proc.h"
#include "task/sched.h"
#include "uvm/uvm.h"

#define CHUNK 4096u

/* Volatile: a bounce buffer; the kernel runs one call at a time. */
static uint8_t chunk[CHUNK];

/* pipe_of -- pipe `id`, which an end's open file holds */
static struct klxpipe *pipe_of(uint64_t id)
{
	struct klxpipe *p = kobj_data(id, OS_TYPE_KERNEL, KLXPIPE_MAGIC);

	/* Invariant: an end of a pipe holds a pipe (kcheck.c checks it at power-on). */
	if (!p)
		heap_damaged("linux: an end of a pipe names #%llu, which is no pipe",
			     (unsigned long long)id);
	return p;
}

/* span -- bytes of a transfer at ring position `pos` that fit one chunk
 * and do not wrap, of `left` still to go */
static uint64_t span(uint64_t pos, uint64_t left)
{
	uint64_t at = pos % KLXPIPE_BYTES, n = left < CHUNK ? left : CHUNK;

	return n < KLXPIPE_BYTES - at ? n : KLXPIPE_BYTES - at;
}

/* wake -- pipe `id` changed the way its waiters wait for: wake them, and
 * every poll and select */
static void wake(uint64_t id)
{
	sched_wake(KWAIT_PIPE, id);
	sched_wake(KWAIT_POLL, 0);
}

/* lx_pipe_new -- a new pipe, empty, no descriptor naming its ends yet;
 * its id in *id, held once (by the caller) */
int lx_pipe_new(uint64_t *id)
{
	struct klxpipe *p;
	uint64_t ring;
	void *data;
	int err = os_obj_create(&kheap, OS_TYPE_ANON, KLXPIPE_BYTES, &ring);

	if (err)
		return err;
	err = kobj_new(OS_TYPE_KERNEL, sizeof(*p), KLXPIPE_MAGIC, id, &data);
	if (err) {
		kobj_release(ring);
		return err;
	}
	p = data;                      /* a fresh block: no log */
	p->ring = ring;
	return 0;
}

/* lx_pipe_deleted -- the reaper deletes object `id`: if it is a pipe, its
 * ring goes with it (the field cleared, so a second call releases nothing) */
void lx_pipe_deleted(uint64_t id)
{
	struct klxpipe *p = kobj_data(id, OS_TYPE_KERNEL, KLXPIPE_MAGIC);

	if (!p || !p->ring)
		return;
	kobj_release(p->ring);
	KLOG(&p->ring);
	p->ring = 0;
}

/* lx_pipe_count -- one descriptor more (delta > 0) or fewer names the
 * read or the write end of pipe `id`; the last one closing wakes its waiters */
void lx_pipe_count(uint64_t id, bool write, int delta)
{
	struct klxpipe *p = pipe_of(id);
	uint32_t *count = write ? &p->writers : &p->readers;

	KLOG(count);
	if (delta > 0) {
		*count += 1;
		return;
	}
	if (*count) /* 0 only in a forged image whose counts held true per process */
		*count -= 1;
	if (!*count)
		wake(id);
}

/* lx_pipe_read -- read of pipe `id` into the caller's buf (checked
 * writable): up to len bytes of those it holds; 0 once it is empty with no
 * writer left; while it is empty and a writer is, -EAGAIN if `nonblock`,
 * else the call blocks */
int64_t lx_pipe_read(struct lxcall *c, uint64_t id, uint64_t buf, uint64_t len,
		     bool nonblock)
{
	struct klxpipe *p = pipe_of(id);
	const uint64_t held = p->written - p->read;
	uint64_t done = 0;
	int64_t err = 0;

	if (!len)
		return 0;
	if (!held) {
		if (!p->writers)
			return 0;
		if (nonblock)
			return -LX_EAGAIN;
		sched_block(c->tf, KWAIT_PIPE, id, 0);
		return SYSCALL_BLOCKED;
	}
	if (len > held)
		len = held;
	while (done < len) {
		uint64_t pos = p->read + done, n = span(pos, len - done);
		int64_t got = os_obj_read(&kheap, p->ring, pos % KLXPIPE_BYTES, chunk, n);

		if (got != (int64_t)n) {
			err = got < 0 ? got : -ERR_CORRUPT; /* the ring has its size */
			break;
		}
		err = uvm_copy_out(&c->p->mem, buf + done, chunk, n);
		if (err)
			break;
		done += n;
	}
	if (!done)
		return lx_errno(err);
	KLOG(&p->read);
	p->read += done;
	if (KLXPIPE_BYTES - held < LX_PIPE_BUF) /* a writer may wait for room */
		wake(id);
	return (int64_t)done;
}

/* lx_pipe_write -- write of the caller's buf (checked readable) into pipe
 * `id`: -EPIPE with no reader left; else all len bytes if they fit, or a
 * write of more than LX_PIPE_BUF what fits if any does; otherwise -EAGAIN
 * if `nonblock`, else the call blocks */
int64_t lx_pipe_write(struct lxcall *c, uint64_t id, uint64_t buf, uint64_t len,
		      bool nonblock)
{
	struct klxpipe *p = pipe_of(id);
	const uint64_t held = p->written - p->read, room = KLXPIPE_BYTES - held;
	uint64_t done = 0;
	int64_t err = 0;

	if (!len)
		return 0;
	if (!p->readers) {
		lx_signal_raise_thread(c->p, sched_current_tid(), LX_SIGPIPE, LX_BY_KERNEL); /* which ends it by default */
		return -LX_EPIPE;
	}
	if (room < (len <= LX_PIPE_BUF ? len : 1)) {
		if (nonblock)
			return -LX_EAGAIN;
		sched_block(c->tf, KWAIT_PIPE, id, 0);
		return SYSCALL_BLOCKED;
	}
	if (len > room)
		len = room;
	while (done < len) {
		uint64_t pos = p->written + done, n = span(pos, len - done);

		int64_t wrote;

		err = uvm_copy_in(&c->p->mem, chunk, buf + done, n);
		if (err)
			break;
		wrote = os_obj_write(&kheap, p->ring, pos % KLXPIPE_BYTES, chunk, n);
		if (wrote != (int64_t)n) { /* the heap is full */
			err = wrote < 0 ? wrote : -ERR_CORRUPT;
			break;
		}
		done += n;
	}
	if (!done)
		return lx_errno(err);
	KLOG(&p->written);
	p->written += done;
	if (!held) /* a reader may wait for bytes */
		wake(id);
	return (int64_t)done;
}

/* lx_pipe_events -- the poll events of pipe `id`'s read or write end now:
 * readable while it holds bytes, hung up with no writer; writable while
 * LX_PIPE_BUF bytes fit, in error with no reader */
uint32_t lx_pipe_events(uint64_t id, bool write)
{
	const struct klxpipe *p = pipe_of(id);
	const uint64_t held = p->written - p->read;

	if (write)
		return (KLXPIPE_BYTES - held >= LX_PIPE_BUF ? LX_POLLOUT | LX_POLLWRNORM : 0) |
		       (p->readers ? 0 : LX_POLLERR);
	return (held ? LX_POLLIN | LX_POLLRDNORM : 0) | (p->writers ? 0 : LX_POLLHUP);
}

/* lx_pipe_held -- the bytes pipe `id` holds */
uint64_t lx_pipe_held(uint64_t id)
{
	const struct klxpipe *p = pipe_of(id);

	return p->written - p->read;
}
