/*
 * kv.c -- kv: the client of kvd, the key-value service.
 *
 *   kv put KEY VALUE...   bind KEY to the VALUE words joined by spaces
 *   kv get KEY            print KEY's value
 *   kv del KEY            remove KEY
 *   kv ls                 list the keys in byte order
 *   kv pause              kvd serves nothing until `kv resume` (requests queue up)
 *   kv resume             let a paused kvd serve again
 *
 * Each command is one request (kv ls: one per reply-full of names): open
 * KV_SERVICE, make a reply channel, send the request carrying the reply
 * channel's sending end, close everything but the receiving end, and wait
 * for the answer. The protocol is in user/include/kvproto.h.
 *
 * The wait is an ordinary blocking receive, so it survives a power cut:
 * after power-on the kernel re-issues it and the answer comes when kvd has
 * served the request. A full request queue (16 waiting requests) is waited
 * out, 20 ms at a time. Exit status: 0 done, 1 refused or failed, 2 usage.
 */
#include <fe.h>
#include <kvproto.h>

#define QUEUE_FULL_RETRY_MS 20

struct kv_answer {
	struct kv_reply reply;
	char payload[FE_CHAN_MSG_MAX - sizeof(struct kv_reply)];
};

/* send_request -- queue one request on the channel of handle h, waiting while the queue is full */
static long send_request(int32_t h, const void *msg, uint64_t len, int32_t pass)
{
	long err;

	while ((err = fe_chan_send(h, msg, len, pass)) == -ERR_NOSPC)
		fe_sleep_ms(QUEUE_FULL_RETRY_MS);
	return err;
}

/*
 * kv_call -- send request op with key and value to the service bound to
 * `service` and wait for the answer -> 0 (the answer in *a), -ERR_NOENT
 * when nothing serves that name, -ERR_PEER when the server ended before
 * answering, or another error of the exchange.
 */
static long kv_call(const char *service, uint32_t op, const char *key,
		    const char *value, uint32_t value_len, struct kv_answer *a)
{
	static char msg[FE_CHAN_MSG_MAX];
	struct kv_request req = {.op = op, .key_len = (uint32_t)strlen(key),
				 .value_len = value_len};
	struct fe_msg_info mi;
	int32_t reply[2];
	long svc, err;

	memcpy(msg, &req, sizeof(req));
	memcpy(msg + sizeof(req), key, req.key_len);
	if (value_len > 0)
		memcpy(msg + sizeof(req) + req.key_len, value, value_len);
	svc = fe_open(service, FE_RIGHT_WRITE);
	if (svc < 0)
		return svc == -ERR_PERM ? -ERR_NOENT : svc; /* not a channel */
	err = fe_chan_create(reply);
	if (err < 0) {
		fe_close((int32_t)svc);
		return err;
	}
	err = send_request((int32_t)svc, msg, sizeof(req) + req.key_len + value_len,
			   reply[1]);
	/* Only the reply's receiving end is kept while waiting: the request
	 * holds the rest, so if the channel is deleted unserved, the reply
	 * end closes with it and the wait ends in -ERR_PEER. */
	fe_close(reply[1]);
	fe_close((int32_t)svc);
	if (err == -ERR_PEER || err == -ERR_INVAL)
		err = -ERR_NOENT; /* a server that ended, or a name that is no channel */
	if (err == 0)
		err = fe_chan_recv(reply[0], a, sizeof(*a), &mi, 0);
	fe_close(reply[0]);
	if (err >= 0 && (err < (long)sizeof(a->reply) ||
			 a->reply.len != (uint64_t)err - sizeof(a->reply)))
		err = -ERR_IO; /* not an answer of this protocol */
	return err < 0 ? err : 0;
}

/* call_error -- say why a call to kvd failed; false */
static bool call_error(const char *cmd, long err)
{
	if (err == -ERR_NOENT)
		printf("kv: no service at %s (is kvd running?)\n", KV_SERVICE);
	else if (err == -ERR_PEER)
		printf("kv: kvd ended before answering\n");
	else
		printf("kv: %s: %s\n", cmd, err_str((int)err));
	return false;
}

/* status_error -- say why kvd refused a request on key; false */
static bool status_error(const char *cmd, const char *key, int32_t status)
{
	if (status == -ERR_NOENT)
		printf("kv: no key '%s'\n", key);
	else
		printf("kv: %s '%s': %s\n", cmd, key, err_str(status));
	return false;
}

/* check_key -- whether key can be sent (and why not) */
static bool check_key(const char *key)
{
	if (key[0] == '\0') {
		printf("kv: a key cannot be empty\n");
		return false;
	}
	if (strlen(key) > KV_KEY_MAX) {
		printf("kv: a key is at most %u bytes\n", KV_KEY_MAX);
		return false;
	}
	return true;
}

/* join_words -- words joined by spaces into buf[KV_VALUE_MAX] -> length, or -1 if too long */
static long join_words(int count, char **words, char *buf)
{
	size_t len = 0;

	for (int i = 0; i < count; i++) {
		size_t w = strlen(words[i]);

		if (len + (i > 0) + w > KV_VALUE_MAX)
			return -1;
		if (i > 0)
			buf[len++] = ' ';
		memcpy(buf + len, words[i], w);
		len += w;
	}
	return (long)len;
}

/* cmd_put -- kv put KEY VALUE... */
static bool cmd_put(int argc, char **argv, struct kv_answer *a)
{
	static char value[KV_VALUE_MAX];
	long len = join_words(argc - 3, argv + 3, value);
	long err;

	if (!check_key(argv[2]))
		return false;
	if (len < 0) {
		printf("kv: a value is at most %u bytes\n", KV_VALUE_MAX);
		return false;
	}
	err = kv_call(KV_SERVICE, KV_PUT, argv[2], value, (uint32_t)len, a);
	if (err < 0)
		return call_error("put", err);
	return a->reply.status == 0 || status_error("put", argv[2], a->reply.status);
}

/* key_call -- one request on a checked KEY (get, del); true if kvd said yes */
static bool key_call(uint32_t op, const char *what, const char *key,
		     struct kv_answer *a)
{
	long err;

	if (!check_key(key))
		return false;
	err = kv_call(KV_SERVICE, op, key, NULL, 0, a);
	if (err < 0)
		return call_error(what, err);
	return a->reply.status == 0 || status_error(what, key, a->reply.status);
}

/* cmd_get -- kv get KEY */
static bool cmd_get(char **argv, struct kv_answer *a)
{
	if (!key_call(KV_GET, "get", argv[2], a))
		return false;
	fe_write_all(a->payload, a->reply.len);
	putchar('\n');
	return true;
}

/* cmd_del -- kv del KEY */
static bool cmd_del(char **argv, struct kv_answer *a)
{
	return key_call(KV_DEL, "del", argv[2], a);
}

/* cmd_ls -- kv ls: every key, one a line, a reply-full of names at a time */
static bool cmd_ls(struct kv_answer *a)
{
	static char cursor[KV_KEY_MAX + 1];
	long err;

	cursor[0] = '\0';
	do {
		uint32_t at = 0;

		err = kv_call(KV_SERVICE, KV_LIST, cursor, NULL, 0, a);
		if (err < 0)
			return call_error("ls", err);
		if (a->reply.status != 0) {
			printf("kv: ls: %s\n", err_str(a->reply.status));
			return false;
		}
		while (at < a->reply.len) {
			const char *name = a->payload + at;
			size_t len = strnlen(name, a->reply.len - at);

			printf("%.*s\n", (int)len, name);
			if (len <= KV_KEY_MAX) {
				memcpy(cursor, name, len);
				cursor[len] = '\0';
			}
			at += (uint32_t)len + 1;
		}
	} while (a->reply.more && a->reply.len > 0);
	return true;
}

/* cmd_pause -- kv pause: kvd holds every request until kv resume */
static bool cmd_pause(struct kv_answer *a)
{
	long err = kv_call(KV_SERVICE, KV_PAUSE, "", NULL, 0, a);

	if (err < 0)
		return call_error("pause", err);
	if (a->reply.status != 0) {
		printf("kv: pause: %s\n", err_str(a->reply.status));
		return false;
	}
	printf("kv: kvd paused; 'kv resume' lets it serve again\n");
	return true;
}

/* cmd_resume -- kv resume: a paused kvd serves again */
static bool cmd_resume(struct kv_answer *a)
{
	long err = kv_call(KV_GATE, KV_RESUME, "", NULL, 0, a);

	if (err == -ERR_NOENT) {
		printf("kv: kvd is not paused\n");
		return false;
	}
	if (err < 0)
		return call_error("resume", err);
	printf("kv: kvd resumed\n");
	return true;
}

/* usage -- how kv is called; the exit status for a usage error */
static int usage(void)
{
	printf("usage: kv put KEY VALUE... | kv get KEY | kv del KEY | kv ls | kv pause | kv resume\n");
	return 2;
}

/* main -- one command */
int main(int argc, char **argv)
{
	static struct kv_answer answer;
	const char *cmd = argc > 1 ? argv[1] : "";
	bool ok;

	if (strcmp(cmd, "put") == 0 && argc >= 4)
		ok = cmd_put(argc, argv, &answer);
	else if (strcmp(cmd, "get") == 0 && argc == 3)
		ok = cmd_get(argv, &answer);
	else if (strcmp(cmd, "del") == 0 && argc == 3)
		ok = cmd_del(argv, &answer);
	else if (strcmp(cmd, "ls") == 0 && argc == 2)
		ok = cmd_ls(&answer);
	else if (strcmp(cmd, "pause") == 0 && argc == 2)
		ok = cmd_pause(&answer);
	else if (strcmp(cmd, "resume") == 0 && argc == 2)
		ok = cmd_resume(&answer);
	else
		return usage();
	return ok ? 0 : 1;
}
