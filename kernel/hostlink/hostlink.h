/*
 * hostlink.h -- the host link: a byte stream between the host and the
 * link service, a user program (bin/linkd) holding the link's capability,
 * with output commit (hostlink.c; the protocol on top is docs/hostlink.md).
 */
#ifndef HOSTLINK_HOSTLINK_H
#define HOSTLINK_HOSTLINK_H

#include <stdbool.h>
#include <stdint.h>

struct pctx;
struct trap_frame;

/* hostlink_init -- find the link's UART (COM2); without one the link
 * calls fail with -ERR_NOTSUP */
void hostlink_init(void);

/* hostlink_power_on -- after the kernel root: the link's object found (or
 * made), the service's program trusted anew if the boot modules were
 * imported; the host's side of the link is new: readers get -ERR_RESET
 * first, and the service wakes to say so */
void hostlink_power_on(void);

/* hostlink_poll -- at every return to user mode and while idle: wake
 * readers and writers, start the service when bytes come and none runs */
void hostlink_poll(void);

/* hostlink_tick -- at every timer tick, in interrupt context: service the
 * UART (an interrupt edge lost delays the link by a tick, no more) */
void hostlink_tick(void);

/* hostlink_output_waiting -- whether output waits for a commit */
bool hostlink_output_waiting(void);

/* hostlink_release -- right after a commit durable when it completes: the
 * output written so far may go to the host */
void hostlink_release(void);

/* hostlink_commit_mark -- how far output is written (what a commit covers) */
uint32_t hostlink_commit_mark(void);

/* hostlink_release_to -- the output written before `mark`, a
 * hostlink_commit_mark taken at a commit now durable, may go to the host */
void hostlink_release_to(uint32_t mark);

/* hostlink_power -- whether p's `handle` names the link's object with
 * every right in `need` (FE_RIGHT_READ: read the link, FE_RIGHT_WRITE:
 * write it, FE_RIGHT_EXEC: make code objects from blobs): 0, or
 * -ERR_BADF, -ERR_PERM, -ERR_INVAL */
int hostlink_power(struct pctx *p, int64_t handle, uint32_t need);

/* hostlink_read -- SYS_LINK_READ: up to cap bytes from the host into p's
 * buf, with the link's handle (READ); blocks until at least one came */
int64_t hostlink_read(struct trap_frame *tf, struct pctx *p, int64_t handle,
		      uint64_t buf, uint64_t cap);

/* hostlink_write -- SYS_LINK_WRITE: up to len bytes of p's buf for the
 * host, with the link's handle (WRITE), sent once the running epoch
 * committed; blocks while none fit */
int64_t hostlink_write(struct trap_frame *tf, struct pctx *p, int64_t handle,
		       uint64_t buf, uint64_t len);

/* hostlink_move -- SYS_LINK_MOVE: the bytes p's struct fe_link_move at
 * `request` asks for, between the link's window and the object of p's
 * handle `object`, all or none, with the link's handle (READ to the
 * object, WRITE to the window) -> their CRC-32, or -ERR_NOTSUP without a
 * window, -ERR_RANGE outside it or the object, the handles' errors */
int64_t hostlink_move(struct pctx *p, int64_t link_handle, int64_t object,
		      uint64_t request);

/* hostlink_info -- SYS_LINK_INFO: what the link offers (struct
 * fe_link_info: the window's size) into p's `out`, with the link's handle */
int64_t hostlink_info(struct pctx *p, int64_t link_handle, uint64_t out);

#endif
