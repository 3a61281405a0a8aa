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
 *  - Bulk data: the window (dev/ivshmem.c), memory the host maps too,
 *    when the machine has one. The byte stream carries the protocol's
 *    frames; the window carries the bytes of big puts and gets, which
 *    SYS_LINK_MOVE copies between it and an object in one step each way,
 *    FE_IO_MAX at a time, and checksums (CRC-32, libc/crc32.c): into an
 *    object, the bytes read back after the write; out of one, the bytes
 *    put in the window. The window is a place, not a channel: the host
 *    owns what it wrote there until the service's answer (a frame, so
 *    held until the commit like any output) says it may reuse it, and it
 *    reads what the service put there only once an answer says it is
 *    there. Output commit holds for it through those answers: the host
 *    learns nothing from the window that a frame released after the
 *    commit did not tell it. The window is volatile (host memory); a
 *    power cut loses it with the connection, and nothing in the kernel
 *    remembers it.
 *
 * Powers come from a capability, never from a name. Reading and writing
 * the link, moving bytes through its window, and making a code object
 * from a blob, take a handle to the link's object (struct klink, app root
 * OS_APP_ROOT_LINK) with the right for each (READ: from the host, WRITE:
 * to it, EXEC), and only the kernel makes such a handle:
 * for the service it starts, as its first inherited handle, without the
 * right to pass it on. The kernel starts the service when bytes arrive
 * and none is alive (KPROC_LINK marks the process it started: persistent,
 * so it stays the service across power cuts), never while a safe power-on
 * holds processes, and from the code object it trusts (klink.service):
 * the one bin/linkd named when the kernel imported its boot modules, at
 * genesis or at a power-on with `import`. A program a user binds to
 * bin/linkd afterwards is started by no one, and holds no handle.
 */
#include <crc32.h>
#include <numtext.h>
#include <string.h>

#include "core/heap.h"
#include "core/modules.h"
#include "core/panic.h"
#include "core/printk.h"
#include "dev/ivshmem.h"
#include "dev/uart.h"
#include "errstr.h"
#include "ferrite/errors.h"
#include "ferrite/syscall.h"
#include "hostlink/hostlink.h"
#include "obj/kobj.h"
#include "objstore/catalogue.h"
#include "objstore/object.h"
#include "task/handle.h"
#include "task/proc.h"
#include "task/sched.h"
#include "uvm/pagecache.h"
#include "uvm/uvm.h"

#define SERVICE_PROGRAM "bin/linkd"
#define SERVICE_NAME "linkd"
#define SERVICE_RIGHTS (FE_RIGHT_READ | FE_RIGHT_WRITE | FE_RIGHT_EXEC)
#define CHUNK 4096u                    /* bytes one call moves at most */

static bool present;
/* The bulk window, if the machine has one (volatile: found at power-on). */
static struct ivshmem window;
/* The link's object (volatile pointer into the heap, set at power-on). */
static struct klink *link;
static uint64_t link_id;
/* The next read fails with -ERR_RESET: the host's side is new. */
static bool reset_pending = true;
/* Whether a thread may wait in KWAIT_LINK / KWAIT_LINK_OUT; true at
 * power-on, when threads blocked before the cut are not known. */
static bool readers = true, writers = true;
/* Where the service was last found (a hint, checked at every use). */
static unsigned service_slot;

/* hostlink_init -- find the link's UART, and its window */
void hostlink_init(void)
{
	char size[SIZE_TEXT_MAX];

	present = uart_link_init();
	if (!present)
		return;
	if (!ivshmem_find(&window)) {
		pr_info("hostlink: on COM2\n");
		return;
	}
	pr_info("hostlink: on COM2, with a %s window\n",
		size_text(size, sizeof(size), window.size));
}

/* find_link -- the link's object, made if the heap has none yet */
static void find_link(void)
{
	void *data;
	int err;

	link_id = os_app_root(&kheap, OS_APP_ROOT_LINK);
	if (link_id) {
		link = kobj_data(link_id, OS_TYPE_KERNEL, KLINK_MAGIC);
		/* Invariant: the power-on check (kcheck.c) proved it sound. */
		KASSERT(link != NULL);
		return;
	}
	err = kobj_new(OS_TYPE_KERNEL, sizeof(*link), KLINK_MAGIC, &link_id, &data);
	if (!err)
		err = os_app_root_set(&kheap, OS_APP_ROOT_LINK, link_id);
	if (err)
		panic("hostlink: no room in the heap for the link's object: %s", err_str(err));
	link = data;
	link->version = KLINK_VERSION;
}

/* trust_service -- the kernel imported its boot modules in this power-on:
 * the program bin/linkd names now is the one the service runs from */
static void trust_service(void)
{
	uint64_t code = 0;

	if (os_cat_lookup(&kheap, SERVICE_PROGRAM, strlen(SERVICE_PROGRAM), &code) ||
	    kobj_type(code) != OS_TYPE_CODE)
		code = 0;
	if (code == link->service)
		return;
	if (code)
		kobj_hold(code);
	if (link->service)
		kobj_release(link->service);
	KLOG(&link->service);
	link->service = code;
}

/* hostlink_power_on -- the link's object found (or made); the service's
 * program trusted anew if the boot modules were imported; readers get
 * -ERR_RESET first, and are woken to get it */
void hostlink_power_on(void)
{
	find_link();
	if (modules_wanted())
		trust_service();
	reset_pending = true;
	sched_wake(KWAIT_LINK, 0);
	readers = false;
}

/* is_service -- whether p is the service the kernel started */
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

/* start_service -- the service, from the trusted program, holding the
 * link's handle; whether it started (else the console says why) */
static bool start_service(void)
{
	struct spawn_grant grant = { .object = link_id, .rights = SERVICE_RIGHTS };

	if (!link->service) {
		pr_warn("hostlink: no link service: the boot modules had no bin/linkd (power on with `import` to install it)\n");
		return false;
	}
	return proc_start(link->service, SERVICE_NAME, KPROC_LINK, &grant) != NULL;
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
		if (!sched_holding() && !service_alive() && !start_service())
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
		uart_link_release_to(uart_link_mark());
}

/* hostlink_commit_mark -- how far output is written */
uint32_t hostlink_commit_mark(void)
{
	return uart_link_mark();
}

/* hostlink_release_to -- the output written before `mark` may go to the host */
void hostlink_release_to(uint32_t mark)
{
	if (present)
		uart_link_release_to(mark);
}

/* hostlink_power -- whether p's `handle` names the link's object with
 * every right in `need`: 0, or -ERR_BADF, -ERR_PERM, -ERR_INVAL as
 * handle_lookup says (a handle to anything else is of the wrong type) */
int hostlink_power(struct pctx *p, int64_t handle, uint32_t need)
{
	struct khandle *h;
	int err = handle_lookup(p, handle, HANDLE_TYPE(OS_TYPE_KERNEL), need, &h);

	if (err)
		return err;
	return h->object == link_id ? 0 : -ERR_INVAL;
}

/* link_call -- the checks both calls make: p's handle carries the power,
 * the link exists, and p's buf holds *len bytes (clamped to CHUNK) with
 * `access` */
static int link_call(struct pctx *p, int64_t handle, uint32_t need,
		     uint64_t buf, uint64_t *len, unsigned access)
{
	int err = hostlink_power(p, handle, need);

	if (err)
		return err;
	if (!present)
		return -ERR_NOTSUP;
	if (*len > CHUNK)
		*len = CHUNK;
	return uvm_check(&p->mem, buf, *len, access) ? -ERR_FAULT : 0;
}

/* hostlink_read -- SYS_LINK_READ */
int64_t hostlink_read(struct trap_frame *tf, struct pctx *p, int64_t handle,
		      uint64_t buf, uint64_t cap)
{
	static char bytes[CHUNK]; /* the kernel lock is held */
	size_t n;
	int err = link_call(p, handle, FE_RIGHT_READ, buf, &cap, UVM_WRITE);

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
int64_t hostlink_write(struct trap_frame *tf, struct pctx *p, int64_t handle,
		       uint64_t buf, uint64_t len)
{
	static char bytes[CHUNK]; /* the kernel lock is held */
	size_t room;
	int err = link_call(p, handle, FE_RIGHT_WRITE, buf, &len, UVM_READ);

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

/* move_check -- SYS_LINK_MOVE's checks: the link's power for the
 * direction, the window, the object's handle and rights, both ranges ->
 * 0 and the object's id, or -ERR_x */
static int move_check(struct pctx *p, int64_t link_handle, int64_t object,
		      const struct fe_link_move *m, uint64_t *id)
{
	bool in = m->direction == FE_LINK_TO_OBJECT;
	struct os_obj_info info;
	struct khandle *h;
	int err;

	if (!in && m->direction != FE_LINK_TO_WINDOW)
		return -ERR_INVAL;
	err = hostlink_power(p, link_handle, in ? FE_RIGHT_READ : FE_RIGHT_WRITE);
	if (err)
		return err;
	if (!present || !window.size)
		return -ERR_NOTSUP;
	err = handle_lookup(p, object, handle_types(USE_BYTES),
			    in ? FE_RIGHT_WRITE : FE_RIGHT_READ, &h);
	if (err)
		return err;
	if (m->length > FE_IO_MAX)
		return -ERR_INVAL;
	if (m->at > window.size || m->length > window.size - m->at)
		return -ERR_RANGE;
	err = os_obj_head(&kheap, h->object, &info); /* not _stat: it counts the pages */
	if (err)
		return err;
	if (m->offset > info.size || m->length > info.size - m->offset)
		return -ERR_RANGE;
	*id = h->object;
	return 0;
}

/* to_object -- window bytes [at, at+length) to the object at offset, then
 * read back -> their CRC-32 continued from crc, or -ERR_x (no room) */
static int64_t to_object(uint64_t id, const struct fe_link_move *m)
{
	static uint8_t back[FE_IO_MAX]; /* the kernel lock is held */
	int64_t n = pagecache_write(id, m->offset, window.base + m->at, m->length);

	if (n >= 0 && (uint64_t)n == m->length)
		n = pagecache_read(id, m->offset, back, m->length);
	if (n < 0)
		return n;
	if ((uint64_t)n != m->length)
		return -ERR_IO;
	return crc32(m->crc, back, m->length);
}

/* to_window -- the object's bytes [offset, offset+length) to the window
 * at `at` -> their CRC-32 there, continued from crc, or -ERR_x */
static int64_t to_window(uint64_t id, const struct fe_link_move *m)
{
	int64_t n = pagecache_read(id, m->offset, window.base + m->at, m->length);

	if (n < 0)
		return n;
	if ((uint64_t)n != m->length)
		return -ERR_IO;
	return crc32(m->crc, window.base + m->at, m->length);
}

/* hostlink_move -- SYS_LINK_MOVE */
int64_t hostlink_move(struct pctx *p, int64_t link_handle, int64_t object,
		      uint64_t request)
{
	struct fe_link_move m;
	uint64_t id;
	int err = uvm_copy_in(&p->mem, &m, request, sizeof(m));

	if (!err)
		err = move_check(p, link_handle, object, &m, &id);
	if (err)
		return err;
	return m.direction == FE_LINK_TO_OBJECT ? to_object(id, &m) : to_window(id, &m);
}

/* hostlink_info -- SYS_LINK_INFO */
int64_t hostlink_info(struct pctx *p, int64_t link_handle, uint64_t out)
{
	struct fe_link_info info = {0};
	int err = hostlink_power(p, link_handle, 0);

	if (err)
		return err;
	if (present)
		info.window = window.size;
	return uvm_copy_out(&p->mem, out, &info, sizeof(info));
}
