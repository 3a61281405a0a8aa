/*
 * kvproto.h -- the protocol between kvd (the key-value service) and kv (its
 * client), over channels. docs/programs.md describes both programs.
 *
 * kvd creates a channel, keeps end 0 and binds the channel to KV_SERVICE;
 * a client opens the name (which gives end 1) and sends one request: a
 * struct kv_request, the key, then the value. The message carries the
 * sending end of a reply channel the client made; kvd answers with one
 * struct kv_reply and its payload on that end, then closes it. A client
 * closes its own copy of the end it passed at once: a channel end carried
 * by a queued message counts as open, so the client waits for the answer
 * and learns -ERR_PEER only if kvd goes away without answering.
 *
 * Everything lives in persistent memory and channels: requests queued
 * while the power is off are served after power-on, and a client waiting
 * for its answer across a cut gets it when kvd runs again.
 */
#ifndef KVPROTO_H
#define KVPROTO_H

#include <stdint.h>

#include <ferrite/syscall.h>

#define KV_SERVICE "svc/kv"          /* the channel kvd serves */
#define KV_GATE "svc/kv.resume"      /* the channel a paused kvd waits on */

#define KV_KEY_MAX 255u              /* bytes of a key (no NUL in it) */
#define KV_VALUE_MAX 3584u           /* bytes of a value */

enum kv_op {
	KV_PUT = 1,      /* key, value -> status */
	KV_GET = 2,      /* key -> the value */
	KV_DEL = 3,      /* key -> status */
	KV_LIST = 4,     /* key (a cursor, may be empty) -> names after it, in byte order */
	KV_PAUSE = 5,    /* -> status; then kvd serves nothing until a message on KV_GATE */
	KV_PING = 6,     /* no reply expected: a new kvd asks whether the old one is alive */
	KV_RESUME = 7,   /* sent on KV_GATE, not KV_SERVICE -> status */
};

struct kv_request {
	uint32_t op;             /* enum kv_op */
	uint32_t key_len;        /* bytes of key after this header */
	uint32_t value_len;      /* bytes of value after the key */
	uint32_t reserved;       /* 0 */
};

struct kv_reply {
	int32_t status;          /* 0, or -ERR_x: -ERR_NOENT for a missing key */
	uint32_t len;            /* bytes of payload after this header */
	uint32_t more;           /* KV_LIST: 1 if names follow the last one sent */
	uint32_t reserved;       /* 0 */
};

/* KV_LIST payload: names, each followed by a NUL byte. */

_Static_assert(sizeof(struct kv_request) + KV_KEY_MAX + KV_VALUE_MAX <= FE_CHAN_MSG_MAX,
	       "the largest request fits one message");
_Static_assert(sizeof(struct kv_reply) + KV_VALUE_MAX <= FE_CHAN_MSG_MAX,
	       "the largest value fits one reply");

#endif
