/*
 * channel.h -- sending and receiving on channels (channel.c).
 */
#ifndef TASK_CHANNEL_H
#define TASK_CHANNEL_H

#include <stdint.h>

#include "kformat/kformat.h"

int channel_create(uint64_t *id);
void channel_end_opened(uint64_t id, uint8_t end);
void channel_end_closed(uint64_t id, uint8_t end);
/* channel_carried_dropped -- the message h no longer carries its channel end
 * (received: the new handle counts it now; or destroyed unreceived) */
void channel_carried_dropped(const struct kmsg_header *h);
/* channel_deleted -- kobj_on_delete's hook: a channel about to be deleted
 * releases its queues and what queued messages carry (idempotent: the
 * reaper may call it again after a partial delete) */
void channel_deleted(uint64_t id, uint16_t type);

int channel_send(uint64_t id, uint8_t end, const void *buf, uint32_t len,
		 uint64_t object, uint32_t rights, uint8_t object_end);
/* channel_room -- how many more messages end `end` may send before its
 * queue is full */
unsigned channel_room(uint64_t id, uint8_t end);
int channel_peek(uint64_t id, uint8_t end, void *buf, uint32_t cap,
		 struct kmsg_header *h);
void channel_pop(uint64_t id, uint8_t end);

#endif
