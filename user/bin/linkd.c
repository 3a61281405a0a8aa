/*
 * linkd.c -- the host link's service: what tools/fe talks to.
 *
 * The kernel starts linkd (marked as the link's service, from the program
 * bin/linkd named when it imported its boot modules) when bytes arrive on
 * the host link and none runs, and hands it the link's handle as its
 * first inherited handle (LINK): the one power linkd has that other
 * programs lack -- reading the link, writing it, making code objects from
 * blobs -- and one it cannot pass on. It is an ordinary process otherwise,
 * persistent like every other. It reads frames from the link
 * (SYS_LINK_READ), does what they ask with ordinary system calls, and
 * answers (SYS_LINK_WRITE). The frames are <ferrite/hostlink.h>'s, which
 * docs/hostlink.md explains; in short:
 *
 *   frame   = COBS(header, payload, CRC-32 of both), then one 0x00 byte
 *   header  = version 1, type, 2 reserved bytes, tag (u32), payload length (u32)
 *
 * The guarantees come from the kernel's output commit: whatever linkd
 * writes to the link leaves the machine only once the epoch it was written
 * in committed. So
 *  - get: every byte sent was read in an epoch that committed: committed
 *    state. An object that changed between its chunks (its modified epoch
 *    moved) ends the get with ERR_BUSY instead of END, never torn bytes.
 *  - put: the bytes go into a new object that only linkd's handle holds;
 *    once all arrived and their CRC-32 (read back from the heap) matches,
 *    one SYS_NAME_REPLACE binds the name to it -- the old object, if any,
 *    stays with whoever runs or holds it -- then SYS_SYNC, then END. A
 *    power cut before the name is bound leaves no object: the link starts
 *    over at power-on (-ERR_RESET), and linkd closes the handle, the
 *    object's only reference. After it, the END may be lost with the
 *    connection, but the object is whole.
 *  - the window: when the machine has one (SYS_LINK_INFO), a put's bytes
 *    may wait in it instead of DATA frames (PUT_SPAN), and a get's go
 *    there (GET_WINDOW, GET_SPAN): SYS_LINK_MOVE copies them between the
 *    window and the object, 64 KiB a call, and returns the CRC-32 of what
 *    it moved -- for a put, read back from the heap -- which each SPAN
 *    answer carries to the host (the CRC of the transfer so far). A put
 *    whose bytes all came that way was read back span by span: its final
 *    check uses that CRC instead of reading the object again. The SPAN
 *    answers are output like any other, released after the commit: the
 *    host reads a part of the window, or fills it again, only once told.
 *  - run: `osh -c LINE` with its console sent to a channel
 *    (SYS_CONSOLE_SINK, inherited by what it starts), forwarded as OUT
 *    frames by a second thread, then EXIT with how it ended, once every
 *    writer closed its end (a job left running with & holds it).
 *
 * Bad frames are answered with ERR and dropped, whatever they hold: the
 * framing resynchronises at the next 0x00, a put in progress is abandoned
 * (and the rest of its DATA dropped unanswered, so that a host still
 * sending is not answered frame by frame).
 */
#include <crc32.h>
#include <fe.h>
#include <ferrite/hostlink.h>

#define LINK FE_INHERITED_HANDLE(0)          /* the link's handle, from the kernel */

/* A put in progress: the object being filled, only held by `handle`. */
struct put {
	bool active;
	uint32_t tag;
	int32_t handle;
	uint8_t kind;
	uint64_t size, got;
	uint32_t crc;                        /* what the host says the bytes make */
	bool framed;                         /* some bytes came in DATA frames */
	uint32_t crc_back;                   /* the CRC-32 of the bytes got, read back
					      * from the heap (when all came by the window) */
	uint16_t name_len;
	char name[FE_NAME_MAX];
};

/* A get through the window in progress: the object, its state when the
 * get began, and what was sent. */
struct wget {
	bool active;
	uint32_t tag;
	int32_t handle;
	struct fe_stat before;
	uint64_t sent;
	uint32_t crc;                        /* of the bytes sent so far */
	uint16_t name_len;
	char name[FE_NAME_MAX];
};

/* A run in progress (shared with its thread, under `lock`). */
struct run {
	struct fe_mutex lock;
	bool active;
	uint32_t tag;
	int32_t process, out;                /* osh, the channel end its console sends to */
	long thread;
};

static uint8_t encoded[HOSTLINK_ENCODED_MAX]; /* the frame being received */
static size_t encoded_len;
static bool overflow;                        /* it grew past HOSTLINK_ENCODED_MAX */
static uint8_t frame[HOSTLINK_FRAME_MAX];
static struct put put;
static uint32_t put_dropped_tag;             /* DATA for it is dropped unanswered */
static struct wget wget;
static uint32_t wget_dropped_tag;            /* GET_SPAN for it is dropped unanswered */
static struct run run;
static struct fe_mutex send_lock;            /* one frame on the link at a time */
static uint64_t window;                      /* bytes of the link's bulk window; 0: none */

/* --- framing ---------------------------------------------------------------- */

/* cobs_encode -- in[len] with no zero byte left -> bytes in out */
static size_t cobs_encode(const uint8_t *in, size_t len, uint8_t *out)
{
	size_t o = 1, code_at = 0;
	uint8_t code = 1;

	for (size_t i = 0; i < len; i++) {
		if (in[i]) {
			out[o++] = in[i];
			code++;
		}
		if (!in[i] || code == 0xff) {
			out[code_at] = code;
			code_at = o++;
			code = 1;
		}
	}
	out[code_at] = code;
	return o;
}

/* cobs_decode -- the bytes in[len] stood for -> how many, or -1 if they
 * are not a COBS encoding of at most cap bytes */
static long cobs_decode(const uint8_t *in, size_t len, uint8_t *out, size_t cap)
{
	size_t i = 0, o = 0;

	while (i < len) {
		uint8_t code = in[i++];

		if (!code || code - 1u > len - i || code - 1u > cap - o)
			return -1;
		memcpy(out + o, in + i, code - 1u);
		i += code - 1u;
		o += code - 1u;
		if (code != 0xff && i < len) {
			if (o == cap)
				return -1;
			out[o++] = 0;
		}
	}
	return (long)o;
}

/* link_write_all -- every byte to the link (blocks while the kernel's
 * ring is full; released at the next commit) */
static void link_write_all(const uint8_t *p, size_t len)
{
	while (len) {
		long n = fe_link_write(LINK, p, len);

		if (n <= 0)
			return; /* only a power cut's reset ends the link: nothing to tell */
		p += n;
		len -= (size_t)n;
	}
}

/* send -- one frame: type, tag, then the payload in two pieces */
static void send(uint8_t type, uint32_t tag, const void *a, size_t alen,
		 const void *b, size_t blen)
{
	static uint8_t raw[HOSTLINK_FRAME_MAX], out[HOSTLINK_ENCODED_MAX + 1];
	struct hostlink_header head = {
		.version = HOSTLINK_VERSION, .type = type, .tag = tag,
		.length = (uint32_t)(alen + blen),
	};
	size_t len = sizeof(head) + alen + blen, n;
	uint32_t crc;

	fe_mutex_lock(&send_lock);
	memcpy(raw, &head, sizeof(head));
	if (alen)
		memcpy(raw + sizeof(head), a, alen);
	if (blen)
		memcpy(raw + sizeof(head) + alen, b, blen);
	crc = crc32(0, raw, len);
	memcpy(raw + len, &crc, HOSTLINK_CRC_SIZE);
	n = cobs_encode(raw, len + HOSTLINK_CRC_SIZE, out);
	out[n++] = 0;
	link_write_all(out, n);
	fe_mutex_unlock(&send_lock);
}

/* send_error -- ERR: the error code (ERR_*) and a line saying what */
static void send_error(uint32_t tag, int code, const char *fmt, ...)
	__attribute__((__format__(__printf__, 3, 4)));
static void send_error(uint32_t tag, int code, const char *fmt, ...)
{
	char text[200];
	struct hostlink_error head;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(text))
		n = sizeof(text) - 1;
	head.code = (uint32_t)(code < 0 ? -code : code);
	send(HOSTLINK_ANS_ERR, tag, &head, sizeof(head), text, (size_t)n);
}

/* --- put -------------------------------------------------------------------- */

/* put_abandon -- drop a put in progress: its object goes with the handle */
static void put_abandon(void)
{
	if (!put.active)
		return;
	fe_close(put.handle);
	put.active = false;
	put_dropped_tag = put.tag;
}

/* crc_stored -- the CRC-32 of the first `size` bytes of the object (read
 * back from the heap: what is stored, not what was meant) -> 0 or -ERR_x */
static long crc_stored(int32_t h, uint64_t size, uint32_t *crc)
{
	static uint8_t buf[16384];
	uint64_t at = 0;

	*crc = 0;
	while (at < size) {
		uint64_t want = size - at < sizeof(buf) ? size - at : sizeof(buf);
		long n = fe_obj_read(h, at, buf, want);

		if (n <= 0)
			return n < 0 ? n : -ERR_IO;
		*crc = crc32(*crc, buf, (size_t)n);
		at += (uint64_t)n;
	}
	return 0;
}

/* put_finish -- every byte is in: check, make code if asked, bind, sync, END */
static void put_finish(void)
{
	int32_t h = put.handle;
	uint32_t crc = put.crc_back;
	struct hostlink_end_put end;
	long err = put.framed ? crc_stored(h, put.size, &crc) : 0;

	if (!err && crc != put.crc) {
		send_error(put.tag, ERR_CORRUPT,
			   "put %.*s: the bytes stored make CRC-32 %08x, not %08x as sent",
			   put.name_len, put.name, crc, put.crc);
		put_abandon();
		return;
	}
	if (!err && put.kind == HOSTLINK_KIND_CODE) {
		long code = fe_syscall(SYS_OBJ_CREATE, FE_TYPE_CODE, put.size,
				       (uint64_t)(int64_t)h, (uint64_t)(int64_t)LINK, 0, 0);

		if (code < 0)
			err = code;
		else {
			fe_close(h);
			put.handle = h = (int32_t)code;
		}
	}
	if (!err)
		err = fe_name_replace(h, put.name, put.name_len);
	if (!err)
		err = fe_sync();
	if (err) {
		send_error(put.tag, (int)err, "put %.*s: %s", put.name_len, put.name,
			   err_str((int)err));
		put_abandon();
		return;
	}
	put_abandon(); /* the name holds it now */
	end.size = put.size;
	send(HOSTLINK_ANS_END, put.tag, &end, sizeof(end), NULL, 0);
}

/* on_put -- PUT: size (u64), CRC-32 (u32), kind (u8), name */
static void on_put(uint32_t tag, const uint8_t *p, size_t len)
{
	struct hostlink_put req;
	bool ok = len > sizeof(req) && len - sizeof(req) <= FE_NAME_MAX;
	long h;

	put_abandon();
	if (ok) {
		memcpy(&req, p, sizeof(req));
		ok = req.kind == HOSTLINK_KIND_BLOB || req.kind == HOSTLINK_KIND_CODE;
	}
	if (!ok) {
		send_error(tag, ERR_INVAL, "put: a PUT holds size, CRC-32, kind 1 or 2, and a name of 1 to %u bytes",
			   FE_NAME_MAX);
		return;
	}
	put.tag = tag;
	put.size = req.size;
	put.crc = req.crc;
	put.kind = req.kind;
	put.name_len = (uint16_t)(len - sizeof(req));
	memcpy(put.name, p + sizeof(req), put.name_len);
	put.got = 0;
	put.framed = false;
	put.crc_back = 0;
	if (memchr(put.name, 0, put.name_len)) {
		send_error(tag, ERR_INVAL, "put: a name holds no NUL byte");
		return;
	}
	h = fe_obj_create(FE_TYPE_BLOB, put.size);
	if (h < 0) {
		send_error(tag, (int)h, "put %.*s: %lu bytes: %s", put.name_len, put.name,
			   (unsigned long)put.size, err_str((int)h));
		return;
	}
	put.handle = (int32_t)h;
	put.active = true;
	send(HOSTLINK_ANS_READY, tag, NULL, 0, NULL, 0);
	if (put.size == 0)
		put_finish();
}

/* on_data -- DATA: offset (u64), bytes; in order, for the put of `tag` */
static void on_data(uint32_t tag, const uint8_t *p, size_t len)
{
	struct hostlink_data head;
	uint64_t off, n;
	long wrote = 0;

	if (!put.active && tag == put_dropped_tag && tag)
		return; /* the rest of a put already answered (an error, or END) */
	if (!put.active || tag != put.tag) {
		send_error(tag, ERR_INVAL, "data: no put in progress with tag %u", tag);
		put_abandon();
		return;
	}
	if (len < sizeof(head)) {
		send_error(tag, ERR_INVAL, "data: a DATA frame starts with its offset");
		put_abandon();
		return;
	}
	memcpy(&head, p, sizeof(head));
	off = head.offset;
	n = len - sizeof(head);
	p += sizeof(head);
	if (off != put.got || n > put.size - put.got) {
		send_error(tag, ERR_RANGE, "data: %lu bytes at %lu, but %lu of %lu came before",
			   (unsigned long)n, (unsigned long)off, (unsigned long)put.got,
			   (unsigned long)put.size);
		put_abandon();
		return;
	}
	for (uint64_t done = 0; done < n; done += (uint64_t)wrote) {
		wrote = fe_obj_write(put.handle, off + done, p + done, n - done);
		if (wrote <= 0) {
			send_error(tag, wrote < 0 ? (int)wrote : ERR_IO, "put %.*s: %s",
				   put.name_len, put.name, err_str(wrote < 0 ? (int)wrote : -ERR_IO));
			put_abandon();
			return;
		}
	}
	put.got += n;
	put.framed = true;
	if (put.got == put.size)
		put_finish();
}

/* --- the window ------------------------------------------------------------ */

/* span_check -- a span frame's payload into *s, checked against the
 * window and against what the transfer (`what`, `done` of `size` bytes)
 * expects next; 0, or the error already answered */
static int span_check(uint32_t tag, const char *what, const uint8_t *p, size_t len,
		      uint64_t done, uint64_t size, struct hostlink_span *s)
{
	if (len != sizeof(*s)) {
		send_error(tag, ERR_INVAL, "%s: a span holds offset, window place and length (%u bytes)",
			   what, (unsigned)sizeof(*s));
		return ERR_INVAL;
	}
	memcpy(s, p, sizeof(*s));
	if (!window) {
		send_error(tag, ERR_NOTSUP, "%s: this machine has no window", what);
		return ERR_NOTSUP;
	}
	if (!s->length) {
		send_error(tag, ERR_INVAL, "%s: an empty span", what);
		return ERR_INVAL;
	}
	if (s->at > window || s->length > window - s->at) {
		send_error(tag, ERR_RANGE, "%s: window bytes %lu to %lu are not in the %lu-byte window",
			   what, (unsigned long)s->at, (unsigned long)(s->at + s->length),
			   (unsigned long)window);
		return ERR_RANGE;
	}
	if (s->offset != done || s->length > size - done) {
		send_error(tag, ERR_RANGE, "%s: %lu bytes at %lu, but %lu of %lu came before",
			   what, (unsigned long)s->length, (unsigned long)s->offset,
			   (unsigned long)done, (unsigned long)size);
		return ERR_RANGE;
	}
	return 0;
}

/* move -- a span's bytes between the window and object h, FE_IO_MAX at a
 * time -> 0 and *crc continued over them, or -ERR_x */
static long move(uint32_t direction, int32_t h, const struct hostlink_span *s, uint32_t *crc)
{
	struct fe_link_move m = { .direction = direction, .crc = *crc };

	for (uint64_t done = 0; done < s->length; done += m.length) {
		long got;

		m.offset = s->offset + done;
		m.at = s->at + done;
		m.length = s->length - done < FE_IO_MAX ? s->length - done : FE_IO_MAX;
		got = fe_link_move(LINK, h, &m);
		if (got < 0)
			return got;
		m.crc = (uint32_t)got;
	}
	*crc = m.crc;
	return 0;
}

/* send_span -- SPAN: the span done, and the CRC-32 of the transfer so far */
static void send_span(uint32_t tag, const struct hostlink_span *s, uint32_t crc)
{
	struct hostlink_span_answer a = {
		.offset = s->offset, .at = s->at, .length = s->length, .crc = crc,
	};

	send(HOSTLINK_ANS_SPAN, tag, &a, sizeof(a), NULL, 0);
}

/* on_put_span -- PUT_SPAN: the put's next bytes wait in the window */
static void on_put_span(uint32_t tag, const uint8_t *p, size_t len)
{
	struct hostlink_span s;
	long err;

	if (!put.active && tag == put_dropped_tag && tag)
		return; /* the rest of a put already answered (an error, or END) */
	if (!put.active || tag != put.tag) {
		send_error(tag, ERR_INVAL, "span: no put in progress with tag %u", tag);
		put_abandon();
		return;
	}
	if (span_check(tag, "span", p, len, put.got, put.size, &s)) {
		put_abandon();
		return;
	}
	err = move(FE_LINK_TO_OBJECT, put.handle, &s, &put.crc_back);
	if (err) {
		send_error(tag, (int)err, "put %.*s: %s", put.name_len, put.name, err_str((int)err));
		put_abandon();
		return;
	}
	put.got += s.length;
	send_span(tag, &s, put.crc_back);
	if (put.got == put.size)
		put_finish();
}

/* wget_abandon -- drop a windowed get in progress */
static void wget_abandon(void)
{
	if (!wget.active)
		return;
	fe_close(wget.handle);
	wget.active = false;
	wget_dropped_tag = wget.tag;
}

/* wget_finish -- every byte went: END with their CRC-32, or ERR_BUSY if
 * the object changed meanwhile */
static void wget_finish(void)
{
	struct hostlink_end_get end = { .size = wget.before.size, .crc = wget.crc };
	struct fe_stat after;
	long err = fe_obj_stat(wget.handle, &after);

	if (!err && (after.modified_epoch != wget.before.modified_epoch ||
		     after.size != wget.before.size))
		err = -ERR_BUSY;
	if (err)
		send_error(wget.tag, (int)err, "get %.*s: %s", wget.name_len, wget.name,
			   err == -ERR_BUSY ? "it changed while it was read; try again"
					    : err_str((int)err));
	else
		send(HOSTLINK_ANS_END, wget.tag, &end, sizeof(end), NULL, 0);
	wget_abandon();
}

/* on_get_window -- GET_WINDOW: name. INFO; then the host asks for the
 * bytes span by span (GET_SPAN), and END follows the last */
static void on_get_window(uint32_t tag, const uint8_t *name, size_t len)
{
	struct hostlink_info info = {0};
	long h = len && len <= FE_NAME_MAX ? fe_obj_open((const char *)name, len, FE_RIGHT_READ)
					   : -ERR_INVAL;
	long err = h < 0 ? h : fe_obj_stat((int32_t)h, &wget.before);

	if (!err && !window)
		err = -ERR_NOTSUP;
	if (err) {
		send_error(tag, (int)err, "get %.*s: %s", (int)len, (const char *)name,
			   err == -ERR_NOTSUP ? "this machine has no window" : err_str((int)err));
		if (h >= 0)
			fe_close((int32_t)h);
		return;
	}
	wget.active = true;
	wget.tag = tag;
	wget.handle = (int32_t)h;
	wget.sent = 0;
	wget.crc = 0;
	wget.name_len = (uint16_t)len;
	memcpy(wget.name, name, len);
	info.size = wget.before.size;
	info.modified_epoch = wget.before.modified_epoch;
	info.type = wget.before.type;
	send(HOSTLINK_ANS_INFO, tag, &info, sizeof(info), NULL, 0);
	if (!info.size)
		wget_finish();
}

/* on_get_span -- GET_SPAN: the get's next bytes into the window */
static void on_get_span(uint32_t tag, const uint8_t *p, size_t len)
{
	struct hostlink_span s;
	long err;

	if (!wget.active && tag == wget_dropped_tag && tag)
		return; /* the rest of a get already answered */
	if (!wget.active || tag != wget.tag) {
		send_error(tag, ERR_INVAL, "span: no windowed get in progress with tag %u", tag);
		wget_abandon();
		return;
	}
	if (span_check(tag, "span", p, len, wget.sent, wget.before.size, &s)) {
		wget_abandon();
		return;
	}
	err = move(FE_LINK_TO_WINDOW, wget.handle, &s, &wget.crc);
	if (err == -ERR_RANGE)
		err = -ERR_BUSY; /* the span was in the object when the get began */
	if (err) {
		send_error(tag, (int)err, "get %.*s: %s", wget.name_len, wget.name,
			   err == -ERR_BUSY ? "it changed while it was read; try again"
					    : err_str((int)err));
		wget_abandon();
		return;
	}
	wget.sent += s.length;
	send_span(tag, &s, wget.crc);
	if (wget.sent == wget.before.size)
		wget_finish();
}

/* --- get, ls ---------------------------------------------------------------- */

/* on_get -- GET: name. INFO (size, type, modified epoch), DATA..., END (the
 * CRC-32 of all) or ERR_BUSY if the object changed meanwhile */
static void on_get(uint32_t tag, const uint8_t *name, size_t len)
{
	static uint8_t buf[HOSTLINK_DATA_MAX];
	struct fe_stat before, after;
	struct hostlink_info info = {0};
	struct hostlink_data head;
	struct hostlink_end_get end;
	uint32_t crc = 0;
	uint64_t at = 0;
	long h = len ? fe_obj_open((const char *)name, len, FE_RIGHT_READ) : -ERR_INVAL;
	long err = h < 0 ? h : fe_obj_stat((int32_t)h, &before);

	if (err) {
		send_error(tag, (int)err, "get %.*s: %s", (int)len, (const char *)name,
			   err_str((int)err));
		if (h >= 0)
			fe_close((int32_t)h);
		return;
	}
	info.size = before.size;
	info.modified_epoch = before.modified_epoch;
	info.type = before.type;
	send(HOSTLINK_ANS_INFO, tag, &info, sizeof(info), NULL, 0);
	while (!err && at < before.size) {
		uint64_t want = before.size - at < HOSTLINK_DATA_MAX ? before.size - at
								     : HOSTLINK_DATA_MAX;
		long n = fe_obj_read((int32_t)h, at, buf, want);

		if (n <= 0) {
			err = n < 0 ? n : -ERR_BUSY; /* it shrank */
			break;
		}
		head.offset = at;
		send(HOSTLINK_ANS_DATA, tag, &head, sizeof(head), buf, (size_t)n);
		crc = crc32(crc, buf, (size_t)n);
		at += (uint64_t)n;
	}
	if (!err)
		err = fe_obj_stat((int32_t)h, &after);
	if (!err && (after.modified_epoch != before.modified_epoch || after.size != before.size))
		err = -ERR_BUSY;
	fe_close((int32_t)h);
	if (err) {
		send_error(tag, (int)err, "get %.*s: %s", (int)len, (const char *)name,
			   err == -ERR_BUSY ? "it changed while it was read; try again"
					    : err_str((int)err));
		return;
	}
	end.size = before.size;
	end.crc = crc;
	send(HOSTLINK_ANS_END, tag, &end, sizeof(end), NULL, 0);
}

/* on_ls -- LS: prefix. NAMES frames of entries (type u8, size u64, id
 * u64, name length u8, name), then END (the count, u64) */
static void on_ls(uint32_t tag, const uint8_t *prefix, size_t len)
{
	static struct fe_name_entry entries[16];
	static uint8_t out[HOSTLINK_PAYLOAD_MAX];
	struct fe_cursor cursor = {0};
	struct hostlink_end_ls end = {0};
	size_t used = 0;
	long n;

	if (len > FE_NAME_MAX) {
		send_error(tag, ERR_INVAL, "ls: a prefix is at most %u bytes", FE_NAME_MAX);
		return;
	}
	while ((n = fe_name_list((const char *)prefix, len, &cursor, entries, 16)) > 0) {
		for (long i = 0; i < n; i++) {
			const struct fe_name_entry *e = &entries[i];
			struct hostlink_name_entry head = {
				.type = (uint8_t)e->type, .size = e->size, .id = e->id,
				.name_len = (uint8_t)e->len,
			};

			if (used + sizeof(head) + e->len > sizeof(out)) {
				send(HOSTLINK_ANS_NAMES, tag, out, used, NULL, 0);
				used = 0;
			}
			memcpy(out + used, &head, sizeof(head));
			memcpy(out + used + sizeof(head), e->name, e->len);
			used += sizeof(head) + e->len;
			end.count++;
		}
	}
	if (n < 0) {
		send_error(tag, (int)n, "ls: %s", err_str((int)n));
		return;
	}
	if (used)
		send(HOSTLINK_ANS_NAMES, tag, out, used, NULL, 0);
	send(HOSTLINK_ANS_END, tag, &end, sizeof(end), NULL, 0);
}

/* --- run -------------------------------------------------------------------- */

/* stop_run -- end the run's osh (linkd's only children), so that its
 * thread sees the output close and reports how it ended */
static void stop_run(void)
{
	struct fe_proc_info info[16];
	uint64_t me = (uint64_t)fe_getpid(), first = 1;
	long n;

	while ((n = fe_proc_list(info, 16, first)) > 0) {
		for (long i = 0; i < n; i++)
			if (info[i].parent_pid == me)
				fe_kill(info[i].pid);
		first = info[n - 1].pid + 1;
	}
}

/* forward -- the run's thread: its console's messages as OUT frames until
 * every writer closed, then EXIT (status i64, reason u32, detail) */
static long forward(void *arg)
{
	static char buf[FE_CHAN_MSG_MAX];
	struct fe_exit_info info;
	struct fe_msg_info mi;
	struct hostlink_exit head;
	long n, pid;

	(void)arg;
	while ((n = fe_chan_recv(run.out, buf, sizeof(buf), &mi, 0)) >= 0) {
		if (mi.handle >= 0)
			fe_close(mi.handle);
		if (n > 0)
			send(HOSTLINK_ANS_OUT, run.tag, buf, (size_t)n, NULL, 0);
	}
	pid = fe_wait(run.process, &info, 0);
	if (pid < 0) {
		info.status = 0;
		info.reason = FE_EXIT_KILLED;
		snprintf(info.detail, sizeof(info.detail), "%s", err_str((int)pid));
	}
	head.status = info.status;
	head.reason = info.reason;
	send(HOSTLINK_ANS_EXIT, run.tag, &head, sizeof(head), info.detail,
	     info.reason == FE_EXIT_FAULT ? strnlen(info.detail, sizeof(info.detail)) : 0);
	fe_mutex_lock(&run.lock);
	fe_close(run.out);
	fe_close(run.process);
	run.active = false;
	fe_mutex_unlock(&run.lock);
	return 0;
}

/* on_run -- RUN: an osh command line */
static void on_run(uint32_t tag, const uint8_t *line, size_t len)
{
	static char text[HOSTLINK_RUN_LINE_MAX + 1];
	const char *argv[] = {"osh", "-c", text, NULL};
	int32_t ends[2];
	long process, err;

	if (!len || len > HOSTLINK_RUN_LINE_MAX || memchr(line, 0, len)) {
		send_error(tag, ERR_INVAL, "run: a command line of 1 to %u bytes, no NUL",
			   HOSTLINK_RUN_LINE_MAX);
		return;
	}
	fe_mutex_lock(&run.lock);
	if (run.active) {
		fe_mutex_unlock(&run.lock);
		send_error(tag, ERR_BUSY, "run: a command is still running");
		return;
	}
	if (run.thread > 0) { /* the last run's thread ended: give its stack back */
		int64_t status;

		fe_thread_wait(run.thread, &status);
	}
	run.thread = 0;
	memcpy(text, line, len);
	text[len] = '\0';
	err = fe_chan_create(ends);
	if (!err) {
		err = fe_console_sink(ends[1]);
		process = err ? err : fe_spawn_program("osh", argv);
		fe_console_sink(-1);
		fe_close(ends[1]); /* osh holds its own: its end closes with the last writer */
		if (!err && process < 0)
			err = process;
		if (err)
			fe_close(ends[0]);
	}
	if (!err) {
		run.active = true;
		run.tag = tag;
		run.process = (int32_t)process;
		run.out = ends[0];
		run.thread = fe_thread_start(forward, NULL);
		if (run.thread < 0) {
			err = run.thread;
			run.active = false;
			stop_run();
			fe_close(run.out);
			fe_close(run.process);
		}
	}
	fe_mutex_unlock(&run.lock);
	if (err)
		send_error(tag, (int)err, "run: %s", err_str((int)err));
}

/* --- the loop --------------------------------------------------------------- */

/* transfers_abandon -- a frame that could not be trusted: drop the put or
 * the windowed get in progress */
static void transfers_abandon(void)
{
	put_abandon();
	wget_abandon();
}

/* window_find -- what the link offers now (a power-on may change it) */
static void window_find(void)
{
	struct fe_link_info info;

	window = fe_link_info(LINK, &info) ? 0 : info.window;
}

/* dispatch -- one well-formed frame */
static void dispatch(uint8_t type, uint32_t tag, const uint8_t *p, size_t len)
{
	struct hostlink_hello_answer hello;

	if (type != HOSTLINK_REQ_DATA && type != HOSTLINK_REQ_PUT_SPAN && put.active) {
		send_error(put.tag, ERR_INVAL, "put %.*s: abandoned for another request",
			   put.name_len, put.name);
		put_abandon();
	}
	if (type != HOSTLINK_REQ_GET_SPAN && wget.active) {
		send_error(wget.tag, ERR_INVAL, "get %.*s: abandoned for another request",
			   wget.name_len, wget.name);
		wget_abandon();
	}
	switch (type) {
	case HOSTLINK_REQ_HELLO:
		if (len != sizeof(struct hostlink_hello)) {
			send_error(tag, ERR_INVAL, "hello: a HELLO holds an 8-byte nonce");
			return;
		}
		memcpy(hello.nonce, p, sizeof(hello.nonce));
		hello.version = HOSTLINK_VERSION;
		hello.data_max = HOSTLINK_DATA_MAX;
		hello.window = window;
		send(HOSTLINK_ANS_HELLO, tag, &hello, sizeof(hello), NULL, 0);
		return;
	case HOSTLINK_REQ_LS:
		on_ls(tag, p, len);
		return;
	case HOSTLINK_REQ_GET:
		on_get(tag, p, len);
		return;
	case HOSTLINK_REQ_PUT:
		on_put(tag, p, len);
		return;
	case HOSTLINK_REQ_DATA:
		on_data(tag, p, len);
		return;
	case HOSTLINK_REQ_RUN:
		on_run(tag, p, len);
		return;
	case HOSTLINK_REQ_PUT_SPAN:
		on_put_span(tag, p, len);
		return;
	case HOSTLINK_REQ_GET_WINDOW:
		on_get_window(tag, p, len);
		return;
	case HOSTLINK_REQ_GET_SPAN:
		on_get_span(tag, p, len);
		return;
	default:
		send_error(tag, ERR_INVAL, "no request of type %#x", type);
	}
}

/* frame_end -- a 0x00 came: decode and check what came before it */
static void frame_end(void)
{
	struct hostlink_header head;
	uint32_t crc;
	long n, payload;

	if (overflow) {
		send_error(0, ERR_TOOBIG, "a frame longer than %u bytes; dropped",
			   (unsigned)HOSTLINK_ENCODED_MAX);
		transfers_abandon();
		return;
	}
	if (!encoded_len)
		return; /* 0x00 alone: a host resynchronising */
	n = cobs_decode(encoded, encoded_len, frame, sizeof(frame));
	if (n < (long)(sizeof(head) + HOSTLINK_CRC_SIZE)) {
		send_error(0, ERR_CORRUPT, "a frame that is not COBS of a header and a CRC; dropped");
		transfers_abandon();
		return;
	}
	memcpy(&head, frame, sizeof(head));
	memcpy(&crc, frame + n - HOSTLINK_CRC_SIZE, HOSTLINK_CRC_SIZE);
	payload = n - (long)(sizeof(head) + HOSTLINK_CRC_SIZE);
	if (crc32(0, frame, (size_t)n - HOSTLINK_CRC_SIZE) != crc) {
		send_error(0, ERR_CORRUPT, "a frame whose CRC-32 does not match; dropped");
		transfers_abandon();
		return;
	}
	if (head.version != HOSTLINK_VERSION || head.reserved) {
		send_error(head.tag, ERR_VERSION, "a frame of version %u (this is %u); dropped",
			   head.version, HOSTLINK_VERSION);
		transfers_abandon();
		return;
	}
	if (head.length != (uint32_t)payload || head.length > HOSTLINK_PAYLOAD_MAX) {
		send_error(head.tag, ERR_INVAL, "a frame saying %u payload bytes holds %ld; dropped",
			   head.length, payload);
		transfers_abandon();
		return;
	}
	dispatch(head.type, head.tag, frame + sizeof(head), head.length);
}

/* reset -- the link started over (a power-on): forget the frame and the
 * transfer in flight, look at the window again, stop a run nobody waits
 * for */
static void reset(void)
{
	encoded_len = 0;
	overflow = false;
	transfers_abandon();
	window_find();
	fe_mutex_lock(&run.lock);
	if (run.active)
		stop_run();
	fe_mutex_unlock(&run.lock);
}

/* main -- read the link forever */
int main(int argc, char **argv)
{
	static uint8_t in[4096];

	(void)argc;
	(void)argv;
	if (fe_inherited_count < 1) {
		printf("linkd: no link handle: the kernel starts the link's service itself, with one\n");
		return 1;
	}
	crc32_init(); /* before the run thread sends a frame */
	window_find();
	for (;;) {
		long n = fe_link_read(LINK, in, sizeof(in));

		if (n == -ERR_RESET) {
			reset();
			continue;
		}
		if (n < 0) {
			fe_perror("linkd: reading the host link", n);
			return 1;
		}
		for (long i = 0; i < n; i++) {
			if (in[i] == 0) {
				frame_end();
				encoded_len = 0;
				overflow = false;
			} else if (encoded_len < sizeof(encoded)) {
				encoded[encoded_len++] = in[i];
			} else {
				overflow = true;
			}
		}
	}
}
