/*
 * test_crash.c -- power cuts at every fence: every crash image must open,
 * check clean and show exactly the committed transactions.
 *
 * Each scenario runs objstore on the simulator platform (crashsim.h). At
 * a crash point (a fence, before it takes effect) the harness builds crash
 * images -- the durable image alone, with every unsettled line, and with
 * random or all choices of them -- and for each one: os_open on a copy
 * with a plain platform, os_check (no problem allowed), then the visible
 * state is read back and compared with an ORACLE, a model kept by the test
 * of what the transactions did:
 *
 *   committed epoch in the image == the last commit's:  the state after
 *     the last committed transaction;
 *   == that plus one, while a transaction ends:  the state after it (or,
 *     for an abort, the state before it), judged when it has ended;
 *   anything else:  a failure.
 *
 * So a crash image must show one of the two states, decided by whether
 * the commit's epoch store reached it, never a mix. Some crash images are
 * also recovered under a second simulator that cuts power at every fence
 * of the recovery: recovery must be idempotent.
 *
 * Two worlds: the heap world models raw allocations (offset, size, bytes
 * written) and reads them back from the page descriptors; the object
 * world models objects and names and reads them back through object.h and
 * catalogue.h. Failures print the scenario, the fence, the image (a seed
 * for random ones) and what differed, and can be replayed alone with
 * CRASHSIM_SCENARIO=name. docs/crash-testing.md describes the model.
 */
#include <stdarg.h>

#include "os_test.h"

#include "crashsim.h"
#include "objstore/catalogue.h"
#include "objstore/check.h"
#include "objstore/object.h"

#define HEAP (4u << 20)
#define SMALL_LOG (64u << 10)
#define OBJECT_LOG (256u << 10)
#define EVERY_FENCE 65536u      /* sample: test every fence */
#define REPORTS_MAX 8           /* failures printed in full per scenario */

/* --- small helpers ----------------------------------------------------- */

/* xmalloc -- malloc or abort */
static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		abort();
	return p;
}

/* xrealloc -- realloc or abort */
static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		abort();
	return p;
}

/* mix -- a 64-bit hash of x (splitmix64's finaliser) */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* rnd -- the next number of a random sequence */
static uint64_t rnd(uint64_t *state)
{
	*state = mix(*state);
	return *state;
}

/* below -- a random number in [0, n) */
static uint64_t below(uint64_t *state, uint64_t n)
{
	return n ? rnd(state) % n : 0;
}

/* digest -- a 32-bit hash of n bytes (not instrumented: it runs over whole
 * heaps for every crash image, and reads only what the caller hands it) */
__attribute__((no_sanitize("address", "undefined")))
static uint32_t digest(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t h = 0x243f6a8885a308d3ull ^ n;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, b + i, 8);
		h = (h ^ w) * 0x9fb21c651e98df25ull;
		h ^= h >> 29;
	}
	for (; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return (uint32_t)(mix(h) >> 32);
}

/* fill_random -- len random bytes */
static void fill_random(uint64_t *state, void *p, size_t len)
{
	uint8_t *b = p;

	for (size_t i = 0; i < len; i += 8) {
		uint64_t r = rnd(state);

		memcpy(b + i, &r, len - i < 8 ? len - i : 8);
	}
}

/* err_text -- a negative error as text */
static const char *err_text(int err)
{
	static const char *const names[] = {
		"0", "ERR_PERM", "ERR_NOENT", "ERR_NOMEM", "ERR_FAULT", "ERR_BUSY",
		"ERR_EXIST", "ERR_INVAL", "ERR_NOSPC", "ERR_RANGE", "ERR_NOSYS",
		"ERR_BADF", "ERR_CORRUPT", "ERR_VERSION", "ERR_NOTSUP", "ERR_TOOBIG",
		"ERR_AGAIN", "ERR_IO",
	};

	return err <= 0 && -err < ERR__COUNT ? names[-err] : "?";
}

/* --- states: sorted lines of text -------------------------------------- */

/* A visible state, as sorted lines ("obj ...", "name ...", "blk ..."). */
struct state {
	char *text;
	size_t len, cap;
};

/* st_reset -- empty the state */
static void st_reset(struct state *s)
{
	s->len = 0;
}

/* st_addf -- append one line (the format ends with a newline) */
static void st_addf(struct state *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void st_addf(struct state *s, const char *fmt, ...)
{
	for (;;) {
		size_t room = s->cap - s->len;
		va_list ap;
		int n;

		va_start(ap, fmt);
		n = vsnprintf(s->text ? s->text + s->len : NULL, room, fmt, ap);
		va_end(ap);
		if ((size_t)n < room) {
			s->len += (size_t)n;
			return;
		}
		s->cap = 2 * s->cap + (size_t)n + 4096;
		s->text = xrealloc(s->text, s->cap);
	}
}

/* st_copy -- dst = src */
static void st_copy(struct state *dst, const struct state *src)
{
	if (dst->cap < src->len + 1) {
		dst->cap = src->len + 1;
		dst->text = xrealloc(dst->text, dst->cap);
	}
	if (src->len)
		memcpy(dst->text, src->text, src->len);
	dst->len = src->len;
}

/* st_free -- release the state's text */
static void st_free(struct state *s)
{
	free(s->text);
	memset(s, 0, sizeof(*s));
}

/* line_cmp -- order of two newline-terminated lines */
static int line_cmp(const char *x, const char *y)
{
	while (*x == *y && *x != '\n') {
		x++;
		y++;
	}
	return (unsigned char)*x - (unsigned char)*y;
}

/* line_ptr_cmp -- qsort order of line pointers */
static int line_ptr_cmp(const void *a, const void *b)
{
	return line_cmp(*(const char *const *)a, *(const char *const *)b);
}

/* line_len -- bytes of the line at p, with its newline */
static size_t line_len(const char *p)
{
	return (size_t)((const char *)memchr(p, '\n', SIZE_MAX >> 1) - p) + 1;
}

/* st_sort -- sort the lines */
static void st_sort(struct state *s)
{
	size_t n = 0, k = 0, pos = 0;
	const char **lines;
	char *sorted;

	for (size_t i = 0; i < s->len; i++)
		n += s->text[i] == '\n';
	lines = xmalloc(n * sizeof(*lines));
	for (size_t i = 0; i < s->len; i += line_len(s->text + i))
		lines[k++] = s->text + i;
	qsort(lines, n, sizeof(*lines), line_ptr_cmp);
	sorted = xmalloc(s->cap);
	for (k = 0; k < n; k++) {
		size_t l = line_len(lines[k]);

		memcpy(sorted + pos, lines[k], l);
		pos += l;
	}
	free(lines);
	free(s->text);
	s->text = sorted;
}

/* st_eq -- whether two sorted states are equal */
static bool st_eq(const struct state *a, const struct state *b)
{
	return a->len == b->len && (a->len == 0 || memcmp(a->text, b->text, a->len) == 0);
}

/* st_diff -- print the lines only in `want` (-) and only in `got` (+) */
static void st_diff(const struct state *want, const struct state *got, unsigned max)
{
	size_t i = 0, j = 0;
	unsigned shown = 0;

	while ((i < want->len || j < got->len) && shown < max) {
		int c = i >= want->len ? 1 : j >= got->len ? -1 :
			line_cmp(want->text + i, got->text + j);

		if (c == 0) {
			i += line_len(want->text + i);
			j += line_len(got->text + j);
			continue;
		}
		if (c < 0) {
			printf("      - %.*s", (int)line_len(want->text + i), want->text + i);
			i += line_len(want->text + i);
		} else {
			printf("      + %.*s", (int)line_len(got->text + j), got->text + j);
			j += line_len(got->text + j);
		}
		shown++;
	}
	if (shown == max)
		printf("      ...\n");
}

/* --- the harness ------------------------------------------------------- */

enum world {
	WORLD_HEAP,      /* raw allocations: struct heap_model */
	WORLD_OBJECTS,   /* objects and names: struct obj_model */
};

struct heap_model;
struct obj_model;

#define SNAPS_MAX 8

/* A crash image showing the in-flight transaction's epoch, judged at its end. */
struct deferred {
	char where[128];
	struct state got;
};

struct harness {
	const char *name;
	enum world world;
	struct crashsim *cs;          /* the scenario's machine */
	struct crashsim *rec;         /* a crash image recovering, under the simulator */
	struct objstore os;           /* the heap on cs's memory */
	uint8_t *image, *image2;      /* crash images being judged */
	void *scratch;                /* os_check's */
	uint64_t rng;                 /* the workload's random numbers */
	uint64_t pick;                /* the harness's: sampling, image seeds */

	/* the oracle */
	struct state committed;       /* visible after the last commit */
	uint64_t epoch;               /* its committed epoch */
	bool in_tx;
	struct deferred *deferred;
	size_t deferred_count, deferred_cap;
	struct heap_model *hm;
	struct obj_model *om;

	/* creating a heap over an old one: old id, old state or new empty */
	bool create_mode;
	uint8_t old_id[16], new_id[16];
	struct state fresh;

	/* what to test */
	bool armed;
	uint32_t sample;              /* a fence is a crash point with p = sample / 65536 */
	unsigned randoms;             /* random images per crash point */
	unsigned recovery_every;      /* recover every n-th image with something to undo under the simulator (0: none) */
	unsigned rec_randoms;         /* random images per recovery crash point */
	uint64_t rollback_images;

	/* the crash point being judged, for reports */
	uint64_t fence;
	char where[128];
	struct state got, got2;

	/* snapshots (the snapshot scenarios): each one taken and committed
	 * must give back the state it was taken from, in every image */
	unsigned snaps;
	char snap_name[SNAPS_MAX][16];
	struct state snap_state[SNAPS_MAX];
	uint8_t *image3;              /* a snapshot's state, materialized */
	struct state *restore_to;     /* a restore runs: the target's state */

	/* results */
	uint64_t states, rec_states, points, failures;
	uint64_t commits, aborts, log_full, peak;   /* the workload */
};

/*
 * A full run visits CRASH_STATES_MEASURED crash states (measured with
 * the commits with one wait and their scenarios). Scenarios are deterministic, so the count moves only when a
 * scenario or objstore's fences change; CRASH_STATES_FLOOR, 95 % of it, is
 * what a full run must reach, so a harness that quietly stops cutting
 * power fails. docs/crash-testing.md gives both figures.
 */
#define CRASH_STATES_MEASURED 48355ull
#define CRASH_STATES_FLOOR (CRASH_STATES_MEASURED * 95 / 100)

static const char *only;          /* CRASHSIM_SCENARIO: the one scenario to run */
static unsigned scenarios_run;
static uint64_t total_states, total_failures;

static void extract(struct harness *h, struct objstore *os, struct state *out,
		    uint64_t *blocks);
static void model_lines(struct harness *h, struct state *out);
static void model_begin(struct harness *h);
static void model_end(struct harness *h, bool commit);

/* report -- count a failure; whether to print its details */
static bool report(struct harness *h, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static bool report(struct harness *h, const char *where, const char *fmt, ...)
{
	va_list ap;

	if (++h->failures > REPORTS_MAX && !getenv("CRASHSIM_VERBOSE")) {
		if (h->failures == REPORTS_MAX + 1)
			printf("crashsim: %s: more failures, not shown (CRASHSIM_VERBOSE=1 shows them)\n",
			       h->name);
		return false;
	}
	printf("crashsim: FAIL scenario %s, %s: ", h->name, where);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (getenv("CRASHSIM_FIRST_FAILURE")) {
		/* _Exit: no leak report of the harness left standing */
		printf("crashsim: stopped at the first failure (CRASHSIM_FIRST_FAILURE)\n");
		fflush(stdout);
		_Exit(1);
	}
	return true;
}

/* What os_check said about one image. */
struct check_notes {
	uint64_t leaks;               /* "allocated but unreachable (leak)" */
	unsigned shown;
	char first[2][320];           /* the first other problems */
};

/* note_problem -- os_check report callback */
static void note_problem(void *ctx, const char *message)
{
	struct check_notes *n = ctx;

	if (strstr(message, "(leak)")) {
		n->leaks++;
		return;
	}
	if (n->shown < 2)
		snprintf(n->first[n->shown], sizeof(n->first[0]), "%s", message);
	n->shown++;
}

/* An image to open, check and read back. */
struct examine {
	struct harness *h;
	uint8_t *img;
	struct state *out;
	char why[800];
	bool ok;
};

/* snapshots_hold -- every snapshot committed so far gives back the state
 * it was taken from (materialized into image3, opened, checked, read) */
static bool snapshots_hold(struct harness *h, struct objstore *os, char *why, size_t size)
{
	struct os_check_report quiet = { 0 };
	struct state got = { 0 };
	bool held = true;

	for (unsigned i = 0; i < h->snaps && held; i++) {
		struct objstore view;
		uint64_t blocks = 0;
		int err;

		memcpy(h->image3, os->base, HEAP);
		err = os_snap_materialize(os, h->snap_name[i], h->image3);
		if (!err)
			err = os_open(&view, h->image3, HEAP, crashsim_plain_platform());
		if (err) {
			snprintf(why, size, "snapshot %s: -%s", h->snap_name[i], err_text(err));
			held = false;
			break;
		}
		if (os_check(h->image3, HEAP, h->scratch, &quiet)) {
			snprintf(why, size, "snapshot %s: os_check finds problems", h->snap_name[i]);
			held = false;
			break;
		}
		st_reset(&got);
		extract(h, &view, &got, &blocks);
		st_sort(&got);
		if (!st_eq(&h->snap_state[i], &got)) {
			snprintf(why, size, "snapshot %s: not the state it was taken from",
				 h->snap_name[i]);
			st_diff(&h->snap_state[i], &got, 6);
			held = false;
		}
	}
	st_free(&got);
	return held;
}

/* examine_run -- os_open, os_check, then the visible state (under crashsim_protect) */
static void examine_run(void *arg)
{
	struct examine *x = arg;
	struct check_notes notes = { 0 };
	struct os_check_report rep = { .problem = note_problem, .ctx = &notes };
	struct objstore os;
	uint64_t problems, blocks = 0;
	int err = os_open(&os, x->img, HEAP, crashsim_plain_platform());

	if (err) {
		snprintf(x->why, sizeof(x->why), "os_open: -%s", err_text(err));
		return;
	}
	if (os_snap_restoring(&os)) {
		/* Cut during a restore: a power-on finishes it first. */
		err = os_snap_finish(&os);
		if (err) {
			snprintf(x->why, sizeof(x->why), "os_snap_finish: -%s", err_text(err));
			return;
		}
	}
	problems = os_check(x->img, HEAP, x->h->scratch, &rep);
	if (problems == notes.leaks) {
		st_reset(x->out);
		extract(x->h, &os, x->out, &blocks);
		st_sort(x->out);
		if (!snapshots_hold(x->h, &os, x->why, sizeof(x->why)))
			return;
	}
	/* The heap world's raw blocks are the only leaks there may be: one each. */
	if (problems != notes.leaks)
		snprintf(x->why, sizeof(x->why), "os_check: %llu problems (%llu of them leaks); %s%s%s",
			 (unsigned long long)problems, (unsigned long long)notes.leaks,
			 notes.first[0], notes.shown > 1 ? "; " : "", notes.first[1]);
	else if (notes.leaks != blocks)
		snprintf(x->why, sizeof(x->why), "os_check: %llu leaks, but %llu raw blocks",
			 (unsigned long long)notes.leaks, (unsigned long long)blocks);
	else
		x->ok = true;
}

/* examine -- open, check and read back an image; false with the reason in x->why */
static bool examine(struct harness *h, uint8_t *img, struct state *out,
		    struct examine *x)
{
	const char *fatal;

	memset(x, 0, sizeof(*x));
	x->h = h;
	x->img = img;
	x->out = out;
	fatal = crashsim_protect(examine_run, x);
	if (fatal)
		snprintf(x->why, sizeof(x->why), "objstore fatal: %s", fatal);
	return fatal == NULL && x->ok;
}

/* image_epoch -- the last epoch an image committed: its superblock's, or
 * a later one whose commit by redo recovery replays; *work says whether
 * recovery has anything to replay or undo (0 if the image is not a heap) */
static uint64_t image_epoch(const uint8_t *img, bool *work)
{
	struct os_diagnosis d;

	*work = false;
	if (os_diagnose(img, HEAP, &d))
		return ((const struct os_superblock *)img)->committed_epoch;
	*work = d.records || d.replay_records;
	return d.committed;
}

/* expect -- compare what an image showed with what it should have;
 * whether a failure was printed in full */
static bool expect(struct harness *h, const char *where, const struct state *want,
		   const struct state *got, const char *which)
{
	if (st_eq(want, got))
		return false;
	if (!report(h, where, "the visible state is not the state %s (- expected, + found):",
		    which))
		return false;
	st_diff(want, got, 12);
	return true;
}

/* defer -- keep what an image of the in-flight epoch showed, until the transaction ends */
static void defer(struct harness *h, const char *where, const struct state *got)
{
	struct deferred *d;

	if (h->deferred_count == h->deferred_cap) {
		h->deferred_cap = h->deferred_cap ? 2 * h->deferred_cap : 16;
		h->deferred = xrealloc(h->deferred, h->deferred_cap * sizeof(*d));
		memset(h->deferred + h->deferred_count, 0,
		       (h->deferred_cap - h->deferred_count) * sizeof(*d));
	}
	d = &h->deferred[h->deferred_count++];
	snprintf(d->where, sizeof(d->where), "%s", where);
	st_copy(&d->got, got);
}

/* resolve -- judge the deferred images against the state the transaction ended with */
static void resolve(struct harness *h, const struct state *after, bool committed)
{
	for (size_t i = 0; i < h->deferred_count; i++)
		expect(h, h->deferred[i].where, after, &h->deferred[i].got,
		       committed ? "after the committing transaction"
				 : "before the aborted transaction");
	h->deferred_count = 0;
}

/* describe_image -- print which lines a random image took, for replaying it */
static void describe_image(struct crashsim *cs, const char *label)
{
	unsigned long long seed;

	if (sscanf(label, "random:%llx", &seed) == 1)
		crashsim_describe_random(cs, seed, 24, stdout);
	else if (sscanf(label, "enum:%llu", &seed) == 1)
		crashsim_describe_enum(cs, seed, 24, stdout);
}

/* judge_create -- a crash image of os_create over an old heap */
static void judge_create(struct harness *h, const char *where, const char *label)
{
	const struct os_superblock *sb = (const void *)h->image;
	struct examine x;

	if (os_probe(h->image, HEAP) == -ERR_INVAL)
		return; /* no magic: not a heap, as a cut creation must leave it */
	if (!examine(h, h->image, &h->got, &x)) {
		if (report(h, where, "%s", x.why))
			describe_image(h->cs, label);
		return;
	}
	if (memcmp(sb->heap_id, h->old_id, 16) == 0)
		expect(h, where, &h->committed, &h->got, "of the old heap");
	else if (memcmp(sb->heap_id, h->new_id, 16) == 0)
		expect(h, where, &h->fresh, &h->got, "of the new empty heap");
	else
		report(h, where, "the heap id is neither the old heap's nor the new one's");
}

/* rec_judge -- a crash image of a recovery: must show the state the recovered image had */
static void rec_judge(struct harness *h, const char *label)
{
	char where[256];
	struct examine x;

	snprintf(where, sizeof(where), "%s, recovery fence %llu image %s", h->where,
		 (unsigned long long)h->fence, label);
	h->states++;
	h->rec_states++;
	if (!examine(h, h->image2, &h->got2, &x)) {
		if (report(h, where, "%s", x.why))
			describe_image(h->rec, label);
		return;
	}
	if (h->restore_to && st_eq(&h->got2, h->restore_to))
		return;
	if (expect(h, where, &h->committed, &h->got2, "after the last commit"))
		describe_image(h->rec, label);
}

/* image_seed -- the seed of random image r at the current crash point */
static uint64_t image_seed(struct harness *h, uint64_t fence, unsigned r)
{
	return mix(mix(h->pick ^ fence) + r);
}

/* cut -- the crash images of one crash point of `cs`, each built into
 * `img` and handed to judge(h, label) */
static void cut(struct harness *h, struct crashsim *cs, uint64_t fence,
		unsigned randoms, uint8_t *img,
		void (*judge)(struct harness *h, const char *label))
{
	uint64_t combos;
	char label[48];

	crashsim_collect(cs);
	combos = crashsim_combinations(cs);
	if (combos <= randoms + 2u) {
		for (uint64_t i = 0; i < combos; i++) {
			crashsim_image_enum(cs, i, img);
			snprintf(label, sizeof(label), i == 0 ? "none" : "enum:%llu",
				 (unsigned long long)i);
			judge(h, label);
		}
		return;
	}
	crashsim_image_none(cs, img);
	judge(h, "none");
	crashsim_image_all(cs, img);
	judge(h, "all");
	for (unsigned r = 0; r < randoms; r++) {
		uint64_t seed = image_seed(h, fence, r);

		crashsim_image_random(cs, seed, img);
		snprintf(label, sizeof(label), "random:%llx", (unsigned long long)seed);
		judge(h, label);
	}
}

/* rec_hook -- a fence of the recovery */
static void rec_hook(struct crashsim *cs, uint64_t fence, void *ctx)
{
	struct harness *h = ctx;
	uint64_t outer = h->fence;

	h->fence = fence;
	cut(h, cs, fence, h->rec_randoms, h->image2, rec_judge);
	h->fence = outer;
}

struct rec_open {
	struct crashsim *cs;
	int err;
};

/* rec_open_run -- os_open under the recovery simulator */
static void rec_open_run(void *arg)
{
	struct rec_open *r = arg;
	struct objstore os;

	r->err = os_open(&os, crashsim_mem(r->cs), HEAP, crashsim_platform(r->cs));
}

/* crash_recovery -- recover the image loaded in h->rec, cutting power at
 * each of its fences and once it is done */
static void crash_recovery(struct harness *h)
{
	struct rec_open r = { h->rec, 0 };
	const char *fatal;
	uint64_t outer = h->fence;

	crashsim_set_hook(h->rec, rec_hook, h);
	fatal = crashsim_protect(rec_open_run, &r);
	crashsim_set_hook(h->rec, NULL, NULL);
	if (fatal || r.err) {
		report(h, h->where, "recovery under the simulator: %s%s",
		       fatal ? "objstore fatal: " : "os_open: -",
		       fatal ? fatal : err_text(r.err));
		return;
	}
	h->fence = crashsim_fences(h->rec);
	cut(h, h->rec, h->fence, h->rec_randoms, h->image2, rec_judge);
	h->fence = outer;
}

/* judge -- one crash image of the scenario, in h->image */
static void judge(struct harness *h, const char *label)
{
	bool work;
	uint64_t ie = image_epoch(h->image, &work);
	bool undo = ie == h->epoch && work;
	bool nested = undo && h->recovery_every &&
		      h->rollback_images++ % h->recovery_every == 0;
	struct examine x;

	snprintf(h->where, sizeof(h->where), "fence %llu image %s",
		 (unsigned long long)h->fence, label);
	h->states++;
	if (h->create_mode) {
		judge_create(h, h->where, label);
		return;
	}
	if (nested)
		crashsim_load(h->rec, h->image);
	if (!examine(h, h->image, &h->got, &x)) {
		if (report(h, h->where, "%s", x.why))
			describe_image(h->cs, label);
		return;
	}
	if (h->restore_to) {
		/* Many commits: the state before, or, once begun, the target's. */
		if (!st_eq(&h->got, &h->committed) &&
		    expect(h, h->where, h->restore_to, &h->got, "of the snapshot restored"))
			describe_image(h->cs, label);
	} else if (ie == h->epoch) {
		if (expect(h, h->where, &h->committed, &h->got, "after the last commit"))
			describe_image(h->cs, label);
	} else if (h->in_tx && ie == h->epoch + 1)
		defer(h, h->where, &h->got);
	else
		report(h, h->where, "the image's committed epoch is %llu, expected %llu%s",
		       (unsigned long long)ie, (unsigned long long)h->epoch,
		       h->in_tx ? " or one more" : "");
	if (nested)
		crash_recovery(h);
}

/* crash_point -- cut power at the current point of the scenario */
static void crash_point(struct harness *h, uint64_t fence)
{
	h->fence = fence;
	h->points++;
	cut(h, h->cs, fence, h->randoms, h->image, judge);
}

/* on_fence -- the scenario's hook: some or every fence is a crash point */
static void on_fence(struct crashsim *cs, uint64_t fence, void *ctx)
{
	struct harness *h = ctx;

	(void)cs;
	if (!h->armed)
		return;
	if (h->sample < EVERY_FENCE && below(&h->pick, EVERY_FENCE) >= h->sample)
		return;
	crash_point(h, fence);
}

/* h_new -- a scenario on a fresh heap */
static struct harness *h_new(const char *name, enum world world, uint64_t log_size,
			     uint64_t seed)
{
	struct os_create_opts opts = { .log_size = log_size, .heap_id = NULL };
	struct harness *h;

	h = xmalloc(sizeof(*h));
	memset(h, 0, sizeof(*h));
	h->name = name;
	h->world = world;
	h->rng = seed;
	h->pick = mix(seed ^ 0x5eed);
	h->cs = crashsim_new(HEAP);
	h->rec = crashsim_new(HEAP);
	h->image = aligned_alloc(4096, HEAP);
	h->image2 = aligned_alloc(4096, HEAP);
	h->image3 = aligned_alloc(4096, HEAP);
	h->scratch = xmalloc(os_check_scratch_size(HEAP));
	if (!h->cs || !h->rec || !h->image || !h->image2 || !h->image3)
		abort();
	memset(h->old_id, 0xa1, sizeof(h->old_id));
	memset(h->new_id, 0xb2, sizeof(h->new_id));
	opts.heap_id = h->old_id;
	if (os_create(&h->os, crashsim_mem(h->cs), HEAP, crashsim_platform(h->cs), &opts))
		abort();
	crashsim_settle(h->cs);
	crashsim_set_hook(h->cs, on_fence, h);
	h->sample = EVERY_FENCE;
	h->randoms = 16;
	h->recovery_every = 4;
	h->rec_randoms = 3;
	model_begin(h); /* the model's empty state */
	model_end(h, true);
	model_lines(h, &h->committed);
	h->epoch = os_epoch(&h->os);
	return h;
}

/* h_check_live -- the running heap itself: checks clean, shows the model */
static void h_check_live(struct harness *h, const char *when)
{
	struct check_notes notes = { 0 };
	struct os_check_report rep = { .problem = note_problem, .ctx = &notes };
	uint64_t problems, blocks = 0;

	problems = os_check(crashsim_mem(h->cs), HEAP, h->scratch, &rep);
	st_reset(&h->got);
	extract(h, &h->os, &h->got, &blocks);
	st_sort(&h->got);
	if (problems != notes.leaks || notes.leaks != blocks)
		report(h, when, "the running heap: os_check: %llu problems (%llu leaks, %llu raw blocks)%s%s",
		       (unsigned long long)problems, (unsigned long long)notes.leaks,
		       (unsigned long long)blocks, notes.shown ? "; " : "", notes.first[0]);
	expect(h, when, &h->committed, &h->got, "the model holds (running heap)");
}

/* h_begin -- start a transaction */
static void h_begin(struct harness *h)
{
	CHECK_EQ(os_tx_begin(&h->os), 0);
	h->in_tx = true;
	model_begin(h);
}

/* h_end -- commit or abort the transaction, then judge what waited for it */
static void h_end(struct harness *h, bool commit)
{
	char when[64];

	CHECK_EQ(commit ? os_tx_commit(&h->os) : os_tx_abort(&h->os), 0);
	h->in_tx = false;
	if (commit)
		h->commits++;
	else
		h->aborts++;
	model_end(h, commit);
	model_lines(h, &h->got);
	st_sort(&h->got);
	resolve(h, commit ? &h->got : &h->committed, commit);
	st_copy(&h->committed, &h->got);
	h->epoch = os_epoch(&h->os);
	snprintf(when, sizeof(when), "after the %s at fence %llu",
		 commit ? "commit" : "abort", (unsigned long long)crashsim_fences(h->cs));
	h_check_live(h, when);
}

/* h_commit -- commit the transaction */
static void h_commit(struct harness *h)
{
	h_end(h, true);
}

/* h_abort -- abort the transaction */
static void h_abort(struct harness *h)
{
	h_end(h, false);
}

static void heap_model_free(struct heap_model *m);
static void obj_model_free(struct obj_model *m);

/* workload_line -- what a random workload did */
static void workload_line(struct harness *h, unsigned ops, const char *peak_what)
{
	printf("crashsim: workload %s: %u operations in %llu transactions (%llu committed, %llu aborted, %llu stopped by a full log), at most %llu %s\n",
	       h->name, ops, (unsigned long long)(h->commits + h->aborts),
	       (unsigned long long)h->commits, (unsigned long long)h->aborts,
	       (unsigned long long)h->log_full, (unsigned long long)h->peak, peak_what);
}

/* h_finish -- a last crash point, the summary line, and clean up */
static void h_finish(struct harness *h)
{
	const void *stray;
	uint64_t strays = crashsim_stray_flushes(h->cs, &stray);

	if (h->armed)
		crash_point(h, crashsim_fences(h->cs));
	if (strays)
		report(h, "the whole run", "%llu flushes outside the heap (first at %p)",
		       (unsigned long long)strays, stray);
	printf("crashsim: scenario %s: %llu crash states (%llu crash points, %llu in recovery), %llu failures\n",
	       h->name, (unsigned long long)h->states, (unsigned long long)h->points,
	       (unsigned long long)h->rec_states, (unsigned long long)h->failures);
	if (h->states == 0)
		printf("crashsim: FAIL scenario %s: it visited no crash state\n", h->name);
	fflush(stdout);
	scenarios_run++;
	total_states += h->states;
	total_failures += h->failures;
	CHECK(h->states > 0);
	CHECK_EQ(h->failures, 0);
	if (only)
		CHECK_STR_EQ(h->name, only); /* the test's name is the scenario's */
	heap_model_free(h->hm);
	obj_model_free(h->om);
	for (size_t i = 0; i < h->deferred_cap; i++)
		st_free(&h->deferred[i].got);
	free(h->deferred);
	st_free(&h->committed);
	st_free(&h->fresh);
	st_free(&h->got);
	st_free(&h->got2);
	crashsim_free(h->cs);
	crashsim_free(h->rec);
	free(h->image);
	free(h->image2);
	free(h->image3);
	for (unsigned i = 0; i < SNAPS_MAX; i++)
		st_free(&h->snap_state[i]);
	free(h->scratch);
	free(h);
}

/* --- the heap world: raw allocations ----------------------------------- */

/* A live allocation: where, how big (the whole block), what it holds. */
struct block {
	uint64_t off;
	uint32_t size;
	uint32_t sum;                 /* digest() of its bytes */
};

struct heap_model {
	struct block *b;              /* the transaction's view */
	size_t n, cap;
	struct block *saved;          /* the view at its start, for an abort */
	size_t saved_n, saved_cap;
};

/* heap_model_free -- release the model */
static void heap_model_free(struct heap_model *m)
{
	if (!m)
		return;
	free(m->b);
	free(m->saved);
	free(m);
}

/* block_size -- the block os_alloc hands out for `size` bytes */
static uint32_t block_size(uint64_t size)
{
	uint32_t b = 64;

	if (size > OS_LARGEST_SMALL)
		return OS_PAGE_SIZE;
	while (b < size)
		b *= 2;
	return b;
}

/* heap_lines -- the model's state */
static void heap_lines(const struct heap_model *m, struct state *out)
{
	for (size_t i = 0; i < m->n; i++)
		st_addf(out, "blk %012llx %4u %08x\n", (unsigned long long)m->b[i].off,
			m->b[i].size, m->b[i].sum);
}

/* heap_extract -- every allocated block of a heap, from its descriptors */
static void heap_extract(struct objstore *os, struct state *out, uint64_t *blocks)
{
	const uint8_t *base = os_ptr(os, 0);
	const struct os_superblock *sb = (const void *)base;
	const struct os_page_desc *desc = (const void *)(base + sb->desc_offset);
	const struct os_root *r = (const void *)(base + sb->root_offset);

	/* The never-used tail's descriptors mean nothing (after heap_create,
	 * they are the old heap's). */
	for (uint64_t p = 0; p < os_formatted_pages(sb, r); p++) {
		uint64_t page = sb->data_offset + p * OS_PAGE_SIZE;
		uint32_t size = 64u << desc[p].size_class;

		if (desc[p].kind == OS_PAGE_WHOLE) {
			st_addf(out, "blk %012llx %4u %08x\n", (unsigned long long)page,
				OS_PAGE_SIZE, digest(base + page, OS_PAGE_SIZE));
			++*blocks;
		}
		if (desc[p].kind != OS_PAGE_SLAB)
			continue;
		for (unsigned s = 0; s < OS_PAGE_SIZE / size; s++) {
			if (!(desc[p].slot_map & (1ull << s)))
				continue;
			st_addf(out, "blk %012llx %4u %08x\n",
				(unsigned long long)(page + s * size), size,
				digest(base + page + s * size, size));
			++*blocks;
		}
	}
}

/* block_sum -- the digest of block b as the transaction sees it (its
 * pending sets over the bytes in place) */
static uint32_t block_sum(struct harness *h, const struct block *b)
{
	static uint8_t seen[OS_PAGE_SIZE];

	os_tx_read(&h->os, seen, os_ptr(&h->os, b->off), b->size);
	return digest(seen, b->size);
}

/* hw_alloc -- allocate `size` bytes and fill the whole block with random bytes */
static int hw_alloc(struct harness *h, uint64_t size)
{
	struct heap_model *m = h->hm;
	struct block b;
	int err = os_alloc(&h->os, size, &b.off);

	if (err)
		return err;
	b.size = block_size(size);
	fill_random(&h->rng, os_ptr(&h->os, b.off), b.size);
	b.sum = block_sum(h, &b);
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 64;
		m->b = xrealloc(m->b, m->cap * sizeof(*m->b));
	}
	m->b[m->n++] = b;
	return 0;
}

/* hw_free -- free live block i */
static int hw_free(struct harness *h, size_t i)
{
	struct heap_model *m = h->hm;
	int err = os_free(&h->os, m->b[i].off);

	if (err)
		return err;
	m->b[i] = m->b[--m->n];
	return 0;
}

/* hw_modify -- log a random range of live block i, then overwrite it */
static int hw_modify(struct harness *h, size_t i)
{
	struct block *b = &h->hm->b[i];
	uint64_t start = below(&h->rng, b->size);
	uint64_t len = 1 + below(&h->rng, b->size - start);
	uint8_t *p = os_ptr(&h->os, b->off);
	int err = os_tx_log(&h->os, p + start, len);

	if (err)
		return err;
	fill_random(&h->rng, p + start, len);
	b->sum = block_sum(h, b);
	return 0;
}

/* hw_set -- set a random range of live block i to random bytes
 * (os_tx_set), and read them back as the transaction sees them */
static int hw_set(struct harness *h, size_t i)
{
	struct block *b = &h->hm->b[i];
	uint64_t start = below(&h->rng, b->size);
	uint64_t len = 1 + below(&h->rng, b->size - start);
	uint8_t *p = os_ptr(&h->os, b->off);
	uint8_t bytes[OS_PAGE_SIZE], seen[OS_PAGE_SIZE];
	int err;

	fill_random(&h->rng, bytes, len);
	err = os_tx_set(&h->os, p + start, bytes, len);
	if (err)
		return err;
	os_tx_read(&h->os, seen, p + start, len);
	CHECK_MEM_EQ(seen, bytes, len); /* read-your-writes */
	b->sum = block_sum(h, b);
	return 0;
}

/* heap_begin -- remember the view, for an abort */
static void heap_begin(struct heap_model *m)
{
	if (m->saved_cap < m->n) {
		m->saved_cap = m->cap;
		m->saved = xrealloc(m->saved, m->saved_cap * sizeof(*m->saved));
	}
	if (m->n)
		memcpy(m->saved, m->b, m->n * sizeof(*m->b));
	m->saved_n = m->n;
}

/* heap_end -- keep the view, or go back to the one at the start */
static void heap_end(struct heap_model *m, bool commit)
{
	if (commit)
		return;
	if (m->saved_n)
		memcpy(m->b, m->saved, m->saved_n * sizeof(*m->b));
	m->n = m->saved_n;
}

/* --- the object world: objects and names ------------------------------- */

/* An object as the model knows it. */
struct mobj {
	uint64_t id, size;
	uint16_t type;
	uint8_t placement;
	uint32_t refcount;
	uint16_t mode;                /* the header's mode and mtime (format.h), */
	int64_t mtime;                /* as the live heap had them after each call */
	uint64_t slots;               /* entries in pages[] */
	uint8_t **pages;              /* page i of the contents; NULL reads as zeros */
	bool digest_ok;
	uint64_t digest;              /* of the contents, cached */
};

struct mname {
	uint16_t len;
	char name[OS_NAME_MAX];
	uint64_t id;
};

/* An object as it was before the transaction first changed it. */
struct saved_obj {
	uint64_t id;
	bool existed;
	struct mobj copy;
};

struct obj_model {
	struct mobj *obj;
	size_t n, cap;
	struct mname *names;
	size_t names_n, names_cap;
	/* undo for an abort */
	struct saved_obj *saved;
	size_t saved_n, saved_cap;
	struct mname *saved_names;
	size_t saved_names_n;
	bool names_saved;
};

/* mobj_release -- free an object's pages */
static void mobj_release(struct mobj *o)
{
	for (uint64_t i = 0; i < o->slots; i++)
		free(o->pages[i]);
	free(o->pages);
	o->pages = NULL;
	o->slots = 0;
}

/* mobj_clone -- a deep copy of src */
static void mobj_clone(struct mobj *dst, const struct mobj *src)
{
	*dst = *src;
	dst->pages = src->slots ? xmalloc(src->slots * sizeof(*dst->pages)) : NULL;
	for (uint64_t i = 0; i < src->slots; i++) {
		dst->pages[i] = NULL;
		if (src->pages[i]) {
			dst->pages[i] = xmalloc(OS_PAGE_SIZE);
			memcpy(dst->pages[i], src->pages[i], OS_PAGE_SIZE);
		}
	}
}

/* obj_model_free -- release the model */
static void obj_model_free(struct obj_model *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		mobj_release(&m->obj[i]);
	for (size_t i = 0; i < m->saved_n; i++)
		mobj_release(&m->saved[i].copy);
	free(m->obj);
	free(m->names);
	free(m->saved);
	free(m->saved_names);
	free(m);
}

/* om_find -- the model's object `id`, or NULL */
static struct mobj *om_find(struct obj_model *m, uint64_t id)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->obj[i].id == id)
			return &m->obj[i];
	return NULL;
}

/* om_remove -- drop object `id` from the model */
static void om_remove(struct obj_model *m, uint64_t id)
{
	struct mobj *o = om_find(m, id);

	if (!o)
		return;
	mobj_release(o);
	*o = m->obj[--m->n];
}

/* om_insert -- add an object (its pages now belong to the model) */
static struct mobj *om_insert(struct obj_model *m, const struct mobj *o)
{
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 32;
		m->obj = xrealloc(m->obj, m->cap * sizeof(*m->obj));
	}
	m->obj[m->n] = *o;
	return &m->obj[m->n++];
}

/* om_touch -- save object `id` as it is, the first time a transaction changes it */
static void om_touch(struct obj_model *m, uint64_t id)
{
	struct mobj *o = om_find(m, id);
	struct saved_obj *s;

	for (size_t i = 0; i < m->saved_n; i++)
		if (m->saved[i].id == id)
			return;
	if (m->saved_n == m->saved_cap) {
		m->saved_cap = m->saved_cap ? 2 * m->saved_cap : 16;
		m->saved = xrealloc(m->saved, m->saved_cap * sizeof(*m->saved));
	}
	s = &m->saved[m->saved_n++];
	s->id = id;
	s->existed = o != NULL;
	if (o)
		mobj_clone(&s->copy, o);
	else
		memset(&s->copy, 0, sizeof(s->copy));
}

/* om_touch_names -- save the names, the first time a transaction changes them */
static void om_touch_names(struct obj_model *m)
{
	if (m->names_saved)
		return;
	m->saved_names = xrealloc(m->saved_names, (m->names_n + 1) * sizeof(*m->names));
	if (m->names_n)
		memcpy(m->saved_names, m->names, m->names_n * sizeof(*m->names));
	m->saved_names_n = m->names_n;
	m->names_saved = true;
}

/* om_end -- forget the saved copies, or put them back (abort) */
static void om_end(struct obj_model *m, bool commit)
{
	for (size_t i = m->saved_n; i-- > 0;) {
		struct saved_obj *s = &m->saved[i];

		if (commit) {
			mobj_release(&s->copy);
			continue;
		}
		om_remove(m, s->id);
		if (s->existed)
			om_insert(m, &s->copy);
	}
	m->saved_n = 0;
	if (m->names_saved && !commit) {
		if (m->names_cap < m->saved_names_n) {
			m->names_cap = m->saved_names_n;
			m->names = xrealloc(m->names, m->names_cap * sizeof(*m->names));
		}
		if (m->saved_names_n)
			memcpy(m->names, m->saved_names, m->saved_names_n * sizeof(*m->names));
		m->names_n = m->saved_names_n;
	}
	m->names_saved = false;
}

/* mobj_page -- page i of o, made to exist (zeroed) */
static uint8_t *mobj_page(struct mobj *o, uint64_t i)
{
	if (i >= o->slots) {
		o->pages = xrealloc(o->pages, (i + 1) * sizeof(*o->pages));
		memset(o->pages + o->slots, 0, (i + 1 - o->slots) * sizeof(*o->pages));
		o->slots = i + 1;
	}
	if (!o->pages[i]) {
		o->pages[i] = xmalloc(OS_PAGE_SIZE);
		memset(o->pages[i], 0, OS_PAGE_SIZE);
	}
	return o->pages[i];
}

/* mobj_write -- the model's copy of a write */
static void mobj_write(struct mobj *o, uint64_t off, const uint8_t *buf, uint64_t len)
{
	while (len) {
		uint64_t in = off % OS_PAGE_SIZE, n = OS_PAGE_SIZE - in;

		if (n > len)
			n = len;
		memcpy(mobj_page(o, off / OS_PAGE_SIZE) + in, buf, n);
		off += n;
		buf += n;
		len -= n;
	}
	o->digest_ok = false;
}

/* mobj_resize -- the model's copy of a resize: what is cut off is gone */
static void mobj_resize(struct mobj *o, uint64_t size)
{
	uint64_t keep = (size + OS_PAGE_SIZE - 1) / OS_PAGE_SIZE;

	for (uint64_t i = keep; i < o->slots; i++) {
		free(o->pages[i]);
		o->pages[i] = NULL;
	}
	if (o->slots > keep)
		o->slots = keep;
	if (size % OS_PAGE_SIZE && keep <= o->slots && o->pages[keep - 1])
		memset(o->pages[keep - 1] + size % OS_PAGE_SIZE, 0,
		       OS_PAGE_SIZE - size % OS_PAGE_SIZE);
	o->size = size;
	o->digest_ok = false;
}

static const uint8_t zero_page[OS_PAGE_SIZE];

/* page_digest -- what page i of a content adds to its digest (zeros: nothing) */
static uint64_t page_digest(uint64_t i, const uint8_t *page)
{
	if (!page || memcmp(page, zero_page, OS_PAGE_SIZE) == 0)
		return 0;
	return mix(i * 0x100000001b3ull ^ digest(page, OS_PAGE_SIZE));
}

/* mobj_digest -- the digest of o's contents */
static uint64_t mobj_digest(struct mobj *o)
{
	if (!o->digest_ok) {
		o->digest = 0;
		for (uint64_t i = 0; i < o->slots; i++)
			o->digest += page_digest(i, o->pages[i]);
		o->digest_ok = true;
	}
	return o->digest;
}

/* add_name_line -- "name <escaped> -> id" */
static void add_name_line(struct state *out, const char *name, size_t len, uint64_t id)
{
	char esc[4 * OS_NAME_MAX + 1];
	size_t k = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c > 0x20 && c < 0x7f && c != '\\')
			esc[k++] = (char)c;
		else
			k += (size_t)snprintf(esc + k, 5, "\\x%02x", c);
	}
	esc[k] = '\0';
	st_addf(out, "name %s -> %llu\n", esc, (unsigned long long)id);
}

/* obj_line -- the line of one object */
static void obj_line(struct state *out, uint64_t id, unsigned type, unsigned placement,
		     unsigned refcount, uint64_t size, uint64_t digest, unsigned mode,
		     int64_t mtime)
{
	st_addf(out, "obj %016llx type %u place %u refs %u size %llu data %016llx mode %o mtime %lld\n",
		(unsigned long long)id, type, placement, refcount,
		(unsigned long long)size, (unsigned long long)digest, mode, (long long)mtime);
}

/* obj_lines -- the model's state */
static void obj_lines(struct obj_model *m, struct state *out)
{
	for (size_t i = 0; i < m->n; i++) {
		struct mobj *o = &m->obj[i];

		obj_line(out, o->id, o->type, o->placement, o->refcount, o->size,
			 mobj_digest(o), o->mode, o->mtime);
	}
	for (size_t i = 0; i < m->names_n; i++)
		add_name_line(out, m->names[i].name, m->names[i].len, m->names[i].id);
	st_addf(out, "count objects %zu names %zu\n", m->n, m->names_n);
}

/* read_digest -- the digest of an object's contents, read through os_obj_read */
static int64_t read_digest(const struct objstore *os, uint64_t id, uint64_t size,
			   uint64_t *digest)
{
	static uint8_t page[OS_PAGE_SIZE];

	*digest = 0;
	for (uint64_t i = 0; i * OS_PAGE_SIZE < size; i++) {
		uint64_t want = size - i * OS_PAGE_SIZE;
		int64_t got;

		if (want > OS_PAGE_SIZE)
			want = OS_PAGE_SIZE;
		memset(page, 0, sizeof(page));
		got = os_obj_read(os, id, i * OS_PAGE_SIZE, page, want);
		if (got != (int64_t)want)
			return got < 0 ? got : -ERR_RANGE;
		*digest += page_digest(i, page);
	}
	return 0;
}

/* objects_extract -- every object and name of a heap, through the API */
static void objects_extract(struct objstore *os, struct state *out)
{
	struct os_cat_cursor cur;
	struct os_stats st;
	uint64_t id, from = 1, n = 0;

	while (os_obj_next(os, from, &id) == 0 && n++ < 100000) {
		struct os_obj_info info;
		uint64_t digest = 0;
		int err = os_obj_stat(os, id, &info);
		int64_t rd = err ? 0 : read_digest(os, id, info.size, &digest);

		if (err || rd)
			st_addf(out, "obj %016llx unreadable: stat -%s, read -%s\n",
				(unsigned long long)id, err_text(err), err_text((int)rd));
		else
			obj_line(out, id, info.type, info.placement, info.refcount,
				 info.size, digest, info.mode, info.mtime_ns);
		from = id + 1;
	}
	os_cat_cursor_init(&cur, "", 0);
	n = 0;
	while (os_cat_next(os, &cur, "", 0, &id) == 0 && n++ < 100000)
		add_name_line(out, cur.name, cur.len, id);
	os_stats(os, &st);
	st_addf(out, "count objects %llu names %llu\n", (unsigned long long)st.objects,
		(unsigned long long)st.names);
}

/* --- the worlds behind the harness ------------------------------------- */

/* extract -- the visible state of an opened heap; raw blocks counted in *blocks */
static void extract(struct harness *h, struct objstore *os, struct state *out,
		    uint64_t *blocks)
{
	*blocks = 0;
	if (h->world == WORLD_HEAP)
		heap_extract(os, out, blocks);
	else
		objects_extract(os, out);
}

/* model_lines -- the model's visible state, sorted */
static void model_lines(struct harness *h, struct state *out)
{
	st_reset(out);
	if (h->world == WORLD_HEAP)
		heap_lines(h->hm, out);
	else
		obj_lines(h->om, out);
	st_sort(out);
}

/* model_begin -- the model starts a transaction */
static void model_begin(struct harness *h)
{
	if (h->world == WORLD_HEAP) {
		if (!h->hm) {
			h->hm = xmalloc(sizeof(*h->hm));
			memset(h->hm, 0, sizeof(*h->hm));
		}
		heap_begin(h->hm);
	} else if (!h->om) {
		h->om = xmalloc(sizeof(*h->om));
		memset(h->om, 0, sizeof(*h->om));
	}
}

/* model_end -- the model commits or aborts */
static void model_end(struct harness *h, bool commit)
{
	if (h->world == WORLD_HEAP)
		heap_end(h->hm, commit);
	else
		om_end(h->om, commit);
}

/* --- the heap world's scenarios ---------------------------------------- */

/* hw_alloc_n -- allocate n blocks of the given sizes, in turn */
static void hw_alloc_n(struct harness *h, unsigned n, const uint64_t *sizes,
		       unsigned sizes_n)
{
	for (unsigned i = 0; i < n; i++)
		CHECK_EQ(hw_alloc(h, sizes[i % sizes_n]), 0);
}

/* hw_free_random -- free n random live blocks */
static void hw_free_random(struct harness *h, unsigned n)
{
	for (unsigned i = 0; i < n && h->hm->n; i++)
		CHECK_EQ(hw_free(h, below(&h->rng, h->hm->n)), 0);
}

/* hw_modify_random -- modify n random live blocks */
static void hw_modify_random(struct harness *h, unsigned n)
{
	for (unsigned i = 0; i < n && h->hm->n; i++)
		CHECK_EQ(hw_modify(h, below(&h->rng, h->hm->n)), 0);
}

static const uint64_t small_sizes[] = { 1, 64, 65, 200, 512, 1000, 2048, 130 };
static const uint64_t page_size[] = { OS_PAGE_SIZE };

/* Creating a heap over an old one: old heap, no heap, or the new empty one. */
CHECK_TEST(heap_create)
{
	struct harness *h = h_new("heap_create", WORLD_HEAP, SMALL_LOG, 11);
	struct os_create_opts opts = { .log_size = SMALL_LOG };

	h_begin(h);
	hw_alloc_n(h, 10, small_sizes, 8);
	h_commit(h);
	h->create_mode = true;
	h->armed = true;
	opts.heap_id = h->new_id;
	st_reset(&h->fresh);
	CHECK_EQ(os_create(&h->os, crashsim_mem(h->cs), HEAP, crashsim_platform(h->cs),
			   &opts), 0);
	crash_point(h, crashsim_fences(h->cs)); /* just after: the new heap */
	h->create_mode = false;
	h->hm->n = 0;
	st_copy(&h->committed, &h->fresh);
	h->epoch = os_epoch(&h->os);
	h_check_live(h, "after os_create");
	h_finish(h);
}

/* Small blocks of every class: allocate, free, modify, abort. */
CHECK_TEST(alloc_small)
{
	struct harness *h = h_new("alloc_small", WORLD_HEAP, SMALL_LOG, 21);

	h->armed = true;
	h_begin(h);
	hw_alloc_n(h, 16, small_sizes, 8);
	h_commit(h);
	h_begin(h);
	hw_free_random(h, 5);
	hw_modify_random(h, 4);
	h_commit(h);
	h_begin(h);
	hw_alloc_n(h, 5, small_sizes + 2, 5);
	h_commit(h);
	h_begin(h);
	hw_modify_random(h, 2);
	hw_alloc_n(h, 3, small_sizes, 8);
	h_abort(h);
	h_finish(h);
}

/* Slabs filling (taken off their list), refilling and emptying (page freed). */
CHECK_TEST(slab_fill_empty)
{
	struct harness *h = h_new("slab_fill_empty", WORLD_HEAP, SMALL_LOG, 31);
	static const uint64_t big[] = { 2048 }, mid[] = { 1024 }, tiny[] = { 64 };

	h->armed = true;
	h->randoms = 10;
	h_begin(h);
	hw_alloc_n(h, 3, big, 1);     /* a 2-slot slab fills, a second starts */
	hw_alloc_n(h, 4, mid, 1);     /* a 4-slot slab fills */
	h_commit(h);
	h_begin(h);
	CHECK_EQ(hw_free(h, 0), 0);   /* the full slab goes back on its list */
	h_commit(h);
	h_begin(h);
	while (h->hm->n)              /* every slab empties: pages freed */
		CHECK_EQ(hw_free(h, h->hm->n - 1), 0);
	h_commit(h);
	h_begin(h);
	hw_alloc_n(h, 65, tiny, 1);   /* a 64-slot slab fills, a second starts */
	h_commit(h);
	h_begin(h);
	hw_free_random(h, 65);
	h_commit(h);
	h_finish(h);
}

/* Whole pages: the free-page stack popped and pushed. */
CHECK_TEST(pages_free_stack)
{
	struct harness *h = h_new("pages_free_stack", WORLD_HEAP, SMALL_LOG, 41);

	h->armed = true;
	h_begin(h);
	hw_alloc_n(h, 6, page_size, 1);
	h_commit(h);
	h_begin(h);
	for (unsigned i = 0; i < 3; i++)
		CHECK_EQ(hw_free(h, i), 0);
	h_commit(h);
	h_begin(h);
	hw_alloc_n(h, 2, page_size, 1); /* pops what was pushed */
	h_commit(h);
	h_begin(h);
	hw_alloc_n(h, 1, page_size, 1);
	CHECK_EQ(hw_free(h, 0), 0);
	h_abort(h);
	h_begin(h);
	hw_free_random(h, 10);
	h_commit(h);
	h_finish(h);
}

/* Freeing a block and allocating in the same transaction. */
CHECK_TEST(free_then_alloc_same_tx)
{
	struct harness *h = h_new("free_then_alloc_same_tx", WORLD_HEAP, SMALL_LOG, 51);
	static const uint64_t tiny[] = { 64 };

	h_begin(h);
	hw_alloc_n(h, 3, tiny, 1);
	hw_alloc_n(h, 2, page_size, 1);
	h_commit(h);
	h->armed = true;
	h_begin(h);
	CHECK_EQ(hw_free(h, 0), 0);   /* a 64-byte block */
	hw_alloc_n(h, 1, tiny, 1);    /* its slot again */
	CHECK_EQ(hw_free(h, 0), 0);   /* a page (moved to index 0) */
	hw_alloc_n(h, 1, page_size, 1); /* the same page again */
	h_commit(h);
	h_finish(h);
}

/* Logged writes committed and aborted; empty transactions. */
CHECK_TEST(commit_abort)
{
	struct harness *h = h_new("commit_abort", WORLD_HEAP, SMALL_LOG, 61);

	h_begin(h);
	hw_alloc_n(h, 8, small_sizes, 8);
	hw_alloc_n(h, 2, page_size, 1);
	h_commit(h);
	h->armed = true;
	h_begin(h);
	hw_modify_random(h, 3);
	h_commit(h);
	h_begin(h);
	hw_modify_random(h, 3);
	CHECK_EQ(hw_modify(h, 0), 0);
	CHECK_EQ(hw_modify(h, 0), 0); /* the same block twice: the oldest bytes win */
	h_abort(h);
	h_begin(h);
	hw_alloc_n(h, 2, small_sizes + 3, 2);
	hw_modify_random(h, 1);
	h_abort(h);
	h_begin(h);
	h_commit(h);                  /* nothing logged: no new epoch */
	h_begin(h);
	h_abort(h);
	h_begin(h);
	hw_free_random(h, 2);
	h_abort(h);
	h_begin(h);
	hw_free_random(h, 2);
	h_commit(h);
	h_finish(h);
}

/* hw_log_page -- log live block i whole and overwrite it */
static int hw_log_page(struct harness *h, size_t i)
{
	struct block *b = &h->hm->b[i];
	uint8_t *p = os_ptr(&h->os, b->off);
	int err = os_tx_log(&h->os, p, b->size);

	if (err)
		return err;
	fill_random(&h->rng, p, b->size);
	b->sum = block_sum(h, b);
	return 0;
}

/* Commits by redo one after another: chains following each other in the
 * log, two of its start-overs (each after 15 chains), allocations and frees
 * among them, an abort ending the chains, and a page's allocation committed
 * by the epoch store in the middle of them. */
CHECK_TEST(redo_chains)
{
	struct harness *h = h_new("redo_chains", WORLD_HEAP, SMALL_LOG, 71);

	h_begin(h);
	hw_alloc_n(h, 8, small_sizes, 8);
	hw_alloc_n(h, 1, page_size, 1);
	h_commit(h);
	h->armed = true;
	for (unsigned t = 0; t < 40; t++) {
		h_begin(h);
		if (t % 9 == 4) {
			hw_alloc_n(h, 1, small_sizes + t % 8, 1);
		} else if (t % 9 == 7) {
			hw_free_random(h, 1);
		} else if (t == 20) {
			hw_alloc_n(h, 1, page_size, 1); /* a page: past what redo pays for */
		} else {
			CHECK_EQ(hw_modify(h, t % 8), 0);
		}
		if (t == 31)
			h_abort(h);
		else
			h_commit(h);
	}
	h_finish(h);
}

/* largest_block -- the index of the largest live block */
static size_t largest_block(const struct harness *h)
{
	size_t best = 0;

	for (size_t i = 1; i < h->hm->n; i++)
		if (h->hm->b[i].size > h->hm->b[best].size)
			best = i;
	return best;
}

/* hw_set_random -- set n random ranges of random live blocks */
static void hw_set_random(struct harness *h, unsigned n)
{
	for (unsigned i = 0; i < n && h->hm->n; i++)
		CHECK_EQ(hw_set(h, below(&h->rng, h->hm->n)), 0);
}

/* Commits with one wait (os_tx_set): sets alone, with allocations (FRESH)
 * and frees, mixed with logged writes of the same bytes in both orders, an
 * abort dropping its sets, a page logged whole among sets (commit by the
 * epoch store: the sets go the undo way, the log starts over under chains
 * that set the same bytes), and two start-overs of the log after fifteen
 * chains each. Every image with work to do is also recovered under the
 * simulator, cut at each fence of its replay. */
CHECK_TEST(redo_sets)
{
	struct harness *h = h_new("redo_sets", WORLD_HEAP, SMALL_LOG, 91);
	static const uint64_t tiny[] = { 64, 200 };

	h_begin(h);
	hw_alloc_n(h, 8, small_sizes, 8);
	hw_alloc_n(h, 1, page_size, 1);
	h_commit(h);
	h->armed = true;
	h->recovery_every = 1;
	h->randoms = 10;
	for (unsigned t = 0; t < 40; t++) {
		size_t i = t % h->hm->n;

		h_begin(h);
		switch (t % 8) {
		case 3:
			hw_alloc_n(h, 2, tiny, 2);
			CHECK_EQ(hw_set(h, h->hm->n - 1), 0); /* into a FRESH block */
			hw_set_random(h, 1);
			break;
		case 4:
			CHECK_EQ(hw_set(h, i), 0);
			CHECK_EQ(hw_modify(h, i), 0);  /* logged after a set: it goes first */
			CHECK_EQ(hw_modify(h, (i + 1) % h->hm->n), 0);
			CHECK_EQ(hw_set(h, (i + 1) % h->hm->n), 0); /* set after logged */
			break;
		case 5:
			hw_set_random(h, 2);
			hw_free_random(h, 1);
			break;
		case 7:
			hw_set_random(h, 2);
			CHECK_EQ(hw_log_page(h, largest_block(h)), 0); /* past what redo pays for */
			hw_set_random(h, 1);
			break;
		default:
			hw_set_random(h, 1 + t % 3);
		}
		if (t % 8 == 6)
			h_abort(h);
		else
			h_commit(h);
	}
	h_finish(h);
}

/* log_full_tx -- log whole pages, then allocate, until the log is full */
static void log_full_tx(struct harness *h)
{
	size_t i = 0;
	int err;

	while ((err = hw_log_page(h, i++ % h->hm->n)) == 0)
		;
	CHECK_EQ(err, -ERR_NOSPC);
	CHECK(i > 4);
	while ((err = hw_alloc(h, 100)) == 0)
		;
	CHECK_EQ(err, -ERR_NOSPC);
}

/* A full log mid-transaction: what fit commits (or aborts) whole. */
CHECK_TEST(log_full)
{
	struct harness *h = h_new("log_full", WORLD_HEAP, SMALL_LOG, 71);

	for (unsigned i = 0; i < 4; i++) {
		h_begin(h);
		hw_alloc_n(h, 5, page_size, 1);
		h_commit(h);
	}
	h->armed = true;
	h->randoms = 8;
	h_begin(h);
	log_full_tx(h);
	h_commit(h);
	h_begin(h);
	log_full_tx(h);
	h_abort(h);
	h_finish(h);
}

/* heap_random_op -- one random allocator operation; its error */
static int heap_random_op(struct harness *h)
{
	uint64_t r = below(&h->rng, 100);
	struct heap_model *m = h->hm;

	if (r < 32 && m->n < 400)
		return hw_alloc(h, 1 + below(&h->rng, OS_LARGEST_SMALL));
	if (r < 42 && m->n < 400)
		return hw_alloc(h, OS_LARGEST_SMALL + 1 + below(&h->rng, 2048));
	if (r < 68 && m->n)
		return hw_free(h, below(&h->rng, m->n));
	if (r < 80 && m->n)
		return hw_modify(h, below(&h->rng, m->n));
	if (r < 92 && m->n)
		return hw_set(h, below(&h->rng, m->n));
	if (m->n)
		return hw_log_page(h, below(&h->rng, m->n)); /* the whole block */
	return 0;
}

/* Ten thousand random allocator operations, power cut at sampled fences. */
/* heap_random -- the random heap workload; `by_redo` says how small
 * transactions commit (os_commit_by_redo) */
static void heap_random(const char *name, bool by_redo)
{
	struct harness *h = h_new(name, WORLD_HEAP, SMALL_LOG, 81);
	unsigned ops = 0;

	os_commit_by_redo(&h->os, by_redo);
	h->armed = true;
	h->sample = 600;
	h->randoms = 6;
	h->rec_randoms = 2;
	while (ops < 10000) {
		unsigned n = below(&h->rng, 16) ? 1 + (unsigned)below(&h->rng, 8)
						: 50 + (unsigned)below(&h->rng, 150);
		int err = 0;

		h_begin(h);
		for (unsigned i = 0; i < n && err != -ERR_NOSPC; i++, ops++) {
			err = heap_random_op(h);
			CHECK(err == 0 || err == -ERR_NOSPC || err == -ERR_NOMEM);
		}
		h->log_full += err == -ERR_NOSPC;
		if (h->hm->n > h->peak)
			h->peak = h->hm->n;
		h_end(h, err == -ERR_NOSPC || below(&h->rng, 100) < 85);
	}
	workload_line(h, ops, "live blocks");
	h_finish(h);
}

CHECK_TEST(heap_random)
{
	heap_random("heap_random", true);
}

/* The same, every commit by the epoch store, as the kernel's. */
CHECK_TEST(heap_random_by_epoch)
{
	heap_random("heap_random_by_epoch", false);
}

/* --- the object world's operations ------------------------------------- */

#define HALF_DONE 1   /* a two-call operation failed in its second call: abort */

/* ow_create -- a new object of `type` and `size`; its id in *id */
static void ow_meta_seen(struct harness *h, uint64_t id);

static int ow_create(struct harness *h, uint16_t type, uint64_t size, uint64_t *id)
{
	struct mobj o;
	int err = os_obj_create(&h->os, type, size, id);

	if (err)
		return err;
	om_touch(h->om, *id);
	memset(&o, 0, sizeof(o));
	o.id = *id;
	o.type = type;
	o.placement = os_obj_placement(type);
	o.refcount = 1;
	o.size = size;
	om_insert(h->om, &o);
	ow_meta_seen(h, *id);
	return 0;
}

/* ow_meta_seen -- the model takes object `id`'s mode and mtime from the
 * live heap after a call (called once om_touch has saved the model's
 * object): what they should be is the unit tests' matter (test_object.c);
 * here, that a power cut keeps them with the rest of the commit */
static void ow_meta_seen(struct harness *h, uint64_t id)
{
	struct os_obj_info info;
	struct mobj *o = om_find(h->om, id);

	if (o && os_obj_stat(&h->os, id, &info) == 0) {
		o->mode = info.mode;
		o->mtime = info.mtime_ns;
	}
}

/* ow_mode -- give a paged object permission bits */
static int ow_mode(struct harness *h, uint64_t id, uint16_t mode)
{
	int err = os_obj_set_mode(&h->os, id, mode);

	if (err)
		return err;
	om_touch(h->om, id);
	ow_meta_seen(h, id);
	CHECK_EQ(om_find(h->om, id)->mode, OS_MODE_SET | mode);
	return 0;
}

/* ow_mtime -- give a paged object an mtime */
static int ow_mtime(struct harness *h, uint64_t id, int64_t ns)
{
	int err = os_obj_set_mtime(&h->os, id, ns);

	if (err)
		return err;
	om_touch(h->om, id);
	ow_meta_seen(h, id);
	CHECK_EQ(om_find(h->om, id)->mtime, ns);
	return 0;
}

/* ow_touch -- stamp a paged object as changed */
static int ow_touch(struct harness *h, uint64_t id)
{
	int err = os_obj_touch(&h->os, id);

	if (err)
		return err;
	om_touch(h->om, id);
	ow_meta_seen(h, id);
	return 0;
}

/* ow_write -- write len random bytes at `off` of object `id` */
static int ow_write(struct harness *h, uint64_t id, uint64_t off, uint64_t len)
{
	uint8_t *buf = xmalloc(len);
	int64_t n;

	fill_random(&h->rng, buf, len);
	n = os_obj_write(&h->os, id, off, buf, len);
	if (n >= 0) {
		om_touch(h->om, id);
		mobj_write(om_find(h->om, id), off, buf, (uint64_t)n);
		ow_meta_seen(h, id);
	}
	free(buf);
	return n < 0 ? (int)n : 0;
}

/* ow_poke -- change some bytes of a small object in place, logged first */
static int ow_poke(struct harness *h, uint64_t id)
{
	struct mobj *o = om_find(h->om, id);
	uint8_t *p = os_obj_data(&h->os, id);
	uint64_t off, len;
	int err;

	if (!p || !o)
		return -ERR_INVAL;
	off = below(&h->rng, o->size);
	len = 1 + below(&h->rng, o->size - off);
	err = os_tx_log(&h->os, p + off, len);
	if (err)
		return err;
	fill_random(&h->rng, p + off, len);
	om_touch(h->om, id);
	mobj_write(om_find(h->om, id), off, p + off, len);
	return 0;
}

/* ow_cut -- after a shrink or delete stopped for lack of log: the object
 * is left cut at a page boundary (object.h); the model follows */
static void ow_cut(struct harness *h, uint64_t id)
{
	struct os_obj_info info;
	struct mobj *o = om_find(h->om, id);

	if (os_obj_stat(&h->os, id, &info) != 0 || !o)
		return;
	om_touch(h->om, id);
	ow_meta_seen(h, id); /* a cut that kept the size still stamps */
	if (info.size == o->size)
		return;
	CHECK(info.size < o->size && info.size % OS_PAGE_SIZE == 0);
	mobj_resize(om_find(h->om, id), info.size);
}

/* ow_resize -- resize a paged object */
static int ow_resize(struct harness *h, uint64_t id, uint64_t size)
{
	int err = os_obj_resize(&h->os, id, size);

	if (err == -ERR_NOSPC)
		ow_cut(h, id);
	if (err)
		return err;
	om_touch(h->om, id);
	mobj_resize(om_find(h->om, id), size);
	ow_meta_seen(h, id);
	return 0;
}

/* ow_ref -- refcount += delta */
static int ow_ref(struct harness *h, uint64_t id, int32_t delta)
{
	uint32_t count = 0;
	int err = os_obj_ref(&h->os, id, delta, &count);
	struct mobj *o;

	if (err)
		return err;
	om_touch(h->om, id);
	o = om_find(h->om, id);
	o->refcount = (uint32_t)((int64_t)o->refcount + delta);
	CHECK_EQ(count, o->refcount);
	return 0;
}

/* name_find -- the index of a name in the model, or names_n */
static size_t name_find(const struct obj_model *m, const char *name, size_t len)
{
	size_t i = 0;

	while (i < m->names_n &&
	       (m->names[i].len != len || memcmp(m->names[i].name, name, len) != 0))
		i++;
	return i;
}

/* ow_bind -- bind a new name to `id` and count the reference */
static int ow_bind(struct harness *h, const char *name, size_t len, uint64_t id)
{
	struct obj_model *m = h->om;
	struct mname *n;
	int err = os_cat_insert(&h->os, name, len, id);

	if (err)
		return err;
	om_touch_names(m);
	if (m->names_n == m->names_cap) {
		m->names_cap = m->names_cap ? 2 * m->names_cap : 64;
		m->names = xrealloc(m->names, m->names_cap * sizeof(*m->names));
	}
	n = &m->names[m->names_n++];
	n->len = (uint16_t)len;
	memcpy(n->name, name, len);
	n->id = id;
	return ow_ref(h, id, 1) ? HALF_DONE : 0;
}

/* ow_unbind -- remove name i and drop its reference */
static int ow_unbind(struct harness *h, size_t i)
{
	struct obj_model *m = h->om;
	uint64_t id = 0;
	int err = os_cat_remove(&h->os, m->names[i].name, m->names[i].len, &id);

	if (err)
		return err;
	CHECK_EQ(id, m->names[i].id);
	om_touch_names(m);
	id = m->names[i].id;
	m->names[i] = m->names[--m->names_n];
	return ow_ref(h, id, -1) ? HALF_DONE : 0;
}

/* ow_rename -- move name i to `to` */
static int ow_rename(struct harness *h, size_t i, const char *to, size_t to_len)
{
	struct obj_model *m = h->om;
	int err = os_cat_rename(&h->os, m->names[i].name, m->names[i].len, to, to_len);

	if (err)
		return err;
	om_touch_names(m);
	m->names[i].len = (uint16_t)to_len;
	memcpy(m->names[i].name, to, to_len);
	return 0;
}

/* ow_replace -- bind name i to `id` instead, moving its reference */
static int ow_replace(struct harness *h, size_t i, uint64_t id)
{
	struct obj_model *m = h->om;
	uint64_t old = 0;
	int err = os_cat_replace(&h->os, m->names[i].name, m->names[i].len, id, &old);

	if (err)
		return err;
	CHECK_EQ(old, m->names[i].id);
	om_touch_names(m);
	m->names[i].id = id;
	if (ow_ref(h, id, 1) || ow_ref(h, old, -1))
		return HALF_DONE;
	return 0;
}

/* ow_delete -- unbind every name of `id`, then delete it */
static int ow_delete(struct harness *h, uint64_t id)
{
	struct obj_model *m = h->om;
	int err;

	for (size_t i = m->names_n; i-- > 0;) {
		if (m->names[i].id != id)
			continue;
		err = ow_unbind(h, i);
		if (err)
			return HALF_DONE;
	}
	err = os_obj_delete(&h->os, id);
	if (err == -ERR_NOSPC)
		ow_cut(h, id);
	if (err)
		return err;
	om_touch(m, id);
	om_remove(m, id);
	return 0;
}

/* make_name -- a random name of min..max bytes (mostly short unless min
 * says otherwise), some sharing prefixes; its length */
static size_t make_name(struct harness *h, char *out, size_t min, size_t max)
{
	static const char *const dirs[] = { "bin/", "etc/", "home/ana/", "home/bo/", "tmp/", "" };
	size_t len = (size_t)snprintf(out, max, "%s", dirs[below(&h->rng, 6)]);
	size_t want = len + 1 + below(&h->rng, below(&h->rng, 8) ? 24 : max - len);

	if (want < min)
		want = min + below(&h->rng, max - min + 1);
	while (len < want && len < max)
		out[len++] = (char)('a' + below(&h->rng, 26));
	return len;
}

/* ow_bind_new -- bind a fresh random name of min..max bytes to `id` */
static int ow_bind_new(struct harness *h, uint64_t id, size_t min, size_t max)
{
	char name[OS_NAME_MAX];
	size_t len;

	do
		len = make_name(h, name, min, max);
	while (name_find(h->om, name, len) < h->om->names_n);
	return ow_bind(h, name, len, id);
}

/* --- the object world's scenarios -------------------------------------- */

/* Objects created, written, referenced and deleted; paged and small. */
CHECK_TEST(object_lifecycle)
{
	struct harness *h = h_new("object_lifecycle", WORLD_OBJECTS, OBJECT_LOG, 101);
	uint64_t a, b, c, d;

	h->armed = true;
	h_begin(h);
	CHECK_EQ(ow_create(h, OS_TYPE_BLOB, 5000, &a), 0);
	CHECK_EQ(ow_write(h, a, 100, 3000), 0);
	CHECK_EQ(ow_create(h, OS_TYPE_CHANNEL, 300, &b), 0);
	CHECK_EQ(ow_poke(h, b), 0);
	CHECK_EQ(ow_create(h, OS_TYPE_CODE, 0, &c), 0);
	h_commit(h);
	h_begin(h);
	CHECK_EQ(ow_write(h, a, 4000, 1000), 0);
	CHECK_EQ(ow_write(h, b, 10, 50), 0);
	CHECK_EQ(ow_ref(h, a, 1), 0);
	h_commit(h);
	h_begin(h);
	CHECK_EQ(ow_write(h, a, 0, 5000), 0);
	CHECK_EQ(ow_ref(h, a, -1), 0);
	h_abort(h);
	h_begin(h);
	CHECK_EQ(ow_delete(h, c), 0);
	CHECK_EQ(ow_ref(h, a, -1), 0);
	h_commit(h);
	h_begin(h);
	CHECK_EQ(ow_delete(h, b), 0);
	CHECK_EQ(ow_create(h, OS_TYPE_BLOB, 8192, &d), 0);
	CHECK_EQ(ow_write(h, d, 4090, 10), 0);
	h_commit(h);
	h_begin(h);
	CHECK_EQ(ow_delete(h, a), 0);
	CHECK_EQ(ow_delete(h, d), 0);
	h_commit(h);
	h_finish(h);
}

/* meta_clock -- the object_meta scenario's wall clock: a step each read */
static uint64_t meta_clock(void)
{
	static uint64_t t = 1700000000000000000ull;

	return t += 1000003;
}

/* Modes and mtimes (2.2) set, stamped by writes, kept and rolled back. */
CHECK_TEST(object_meta)
{
	struct harness *h = h_new("object_meta", WORLD_OBJECTS, OBJECT_LOG, 107);
	uint64_t a, c, s;

	crashsim_set_clock(h->cs, meta_clock);
	h->armed = true;
	h_begin(h);
	CHECK_EQ(ow_create(h, OS_TYPE_BLOB, 5000, &a), 0);
	CHECK_EQ(ow_create(h, OS_TYPE_CODE, 8192, &c), 0);
	CHECK_EQ(ow_create(h, OS_TYPE_CHANNEL, 300, &s), 0);
	h_commit(h);
	h_begin(h);
	CHECK_EQ(ow_mode(h, a, 0600), 0);
	CHECK_EQ(ow_mtime(h, c, -123456789), 0);
	CHECK_EQ(ow_write(h, a, 100, 3000), 0);
	CHECK_EQ(os_obj_set_mode(&h->os, s, 0600), -ERR_NOTSUP);
	CHECK_EQ(os_obj_set_mode(&h->os, a, 010000), -ERR_INVAL);
	h_commit(h);
	h_begin(h);
	CHECK_EQ(ow_mode(h, c, 04755), 0);
	CHECK_EQ(ow_touch(h, a), 0);
	CHECK_EQ(ow_touch(h, a), 0);
	h_abort(h);
	h_begin(h);
	CHECK_EQ(ow_resize(h, a, 9000), 0);
	CHECK_EQ(ow_mtime(h, a, 42), 0);
	CHECK_EQ(ow_touch(h, c), 0);
	h_commit(h);
	h_begin(h);
	CHECK_EQ(ow_mode(h, a, 0), 0);
	CHECK_EQ(ow_write(h, c, 8000, 100), 0);
	CHECK_EQ(ow_mtime(h, a, INT64_MIN), 0);
	h_commit(h);
	h_finish(h);
}

/* A paged object growing and shrinking across radix depths 0, 1 and 2. */
CHECK_TEST(object_resize_depth)
{
	struct harness *h = h_new("object_resize_depth", WORLD_OBJECTS, OBJECT_LOG, 111);
	const uint64_t depth2 = (uint64_t)(OS_RADIX_FANOUT + 1) * OS_PAGE_SIZE;
	uint64_t a;

	h->armed = true;
	h->randoms = 8;
	h_begin(h);
	CHECK_EQ(ow_create(h, OS_TYPE_BLOB, 100, &a), 0);
	CHECK_EQ(ow_write(h, a, 0, 100), 0);
	h_commit(h);
	h_begin(h);
	CHECK_EQ(ow_resize(h, a, 3 * OS_PAGE_SIZE), 0);          /* depth 0 -> 1 */
	CHECK_EQ(ow_write(h, a, 2 * OS_PAGE_SIZE, OS_PAGE_SIZE), 0);
	h_commit(h);
	h_begin(h);
	CHECK_EQ(ow_resize(h, a, depth2 + 100), 0);              /* depth 1 -> 2 */
	CHECK_EQ(ow_write(h, a, depth2, 100), 0);
	h_commit(h);
	h_begin(h);
	CHECK_EQ(ow_resize(h, a, 600 * OS_PAGE_SIZE), 0);
	CHECK_EQ(ow_write(h, a, 599 * OS_PAGE_SIZE, 10), 0);
	h_abort(h);
	h_begin(h);
	CHECK_EQ(ow_resize(h, a, 2 * OS_PAGE_SIZE + 7), 0);      /* depth 2 -> 1 */
	h_commit(h);
	h_begin(h);
	CHECK_EQ(ow_resize(h, a, 50), 0);                        /* depth 1 -> 0 */
	h_commit(h);
	h_begin(h);
	CHECK_EQ(ow_resize(h, a, 0), 0);
	CHECK_EQ(ow_resize(h, a, 10000), 0);
	CHECK_EQ(ow_write(h, a, 9000, 1000), 0);
	h_commit(h);
	h_begin(h);
	CHECK_EQ(ow_delete(h, a), 0);
	h_commit(h);
	h_finish(h);
}

/* cat_setup -- three objects to name, unarmed */
static void cat_setup(struct harness *h, uint64_t ids[3])
{
	h_begin(h);
	CHECK_EQ(ow_create(h, OS_TYPE_BLOB, 10, &ids[0]), 0);
	CHECK_EQ(ow_create(h, OS_TYPE_CHANNEL, 64, &ids[1]), 0);
	CHECK_EQ(ow_create(h, OS_TYPE_CODE, 4096, &ids[2]), 0);
	h_commit(h);
}

/* cat_insert_many -- `n` names in transactions of `per_tx` */
static void cat_insert_many(struct harness *h, const uint64_t ids[3], unsigned n,
			    unsigned per_tx, size_t min, size_t max)
{
	for (unsigned done = 0; done < n;) {
		h_begin(h);
		for (unsigned i = 0; i < per_tx && done < n; i++, done++)
			CHECK_EQ(ow_bind_new(h, ids[below(&h->rng, 3)], min, max), 0);
		h_commit(h);
	}
}

/* cat_height -- levels of the catalogue B+-tree (0: empty) */
static unsigned cat_height(struct harness *h)
{
	const struct os_root *root = os_ptr(&h->os, OS_PAGE_SIZE);
	const struct os_cat_node *node;

	if (!root->catalogue_root)
		return 0;
	node = os_ptr(&h->os, root->catalogue_root);
	return node->level + 1u;
}

/* Names inserted until catalogue nodes split. */
CHECK_TEST(catalogue_split)
{
	struct harness *h = h_new("catalogue_split", WORLD_OBJECTS, OBJECT_LOG, 121);
	uint64_t ids[3];

	cat_setup(h, ids);
	h->armed = true;
	h->randoms = 8;
	cat_insert_many(h, ids, 60, 10, 100, 220);
	CHECK(cat_height(h) >= 2); /* the root leaf split */
	h_finish(h);
}

/* Names removed until catalogue nodes merge and the tree empties. */
CHECK_TEST(catalogue_merge)
{
	struct harness *h = h_new("catalogue_merge", WORLD_OBJECTS, OBJECT_LOG, 131);
	uint64_t ids[3];

	cat_setup(h, ids);
	cat_insert_many(h, ids, 60, 20, 100, 220);
	CHECK(cat_height(h) >= 2);
	h->armed = true;
	h->randoms = 8;
	while (h->om->names_n) {
		h_begin(h);
		for (unsigned i = 0; i < 10 && h->om->names_n; i++)
			CHECK_EQ(ow_unbind(h, below(&h->rng, h->om->names_n)), 0);
		h_end(h, below(&h->rng, 5) != 0);
	}
	CHECK_EQ(cat_height(h), 0); /* merged down to nothing */
	h_finish(h);
}

/* Names renamed: near, far, onto a name that exists, from one that does not. */
CHECK_TEST(catalogue_rename)
{
	struct harness *h = h_new("catalogue_rename", WORLD_OBJECTS, OBJECT_LOG, 141);
	uint64_t ids[3];
	char name[OS_NAME_MAX];

	cat_setup(h, ids);
	cat_insert_many(h, ids, 40, 20, 60, 200);
	CHECK(cat_height(h) >= 2);
	h->armed = true;
	h->randoms = 8;
	for (unsigned t = 0; t < 5; t++) {
		h_begin(h);
		for (unsigned i = 0; i < 6; i++) {
			size_t len = make_name(h, name, 1, 200);

			if (h->om->names_n && name_find(h->om, name, len) == h->om->names_n)
				CHECK_EQ(ow_rename(h, below(&h->rng, h->om->names_n), name, len), 0);
		}
		if (h->om->names_n >= 2)
			CHECK_EQ(ow_rename(h, 0, h->om->names[1].name, h->om->names[1].len),
				 -ERR_EXIST);
		CHECK_EQ(os_cat_rename(&h->os, "no such name", 12, "x", 1), -ERR_NOENT);
		h_end(h, t != 2);
	}
	h_finish(h);
}

/* Names bound to another object in place (what a host link's put does to
 * an existing name), and a name that is not bound. */
CHECK_TEST(catalogue_replace)
{
	struct harness *h = h_new("catalogue_replace", WORLD_OBJECTS, OBJECT_LOG, 142);
	uint64_t ids[3];

	cat_setup(h, ids);
	cat_insert_many(h, ids, 40, 20, 60, 200);
	CHECK(cat_height(h) >= 2);
	h->armed = true;
	h->randoms = 8;
	for (unsigned t = 0; t < 5; t++) {
		h_begin(h);
		for (unsigned i = 0; i < 6; i++) {
			size_t n = below(&h->rng, h->om->names_n);
			uint64_t to = ids[below(&h->rng, 3)];

			if (to != h->om->names[n].id)
				CHECK_EQ(ow_replace(h, n, to), 0);
		}
		CHECK_EQ(os_cat_replace(&h->os, "no such name", 12, ids[0], NULL),
			 -ERR_NOENT);
		h_end(h, t != 2);
	}
	h_finish(h);
}

/* random_object -- a random live object's id (0 if none) */
static uint64_t random_object(struct harness *h)
{
	return h->om->n ? h->om->obj[below(&h->rng, h->om->n)].id : 0;
}

/* objects_random_write -- a random write to a random object */
static int objects_random_write(struct harness *h)
{
	uint64_t id = random_object(h);
	struct mobj *o = om_find(h->om, id);
	uint64_t off, len;

	if (!o || o->size == 0)
		return 0;
	if (o->placement == OS_PLACE_SMALL && below(&h->rng, 2))
		return ow_poke(h, id);
	off = below(&h->rng, o->size);
	len = 1 + below(&h->rng, o->size - off < 6000 ? o->size - off : 6000);
	return ow_write(h, id, off, len);
}

/* objects_random_create -- a new object, often with a name */
static int objects_random_create(struct harness *h)
{
	static const uint16_t types[] = {
		OS_TYPE_BLOB, OS_TYPE_CODE, OS_TYPE_ANON, OS_TYPE_PROCESS,
		OS_TYPE_THREAD, OS_TYPE_HANDLES,
	};
	uint16_t type = types[below(&h->rng, 6)];
	bool paged = os_obj_placement(type) == OS_PLACE_PAGED;
	uint64_t size = paged ? below(&h->rng, 3 * OS_PAGE_SIZE)
			      : 1 + below(&h->rng, OS_LARGEST_SMALL);
	uint64_t id;
	int err = ow_create(h, type, size, &id);

	if (err || below(&h->rng, 10) < 4)
		return err;
	err = ow_bind_new(h, id, 1, 100);
	return err ? HALF_DONE : 0;
}

/* names_of -- how many names the model binds to `id` */
static uint64_t names_of(const struct obj_model *m, uint64_t id)
{
	uint64_t n = 0;

	for (size_t i = 0; i < m->names_n; i++)
		n += m->names[i].id == id;
	return n;
}

/* objects_random_op -- one random object or catalogue operation; its error */
static int objects_random_op(struct harness *h)
{
	struct obj_model *m = h->om;
	uint64_t r = below(&h->rng, 100), id = random_object(h);
	struct mobj *o = om_find(m, id);
	char name[OS_NAME_MAX];
	size_t len;

	if (r < 14 && m->n < 48)
		return objects_random_create(h);
	if (r < 40)
		return objects_random_write(h);
	if (r < 50 && o && o->placement == OS_PLACE_PAGED)
		return ow_resize(h, id, below(&h->rng, 5 * OS_PAGE_SIZE));
	if (r < 58 && o)
		return ow_delete(h, id);
	if (r < 72 && o && m->names_n < 250)
		return ow_bind_new(h, id, 1, below(&h->rng, 4) ? 40 : OS_NAME_MAX);
	if (r < 84 && m->names_n)
		return ow_unbind(h, below(&h->rng, m->names_n));
	if (r < 94 && m->names_n) {
		len = make_name(h, name, 1, 80);
		if (name_find(m, name, len) < m->names_n)
			return 0;
		return ow_rename(h, below(&h->rng, m->names_n), name, len);
	}
	if (o && o->refcount < 5)
		return ow_ref(h, id, 1);
	/* drop a reference beyond the object's own and its names' */
	return o && o->refcount > 1 + names_of(m, id) ? ow_ref(h, id, -1) : 0;
}

/* Ten thousand random object and catalogue operations, power cut at sampled fences. */
/* objects_random -- the random object workload; `by_redo` as for heap_random */
static void objects_random(const char *name, bool by_redo)
{
	struct harness *h = h_new(name, WORLD_OBJECTS, OBJECT_LOG / 2, 151);
	unsigned ops = 0;

	os_commit_by_redo(&h->os, by_redo);
	h->armed = true;
	h->sample = 240;
	h->randoms = 6;
	h->rec_randoms = 2;
	while (ops < 10000) {
		unsigned n = below(&h->rng, 16) ? 1 + (unsigned)below(&h->rng, 6)
						: 50 + (unsigned)below(&h->rng, 150);
		int err = 0;

		h_begin(h);
		for (unsigned i = 0; i < n && !err; i++, ops++) {
			err = objects_random_op(h);
			CHECK(err == 0 || err == HALF_DONE || err == -ERR_NOSPC ||
			      err == -ERR_NOMEM);
		}
		h->log_full += err == -ERR_NOSPC;
		if (h->om->n + h->om->names_n > h->peak)
			h->peak = h->om->n + h->om->names_n;
		h_end(h, err != HALF_DONE && (err || below(&h->rng, 100) < 85));
	}
	workload_line(h, ops, "objects + names");
	h_finish(h);
}

CHECK_TEST(objects_random)
{
	objects_random("objects_random", true);
}

/* The same, every commit by the epoch store, as the kernel's. */
CHECK_TEST(objects_random_by_epoch)
{
	objects_random("objects_random_by_epoch", false);
}

/* --- snapshots (objstore/snapshot*.c) ---------------------------------- */

/* h_snapshot -- take a snapshot in a transaction of its own; from its
 * commit on, every crash image must give back the state it was taken from */
static void h_snapshot(struct harness *h, const char *name)
{
	h_begin(h);
	CHECK_EQ(os_snap_take(&h->os, name, 0, 0), 0);
	h_commit(h);
	CHECK(h->snaps < SNAPS_MAX);
	snprintf(h->snap_name[h->snaps], sizeof(h->snap_name[0]), "%s", name);
	st_copy(&h->snap_state[h->snaps++], &h->committed);
}

/* h_snapshot_rm -- remove snapshot i and give its pages back, as many
 * transactions as reclaim needs */
static void h_snapshot_rm(struct harness *h, unsigned i)
{
	char name[16];
	int more;

	memcpy(name, h->snap_name[i], sizeof(name));
	h->snaps--;
	memmove(&h->snap_name[i], &h->snap_name[i + 1], (h->snaps - i) * sizeof(h->snap_name[0]));
	st_free(&h->snap_state[i]);
	memmove(&h->snap_state[i], &h->snap_state[i + 1], (h->snaps - i) * sizeof(h->snap_state[0]));
	memset(&h->snap_state[h->snaps], 0, sizeof(h->snap_state[0]));
	h_begin(h);
	CHECK_EQ(os_snap_rm(&h->os, name), 0);
	for (;;) {
		more = os_snap_reclaim(&h->os);
		CHECK(more == 0 || more == 1);
		h_commit(h);
		if (more != 1)
			break;
		h_begin(h);
	}
}

/* h_restore -- power on into snapshot i (the crash images of the many
 * transactions show the state before or the snapshot's); the state it
 * replaces becomes snapshot `before` */
static void h_restore(struct harness *h, unsigned i, const char *before)
{
	struct state target = { 0 };

	st_copy(&target, &h->snap_state[i]);
	h->restore_to = &target;
	CHECK_EQ(os_snap_restore(&h->os, h->snap_name[i], before, 0), 0);
	h->restore_to = NULL;
	CHECK(h->snaps < SNAPS_MAX);
	snprintf(h->snap_name[h->snaps], sizeof(h->snap_name[0]), "%s", before);
	st_copy(&h->snap_state[h->snaps++], &h->committed);
	st_copy(&h->committed, &target);
	st_free(&target);
	h->epoch = os_epoch(&h->os);
	h_check_live(h, "after a restore");
}

/* snapshot_workload -- n transactions of a few random object operations */
static void snapshot_workload(struct harness *h, unsigned n)
{
	for (unsigned t = 0; t < n; t++) {
		unsigned ops = 1 + (unsigned)below(&h->rng, 4);
		int err = 0;

		h_begin(h);
		for (unsigned i = 0; i < ops && !err; i++) {
			err = objects_random_op(h);
			CHECK(err == 0 || err == HALF_DONE || err == -ERR_NOSPC ||
			      err == -ERR_NOMEM);
		}
		h_end(h, err != HALF_DONE && (err || below(&h->rng, 100) < 85));
	}
}

/* no_drops -- the area never filled: no snapshot was dropped */
static void no_drops(struct harness *h)
{
	struct os_snap_usage u;

	os_snap_usage(&h->os, &u);
	CHECK_EQ(u.dropped, 0);
}

/* Snapshots taken between changes and removed (the oldest, one in the
 * middle, the newest: merged into the one before): every crash image shows
 * the committed state, and every snapshot committed by then its own. */
CHECK_TEST(snapshot_capture)
{
	struct harness *h = h_new("snapshot_capture", WORLD_OBJECTS, OBJECT_LOG, 171);

	snapshot_workload(h, 6);
	h->armed = true;
	h->sample = 6000;
	h->randoms = 3;
	h->rec_randoms = 1;
	h_snapshot(h, "s0");
	snapshot_workload(h, 8);
	h_snapshot(h, "s1");
	snapshot_workload(h, 8);
	h_snapshot(h, "s2");
	h_snapshot_rm(h, 1);
	snapshot_workload(h, 8);
	h_snapshot_rm(h, 0);
	snapshot_workload(h, 4);
	h_snapshot(h, "s3");
	snapshot_workload(h, 6);
	h_snapshot_rm(h, h->snaps - 1);   /* the newest: merged into s2 */
	snapshot_workload(h, 4);
	no_drops(h);
	h_finish(h);
}

/* Restores, each many transactions, cut anywhere: the state before or the
 * snapshot's, never a mixture; every other snapshot still its own. */
CHECK_TEST(snapshot_restore)
{
	struct harness *h = h_new("snapshot_restore", WORLD_OBJECTS, SMALL_LOG, 181);

	snapshot_workload(h, 6);
	h_snapshot(h, "s0");
	snapshot_workload(h, 8);
	h_snapshot(h, "s1");
	snapshot_workload(h, 8);
	h->armed = true;
	h->sample = 20000;
	h->randoms = 3;
	h->rec_randoms = 1;
	h_restore(h, 0, "b0");         /* the oldest, through s1 */
	h_restore(h, 2, "b1");         /* back to the state b0 kept */
	h_restore(h, 1, "b2");         /* a node in the middle */
	no_drops(h);
	h_finish(h);
}

/* The totals of the scenarios that ran (registered last: runs last). */
CHECK_TEST(crash_total)
{
	printf("crashsim: total: %llu crash states, %llu failures (%u scenario%s)\n",
	       (unsigned long long)total_states, (unsigned long long)total_failures,
	       scenarios_run, scenarios_run == 1 ? "" : "s");
	CHECK_EQ(total_failures, 0);
	if (only) {
		printf("crashsim: CRASHSIM_SCENARIO=%s: the floor of %llu crash states applies to a full run only\n",
		       only, CRASH_STATES_FLOOR);
		if (scenarios_run != 1)
			printf("crashsim: FAIL CRASHSIM_SCENARIO=%s names no scenario\n", only);
		CHECK_EQ(scenarios_run, 1);
		return;
	}
	if (total_states < CRASH_STATES_FLOOR)
		printf("crashsim: FAIL total: %llu crash states, fewer than the floor of %llu (a full run visits %llu)\n",
		       (unsigned long long)total_states, CRASH_STATES_FLOOR,
		       CRASH_STATES_MEASURED);
	CHECK(total_states >= CRASH_STATES_FLOOR);
}

/* selected -- whether a test runs: every one, or CRASHSIM_SCENARIO's and the total */
static bool selected(const char *name)
{
	return !only || strcmp(name, only) == 0 || strcmp(name, "crash_total") == 0;
}

int main(void)
{
	only = getenv("CRASHSIM_SCENARIO");
	if (only && !*only)
		only = NULL;
	return check_run_selected(selected);
}
