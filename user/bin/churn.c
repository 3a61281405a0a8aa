/*
 * churn.c -- churn [SEED] [PERIOD_MS] [ROUNDS]: create, write, resize, rename and
 * delete named objects forever, and check them all against a model after
 * every round.
 *
 * The program owns the names under "churn/PID/". Its model of them -- which
 * slots hold an object, each object's name, size and every byte it must
 * hold -- lives in ordinary global variables, that is in the process's
 * persistent memory. A round makes CHURN_STEPS random changes, each one
 * system call whose effect is mirrored in the model, then verifies every
 * object (open by name, stat, read all bytes, compare) and lists the prefix
 * with a cursor, a few names per call, so that no name exists the model does
 * not know. It prints "churn: round N ok" (N = 1, 2, ...) and sleeps
 * PERIOD_MS (default 250); after ROUNDS rounds (0, the default: never) it
 * exits with status 0.
 *
 * A power cut rolls the heap -- objects, catalogue and this program's memory
 * alike -- back to the last commit, which happens only between system
 * calls; so model and objects always agree, and any disagreement is a bug
 * in the kernel's consistency. On the first one the program prints
 * "churn: FAIL round N: WHAT" and exits with status 1. The pseudo-random
 * state (SEED, default 1) is persistent too, so a run is the same sequence
 * of changes however often the power is cut.
 */
#include <fe.h>

#define CHURN_SLOTS 32                  /* objects at most, live at once */
#define CHURN_SIZE_MAX (3 * FE_PAGE_SIZE + 777) /* sizes cross page boundaries */
#define CHURN_STEPS 16                  /* changes per round */
#define CHURN_NAME_MAX 48
#define CHURN_LIST_BATCH 5              /* names per SYS_NAME_LIST: the cursor is used */

/*
 * One object the program owns, as it must be in the heap.
 * Invariant: bytes[size .. CHURN_SIZE_MAX) are zero (growing adds zeros).
 */
struct churn_object {
	bool live;
	uint64_t size;
	uint64_t generation;            /* writes so far; keys the next write's bytes */
	char name[CHURN_NAME_MAX];
	uint8_t bytes[CHURN_SIZE_MAX];
};

/* The model, the generator and the progress: persistent with the process. */
static struct churn_object churn_model[CHURN_SLOTS];
static uint64_t churn_live;             /* slots with live set */
static uint64_t churn_rng;
static uint64_t churn_serial;           /* names: PREFIX "o" SERIAL, never reused */
static uint64_t churn_round;
static char churn_prefix[24];           /* "churn/PID/" */
static uint8_t churn_buf[CHURN_SIZE_MAX];

/* churn_fail -- print "churn: FAIL round N: WHAT" and exit with status 1 */
static __attribute__((noreturn, format(printf, 1, 2)))
void churn_fail(const char *fmt, ...)
{
	char what[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	printf("churn: FAIL round %lu: %s\n", churn_round, what);
	fe_exit(1);
}

/* expect_result -- fail unless a call returned want */
static void expect_result(long got, long want, const char *call,
			  const char *name)
{
	if (got == want)
		return;
	if (got < 0)
		churn_fail("%s %s: %s, expected %ld", call, name,
			   err_name((int)got), want);
	churn_fail("%s %s: returned %ld, expected %ld", call, name, got, want);
}

/* open_name -- a handle to the object named name, or fail */
static int32_t open_name(const char *name, uint32_t rights)
{
	long h = fe_open(name, rights);

	if (h < 0)
		churn_fail("open %s: %s", name, err_name((int)h));
	return (int32_t)h;
}

/* new_name -- a name under the prefix never used before into obj->name */
static void new_name(struct churn_object *obj)
{
	snprintf(obj->name, sizeof(obj->name), "%so%lu", churn_prefix,
		 ++churn_serial);
}

/* step_create -- make an object of random size in the free slot obj */
static void step_create(struct churn_object *obj)
{
	uint64_t size = fe_rand_below(&churn_rng, CHURN_SIZE_MAX + 1);
	long h = fe_obj_create(FE_TYPE_BLOB, size);

	new_name(obj);
	if (h < 0)
		churn_fail("create %s: %s", obj->name, err_name((int)h));
	expect_result(fe_bind((int32_t)h, obj->name), 0, "bind", obj->name);
	expect_result(fe_close((int32_t)h), 0, "close", obj->name);
	obj->live = true;
	obj->size = size;
	obj->generation = 0;
	churn_live++;
}

/* step_write -- write bytes of the next generation at a random range of obj */
static void step_write(struct churn_object *obj, uint64_t slot)
{
	uint64_t offset = fe_rand_below(&churn_rng, obj->size + 1);
	uint64_t len = fe_rand_below(&churn_rng, obj->size - offset + 1);
	uint64_t key = fe_mix64(slot << 32 | ++obj->generation);
	int32_t h = open_name(obj->name, FE_RIGHT_READ | FE_RIGHT_WRITE);
	uint64_t i;

	for (i = 0; i < len; i++)
		churn_buf[i] = (uint8_t)fe_mix64(key + offset + i);
	expect_result(fe_obj_write(h, offset, churn_buf, len), (long)len,
		      "write", obj->name);
	expect_result(fe_close(h), 0, "close", obj->name);
	memcpy(obj->bytes + offset, churn_buf, len);
}

/* step_resize -- give obj a random new size */
static void step_resize(struct churn_object *obj)
{
	uint64_t size = fe_rand_below(&churn_rng, CHURN_SIZE_MAX + 1);
	int32_t h = open_name(obj->name, FE_RIGHT_READ | FE_RIGHT_WRITE);

	expect_result(fe_obj_resize(h, size), 0, "resize", obj->name);
	expect_result(fe_close(h), 0, "close", obj->name);
	if (size < obj->size)
		memset(obj->bytes + size, 0, obj->size - size);
	obj->size = size;
}

/* step_rename -- move obj to a new name; the old one must be gone */
static void step_rename(struct churn_object *obj)
{
	char old[CHURN_NAME_MAX];

	memcpy(old, obj->name, sizeof(old));
	new_name(obj);
	expect_result(fe_name_rename(old, strlen(old), obj->name,
				     strlen(obj->name)), 0, "rename", old);
	expect_result(fe_open(old, FE_RIGHT_READ), -ERR_NOENT, "open renamed",
		      old);
}

/* step_delete -- unbind obj's name (its last reference); the name must be gone */
static void step_delete(struct churn_object *obj)
{
	expect_result(fe_unbind(obj->name), 0, "unbind", obj->name);
	expect_result(fe_open(obj->name, FE_RIGHT_READ), -ERR_NOENT,
		      "open deleted", obj->name);
	memset(obj->bytes, 0, obj->size);
	obj->live = false;
	obj->size = 0;
	churn_live--;
}

/* churn_step -- one random change to one random slot */
static void churn_step(void)
{
	uint64_t slot = fe_rand_below(&churn_rng, CHURN_SLOTS);
	struct churn_object *obj = &churn_model[slot];
	uint64_t choice = fe_rand_below(&churn_rng, 10);

	if (!obj->live)
		step_create(obj);
	else if (choice < 4)
		step_write(obj, slot);
	else if (choice < 6)
		step_resize(obj);
	else if (choice < 8)
		step_rename(obj);
	else
		step_delete(obj);
}

/* verify_object -- obj's size and every byte, read by name, are the model's */
static void verify_object(const struct churn_object *obj)
{
	int32_t h = open_name(obj->name, FE_RIGHT_READ);
	struct fe_stat st;
	uint64_t i;

	expect_result(fe_obj_stat(h, &st), 0, "stat", obj->name);
	if (st.type != FE_TYPE_BLOB || st.size != obj->size)
		churn_fail("%s: type %u, size %lu; expected blob, size %lu",
			   obj->name, st.type, st.size, obj->size);
	memset(churn_buf, 0xa5, sizeof(churn_buf));
	expect_result(fe_obj_read(h, 0, churn_buf, obj->size), (long)obj->size,
		      "read", obj->name);
	expect_result(fe_close(h), 0, "close", obj->name);
	for (i = 0; i < obj->size; i++)
		if (churn_buf[i] != obj->bytes[i])
			churn_fail("%s (generation %lu): byte %lu is %#x, expected %#x",
				   obj->name, obj->generation, i, churn_buf[i],
				   obj->bytes[i]);
}

/* find_slot -- the live slot whose name is name, or CHURN_SLOTS */
static uint64_t find_slot(const char *name)
{
	uint64_t slot;

	for (slot = 0; slot < CHURN_SLOTS; slot++)
		if (churn_model[slot].live && strcmp(churn_model[slot].name, name) == 0)
			break;
	return slot;
}

/* verify_listing -- the names under the prefix are exactly the live slots' */
static void verify_listing(void)
{
	static struct fe_name_entry entries[CHURN_LIST_BATCH];
	static struct fe_cursor cursor;
	bool seen[CHURN_SLOTS] = {false};
	uint64_t listed = 0;
	long n, i;

	memset(&cursor, 0, sizeof(cursor));
	while ((n = fe_name_list(churn_prefix, strlen(churn_prefix), &cursor,
				 entries, CHURN_LIST_BATCH)) > 0) {
		for (i = 0; i < n; i++) {
			uint64_t slot = find_slot(entries[i].name);

			if (slot == CHURN_SLOTS)
				churn_fail("stray name %s (size %lu)", entries[i].name,
					   entries[i].size);
			if (seen[slot])
				churn_fail("name %s listed twice", entries[i].name);
			if (entries[i].size != churn_model[slot].size)
				churn_fail("%s listed with size %lu, expected %lu",
					   entries[i].name, entries[i].size,
					   churn_model[slot].size);
			seen[slot] = true;
			listed++;
		}
	}
	if (n < 0)
		churn_fail("list %s: %s", churn_prefix, err_name((int)n));
	if (listed != churn_live)
		churn_fail("listed %lu names, expected %lu", listed, churn_live);
}

/* churn_verify -- every object and the listing agree with the model */
static void churn_verify(void)
{
	uint64_t slot;

	for (slot = 0; slot < CHURN_SLOTS; slot++)
		if (churn_model[slot].live)
			verify_object(&churn_model[slot]);
	verify_listing();
}

/* main -- churn and verify, forever or ROUNDS rounds */
int main(int argc, char **argv)
{
	uint64_t seed = 1, period_ms = 250, rounds = 0;
	int step;

	if (argc > 4) {
		printf("usage: churn [SEED] [PERIOD_MS] [ROUNDS]\n");
		return 2;
	}
	if (argc > 1 && !fe_parse_arg("churn", "SEED", argv[1], &seed))
		return 2;
	if (argc > 2 && !fe_parse_arg("churn", "PERIOD_MS", argv[2], &period_ms))
		return 2;
	if (argc > 3 && !fe_parse_arg("churn", "ROUNDS", argv[3], &rounds))
		return 2;
	churn_rng = seed;
	snprintf(churn_prefix, sizeof(churn_prefix), "churn/%ld/", fe_getpid());
	printf("churn: seed %lu, objects under %s\n", seed, churn_prefix);
	while (!rounds || churn_round < rounds) {
		churn_round++;
		for (step = 0; step < CHURN_STEPS; step++)
			churn_step();
		churn_verify();
		printf("churn: round %lu ok\n", churn_round);
		if (period_ms > 0)
			fe_sleep_ms(period_ms);
	}
	return 0;
}
