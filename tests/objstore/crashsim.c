/*
 * crashsim.c -- the power-cut simulator (model in crashsim.h).
 *
 * Pending lines are kept in flush order in one array, with a per-line
 * index into it, so a fence costs the lines it makes durable. The lines
 * that are not settled at a crash point are found by comparing M with D,
 * a page at a time and then a line at a time inside the pages that
 * differ, plus the pending lines: linear in the heap's size, which is
 * cheap for the small heaps the crash tests use and needs no store
 * tracking.
 */
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "crashsim.h"
#include "test_rand.h"

#define PAGE 4096u

/* Which values a collected line may take besides D's (bits of `kinds`). */
#define HAS_FLUSHED 1u   /* its flushed contents, distinct from D's and M's */
#define HAS_MEMORY 2u    /* M's contents, distinct from D's */

/* A line that is not settled at the crash point. */
struct cs_choice {
	uint32_t line;
	uint8_t count;      /* values it may take: 2 or 3, D's first */
	uint8_t kinds;      /* HAS_FLUSHED | HAS_MEMORY */
};

struct crashsim {
	uint8_t *mem, *dur;
	uint64_t size, lines;
	unsigned slot;
	struct os_platform platform;
	crashsim_hook *hook;
	void *ctx;
	bool in_hook;
	uint64_t fences;
	/* pending flushed lines, in flush order */
	uint32_t *pend_index;    /* per line: 1 + its pending entry, 0 if none */
	uint32_t *pend_line;
	uint8_t *pend_data;      /* CRASHSIM_LINE bytes per entry */
	uint64_t pend_count, pend_cap;
	/* the last crashsim_collect */
	struct cs_choice *choice;
	uint64_t choice_count, choice_cap;
	/* flushes outside the heap */
	uint64_t stray;
	const void *first_stray;
};

static struct crashsim *slots[CRASHSIM_MAX];
static jmp_buf *protect_top;
static const char *fatal_message;

/* xmalloc -- malloc or abort */
static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		abort();
	return p;
}

/* add_pending -- record line `line` with its current contents */
static void add_pending(struct crashsim *cs, uint64_t line)
{
	uint64_t e = cs->pend_index[line];

	if (e == 0) {
		if (cs->pend_count == cs->pend_cap) {
			cs->pend_cap = cs->pend_cap ? 2 * cs->pend_cap : 1024;
			cs->pend_line = realloc(cs->pend_line,
						cs->pend_cap * sizeof(*cs->pend_line));
			cs->pend_data = realloc(cs->pend_data, cs->pend_cap * CRASHSIM_LINE);
			if (!cs->pend_line || !cs->pend_data)
				abort();
		}
		e = ++cs->pend_count;
		cs->pend_index[line] = (uint32_t)e;
		cs->pend_line[e - 1] = (uint32_t)line;
	}
	memcpy(cs->pend_data + (e - 1) * CRASHSIM_LINE,
	       cs->mem + line * CRASHSIM_LINE, CRASHSIM_LINE);
}

/* sim_flush -- record the lines of [p, p+len) as pending */
static void sim_flush(struct crashsim *cs, const void *p, size_t len)
{
	uintptr_t start = (uintptr_t)cs->mem, a = (uintptr_t)p;

	if (len == 0)
		return;
	if (a < start || a - start >= cs->size || len > cs->size - (a - start)) {
		if (cs->stray++ == 0)
			cs->first_stray = p;
		return;
	}
	for (uint64_t line = (a - start) / CRASHSIM_LINE;
	     line <= (a - start + len - 1) / CRASHSIM_LINE; line++)
		add_pending(cs, line);
}

/* sim_fence -- the crash point, then every pending line becomes durable */
static void sim_fence(struct crashsim *cs)
{
	if (cs->hook && !cs->in_hook) {
		cs->in_hook = true;
		cs->hook(cs, cs->fences, cs->ctx);
		cs->in_hook = false;
	}
	for (uint64_t e = 0; e < cs->pend_count; e++) {
		uint64_t line = cs->pend_line[e];

		memcpy(cs->dur + line * CRASHSIM_LINE,
		       cs->pend_data + e * CRASHSIM_LINE, CRASHSIM_LINE);
		cs->pend_index[line] = 0;
	}
	cs->pend_count = 0;
	cs->fences++;
}

/* jump_fatal -- fatal() of every crashsim platform: back to crashsim_protect */
static __attribute__((noreturn)) void jump_fatal(const char *message)
{
	if (!protect_top) {
		fprintf(stderr, "crashsim: objstore fatal outside crashsim_protect: %s\n",
			message);
		abort();
	}
	fatal_message = message;
	longjmp(*protect_top, 1);
}

/* One flush and one fence trampoline per slot: the platform has no context. */
#define CRASHSIM_TRAMPOLINES(n)                                               \
	static void flush_##n(const void *p, size_t len)                      \
	{                                                                     \
		sim_flush(slots[n], p, len);                                  \
	}                                                                     \
	static void fence_##n(void)                                           \
	{                                                                     \
		sim_fence(slots[n]);                                          \
	}
CRASHSIM_TRAMPOLINES(0)
CRASHSIM_TRAMPOLINES(1)
CRASHSIM_TRAMPOLINES(2)
CRASHSIM_TRAMPOLINES(3)
_Static_assert(CRASHSIM_MAX == 4, "one trampoline pair per slot");

static void (*const flushes[CRASHSIM_MAX])(const void *, size_t) = {
	flush_0, flush_1, flush_2, flush_3,
};
static void (*const fences[CRASHSIM_MAX])(void) = {
	fence_0, fence_1, fence_2, fence_3,
};

/* crashsim_new -- a simulator for a heap of `size` bytes */
struct crashsim *crashsim_new(uint64_t size)
{
	struct crashsim *cs;
	unsigned slot = 0;

	while (slot < CRASHSIM_MAX && slots[slot])
		slot++;
	if (slot == CRASHSIM_MAX || size == 0 || size % PAGE)
		return NULL;
	cs = xmalloc(sizeof(*cs));
	memset(cs, 0, sizeof(*cs));
	cs->size = size;
	cs->lines = size / CRASHSIM_LINE;
	cs->mem = aligned_alloc(PAGE, size);
	cs->dur = aligned_alloc(PAGE, size);
	cs->pend_index = calloc(cs->lines, sizeof(*cs->pend_index));
	if (!cs->mem || !cs->dur || !cs->pend_index)
		abort();
	memset(cs->mem, 0, size);
	memset(cs->dur, 0, size);
	cs->slot = slot;
	cs->platform.flush = flushes[slot];
	cs->platform.fence = fences[slot];
	cs->platform.fatal = jump_fatal;
	cs->platform.now_ns = NULL;
	slots[slot] = cs;
	return cs;
}

/* crashsim_free -- release the simulator and its buffers */
void crashsim_free(struct crashsim *cs)
{
	if (!cs)
		return;
	slots[cs->slot] = NULL;
	free(cs->mem);
	free(cs->dur);
	free(cs->pend_index);
	free(cs->pend_line);
	free(cs->pend_data);
	free(cs->choice);
	free(cs);
}

/* crashsim_mem -- M */
uint8_t *crashsim_mem(const struct crashsim *cs)
{
	return cs->mem;
}

/* crashsim_durable -- D */
const uint8_t *crashsim_durable(const struct crashsim *cs)
{
	return cs->dur;
}

/* crashsim_size -- bytes in M */
uint64_t crashsim_size(const struct crashsim *cs)
{
	return cs->size;
}

/* crashsim_set_clock -- the platform's now_ns from now on (NULL: none) */
void crashsim_set_clock(struct crashsim *cs, uint64_t (*now_ns)(void))
{
	cs->platform.now_ns = now_ns;
}

/* crashsim_platform -- this simulator's platform table */
const struct os_platform *crashsim_platform(const struct crashsim *cs)
{
	return &cs->platform;
}

/* crashsim_set_hook -- the crash-point callback */
void crashsim_set_hook(struct crashsim *cs, crashsim_hook *hook, void *ctx)
{
	cs->hook = hook;
	cs->ctx = ctx;
}

/* drop_pending -- forget every pending line */
static void drop_pending(struct crashsim *cs)
{
	for (uint64_t e = 0; e < cs->pend_count; e++)
		cs->pend_index[cs->pend_line[e]] = 0;
	cs->pend_count = 0;
	cs->choice_count = 0;
}

/* crashsim_load -- M = D = image, fences counted from 0 again */
void crashsim_load(struct crashsim *cs, const void *image)
{
	drop_pending(cs);
	cs->fences = 0;
	memcpy(cs->mem, image, cs->size);
	memcpy(cs->dur, image, cs->size);
}

/* crashsim_settle -- D = M, nothing pending */
void crashsim_settle(struct crashsim *cs)
{
	drop_pending(cs);
	memcpy(cs->dur, cs->mem, cs->size);
}

/* crashsim_fences -- fences seen so far */
uint64_t crashsim_fences(const struct crashsim *cs)
{
	return cs->fences;
}

/* crashsim_stray_flushes -- flushes outside the heap */
uint64_t crashsim_stray_flushes(const struct crashsim *cs, const void **first)
{
	if (first)
		*first = cs->first_stray;
	return cs->stray;
}

/* line_eq -- whether two lines hold the same bytes */
static bool line_eq(const uint8_t *a, const uint8_t *b)
{
	return memcmp(a, b, CRASHSIM_LINE) == 0;
}

/* add_choice -- append a collected line */
static void add_choice(struct crashsim *cs, uint64_t line, unsigned kinds)
{
	struct cs_choice *c;

	if (cs->choice_count == cs->choice_cap) {
		cs->choice_cap = cs->choice_cap ? 2 * cs->choice_cap : 1024;
		cs->choice = realloc(cs->choice, cs->choice_cap * sizeof(*cs->choice));
		if (!cs->choice)
			abort();
	}
	c = &cs->choice[cs->choice_count++];
	c->line = (uint32_t)line;
	c->kinds = (uint8_t)kinds;
	c->count = (uint8_t)(1 + !!(kinds & HAS_FLUSHED) + !!(kinds & HAS_MEMORY));
}

/* flushed -- the flushed contents of pending line `line`, or NULL */
static const uint8_t *flushed(const struct crashsim *cs, uint64_t line)
{
	uint32_t e = cs->pend_index[line];

	return e ? cs->pend_data + (uint64_t)(e - 1) * CRASHSIM_LINE : NULL;
}

/* by_line -- qsort order of collected lines */
static int by_line(const void *a, const void *b)
{
	const struct cs_choice *x = a, *y = b;

	return x->line < y->line ? -1 : x->line > y->line;
}

/* collect_dirty -- the lines where M differs from D */
static void collect_dirty(struct crashsim *cs)
{
	for (uint64_t page = 0; page < cs->size; page += PAGE) {
		if (memcmp(cs->mem + page, cs->dur + page, PAGE) == 0)
			continue;
		for (uint64_t off = page; off < page + PAGE; off += CRASHSIM_LINE) {
			uint64_t line = off / CRASHSIM_LINE;
			const uint8_t *f = flushed(cs, line);
			unsigned kinds = HAS_MEMORY;

			if (line_eq(cs->mem + off, cs->dur + off))
				continue;
			if (f && !line_eq(f, cs->dur + off) && !line_eq(f, cs->mem + off))
				kinds |= HAS_FLUSHED;
			add_choice(cs, line, kinds);
		}
	}
}

/* crashsim_collect -- the lines that are not settled now */
uint64_t crashsim_collect(struct crashsim *cs)
{
	cs->choice_count = 0;
	collect_dirty(cs);
	/* Pending lines whose memory went back to D's value but whose
	 * flushed contents differ: D's value or the flushed one. */
	for (uint64_t e = 0; e < cs->pend_count; e++) {
		uint64_t off = (uint64_t)cs->pend_line[e] * CRASHSIM_LINE;
		const uint8_t *f = cs->pend_data + e * CRASHSIM_LINE;

		if (line_eq(cs->mem + off, cs->dur + off) && !line_eq(f, cs->dur + off))
			add_choice(cs, cs->pend_line[e], HAS_FLUSHED);
	}
	if (cs->choice_count > 1)
		qsort(cs->choice, cs->choice_count, sizeof(*cs->choice), by_line);
	return cs->choice_count;
}

/* crashsim_combinations -- the product of the collected lines' choices */
uint64_t crashsim_combinations(const struct crashsim *cs)
{
	uint64_t n = 1;

	for (uint64_t i = 0; i < cs->choice_count; i++) {
		if (n > UINT64_MAX / cs->choice[i].count)
			return UINT64_MAX;
		n *= cs->choice[i].count;
	}
	return n;
}

/* put_value -- write value k (0: D's, then flushed, then M's) of choice c into out */
static void put_value(const struct crashsim *cs, const struct cs_choice *c,
		      unsigned k, uint8_t *out)
{
	uint64_t off = (uint64_t)c->line * CRASHSIM_LINE;
	const uint8_t *src = cs->mem + off;

	if (k == 0)
		return; /* out starts as a copy of D */
	if (k == 1 && (c->kinds & HAS_FLUSHED))
		src = flushed(cs, c->line);
	memcpy(out + off, src, CRASHSIM_LINE);
}

/* crashsim_image_none -- D alone */
void crashsim_image_none(const struct crashsim *cs, uint8_t *out)
{
	memcpy(out, cs->dur, cs->size);
}

/* crashsim_image_all -- every collected line with M's value */
void crashsim_image_all(const struct crashsim *cs, uint8_t *out)
{
	memcpy(out, cs->dur, cs->size);
	for (uint64_t i = 0; i < cs->choice_count; i++)
		if (cs->choice[i].kinds & HAS_MEMORY)
			put_value(cs, &cs->choice[i], cs->choice[i].count - 1u, out);
}

/* crashsim_image_enum -- combination `index`, mixed radix over the lines */
void crashsim_image_enum(const struct crashsim *cs, uint64_t index, uint8_t *out)
{
	memcpy(out, cs->dur, cs->size);
	for (uint64_t i = 0; i < cs->choice_count; i++) {
		const struct cs_choice *c = &cs->choice[i];

		put_value(cs, c, (unsigned)(index % c->count), out);
		index /= c->count;
	}
}

#define WORDS (CRASHSIM_LINE / 8)

/* The value of each 8-byte word of a line (all equal unless the line tears). */
struct pick {
	unsigned k[WORDS];
};

/* put_words -- write a line word by word, each word from its chosen value */
static void put_words(const struct crashsim *cs, const struct cs_choice *c,
		      const struct pick *p, uint8_t *out)
{
	uint64_t off = (uint64_t)c->line * CRASHSIM_LINE;

	for (unsigned w = 0; w < WORDS; w++) {
		const uint8_t *src = cs->mem + off;

		if (p->k[w] == 0)
			continue;
		if (p->k[w] == 1 && (c->kinds & HAS_FLUSHED))
			src = flushed(cs, c->line);
		memcpy(out + off + 8 * w, src + 8 * w, 8);
	}
}

/* random_values -- the value crashsim_image_random(seed) picks for each
 * line (and, in a tearing image, for each word), in order */
static void random_values(const struct crashsim *cs, uint64_t seed,
			  void (*pick)(const struct crashsim *cs,
				       const struct cs_choice *c,
				       const struct pick *p, void *arg),
			  void *arg)
{
	/* How many eighths of the lines persist: few, half, or most. */
	static const unsigned bias[] = { 1, 2, 4, 6, 7 };
	uint64_t state = seed;
	unsigned eighths = bias[test_rand(&state) % 5];
	bool tearing = test_rand(&state) % 4 == 0;

	for (uint64_t i = 0; i < cs->choice_count; i++) {
		const struct cs_choice *c = &cs->choice[i];
		uint64_t r = test_rand(&state);
		bool torn = tearing && r % 2;
		struct pick p;

		for (unsigned w = 0; w < WORDS; w++) {
			p.k[w] = 0;
			if (r % 8 < eighths)
				p.k[w] = 1 + (unsigned)((r >> 8) % (c->count - 1u));
			if (torn)
				r = test_rand(&state);
		}
		pick(cs, c, &p, arg);
	}
}

/* pick_into_image -- random_values callback: write the value */
static void pick_into_image(const struct crashsim *cs, const struct cs_choice *c,
			    const struct pick *p, void *arg)
{
	put_words(cs, c, p, arg);
}

/* crashsim_image_random -- a random choice for every line, from `seed` */
void crashsim_image_random(const struct crashsim *cs, uint64_t seed, uint8_t *out)
{
	memcpy(out, cs->dur, cs->size);
	random_values(cs, seed, pick_into_image, out);
}

struct describe {
	FILE *f;
	unsigned left, shown;
};

/* value_letter -- D durable, F flushed, M memory */
static char value_letter(const struct cs_choice *c, unsigned k)
{
	return k == 0 ? 'D' : k == 1 && (c->kinds & HAS_FLUSHED) ? 'F' : 'M';
}

/* pick_describe -- random_values callback: print the value (one letter a
 * word if the line tears) */
static void pick_describe(const struct crashsim *cs, const struct cs_choice *c,
			  const struct pick *p, void *arg)
{
	struct describe *d = arg;
	char v[WORDS + 1];
	unsigned n = 1;

	(void)cs;
	if (d->left == 0)
		return;
	d->left--;
	v[0] = value_letter(c, p->k[0]);
	for (unsigned w = 1; w < WORDS; w++)
		if (p->k[w] != p->k[0])
			n = WORDS;
	for (unsigned w = 1; w < n; w++)
		v[w] = value_letter(c, p->k[w]);
	v[n] = '\0';
	fprintf(d->f, "%s%#llx:%s", d->shown++ % 8 ? " " : "\n      ",
		(unsigned long long)c->line * CRASHSIM_LINE, v);
}

/* describe_header -- the legend */
static void describe_header(const struct crashsim *cs, FILE *f)
{
	fprintf(f, "    lines (heap offset:D durable, F flushed, M memory; a letter a word if torn), %llu in all:",
		(unsigned long long)cs->choice_count);
}

/* crashsim_describe_random -- print the choice for each line */
void crashsim_describe_random(const struct crashsim *cs, uint64_t seed,
			      unsigned max, FILE *f)
{
	struct describe d = { f, max, 0 };

	describe_header(cs, f);
	random_values(cs, seed, pick_describe, &d);
	fprintf(f, "%s\n", cs->choice_count > max ? " ..." : "");
}

/* crashsim_describe_enum -- print the choice combination `index` makes */
void crashsim_describe_enum(const struct crashsim *cs, uint64_t index,
			    unsigned max, FILE *f)
{
	struct describe d = { f, max, 0 };

	describe_header(cs, f);
	for (uint64_t i = 0; i < cs->choice_count; i++) {
		const struct cs_choice *c = &cs->choice[i];
		struct pick p;

		for (unsigned w = 0; w < WORDS; w++)
			p.k[w] = (unsigned)(index % c->count);
		pick_describe(cs, c, &p, &d);
		index /= c->count;
	}
	fprintf(f, "%s\n", cs->choice_count > max ? " ..." : "");
}

/* plain_flush -- the plain platform writes back nothing */
static void plain_flush(const void *p, size_t len)
{
	(void)p;
	(void)len;
}

/* plain_fence -- the plain platform orders nothing */
static void plain_fence(void)
{
}

static const struct os_platform plain = {
	.flush = plain_flush,
	.fence = plain_fence,
	.fatal = jump_fatal,
	.now_ns = NULL,
};

/* crashsim_plain_platform -- for opening crash images */
const struct os_platform *crashsim_plain_platform(void)
{
	return &plain;
}

/* crashsim_protect -- run fn(arg); NULL or the message of its fatal() */
const char *crashsim_protect(void (*fn)(void *arg), void *arg)
{
	jmp_buf here;
	jmp_buf *const saved = protect_top;

	protect_top = &here;
	if (setjmp(here) == 0) {
		fn(arg);
		protect_top = saved;
		return NULL;
	}
	protect_top = saved;
	return fatal_message;
}
