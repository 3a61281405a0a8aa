/*
 * channel.c -- channels: persistent, bounded message queues between processes.
 *
 * A channel has two ends, 0 and 1. Each end sends into its own queue
 * (queue[e]) and receives from the other's. A queue is an anonymous object
 * of FE_CHAN_QUEUE one-page slots used as a ring (head, count in the
 * channel object); a slot is a kmsg_header and up to FE_CHAN_MSG_MAX bytes.
 * A message may carry one object (a handle's object and rights), holding a
 * reference to it until it is received or the channel is destroyed.
 *
 * Sending never blocks: a full queue is -ERR_NOSPC. Receiving blocks until
 * a message arrives (restartable). An end is "closed" when no handle names
 * it and no queued message carries it: sending to it, or waiting on an empty
 * queue whose sender is closed, is -ERR_PEER. Counting an end in flight as
 * open lets a client pass the sending end of a reply channel and close its
 * own copy: it then waits until the reply comes, or until the server drops
 * the end unanswered (-ERR_PEER), never forever. Opening a channel by name
 * gives end 1, so a service keeps end 0 and binds the channel to a name for
 * its clients.
 *
 * Invariant: open[e] == handles naming end e + queued messages carrying end e.
 */
#include <string.h>

#include "core/heap.h"
#include "core/panic.h"
#include "ferrite/errors.h"
#include "objstore/object.h"
#include "task/channel.h"
#include "obj/kobj.h"
#include "task/proc.h"
#include "task/sched.h"

#define SLOT_BYTES FE_PAGE_SIZE

_Static_assert(sizeof(struct kmsg_header) + FE_CHAN_MSG_MAX <= SLOT_BYTES,
	       "a message fits its slot");

/* channel_create -- a channel with two empty queues; refcount 1 */
int channel_create(uint64_t *id)
{
	struct kchannel *c;
	void *data;
	int err = kobj_new(OS_TYPE_CHANNEL, sizeof(*c), KCHANNEL_MAGIC, id, &data);

	if (err)
		return err;
	c = data;
	for (int e = 0; e < 2 && !err; e++)
		err = os_obj_create(&kheap, OS_TYPE_ANON,
				    (uint64_t)FE_CHAN_QUEUE * SLOT_BYTES,
				    &c->queue[e].object);
	if (err)
		kobj_release(*id);
	return err;
}

/* channel_of -- the channel object `id` (a live handle guarantees it) */
static struct kchannel *channel_of(uint64_t id)
{
	struct kchannel *c = kobj_data(id, OS_TYPE_CHANNEL, KCHANNEL_MAGIC);

	if (!c)
		heap_damaged("object #%llu is not a channel", (unsigned long long)id);
	return c;
}

void channel_end_opened(uint64_t id, uint8_t end)
{
	struct kchannel *c = channel_of(id);

	KLOG(&c->open[end & 1]);
	c->open[end & 1]++;
}

void channel_end_closed(uint64_t id, uint8_t end)
{
	struct kchannel *c = channel_of(id);

	KLOG(&c->open[end & 1]);
	c->open[end & 1]--;
	sched_wake(KWAIT_CHANNEL, id); /* receivers may now see -ERR_PEER */
}

/* channel_carried_dropped -- a message that carried a channel end no longer does */
void channel_carried_dropped(const struct kmsg_header *h)
{
	if (h->object && kobj_type(h->object) == OS_TYPE_CHANNEL)
		channel_end_closed(h->object, h->end);
}

/* channel_destroy -- release the queues and what queued messages carry */
static void channel_destroy(struct kchannel *c)
{
	for (int e = 0; e < 2; e++) {
		struct kchan_queue *q = &c->queue[e];

		for (uint32_t i = 0; i < q->count; i++) {
			struct kmsg_header h;
			uint64_t slot = (q->head + i) % FE_CHAN_QUEUE;

			if (os_obj_read(&kheap, q->object, slot * SLOT_BYTES, &h,
					sizeof(h)) == sizeof(h) && h.object) {
				channel_carried_dropped(&h);
				kobj_release(h.object);
			}
		}
		if (q->object)
			kobj_release(q->object);
		KLOG(q);
		q->object = 0; /* done: destroying again releases nothing */
		q->count = 0;
	}
}

/* channel_deleted -- kobj_on_delete's hook: a channel about to go releases
 * what it holds (again, harmlessly, if an earlier deletion was cut) */
void channel_deleted(uint64_t id, uint16_t type)
{
	struct kchannel *c;

	if (type != OS_TYPE_CHANNEL)
		return;
	c = kobj_data(id, OS_TYPE_CHANNEL, KCHANNEL_MAGIC);
	if (c)
		channel_destroy(c);
}

/* channel_send -- queue a message from end `end`; passes `object` if non-zero */
int channel_send(uint64_t id, uint8_t end, const void *buf, uint32_t len,
		 uint64_t object, uint32_t rights, uint8_t object_end)
{
	struct kchannel *c = channel_of(id);
	struct kchan_queue *q = &c->queue[end & 1];
	struct kmsg_header h = {
		.len = len, .rights = rights, .object = object, .end = object_end,
	};
	uint64_t at;
	int64_t wrote;

	if (len > FE_CHAN_MSG_MAX)
		return -ERR_TOOBIG;
	if (!c->open[!(end & 1)])
		return -ERR_PEER;
	if (q->count == FE_CHAN_QUEUE)
		return -ERR_NOSPC;
	at = (uint64_t)((q->head + q->count) % FE_CHAN_QUEUE) * SLOT_BYTES;
	wrote = os_obj_write(&kheap, q->object, at, &h, sizeof(h));
	if (wrote == sizeof(h) && len)
		wrote = os_obj_write(&kheap, q->object, at + sizeof(h), buf, len);
	if (wrote < 0)
		return (int)wrote;
	if (object) {
		kobj_hold(object);
		if (kobj_type(object) == OS_TYPE_CHANNEL)
			channel_end_opened(object, object_end);
	}
	KLOG(q);
	q->count++;
	sched_wake(KWAIT_CHANNEL, id);
	return 0;
}

/* channel_room -- messages end `end` may send before its queue is full */
unsigned channel_room(uint64_t id, uint8_t end)
{
	return FE_CHAN_QUEUE - channel_of(id)->queue[end & 1].count;
}

/* channel_peek -- the oldest message for end `end`: its header, and its
 * bytes (up to cap) in buf; -ERR_AGAIN if none, -ERR_PEER if none can come */
int channel_peek(uint64_t id, uint8_t end, void *buf, uint32_t cap,
		 struct kmsg_header *h)
{
	struct kchannel *c = channel_of(id);
	struct kchan_queue *q = &c->queue[!(end & 1)];
	uint64_t at = (uint64_t)q->head * SLOT_BYTES;
	int64_t got;

	if (!q->count)
		return c->open[!(end & 1)] ? -ERR_AGAIN : -ERR_PEER;
	got = os_obj_read(&kheap, q->object, at, h, sizeof(*h));
	if (got != sizeof(*h) || h->len > FE_CHAN_MSG_MAX || h->end > 1 ||
	    h->rights & ~FE_RIGHTS_ALL || (h->object && !kobj_type(h->object)))
		heap_damaged("channel #%llu: the header of a queued message is damaged",
			     (unsigned long long)id);
	if (cap > h->len)
		cap = h->len;
	got = os_obj_read(&kheap, q->object, at + sizeof(*h), buf, cap);
	return got < 0 ? (int)got : 0;
}

/* channel_pop -- drop the oldest message for end `end` (after channel_peek;
 * the reference it carried now belongs to the receiver) */
void channel_pop(uint64_t id, uint8_t end)
{
	struct kchannel *c = channel_of(id);
	struct kchan_queue *q = &c->queue[!(end & 1)];

	KLOG(q);
	q->head = (q->head + 1) % FE_CHAN_QUEUE;
	q->count--;
	sched_wake(KWAIT_CHANNEL, id); /* a console sink's writer may wait for room */
}
