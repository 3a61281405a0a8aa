/*
 * kvd.c -- kvd: a key-value service on the channel KV_SERVICE ("svc/kv").
 *
 * The table is a chained hash table in ordinary malloc'ed memory, and not
 * one line of this program saves it: process memory is persistent, so the
 * table, like the requests queued on the channel and the clients waiting
 * for answers, survives every power cut exactly as the last committed epoch
 * left it. The protocol is in user/include/kvproto.h; the client is kv.
 *
 * Start: if KV_SERVICE is bound to a channel whose server end is still
 * open, another kvd serves it and this one says so and ends; a name left
 * by a kvd that ended is replaced. kvd keeps its own handle to end 1 too,
 * so that its receive blocks (rather than failing with -ERR_PEER) while no
 * client holds the name open.
 *
 * Requests are served one at a time, in the order they were queued. A
 * malformed request is answered with -ERR_INVAL (or dropped, if it carries
 * no reply end). KV_PAUSE makes kvd wait on a second channel, KV_GATE,
 * until `kv resume` sends to it: meanwhile requests queue up unserved
 * (tests use it to hold requests across a power cut).
 *
 * Invariant: table_count == the number of entries chained from the buckets,
 * and every key is in the bucket of its hash.
 */
#include <fe.h>
#include <kvproto.h>

#define TABLE_MIN_BUCKETS 16u
#define REQUEST_CAP FE_CHAN_MSG_MAX

struct kv_entry {
	struct kv_entry *next;   /* in the same bucket */
	uint64_t hash;
	uint32_t key_len;
	uint32_t value_len;
	char *value;
	char key[];
};

static struct kv_entry **table;
static uint32_t table_buckets;   /* a power of two, or 0 before the first put */
static uint32_t table_count;

/* hash_key -- FNV-1a of the key's bytes */
static uint64_t hash_key(const char *key, uint32_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (uint32_t i = 0; i < len; i++) {
		h ^= (uint8_t)key[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* key_cmp -- byte order of two keys (a prefix sorts first) */
static int key_cmp(const char *a, uint32_t a_len, const char *b, uint32_t b_len)
{
	int c = memcmp(a, b, a_len < b_len ? a_len : b_len);

	if (c != 0)
		return c;
	return (a_len > b_len) - (a_len < b_len);
}

/* table_slot -- the link that points at the entry for key (or at NULL) */
static struct kv_entry **table_slot(const char *key, uint32_t len, uint64_t hash)
{
	struct kv_entry **link;

	if (table_buckets == 0)
		return NULL;
	link = &table[hash & (table_buckets - 1)];
	while (*link != NULL && ((*link)->hash != hash ||
				 key_cmp((*link)->key, (*link)->key_len, key, len) != 0))
		link = &(*link)->next;
	return link;
}

/* table_grow -- double the buckets (or make the first ones) when the chains get long */
static int table_grow(void)
{
	uint32_t buckets = table_buckets ? table_buckets * 2 : TABLE_MIN_BUCKETS;
	struct kv_entry **fresh;

	if (table_count < 2 * table_buckets)
		return 0;
	fresh = calloc(buckets, sizeof(*fresh));
	if (fresh == NULL)
		return table_buckets ? 0 : -ERR_NOMEM; /* longer chains will do */
	for (uint32_t i = 0; i < table_buckets; i++) {
		while (table[i] != NULL) {
			struct kv_entry *e = table[i];

			table[i] = e->next;
			e->next = fresh[e->hash & (buckets - 1)];
			fresh[e->hash & (buckets - 1)] = e;
		}
	}
	free(table);
	table = fresh;
	table_buckets = buckets;
	return 0;
}

/* table_put -- bind key to a copy of value, replacing any old value */
static int table_put(const char *key, uint32_t key_len, const char *value,
		     uint32_t value_len)
{
	uint64_t hash = hash_key(key, key_len);
	struct kv_entry **link, *e;
	char *copy = malloc(value_len ? value_len : 1);

	if (copy == NULL || table_grow() < 0) {
		free(copy);
		return -ERR_NOMEM;
	}
	memcpy(copy, value, value_len);
	link = table_slot(key, key_len, hash);
	if (*link != NULL) {
		free((*link)->value);
		(*link)->value = copy;
		(*link)->value_len = value_len;
		return 0;
	}
	e = malloc(sizeof(*e) + key_len);
	if (e == NULL) {
		free(copy);
		return -ERR_NOMEM;
	}
	e->next = NULL;
	e->hash = hash;
	e->key_len = key_len;
	e->value_len = value_len;
	e->value = copy;
	memcpy(e->key, key, key_len);
	*link = e;
	table_count++;
	return 0;
}

/* table_get -- the entry for key, or NULL */
static struct kv_entry *table_get(const char *key, uint32_t key_len)
{
	struct kv_entry **link = table_slot(key, key_len, hash_key(key, key_len));

	return link ? *link : NULL;
}

/* table_del -- remove key; -ERR_NOENT if it is not there */
static int table_del(const char *key, uint32_t key_len)
{
	struct kv_entry **link = table_slot(key, key_len, hash_key(key, key_len));
	struct kv_entry *e;

	if (link == NULL || *link == NULL)
		return -ERR_NOENT;
	e = *link;
	*link = e->next;
	free(e->value);
	free(e);
	table_count--;
	return 0;
}

/* table_next -- the entry with the smallest key after key[len], or NULL */
static struct kv_entry *table_next(const char *key, uint32_t len)
{
	struct kv_entry *best = NULL;

	for (uint32_t i = 0; i < table_buckets; i++)
		for (struct kv_entry *e = table[i]; e != NULL; e = e->next)
			if (key_cmp(e->key, e->key_len, key, len) > 0 &&
			    (best == NULL || key_cmp(e->key, e->key_len,
						     best->key, best->key_len) < 0))
				best = e;
	return best;
}

/* reply -- answer on the reply end with status and payload */
static void reply(int32_t to, int32_t status, const void *payload,
		  uint32_t len, bool more)
{
	static char msg[FE_CHAN_MSG_MAX];
	struct kv_reply r = {.status = status, .len = len, .more = more};

	memcpy(msg, &r, sizeof(r));
	if (len > 0)
		memcpy(msg + sizeof(r), payload, len);
	fe_chan_send(to, msg, sizeof(r) + len, -1); /* a client gone is no matter */
}

/* serve_list -- as many names after the cursor key as fit one reply */
static void serve_list(int32_t to, const char *key, uint32_t key_len)
{
	static char names[FE_CHAN_MSG_MAX - sizeof(struct kv_reply)];
	uint32_t used = 0;
	struct kv_entry *e = table_next(key, key_len);

	while (e != NULL && used + e->key_len + 1 <= sizeof(names)) {
		memcpy(names + used, e->key, e->key_len);
		used += e->key_len;
		names[used++] = '\0';
		e = table_next(e->key, e->key_len);
	}
	reply(to, 0, names, used, e != NULL);
}

/* gate_open -- bind KV_GATE to a new channel -> its receiving end, ends[1] kept open too */
static int gate_open(int32_t gate[2])
{
	long err = fe_chan_create(gate);

	if (err < 0)
		return (int)err;
	fe_unbind(KV_GATE); /* left by a kvd that ended while paused */
	err = fe_bind(gate[0], KV_GATE);
	if (err < 0) {
		fe_close(gate[0]);
		fe_close(gate[1]);
	}
	return (int)err;
}

/* pause_until_resumed -- serve nothing until a message (KV_RESUME) comes on KV_GATE */
static void pause_until_resumed(int32_t gate[2])
{
	struct kv_request req;
	struct fe_msg_info mi;
	long n = fe_chan_recv(gate[0], &req, sizeof(req), &mi, 0);

	fe_unbind(KV_GATE);
	if (n >= 0 && mi.handle >= 0) {
		reply(mi.handle, 0, NULL, 0, false);
		fe_close(mi.handle);
	}
	fe_close(gate[0]);
	fe_close(gate[1]);
}

/* check_request -- whether a message of n bytes is a well-formed request */
static bool check_request(const struct kv_request *req, long n)
{
	if (n < (long)sizeof(*req) || req->reserved != 0)
		return false;
	if (req->key_len > KV_KEY_MAX || req->value_len > KV_VALUE_MAX)
		return false;
	if (req->key_len == 0 && (req->op == KV_PUT || req->op == KV_GET ||
				  req->op == KV_DEL))
		return false;
	return (uint64_t)n == sizeof(*req) + req->key_len + req->value_len;
}

/* serve -- carry out one request and answer on `to` */
static void serve(const char *msg, long n, int32_t to)
{
	const struct kv_request *req = (const struct kv_request *)msg;
	const char *key = msg + sizeof(*req);
	struct kv_entry *e;
	int32_t gate[2];
	int err;

	if (!check_request(req, n)) {
		reply(to, -ERR_INVAL, NULL, 0, false);
		return;
	}
	switch (req->op) {
	case KV_PUT:
		reply(to, table_put(key, req->key_len, key + req->key_len,
				    req->value_len), NULL, 0, false);
		break;
	case KV_GET:
		e = table_get(key, req->key_len);
		if (e == NULL)
			reply(to, -ERR_NOENT, NULL, 0, false);
		else
			reply(to, 0, e->value, e->value_len, false);
		break;
	case KV_DEL:
		reply(to, table_del(key, req->key_len), NULL, 0, false);
		break;
	case KV_LIST:
		serve_list(to, key, req->key_len);
		break;
	case KV_PAUSE:
		err = gate_open(gate);
		reply(to, err, NULL, 0, false);
		if (err == 0)
			pause_until_resumed(gate);
		break;
	default:
		reply(to, -ERR_INVAL, NULL, 0, false);
	}
}

/* service_alive -- whether a kvd already serves the channel bound to KV_SERVICE */
static bool service_alive(int32_t h)
{
	struct kv_request ping = {.op = KV_PING};

	return fe_chan_send(h, &ping, sizeof(ping), -1) >= 0;
}

/* claim_name -- bind KV_SERVICE to the channel of `end`, replacing a dead service's name */
static int claim_name(int32_t end)
{
	long old = fe_open(KV_SERVICE, FE_RIGHT_WRITE);
	long err;

	if (old >= 0) {
		struct fe_stat st = {0};
		bool alive = fe_obj_stat((int32_t)old, &st) >= 0 &&
			     st.type == FE_TYPE_CHANNEL && service_alive((int32_t)old);
		bool channel = st.type == FE_TYPE_CHANNEL;

		fe_close((int32_t)old);
		if (alive) {
			printf("kvd: already running: %s is served\n", KV_SERVICE);
			return -ERR_EXIST;
		}
		if (!channel) {
			printf("kvd: %s is taken by an object that is not a channel\n",
			       KV_SERVICE);
			return -ERR_EXIST;
		}
		fe_unbind(KV_SERVICE);
	}
	err = fe_bind(end, KV_SERVICE);
	if (err < 0)
		printf("kvd: cannot bind %s: %s\n", KV_SERVICE, err_str((int)err));
	return (int)err;
}

/* main -- claim the name, then serve requests forever */
int main(int argc, char **argv)
{
	static char msg[REQUEST_CAP];
	int32_t ends[2];
	long n;

	(void)argv;
	if (argc != 1) {
		printf("usage: kvd   (run it in the background: kvd &)\n");
		return 2;
	}
	n = fe_chan_create(ends);
	if (n < 0) {
		fe_perror("kvd: making its channel", n);
		return 1;
	}
	if (claim_name(ends[0]) < 0)
		return 1;
	printf("kvd: serving %s\n", KV_SERVICE);
	for (;;) {
		struct fe_msg_info mi;

		n = fe_chan_recv(ends[0], msg, sizeof(msg), &mi, 0);
		if (n < 0) {
			fe_perror("kvd: receiving", n);
			return 1;
		}
		if (mi.handle < 0)
			continue; /* KV_PING, or anything else nobody waits for */
		serve(msg, n, mi.handle);
		fe_close(mi.handle);
	}
}
