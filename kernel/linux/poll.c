/*
 * poll.c -- waiting for files: poll, ppoll, select and pselect6.
 *
 * Each open file says what a read or a write of it would find now, as
 * Linux's poll events (file_events): files of the catalogue, directories
 * and the special files never make a caller wait; the console is readable
 * once a byte is typed (or when it is sent to a sink, whose input is at
 * its end) and always writable; a pipe's read end is readable while the
 * pipe holds bytes and hung up (POLLHUP) once no writer is left, its write
 * end writable while LX_PIPE_BUF bytes fit and in error (POLLERR) once no
 * reader is left (pipe.c). poll reports them per descriptor, select in
 * three sets, with Linux's rules for which events count in each set.
 *
 * When nothing is ready and the call may wait, it blocks on KWAIT_POLL,
 * which typed bytes and every change of a pipe wake, and, for a finite
 * timeout, until its deadline at the latest (kthread.wake_ns). A woken
 * call is issued again (sched.h) and looks at its files anew; it finds
 * the deadline it blocked with in its thread's record (lx_call_deadline),
 * so a wake never makes it wait longer than it asked, and its time runs
 * on across a power cut like a sleep's. Linux writes the time left back
 * into select's, pselect6's and ppoll's timeout, and so does this.
 *
 * The signal masks of ppoll and pselect6 are the caller's mask while it
 * waits, as rt_sigsuspend's (lx_signal_wait_mask): the mask before comes
 * back when the call ends, or once the handler of a signal that cut it
 * short returns.
 */
#include <stdbool.h>
#include <stdint.h>

#include "console/console.h"
#include "core/time.h"
#include "linux/lx.h"
#include "task/proc.h"
#include "task/sched.h"
#include "uvm/uvm.h"

#define NS 1000000000ll

_Static_assert(KLINUX_FDS == 64, "select's sets are one 64-bit word");

/* file_events -- the poll events of open file f now */
static uint32_t file_events(struct lxcall *c, const struct klxfile *f)
{
	switch (f->kind) {
	case KLXFILE_CONSOLE:
		return LX_POLLOUT | LX_POLLWRNORM |
		       (console_readable(c->p) ? LX_POLLIN | LX_POLLRDNORM : 0);
	case KLXFILE_PIPE_READ:
	case KLXFILE_PIPE_WRITE:
		return lx_pipe_events(f->object, f->kind == KLXFILE_PIPE_WRITE);
	default: /* files, directories, special files: never waiting */
		return LX_POLLIN | LX_POLLRDNORM | LX_POLLOUT | LX_POLLWRNORM;
	}
}

/* until -- the monotonic deadline of a call that waits at most
 * `timeout_ns` (negative: for ever, 0: not at all), 0 if it has none;
 * the one it blocked with when it is issued again */
static uint64_t until(struct lxcall *c, int64_t timeout_ns)
{
	uint64_t now = time_mono_ns(), fresh = 0;

	if (timeout_ns > 0)
		fresh = (uint64_t)timeout_ns > UINT64_MAX - now ? UINT64_MAX : now + (uint64_t)timeout_ns;
	return lx_call_deadline(c, fresh);
}

/* may_wait -- whether a call that waits at most `timeout_ns` and has
 * `deadline` (0: none) may wait now */
static bool may_wait(int64_t timeout_ns, uint64_t deadline)
{
	return timeout_ns != 0 && (!deadline || time_mono_ns() < deadline);
}

/* wait_files -- block the call until typed bytes or a pipe's change, or
 * until `deadline` (0: none); it is issued again then */
static int64_t wait_files(struct lxcall *c, uint64_t deadline)
{
	sched_block(c->tf, KWAIT_POLL, 0, deadline);
	return SYSCALL_BLOCKED;
}

/* put_time_left -- a finite timeout's time left, at `at` (a timeval if
 * `timeval`, else a timespec); a fault there is not the call's, as on
 * Linux, where the call has done its work by then */
static void put_time_left(struct lxcall *c, uint64_t at, int64_t timeout_ns,
			  uint64_t deadline, bool timeval)
{
	uint64_t now = time_mono_ns(), left = deadline > now ? deadline - now : 0;
	struct lx_timespec ts = { (int64_t)(left / NS), (int64_t)(left % NS) };
	struct lx_timeval tv = { ts.sec, ts.nsec / 1000 };

	if (!at || timeout_ns <= 0)
		return;
	if (timeval)
		(void)uvm_copy_out(&c->p->mem, at, &tv, sizeof(tv));
	else
		(void)uvm_copy_out(&c->p->mem, at, &ts, sizeof(ts));
}

/* check_sigmask -- ppoll's and pselect6's signal mask, if there is one,
 * of Linux's size and readable, into *mask; whether there is one in *given */
static int64_t check_sigmask(struct lxcall *c, uint64_t set, uint64_t size,
			     uint64_t *mask, bool *given)
{
	*given = set != 0;
	if (!set)
		return 0;
	if (size != LX_SIGSET_SIZE)
		return -LX_EINVAL;
	return lx_errno(uvm_copy_in(&c->p->mem, mask, set, sizeof(*mask)));
}

/* --- poll ----------------------------------------------------------------- */

/* poll_fds -- poll's and ppoll's work: nfds struct pollfd at `at`, each
 * given the events of its file asked for (and POLLERR, POLLHUP; POLLNVAL
 * for a descriptor naming none, none for a negative one); the count of
 * those with any, or the call blocked until one may have some */
static int64_t poll_fds(struct lxcall *c, uint64_t at, uint64_t nfds, int64_t timeout_ns,
			uint64_t *deadline)
{
	int64_t ready = 0;

	*deadline = until(c, timeout_ns);
	if (nfds > KLINUX_FDS) /* RLIMIT_NOFILE's */
		return -LX_EINVAL;
	for (uint64_t i = 0; i < nfds; i++) {
		struct lx_pollfd pfd;
		const struct klxfile *f;
		int err = uvm_copy_in(&c->p->mem, &pfd, at + i * sizeof(pfd), sizeof(pfd));

		if (err)
			return lx_errno(err);
		pfd.revents = 0;
		if (pfd.fd >= 0) {
			f = lx_fd_file(c->lx, pfd.fd, NULL);
			pfd.revents = (int16_t)(!f ? LX_POLLNVAL : file_events(c, f) &
						((uint16_t)pfd.events | LX_POLLERR | LX_POLLHUP));
		}
		ready += pfd.revents != 0;
		err = uvm_copy_out(&c->p->mem, at + i * sizeof(pfd), &pfd, sizeof(pfd));
		if (err)
			return lx_errno(err);
	}
	if (!ready && may_wait(timeout_ns, *deadline))
		return wait_files(c, *deadline);
	return ready;
}

/* poll (fds, nfds, timeout in ms, negative: none) */
int64_t lx_poll(struct lxcall *c)
{
	const int64_t ms = (int64_t)(int32_t)c->arg[2];
	uint64_t deadline;

	return poll_fds(c, c->arg[0], c->arg[1], ms < 0 ? -1 : ms * 1000000, &deadline);
}

/* ppoll (fds, nfds, timeout as a timespec or NULL, sigmask, its size) */
int64_t lx_ppoll(struct lxcall *c)
{
	const uint64_t fds = c->arg[0], nfds = c->arg[1], at = c->arg[2];
	uint64_t ns = 0, deadline, mask = 0;
	int64_t timeout_ns = -1, err = at ? lx_read_timespec(c, at, &ns) : 0;
	bool masked = false;

	if (!err)
		err = check_sigmask(c, c->arg[3], c->arg[4], &mask, &masked);
	if (!err && masked)
		err = lx_signal_wait_mask(c, mask); /* -EINTR: a signal at once */
	if (err)
		return err;
	if (at)
		timeout_ns = ns > INT64_MAX ? INT64_MAX : (int64_t)ns;
	err = poll_fds(c, fds, nfds, timeout_ns, &deadline);
	if (err != SYSCALL_BLOCKED) {
		put_time_left(c, at, timeout_ns, deadline, false);
		if (masked)
			lx_signal_wait_done(c);
	}
	return err;
}

/* --- select --------------------------------------------------------------- */

/* select_fds -- select's and pselect6's work, once the timeout is read:
 * n descriptors (as Linux bounds n by its table, by ours), and their
 * three sets at sets[] (0: none), rewritten to hold those ready to read,
 * to write, and with an exception; how many that is (a descriptor counted
 * in each set it is in), or the call blocked until one may be ready. The
 * time left goes back at `time_at`. */
static int64_t select_fds(struct lxcall *c, int64_t n, const uint64_t sets[3],
			  int64_t timeout_ns, uint64_t time_at, bool timeval)
{
	static const uint32_t counts[3] = { LX_SELECT_IN, LX_SELECT_OUT, LX_SELECT_EX };
	const uint64_t deadline = until(c, timeout_ns);
	uint64_t in[3] = { 0 }, out[3] = { 0 }, asked;
	int64_t ready = 0;

	if (n < 0)
		return -LX_EINVAL;
	if (n > KLINUX_FDS)
		n = KLINUX_FDS;
	for (unsigned s = 0; s < 3; s++)
		if (n && sets[s] && uvm_copy_in(&c->p->mem, &in[s], sets[s], sizeof(in[s])))
			return -LX_EFAULT;
	asked = (in[0] | in[1] | in[2]) & (n == 64 ? ~0ull : (1ull << n) - 1);
	for (int64_t fd = 0; fd < n; fd++)
		if ((asked >> fd & 1) && !lx_fd_file(c->lx, fd, NULL))
			return -LX_EBADF;
	for (int64_t fd = 0; fd < n; fd++) {
		uint32_t events;

		if (!(asked >> fd & 1))
			continue;
		events = file_events(c, lx_fd_file(c->lx, fd, NULL));
		for (unsigned s = 0; s < 3; s++)
			if ((in[s] >> fd & 1) && (events & counts[s])) {
				out[s] |= 1ull << fd;
				ready++;
			}
	}
	if (!ready && may_wait(timeout_ns, deadline))
		return wait_files(c, deadline);
	for (unsigned s = 0; s < 3; s++)
		if (n && sets[s] && uvm_copy_out(&c->p->mem, sets[s], &out[s], sizeof(out[s])))
			return -LX_EFAULT;
	put_time_left(c, time_at, timeout_ns, deadline, timeval);
	return ready;
}

/* select (n, readfds, writefds, exceptfds, timeout as a timeval or NULL) */
int64_t lx_select(struct lxcall *c)
{
	const uint64_t sets[3] = { c->arg[1], c->arg[2], c->arg[3] }, at = c->arg[4];
	int64_t timeout_ns = -1, sec;
	struct lx_timeval tv;

	if (at) {
		if (uvm_copy_in(&c->p->mem, &tv, at, sizeof(tv)))
			return -LX_EFAULT;
		/* Linux carries whole seconds of usec over, then checks */
		if (__builtin_add_overflow(tv.sec, tv.usec / 1000000, &sec))
			sec = tv.usec < 0 ? -1 : INT64_MAX;
		if (sec < 0 || tv.usec % 1000000 < 0)
			return -LX_EINVAL;
		timeout_ns = sec > (INT64_MAX - 999999999) / NS ? INT64_MAX :
			     sec * NS + tv.usec % 1000000 * 1000;
	}
	return select_fds(c, (int64_t)(int32_t)c->arg[0], sets, timeout_ns, at, true);
}

/* pselect6 (n, readfds, writefds, exceptfds, timeout as a timespec or
 * NULL, {sigmask, its size} or NULL) */
int64_t lx_pselect6(struct lxcall *c)
{
	const uint64_t sets[3] = { c->arg[1], c->arg[2], c->arg[3] }, at = c->arg[4];
	struct lx_sigset_argpack mask = { 0, 0 };
	int64_t timeout_ns = -1, err;
	uint64_t ns, given = 0;
	bool masked = false;

	if (c->arg[5] && uvm_copy_in(&c->p->mem, &mask, c->arg[5], sizeof(mask)))
		return -LX_EFAULT;
	if (at) {
		err = lx_read_timespec(c, at, &ns);
		if (err)
			return err;
		timeout_ns = ns > INT64_MAX ? INT64_MAX : (int64_t)ns;
	}
	err = check_sigmask(c, mask.set, mask.size, &given, &masked);
	if (!err && masked)
		err = lx_signal_wait_mask(c, given); /* -EINTR: a signal at once */
	if (err)
		return err;
	err = select_fds(c, (int64_t)(int32_t)c->arg[0], sets, timeout_ns, at, false);
	if (err != SYSCALL_BLOCKED && masked)
		lx_signal_wait_done(c);
	return err;
}
