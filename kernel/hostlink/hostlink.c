/*
 * hostlink.c -- the host link, the kernel's half: a byte stream between
 * the host (tools/fe, through QEMU's second serial port on a unix socket)
 * and the link service, the user program bin/linkd, which speaks the
 * protocol (docs/hostlink.md) and does the work with ordinary system
 * calls.
 *
 * Where each byte lives:
 *
 *  - Input: the UART's receive ring (dev/uart.c, volatile) until
 *    SYS_LINK_READ copies it into the service's memory. A power cut loses
 *    what was in flight, and with it the host's connection: QEMU is gone.
 *    So the link starts over at every power-on: the service's first read
 *    after it fails with -ERR_RESET, and the service drops whatever
 *    transfer it was in (a put's hidden object) before it reads on. The
 *    service is woken at power-on to learn it at once.
 *
 *  - Output: committed output, like the console's. SYS_LINK_WRITE puts
 *    bytes in the UART's transmit ring, *held*; hostlink_release, right
 *    after each commit, lets out everything held so far. So whatever the
 *    host reads was written in an epoch that committed: a reply "stored"
 *    is never undone by a power cut, and bytes read from an object and
 *    sent are committed state. (Bytes written while nothing changed since
 *    the last commit -- no commit will come -- were made by committed state:
 *    the epoch's periodic check lets them go, epoch_safe_point.) The held output
 *    is volatile: lost at a cut
 *    with the connection it was for. A writer finding the ring full
 *    blocks (KWAIT_LINK_OUT) and asks for a commit; the ring drains by
 *    interrupt as the host reads.
 *
 * Only the service may read or write the link: the process the kernel
 * starts as bin/linkd with KPROC_LINK in its flags (persistent, so it
 * stays the service across power cuts). The kernel starts it when bytes
 * arrive and none is alive (it ended, or the heap predates the link);
 * never while a safe power-on holds processes.
 */
#include "core/heap.h"
#include "core/printk.h"
#include "dev/uart.h"
#include "ferrite/errors.h"
#include "ferrite/syscall.h"
#include "hostlink/hostlink.h"
#include "task/proc.h"
#include "task/sched.h"
#include "uvm/uvm.h"

#define SERVICE_PROGRAM "bin/linkd"
#define SERVICE_NAME "linkd"
#define CHUNK 4096u                    /* bytes one call moves at most */

static bool present;
/* The next read fails with -ERR_RESET: the host's side is new. */
static bool reset_pending = true;
/* Whether a thread may wait in KWAIT_LINK / KWAIT_LINK_OUT; true at
 * power-on, when threads blocked before the cut are not known. */
static bool readers = true, writers = true;
/* Where the service was last found (a hint, checked at every use). */
static unsigned service_slot;

/* hostlink_init -- find the link's UART */
void hostlink_init(void)
{
	present = uart_link_init();
	if (present)
		pr_info("hostlink: on COM2\n");
}

/* hostlink_power_on -- readers get -ERR_RESET first; wake them to get it */
void hostlink_power_on(void)
{
	reset_pending = true;
	sched_wake(KWAIT_LINK, 0);
	readers = false;
}

/* is_service -- whether p may use the link */
static bool is_service(const struct pctx *p)
{
	return p && p->proc->state == KPROC_ALIVE && (p->proc->flags & KPROC_LINK);
}

/* service_alive -- whether a service process is alive */
static bool service_alive(void)
{
	if (is_service(ptable_slot(service_slot)))
		return true;
	for (unsigned i = 0; i < KROOT_MAX_PROCS; i++)
		if (is_service(ptable_slot(i))) {
			service_slot = i;
			return true;
		}
	return false;
}

/* hostlink_tick -- every timer tick (interrupt context): service the UART */
void hostlink_tick(void)
{
	if (present)
		uart_link_poll();
}

/* hostlink_poll -- wake readers and writers, start the service for bytes
 * that arrived with none alive (no port access: cheap at every return to
 * user mode) */
void hostlink_poll(void)
{
	if (!present)
		return;
	if (uart_link_readable()) {
		if (readers) {
			sched_wake(KWAIT_LINK, 0);
			readers = false;
		}
		if (!sched_holding() && !service_alive() &&
		    !proc_start(SERVICE_PROGRAM, SERVICE_NAME, KPROC_LINK))
			present = false; /* said why; no service, no link */
	}
	if (writers && uart_link_room()) {
		sched_wake(KWAIT_LINK_OUT, 0);
		writers = false;
	}
}

/* hostlink_output_waiting -- whether output waits for a commit */
bool hostlink_output_waiting(void)
{
	return present && uart_link_held();
}

/* hostlink_release -- the output written so far may go to the host */
void hostlink_release(void)
{
	if (present)
		uart_link_release();
}

/* link_call -- the checks both calls make: the link exists, p is its
 * service, and p's buf holds *len bytes (clamped to CHUNK) with `access` */
static int link_call(struct pctx *p, uint64_t buf, uint64_t *len, unsigned access)
{
	if (!present)
		return -ERR_NOTSUP;
	if (!is_service(p))
		return -ERR_PERM;
	if (*len > CHUNK)
		*len = CHUNK;
	return uvm_check(&p->mem, buf, *len, access) ? -ERR_FAULT : 0;
}

/* hostlink_read -- SYS_LINK_READ */
int64_t hostlink_read(struct trap_frame *tf, struct pctx *p, uint64_t buf,
		      uint64_t cap)
{
	static char bytes[CHUNK]; /* the kernel lock is held */
	size_t n;
	int err = link_call(p, buf, &cap, UVM_WRITE);

	if (err)
		return err;
	if (!cap)
		return -ERR_INVAL;
	if (reset_pending) {
		reset_pending = false;
		return -ERR_RESET;
	}
	n = uart_link_read(bytes, cap);
	if (!n) {
		sched_block(tf, KWAIT_LINK, 0, 0);
		readers = true;
		return SYSCALL_BLOCKED;
	}
	err = uvm_copy_out(&p->mem, buf, bytes, n);
	return err ? err : (int64_t)n;
}

/* hostlink_write -- SYS_LINK_WRITE */
int64_t hostlink_write(struct trap_frame *tf, struct pctx *p, uint64_t buf,
		       uint64_t len)
{
	static char bytes[CHUNK]; /* the kernel lock is held */
	size_t room;
	int err = link_call(p, buf, &len, UVM_READ);

	if (err || !len)
		return err;
	room = uart_link_room();
	if (!room) {
		heap_request_commit(); /* the commit lets held bytes out, making room */
		sched_block(tf, KWAIT_LINK_OUT, 0, 0);
		writers = true;
		return SYSCALL_BLOCKED;
	}
	if (len > room)
		len = room;
	err = uvm_copy_in(&p->mem, bytes, buf, len);
	if (err)
		return err;
	return (int64_t)uart_link_put(bytes, len);
}
