/*
 * console.c -- the console for programs: persistent input and output
 * queues, output commit, line editing.
 *
 * Both queues live in the heap (struct kconsole, kformat/kformat.h), so they are part
 * of the epoch like everything else:
 *
 *  - Output commit. Whatever a program writes, and whatever the kernel says
 *    on its behalf (echo, ^C, "[pid name] killed: ...", the line on each call of
 *    a traced Linux program: console_keep, console_say), is appended to the
 *    output queue, logged. It reaches the UART only in console_release,
 *    right after the epoch that queued it committed. So nothing a person
 *    saw can be undone by a power cut: a counter prints each number once.
 *    Release moves the durable `out_sent` cursor after every line (one
 *    8-byte store outside the log, durable at once: os_store_durable), so releasing is
 *    idempotent: after a cut at most the line that was going out repeats.
 *    A writer finding the queue full blocks (KWAIT_CONSOLE_OUT) and asks
 *    for a commit; release wakes it (and, after a power-on, whoever may
 *    have been waiting at the cut).
 *
 *  - Input. console_input_poll, called at every return to user mode and
 *    while idle, moves bytes from the UART's receive ring (volatile) into
 *    the input queue (logged) and acts on Ctrl-C at once: it kills the
 *    foreground process (SYS_CONSOLE_FG) if there is one -- a Linux
 *    program gets SIGINT instead, or the byte when its terminal modes
 *    lack ISIG (console_on_interrupt) -- else it is queued like any byte. A full queue leaves typed bytes in the UART,
 *    so nothing typed is lost while someone reads; only with a foreground
 *    process are they taken (for its Ctrl-C) and, beyond the queue,
 *    dropped. Consuming input advances in_read (logged), so
 *    input read in epoch E is consumed durably with E; bytes typed in an
 *    epoch that never committed are lost with it -- and so is their echo,
 *    which was never sent: a keystroke whose echo a person saw is never lost.
 *
 * A process may send its console to a channel instead (SYS_CONSOLE_SINK,
 * which children inherit at spawn): its writes become messages on that
 * channel end, blocking while the queue is full; its reads see the end of
 * the input (0 bytes, as from /dev/null); it never takes the foreground.
 * That is how the host link's `run` collects a command's output.
 *
 * FE_CONSOLE_LINE reads edit the line in the kernel root (persistent, so a
 * half-typed line outlives a power cut): printable bytes are echoed and
 * appended, Backspace/DEL erases, Ctrl-U erases the line, Ctrl-C abandons
 * it, Enter completes it. FE_CONSOLE_RAW returns bytes as typed, unechoed.
 *
 * Typed bytes wake the console's readers (KWAIT_CONSOLE) and the Linux
 * programs waiting on many files at once (KWAIT_POLL: poll, select). The
 * terminal window's size is only what a program set (Linux's TIOCSWINSZ),
 * kept in the heap for every program to read.
 */
#include <string.h>

#include "arch/arch.h"
#include "core/heap.h"
#include "core/logcheck.h"
#include "core/panic.h"
#include "dev/uart.h"
#include "errstr.h"
#include "ferrite/errors.h"
#include "objstore/object.h"
#include "task/channel.h"
#include "console/console.h"
#include "task/handle.h"
#include "obj/kobj.h"
#include "task/proc.h"
#include "task/sched.h"
#include "uvm/uvm.h"

#define CTRL_U 0x15
#define CTRL_D 0x04                    /* the end of input (Linux's VEOF) */
#define PAGE FE_PAGE_SIZE
#define ECHO_MAX 3                     /* the most bytes one typed byte echoes */
#define POLL_BATCH 256                 /* typed bytes queued at once */

/* The console object (volatile pointer into the heap, set by console_init). */
static struct kconsole *con;
/* Whether a thread may be blocked in KWAIT_CONSOLE_OUT; true at power-on,
 * when threads blocked before the cut are not known. Volatile. */
static bool out_waiters = true;
/* While a safe power-on holds the saved processes, the foreground of the
 * rescue side (pid, 0 none): volatile like the holding, so the saved
 * foreground in the kernel root stays as committed, and Ctrl-C never ends
 * a held process the saved shell put there. */
static uint64_t rescue_fg_pid;
static console_intr_hook linux_interrupt; /* Ctrl-C for Linux programs (linux/) */
/* During one traced Linux call, the bytes of the output queue kept for
 * the kernel's line on it (console_keep, console_say): programs' writes
 * and the echo leave them. Volatile.
 * Invariant: 0 outside a traced call (the kernel runs one call at a time). */
static uint64_t out_kept;

/* ring_at -- the kernel address of byte `pos` of a ring object, and how
 * many bytes of the same page follow it (at most `len`) */
static char *ring_at(uint64_t ring, uint64_t size, uint64_t pos, uint64_t len,
		     uint64_t *span)
{
	uint64_t at = pos % size, off;
	int err = os_obj_page(&kheap, ring, at / PAGE, false, &off);

	/* Invariant: console_init allocated every page of both rings. */
	if (err)
		panic("console: ring object %llu lost its page %llu: %s",
		      (unsigned long long)ring, (unsigned long long)(at / PAGE),
		      err_name(err));
	*span = PAGE - at % PAGE < len ? PAGE - at % PAGE : len;
	return (char *)os_ptr(&kheap, off) + at % PAGE;
}

/* new_ring -- an anonymous object of `size` bytes with every page allocated */
static uint64_t new_ring(uint64_t size)
{
	uint64_t id, off;
	int err = os_obj_create(&kheap, OS_TYPE_ANON, size, &id);

	for (uint64_t i = 0; !err && i < size / PAGE; i++)
		err = os_obj_page(&kheap, id, i, true, &off);
	if (err)
		panic("console: no room in the heap for the console queues: %s",
		      err_str(err));
	return id;
}

/* console_init -- find (or at genesis make) the console's queues */
void console_init(void)
{
	uint64_t id;
	void *data;
	int err;

	if (!kroot->console) {
		err = kobj_new(OS_TYPE_KERNEL, sizeof(*con), KCONSOLE_MAGIC, &id,
			       &data);
		if (err)
			panic("console: no room in the heap for the console: %s",
			      err_str(err));
		KLOG(&kroot->console);
		kroot->console = id;
		con = data;
		con->out_ring = new_ring(KCONSOLE_OUT_BYTES);
		con->in_ring = new_ring(KCONSOLE_IN_BYTES);
		logcheck_exempt(&con->out_sent, sizeof(con->out_sent));
		return;
	}
	con = kobj_data(kroot->console, OS_TYPE_KERNEL, KCONSOLE_MAGIC);
	if (!con || con->out_sent > con->out_queued ||
	    con->out_queued - con->out_sent > KCONSOLE_OUT_BYTES ||
	    con->in_read > con->in_queued ||
	    con->in_queued - con->in_read > KCONSOLE_IN_BYTES)
		panic("console: the heap's console object (%llu) is missing or damaged",
		      (unsigned long long)kroot->console);
	/* The one word written outside the log (kformat/kformat.h, struct kconsole). */
	logcheck_exempt(&con->out_sent, sizeof(con->out_sent));
}

/* --- output ------------------------------------------------------------- */

/* out_room -- bytes the output queue can take now */
static uint64_t out_room(void)
{
	return KCONSOLE_OUT_BYTES - (con->out_queued - con->out_sent);
}

/* program_room -- what programs' writes and the echo may take now: the
 * room, less what is kept for the kernel's line on the call (console_keep) */
static uint64_t program_room(void)
{
	return out_room() > out_kept ? out_room() - out_kept : 0;
}

/* queue_out -- append up to `len` bytes from `src` (kernel memory, or
 * user memory of p when p is not NULL); bytes queued, or an error if none */
static int64_t queue_out(struct pctx *p, const void *src, uint64_t buf,
			 uint64_t len)
{
	uint64_t done = 0, span;

	if (len > out_room())
		len = out_room();
	while (done < len) {
		char *at = ring_at(con->out_ring, KCONSOLE_OUT_BYTES,
				   con->out_queued + done, len - done, &span);

		heap_log(at, span);
		if (!p) {
			memcpy(at, (const char *)src + done, span);
		} else {
			int err = uvm_copy_in(&p->mem, at, buf + done, span);

			if (err && !done)
				return err;
			if (err)
				break;
		}
		done += span;
	}
	KLOG(&con->out_queued);
	con->out_queued += done;
	return (int64_t)done;
}

/* console_emit -- kernel text for the console, after what is queued */
size_t console_emit(const char *text, size_t len)
{
	return (size_t)queue_out(NULL, text, 0, len);
}

/* A second home of the sent cursor outside the heap, or NULL: on
 * virtio-pmem power-on rebuilds the heap from its last flushed copy, which
 * would send again every line sent since (console_keep_sent_in). */
static uint64_t *sent_outside;

/* store_sent -- move the durable "sent" cursor: one store outside the log,
 * durable at once, as the commit stores the epoch (os_store_durable) */
static void store_sent(uint64_t sent)
{
	int err = os_store_durable(&kheap, &con->out_sent, sent);

	/* Invariant: out_sent is an aligned word of the heap (KFORMAT_AT). */
	KASSERT(err == 0);
	if (sent_outside)
		__atomic_store_n(sent_outside, sent, __ATOMIC_RELEASE);
}

/* console_keep_sent_in -- at power-on, before anything is sent: `word`
 * (outside the heap) holds how far output was sent before the power went,
 * and is kept so from now on. What it says is taken only if the heap's
 * queue holds that far (a hint: the heap's own cursor is older on a
 * device whose heap came back from its base copy). */
void console_keep_sent_in(uint64_t *word)
{
	uint64_t said = *word;

	if (said > con->out_sent && said <= con->out_queued)
		store_sent(said);
	sent_outside = word;
	*word = con->out_sent;
}

/* console_output_waiting -- whether output was queued that only a commit lets out */
bool console_output_waiting(void)
{
	return con->out_queued != con->out_sent;
}

/* console_commit_mark -- how far output is queued: at a commit, what it
 * made durable (or will, once its flush completed: epoch/durable.c) */
uint64_t console_commit_mark(void)
{
	return con ? con->out_queued : 0;
}

/* console_release_to -- send the output queued before `mark` (a
 * console_commit_mark of a durable commit), a line at a time; wake writers
 * waiting for room (also when nothing was left to send: after a power cut
 * they may wait for a release that already happened) */
void console_release_to(uint64_t mark)
{
	uint64_t queued;

	if (!con)
		return; /* power-on's own commits: no console yet */
	queued = mark < con->out_queued ? mark : con->out_queued;

	while (con->out_sent < queued) {
		uint64_t span, n;
		char *at = ring_at(con->out_ring, KCONSOLE_OUT_BYTES,
				   con->out_sent, queued - con->out_sent, &span);
		char *nl = memchr(at, '\n', span);

		n = nl ? (uint64_t)(nl - at) + 1 : span;
		uart_write(at, n);
		store_sent(con->out_sent + n);
	}
	if (out_waiters) {
		sched_wake(KWAIT_CONSOLE_OUT, 0);
		out_waiters = false;
	}
}

/* console_release -- send all the output queued (after a commit that is
 * durable when it completes, and at power-on) */
void console_release(void)
{
	console_release_to(con->out_queued);
}

/* wait_for_release -- block the caller until the next release, asking for it */
static int64_t wait_for_release(struct trap_frame *tf)
{
	heap_request_commit();
	sched_block(tf, KWAIT_CONSOLE_OUT, 0, 0);
	out_waiters = true;
	return SYSCALL_BLOCKED;
}

/* --- console sinks -------------------------------------------------------- */

/* sink_of -- the channel end p's console goes to (false: the console); a
 * sink whose handle was closed is forgotten */
static bool sink_of(struct pctx *p, struct khandle **end)
{
	if (!p->ht->console_sink)
		return false;
	if (!handle_lookup(p, (int64_t)p->ht->console_sink,
			   HANDLE_TYPE(OS_TYPE_CHANNEL), FE_RIGHT_WRITE, end))
		return true;
	KLOG(&p->ht->console_sink);
	p->ht->console_sink = 0;
	return false;
}

/* console_has_sink -- whether p's console goes to a channel */
bool console_has_sink(struct pctx *p)
{
	struct khandle *end;

	return sink_of(p, &end);
}

/* console_set_sink -- SYS_CONSOLE_SINK: p's console output goes to the
 * channel end of `handle` (write right), or to the console again (-1) */
int64_t console_set_sink(struct pctx *p, int64_t handle)
{
	struct khandle *end;
	int err;

	if (handle != -1) {
		err = handle_lookup(p, handle, HANDLE_TYPE(OS_TYPE_CHANNEL),
				    FE_RIGHT_WRITE, &end);
		if (err)
			return err;
	}
	KLOG(&p->ht->console_sink);
	p->ht->console_sink = handle == -1 ? 0 : (uint64_t)handle;
	return 0;
}

/* console_inherit_sink -- at spawn: a child of a parent with a sink gets
 * a handle of its own to the sink's channel end, and that sink */
int console_inherit_sink(struct pctx *parent, struct pctx *child)
{
	struct khandle *end;
	int h;

	if (!parent || !sink_of(parent, &end))
		return 0;
	kobj_hold(end->object);
	h = handle_install(child, end->object, FE_RIGHT_WRITE, end->end);
	if (h < 0) {
		kobj_release(end->object);
		return h;
	}
	KLOG(&child->ht->console_sink);
	child->ht->console_sink = (uint64_t)h;
	return 0;
}

/* sink_write -- up to one message of p's buf to its sink's channel end;
 * blocks while the channel's queue is full */
static int64_t sink_write(struct trap_frame *tf, struct pctx *p,
			  struct khandle *end, uint64_t buf, uint64_t len)
{
	static char msg[FE_CHAN_MSG_MAX];
	int err;

	if (len > sizeof(msg))
		len = sizeof(msg);
	err = uvm_copy_in(&p->mem, msg, buf, len);
	if (!err)
		err = channel_send(end->object, end->end, msg, (uint32_t)len, 0, 0, 0);
	if (err == -ERR_NOSPC) {
		sched_block(tf, KWAIT_CHANNEL, end->object, 0);
		return SYSCALL_BLOCKED;
	}
	return err ? err : (int64_t)len;
}

/* console_write -- SYS_CONSOLE_WRITE: up to FE_IO_MAX bytes, as many as
 * the output queue takes; blocks while it is full */
int64_t console_write(struct trap_frame *tf, struct pctx *p, uint64_t buf,
		      uint64_t len)
{
	struct khandle *end;

	if (len > FE_IO_MAX)
		len = FE_IO_MAX;
	if (!len)
		return 0;
	if (uvm_check(&p->mem, buf, len, UVM_READ))
		return -ERR_FAULT;
	if (sink_of(p, &end))
		return sink_write(tf, p, end, buf, len);
	if (!program_room())
		return wait_for_release(tf); /* which makes room */
	return queue_out(p, NULL, buf, len < program_room() ? len : program_room());
}

/* console_writable -- whether console_write would take a byte now */
bool console_writable(struct pctx *p)
{
	struct khandle *end;

	if (sink_of(p, &end))
		return channel_room(end->object, end->end) > 0;
	return program_room() > 0;
}

/* console_keep -- room on p's console for `len` bytes of the kernel's line
 * on p's call, kept from its writes and echo until console_say; 0, or
 * SYSCALL_BLOCKED with the call blocked until there is room (a release of
 * the queue; a receive from a sink, which keeps room for one write of the
 * call and the line) */
int64_t console_keep(struct trap_frame *tf, struct pctx *p, size_t len)
{
	struct khandle *end;

	/* Invariant: the last traced call gave its room back (console_say). */
	KASSERT(out_kept == 0);
	if (sink_of(p, &end)) {
		if (channel_room(end->object, end->end) >= 2)
			return 0;
		sched_block(tf, KWAIT_CHANNEL, end->object, 0);
		return SYSCALL_BLOCKED;
	}
	if (out_room() < len)
		return wait_for_release(tf);
	out_kept = len;
	return 0;
}

/* console_say -- the kernel's line on p's call, to p's console, in the
 * room console_keep kept; the room given back. With len 0 nothing is said
 * and p is not looked at (it may have ended). */
void console_say(struct pctx *p, const char *text, size_t len)
{
	struct khandle *end;

	out_kept = 0;
	if (!len)
		return;
	if (sink_of(p, &end))
		(void)channel_send(end->object, end->end, text, (uint32_t)len, 0, 0, 0);
	else
		(void)queue_out(NULL, text, 0, len);
}

/* --- input -------------------------------------------------------------- */

/* in_count -- typed bytes not yet consumed */
static uint64_t in_count(void)
{
	return con->in_queued - con->in_read;
}

/* console_readable -- typed bytes wait, or the rest of a line a read did
 * not take whole, or the console is a sink */
bool console_readable(struct pctx *p)
{
	return console_has_sink(p) || in_count() > 0 || kroot->line_ready;
}

/* copy_in_queue -- the first `len` unconsumed bytes into dst */
static void copy_in_queue(char *dst, uint64_t len)
{
	uint64_t done = 0, span;

	while (done < len) {
		const char *at = ring_at(con->in_ring, KCONSOLE_IN_BYTES,
					 con->in_read + done, len - done, &span);

		memcpy(dst + done, at, span);
		done += span;
	}
}

/* consume -- the first `n` unconsumed bytes are read */
static void consume(uint64_t n)
{
	KLOG(&con->in_read);
	con->in_read += n;
}

/* console_ready_bytes -- the bytes p's next read would find: in line
 * mode the line once its Enter is typed (bytes typed counted before
 * editing), else the bytes typed; none for a sink */
uint64_t console_ready_bytes(struct pctx *p, bool line)
{
	char bytes[KCONSOLE_IN_BYTES];
	uint64_t n = in_count();

	if (console_has_sink(p))
		return 0;
	if (!line)
		return n;
	if (kroot->line_ready)
		return kroot->line_len + (kroot->line_ready == KCONSOLE_LINE_ENTER);
	copy_in_queue(bytes, n);
	for (uint64_t i = 0; i < n; i++)
		if (bytes[i] == '\r' || bytes[i] == '\n' || bytes[i] == CTRL_D)
			return kroot->line_len + i + (bytes[i] != CTRL_D);
	return 0;
}

/* console_window -- the window's size programs set, 24 x 80 if none */
void console_window(uint16_t *rows, uint16_t *cols)
{
	*rows = con->rows ? con->rows : 24;
	*cols = con->rows ? con->cols : 80;
}

/* console_set_window -- the window's size is rows x cols (0 rows: unset) */
void console_set_window(uint16_t rows, uint16_t cols)
{
	KLOG(&con->rows);
	con->rows = rows;
	KLOG(&con->cols);
	con->cols = cols;
}

/* keep_typed -- append typed bytes to the input queue */
static void keep_typed(const char *bytes, uint64_t len)
{
	uint64_t done = 0, span;

	while (done < len) {
		char *at = ring_at(con->in_ring, KCONSOLE_IN_BYTES,
				   con->in_queued + done, len - done, &span);

		heap_log(at, span);
		memcpy(at, bytes + done, span);
		done += span;
	}
	KLOG(&con->in_queued);
	con->in_queued += len;
}

/* console_set_foreground -- SYS_CONSOLE_FG: Ctrl-C ends process `pid` (0: none) */
void console_set_foreground(uint64_t pid)
{
	if (sched_holding()) {
		rescue_fg_pid = pid;
		return;
	}
	KLOG(&kroot->console_fg_pid);
	kroot->console_fg_pid = pid;
	KLOG(&kroot->console_pgrp);
	kroot->console_pgrp = 0; /* a new foreground: no job of an old shell's */
}

/* foreground -- the process that holds the console (SYS_CONSOLE_FG), or NULL */
static struct pctx *foreground(void)
{
	uint64_t pid = sched_holding() ? rescue_fg_pid : kroot->console_fg_pid;

	return pid ? ptable_by_pid(pid) : NULL;
}

/* console_on_interrupt -- at power-on: Ctrl-C to a foreground Linux program goes to `hook` */
void console_on_interrupt(console_intr_hook hook)
{
	linux_interrupt = hook;
}

/* interrupt_foreground -- Ctrl-C: end the foreground process, or raise a
 * Linux program's SIGINT; Ctrl-Z: a Linux program's SIGTSTP (to any other
 * program it is a byte typed); whether the byte was taken so (not input) */
static bool interrupt_foreground(char c)
{
	struct pctx *p = foreground();

	if (!p || (c == CONSOLE_CTRL_Z && !p->lx))
		return false;
	if (p->lx && linux_interrupt && linux_interrupt(p, c) == CONSOLE_INTR_BYTE)
		return false;
	console_emit(c == CONSOLE_CTRL_Z ? "^Z\n" : "^C\n", 3);
	if (!p->lx)
		proc_end(p, FE_EXIT_INTERRUPT, 0, "interrupted (Ctrl-C)");
	return true;
}

/* console_input_poll -- take typed bytes from the UART; wake readers.
 * While the queue is full, typed bytes wait in the UART (the terminal
 * waits with them) -- unless a foreground program holds the console: its
 * Ctrl-C must be heard even if it reads nothing, so then they are read,
 * and what does not fit is dropped. */
void console_input_poll(void)
{
	char bytes[POLL_BATCH];
	uint64_t n = 0, kept = 0;
	char c;

	while ((in_count() + n < KCONSOLE_IN_BYTES || foreground()) &&
	       uart_read_byte(&c)) {
		if ((c == CONSOLE_CTRL_C || c == CONSOLE_CTRL_Z) && interrupt_foreground(c))
			continue;
		if (in_count() + n == KCONSOLE_IN_BYTES)
			continue; /* the foreground reads nothing: drop, like a full UART FIFO */
		bytes[n++] = c;
		if (n == POLL_BATCH) {
			keep_typed(bytes, n);
			kept += n;
			n = 0;
		}
	}
	if (n)
		keep_typed(bytes, n);
	if (n || kept) {
		sched_wake(KWAIT_CONSOLE, 0);
		sched_wake(KWAIT_POLL, 0);
	}
}

/* erase -- take the last byte off the line being edited, on screen too if `echo` */
static void erase(bool echo)
{
	KLOG(&kroot->line_len);
	kroot->line_len--;
	if (echo)
		console_emit("\b \b", 3);
}

/* edit_line -- feed typed bytes to the line editor, echoing them if
 * `echo` (a password's are not); whether a line is complete. Stops when
 * the output queue could not take the echo. */
static bool edit_line(bool echo)
{
	char c;

	while (!kroot->line_ready && in_count() && program_room() >= ECHO_MAX) {
		copy_in_queue(&c, 1);
		consume(1);
		if (c == '\r' || c == '\n') {
			if (echo)
				console_emit("\n", 1);
			KLOG(&kroot->line_ready);
			kroot->line_ready = KCONSOLE_LINE_ENTER;
		} else if (c == CTRL_D) { /* echoes nothing, as a terminal */
			KLOG(&kroot->line_ready);
			kroot->line_ready = KCONSOLE_LINE_EOF;
		} else if (c == CONSOLE_CTRL_C) {
			console_emit("^C\n", 3);
			KLOG(&kroot->line_len);
			kroot->line_len = 0;
			KLOG(&kroot->line_ready);
			kroot->line_ready = KCONSOLE_LINE_ENTER;
		} else if ((c == 0x7f || c == '\b') && kroot->line_len) {
			erase(echo);
		} else if (c == CTRL_U) {
			while (kroot->line_len && program_room() >= ECHO_MAX)
				erase(echo);
		} else if ((unsigned char)c >= ' ' && c != 0x7f &&
			   kroot->line_len < KCONSOLE_LINE_MAX) {
			KLOG(&kroot->line[kroot->line_len]);
			kroot->line[kroot->line_len] = c;
			KLOG(&kroot->line_len);
			kroot->line_len++;
			if (echo)
				console_emit(&c, 1);
		}
	}
	return kroot->line_ready;
}

/* read_line -- FE_CONSOLE_LINE: a whole line with '\n', or block */
static int64_t read_line(struct trap_frame *tf, struct pctx *p, uint64_t buf,
			 uint64_t cap, bool nonblock, bool echo)
{
	char line[KCONSOLE_LINE_MAX + 1];
	uint64_t len;
	int err;

	if (!edit_line(echo)) {
		if (nonblock)
			return -ERR_AGAIN;
		if (in_count()) /* the echo did not fit */
			return wait_for_release(tf);
		sched_block(tf, KWAIT_CONSOLE, 0, 0);
		return SYSCALL_BLOCKED;
	}
	len = kroot->line_len;
	memcpy(line, kroot->line, len);
	if (kroot->line_ready == KCONSOLE_LINE_ENTER)
		line[len++] = '\n';
	if (len > cap)
		len = cap;
	err = len ? uvm_copy_out(&p->mem, buf, line, len) : 0;
	if (err)
		return err; /* the line stays for the next read */
	if (len < kroot->line_len ||
	    (len == kroot->line_len && kroot->line_ready == KCONSOLE_LINE_ENTER)) {
		/* the rest ('\n' last) for the next reads */
		heap_log(kroot->line, kroot->line_len);
		memmove(kroot->line, kroot->line + len, kroot->line_len - len);
		KLOG(&kroot->line_len);
		kroot->line_len -= (uint16_t)len;
		return (int64_t)len;
	}
	KLOG(&kroot->line_len);
	kroot->line_len = 0;
	KLOG(&kroot->line_ready);
	kroot->line_ready = KCONSOLE_LINE_EDITING;
	return (int64_t)len;
}

/* read_raw -- FE_CONSOLE_RAW: the bytes typed so far (at least one), or block */
static int64_t read_raw(struct trap_frame *tf, struct pctx *p, uint64_t buf,
			uint64_t cap, bool nonblock)
{
	char bytes[KCONSOLE_IN_BYTES];
	uint64_t n = in_count();
	int err;

	if (!n) {
		if (nonblock)
			return -ERR_AGAIN;
		sched_block(tf, KWAIT_CONSOLE, 0, 0);
		return SYSCALL_BLOCKED;
	}
	if (n > cap)
		n = cap;
	copy_in_queue(bytes, n);
	err = uvm_copy_out(&p->mem, buf, bytes, n);
	if (err)
		return err; /* nothing consumed */
	consume(n);
	return (int64_t)n;
}

/* raw_reader -- whether t is blocked in a raw SYS_CONSOLE_READ */
static bool raw_reader(const struct kthread *t)
{
	return t->blocked_call == SYS_CONSOLE_READ &&
	       (arch_saved_syscall_arg(&t->regs, 2) & 0xff) == FE_CONSOLE_RAW;
}

/* console_power_on -- complete the raw reads blocked at the power cut with
 * -ERR_AGAIN (nothing consumed). The terminal shows the power-on's lines,
 * not what the program had drawn: a program that reads keys itself, as
 * osh does, hears of the power-on without waiting for one and redraws its
 * prompt and half-typed line. Line-mode reads keep waiting: the kernel
 * edits those lines. */
void console_power_on(void)
{
	sched_complete_waiting(KWAIT_CONSOLE, raw_reader, -ERR_AGAIN);
}

/* console_read -- SYS_CONSOLE_READ */
int64_t console_read(struct trap_frame *tf, struct pctx *p, uint64_t buf,
		     uint64_t cap, uint64_t mode)
{
	bool nonblock = mode & FE_CONSOLE_NONBLOCK;

	if (!cap || (mode & ~(uint64_t)(FE_CONSOLE_NONBLOCK | FE_CONSOLE_NOECHO | 0xff)) ||
	    ((mode & FE_CONSOLE_NOECHO) && (mode & 0xff) != FE_CONSOLE_LINE))
		return -ERR_INVAL;
	if (uvm_check(&p->mem, buf, cap, UVM_WRITE))
		return -ERR_FAULT;
	if (console_has_sink(p))
		return 0; /* the end of the input */
	switch (mode & 0xff) {
	case FE_CONSOLE_LINE:
		return read_line(tf, p, buf, cap, nonblock, !(mode & FE_CONSOLE_NOECHO));
	case FE_CONSOLE_RAW:
		return read_raw(tf, p, buf, cap, nonblock);
	default:
		return -ERR_INVAL;
	}
}
