/*
 * sys_channel.c -- the system calls on channels: create, send, receive.
 *
 * A channel has two ends, each a bounded queue of messages (channel.c). A
 * handle names one end; a message may carry one handle (its object, rights
 * and end) to the receiver, who gets a new handle to it. Receiving blocks
 * while the queue is empty, unless FE_CHAN_NONBLOCK.
 */
#include "ferrite/errors.h"
#include "task/channel.h"
#include "task/handle.h"
#include "obj/kobj.h"
#include "task/proc.h"
#include "task/sched.h"
#include "uvm/uvm.h"
#include "syscall/syscall.h"

#define CHANNEL_RIGHTS (FE_RIGHT_READ | FE_RIGHT_WRITE | FE_RIGHT_GRANT)

/* SYS_CHAN_CREATE (ends[2]) -> 0, a handle to each end in ends */
int64_t sys_chan_create(struct syscall *call)
{
	struct pctx *p = call->caller;
	const uint64_t ends_ptr = call->arg[0];
	int32_t ends[2] = {-1, -1};
	uint64_t id;
	int err;

	if (handle_full(p, 2))
		return -ERR_NOSPC;
	err = uvm_copy_out(&p->mem, ends_ptr, ends, sizeof(ends)); /* check before creating */
	if (err)
		return err;
	err = channel_create(&id);
	if (err)
		return err;
	for (int e = 0; e < 2; e++) {
		kobj_hold(id);
		ends[e] = handle_install(p, id, CHANNEL_RIGHTS, (uint8_t)e);
	}
	kobj_release(id); /* the handles hold it now */
	return uvm_copy_out(&p->mem, ends_ptr, ends, sizeof(ends));
}

/* SYS_CHAN_SEND (handle, msg, len, passed handle or -1) -> 0 */
int64_t sys_chan_send(struct syscall *call)
{
	static uint8_t msg[FE_CHAN_MSG_MAX];
	struct pctx *p = call->caller;
	const int64_t handle = (int64_t)call->arg[0];
	const uint64_t msg_ptr = call->arg[1], len = call->arg[2];
	const int64_t passed = (int64_t)call->arg[3];
	struct khandle *e, *pass = NULL;
	int err;

	err = handle_lookup(p, handle, HANDLE_TYPE(OS_TYPE_CHANNEL), FE_RIGHT_WRITE, &e);
	if (err)
		return err;
	if (len > FE_CHAN_MSG_MAX)
		return -ERR_TOOBIG;
	if (passed != -1) {
		err = handle_lookup(p, passed, HANDLE_ANY_TYPE, FE_RIGHT_GRANT, &pass);
		if (err)
			return err;
		if (pass->object == e->object)
			return -ERR_INVAL; /* a channel holding itself could never be freed */
	}
	err = uvm_copy_in(&p->mem, msg, msg_ptr, len);
	if (err)
		return err;
	return channel_send(e->object, e->end, msg, (uint32_t)len,
			    pass ? pass->object : 0, pass ? pass->rights : 0,
			    pass ? pass->end : 0);
}

/* SYS_CHAN_RECV (handle, buf, cap, struct fe_msg_info, flags) -> the
 * message's bytes copied (at most cap); blocks while none is queued */
int64_t sys_chan_recv(struct syscall *call)
{
	static uint8_t msg[FE_CHAN_MSG_MAX];
	struct pctx *p = call->caller;
	const int64_t handle = (int64_t)call->arg[0];
	const uint64_t buf = call->arg[1], info_ptr = call->arg[3];
	const uint64_t flags = call->arg[4];
	uint64_t cap = call->arg[2] < FE_CHAN_MSG_MAX ? call->arg[2] : FE_CHAN_MSG_MAX;
	struct fe_msg_info info = {.handle = -1};
	struct kmsg_header h;
	struct khandle *e;
	int err;

	if (flags & ~(uint64_t)FE_CHAN_NONBLOCK)
		return -ERR_INVAL;
	err = handle_lookup(p, handle, HANDLE_TYPE(OS_TYPE_CHANNEL), FE_RIGHT_READ, &e);
	if (err)
		return err;
	err = channel_peek(e->object, e->end, msg, (uint32_t)cap, &h);
	if (err == -ERR_AGAIN && !(flags & FE_CHAN_NONBLOCK)) {
		sched_block(call->tf, KWAIT_CHANNEL, e->object, 0);
		return SYSCALL_BLOCKED;
	}
	if (err)
		return err;
	if (h.object && handle_full(p, 1))
		return -ERR_NOSPC;
	info.len = h.len;
	if (cap > h.len)
		cap = h.len;
	err = uvm_copy_out(&p->mem, buf, msg, cap);
	if (!err)
		err = uvm_copy_out(&p->mem, info_ptr, &info, sizeof(info));
	if (err)
		return err; /* the message stays queued */
	channel_pop(e->object, e->end);
	if (h.object) {
		info.handle = (int32_t)install_new(p, h.object, h.rights, h.end);
		channel_carried_dropped(&h); /* after install: never seen closed */
		uvm_copy_out(&p->mem, info_ptr, &info, sizeof(info)); /* checked above */
	}
	return (int64_t)cap;
}
