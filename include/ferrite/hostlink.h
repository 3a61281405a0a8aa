/*
 * hostlink.h -- the host link's protocol: the frames a host (tools/fe)
 * and the link's service (bin/linkd) exchange over the machine's second
 * serial port. docs/hostlink.md tells what each frame means.
 *
 * This file is the protocol's one definition. user/bin/linkd.c compiles
 * it; tools/hostlink.py reads it when imported (the #defines, the enums
 * and the structures below, by their names) and copies nothing; and
 * tests/system/test_hostlink_header.py sets what the Python made of it
 * against what the C compiler makes of it, so the two sides cannot drift.
 * For the Python's reader, keep to: one #define a line, of a number or an
 * integer expression of numbers, earlier names and sizeof(struct ...);
 * enumerators with their values; packed structures of one field a line,
 * of uint8_t to uint64_t and int64_t, or arrays of uint8_t.
 *
 * On the wire a frame is COBS(header, payload, CRC-32 of both), then one
 * 0x00 byte. Every integer is little-endian: the structures are the
 * wire's bytes as a little-endian CPU lays them out (the assertion below
 * keeps a big-endian build from compiling). A payload is one of the
 * structures below, then the variable part its comment names.
 *
 * Bulk data may go another way: the window, memory the host and the
 * machine both map (QEMU's ivshmem-plain device over a file beside the
 * NVM image). Then the frames only say where the bytes are: a put's
 * PUT_SPAN says "my bytes [offset, offset+length) wait in the window at
 * `at`", a windowed get's GET_SPAN asks for the object's bytes there, and
 * the machine's SPAN answers each once the bytes are stored, or in place.
 */
#ifndef FERRITE_HOSTLINK_H
#define FERRITE_HOSTLINK_H

#include <stdint.h>

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "host-link structures are the wire's bytes: little-endian CPUs only");

#define HOSTLINK_VERSION 1
#define HOSTLINK_DATA_MAX 4096u                 /* bytes of one DATA frame */
#define HOSTLINK_RUN_LINE_MAX 4000u             /* a RUN's command line: fits osh's argv */
#define HOSTLINK_CRC_SIZE 4u                    /* the CRC-32 after the payload */

/* Frame types: requests from the host, answers (bit 7) from the machine. */
enum hostlink_type {
	HOSTLINK_REQ_HELLO = 0x01,
	HOSTLINK_REQ_LS = 0x02,
	HOSTLINK_REQ_GET = 0x03,
	HOSTLINK_REQ_PUT = 0x04,
	HOSTLINK_REQ_DATA = 0x05,
	HOSTLINK_REQ_RUN = 0x06,
	HOSTLINK_REQ_PUT_SPAN = 0x07,
	HOSTLINK_REQ_GET_WINDOW = 0x08,
	HOSTLINK_REQ_GET_SPAN = 0x09,
	HOSTLINK_ANS_HELLO = 0x81,
	HOSTLINK_ANS_NAMES = 0x82,
	HOSTLINK_ANS_INFO = 0x83,
	HOSTLINK_ANS_READY = 0x84,
	HOSTLINK_ANS_DATA = 0x85,
	HOSTLINK_ANS_OUT = 0x86,
	HOSTLINK_ANS_EXIT = 0x87,
	HOSTLINK_ANS_SPAN = 0x88,
	HOSTLINK_ANS_END = 0x8f,
	HOSTLINK_ANS_ERR = 0xff,
};

/* What a PUT makes (struct hostlink_put.kind). */
enum hostlink_kind {
	HOSTLINK_KIND_BLOB = 1,
	HOSTLINK_KIND_CODE = 2,
};

/* Every frame's first bytes; the payload follows, then the CRC-32. */
struct hostlink_header {
	uint8_t version;        /* HOSTLINK_VERSION */
	uint8_t type;           /* enum hostlink_type */
	uint16_t reserved;      /* 0 */
	uint32_t tag;           /* the host's, for a request; its request's, for an answer */
	uint32_t length;        /* payload bytes */
} __attribute__((packed));

/* REQ_HELLO: a nonce the answer carries back. */
struct hostlink_hello {
	uint8_t nonce[8];
} __attribute__((packed));

/* ANS_HELLO. */
struct hostlink_hello_answer {
	uint8_t nonce[8];
	uint32_t version;       /* HOSTLINK_VERSION */
	uint32_t data_max;      /* the most bytes in a DATA frame: HOSTLINK_DATA_MAX */
	uint64_t window;        /* bytes of the bulk window; 0: none (DATA frames only) */
} __attribute__((packed));

/* REQ_PUT; then the name (1 to FE_NAME_MAX bytes). */
struct hostlink_put {
	uint64_t size;
	uint32_t crc;           /* CRC-32 of the whole content */
	uint8_t kind;           /* enum hostlink_kind */
} __attribute__((packed));

/* REQ_DATA and ANS_DATA; then up to HOSTLINK_DATA_MAX bytes. */
struct hostlink_data {
	uint64_t offset;
} __attribute__((packed));

/* REQ_PUT_SPAN: the put's bytes [offset, offset+length) wait in the
 * window at [at, at+length); in order, like DATA. REQ_GET_SPAN: a windowed
 * get's bytes [offset, offset+length) into the window at `at`; in order. */
struct hostlink_span {
	uint64_t offset;        /* in the object */
	uint64_t at;            /* in the window */
	uint64_t length;        /* 1 to the window's size */
} __attribute__((packed));

/* ANS_SPAN: a span done. For a put, its bytes are stored and the host may
 * reuse that part of the window; for a get, the bytes are in the window.
 * crc: the CRC-32 of the span's bytes (a put's, read back from the heap). */
struct hostlink_span_answer {
	uint64_t offset;
	uint64_t at;
	uint64_t length;
	uint32_t crc;
} __attribute__((packed));

/* ANS_NAMES: entries one after another, each this and then its name. */
struct hostlink_name_entry {
	uint8_t type;           /* FE_TYPE_* */
	uint64_t size;
	uint64_t id;
	uint8_t name_len;
} __attribute__((packed));

/* ANS_INFO: what a GET's object is. */
struct hostlink_info {
	uint64_t size;
	uint64_t modified_epoch;
	uint32_t type;          /* FE_TYPE_* */
	uint32_t reserved;      /* 0 */
} __attribute__((packed));

/* ANS_EXIT: how a RUN's command ended; then, for a fault, the kernel's
 * one-line account. */
struct hostlink_exit {
	int64_t status;
	uint32_t reason;        /* FE_EXIT_NORMAL, _KILLED, _FAULT, _INTERRUPT */
} __attribute__((packed));

/* ANS_END of an LS. */
struct hostlink_end_ls {
	uint64_t count;         /* names sent */
} __attribute__((packed));

/* ANS_END of a GET. */
struct hostlink_end_get {
	uint64_t size;
	uint32_t crc;           /* CRC-32 of every byte sent */
} __attribute__((packed));

/* ANS_END of a PUT, once the object is named and durable. */
struct hostlink_end_put {
	uint64_t size;
} __attribute__((packed));

/* ANS_ERR; then a line of text. */
struct hostlink_error {
	uint32_t code;          /* ERR_* of <ferrite/errors.h>, positive */
} __attribute__((packed));

/* A payload's most bytes: a DATA frame's. */
#define HOSTLINK_PAYLOAD_MAX (sizeof(struct hostlink_data) + HOSTLINK_DATA_MAX)
/* A frame's most bytes, decoded. */
#define HOSTLINK_FRAME_MAX (sizeof(struct hostlink_header) + HOSTLINK_PAYLOAD_MAX + HOSTLINK_CRC_SIZE)
/* ... and encoded: COBS adds a byte per 254, and one more; the 0x00 not counted. */
#define HOSTLINK_ENCODED_MAX (HOSTLINK_FRAME_MAX + HOSTLINK_FRAME_MAX / 254 + 2)

_Static_assert(sizeof(struct hostlink_header) == 12, "the frame header is 12 bytes");
_Static_assert(sizeof(struct hostlink_put) == 13, "a PUT's fixed part is 13 bytes");
_Static_assert(sizeof(struct hostlink_name_entry) == 18, "a NAMES entry's fixed part is 18 bytes");
_Static_assert(sizeof(struct hostlink_info) == 24, "an INFO is 24 bytes");
_Static_assert(sizeof(struct hostlink_hello_answer) == 24, "a HELLO answer is 24 bytes");
_Static_assert(sizeof(struct hostlink_span) == 24, "a span is 24 bytes");
_Static_assert(sizeof(struct hostlink_span_answer) == 28, "a SPAN answer is 28 bytes");
_Static_assert(HOSTLINK_ENCODED_MAX == 4138, "docs/hostlink.md: 4,138 bytes encoded at most");

#endif
