/*
 * test_journal.c -- the journal of a heap on a device with flush requests
 * (objstore/journal.c), held to the host-crash model: after a crash of the
 * host the device holds the state of the last completed flush plus any
 * subset of the 4 KiB pages written since, each page whole.
 *
 * A driver plays the kernel's part (kernel/epoch/durable.c) on a device in
 * host memory: groups of random page writes to the working copy, a record
 * each, a flush asked for and completed (or failed) later, the base copy
 * fed, a group the journal cannot hold made durable by a rebase, power-ons that recover and start a
 * new generation. At many moments it builds crash images -- the durable
 * state, the device as a kill of QEMU leaves it, and random subsets of the
 * pages written since the last completed flush -- recovers each as
 * power-on does, and checks that the working copy is exactly the state of
 * some group between the last one whose flush completed and the last one
 * written: nothing flushed is lost, nothing torn is seen.
 */
#include <stdio.h>
#include <string.h>

#include "os_test.h"

#include "objstore/journal.h"

#define DEVICE (4u << 20)
#define GROUPS 90
#define MAX_STATES (GROUPS + 64)

/* The driver's world. */
struct world {
	uint8_t *dev;                  /* the device, as the host's page cache holds it */
	uint8_t *disk;                 /* what a completed flush made durable */
	uint8_t *asked;                /* the device when the flush in flight was asked for */
	struct jn_header *h;
	struct jn_writer w;
	uint64_t heap_pages;
	uint8_t *dirty;                /* a byte per heap page written since the last group */
	uint32_t *list;
	uint32_t state[MAX_STATES];    /* the working copy's CRC after record k (0: genesis) */
	uint64_t durable;              /* the newest record a completed flush covered */
	uint64_t written;              /* the newest record written */
	uint64_t inflight;             /* the record of the flush in flight, 0: none */
	uint64_t images;
	unsigned rebases, failed, power_ons;
	uint64_t rng;                  /* test_rand's state */
};

/* heap_crc -- the working copy's checksum */
static uint32_t heap_crc(const uint8_t *dev, const struct jn_header *h)
{
	return os_crc32c_reference(0, dev, h->heap_size);
}

/* flush_done -- the flush in flight completed: the device as it was when
 * it was asked for is durable */
static void flush_done(struct world *x)
{
	memcpy(x->disk, x->asked, DEVICE);
	x->durable = x->inflight;
	x->inflight = 0;
}

/* recover_and_check -- power-on's recovery of `img`: its working copy must
 * be the state after some record in [lo, hi] */
static void recover_and_check(struct world *x, uint8_t *img, uint64_t lo, uint64_t hi)
{
	const struct jn_header *found;
	struct jn_recovery r;
	const char *why;
	uint32_t crc;
	bool seen = false;

	CHECK_EQ(jn_find(img, DEVICE, &found, &why), 0);
	CHECK_EQ(jn_recover(img, found, &r, &why), 0);
	jn_restore_heap(img, found);
	crc = heap_crc(img, found);
	for (uint64_t k = lo; k <= hi; k++)
		seen |= x->state[k] == crc;
	if (!seen)
		printf("    recovered through record %llu, not a state of records %llu..%llu\n",
		       (unsigned long long)r.newest, (unsigned long long)lo,
		       (unsigned long long)hi);
	CHECK(seen);
	x->images++;
}

/* crash_images -- the durable state, the device whole, and subsets of
 * the pages written since the last completed flush: at random, and with
 * the journal's pages all kept (its newest record whole, the base copy's
 * pages at random: what finds a record that trusts a copy no flush
 * covered), each recovered */
static void crash_images(struct world *x)
{
	uint8_t *img = test_heap_new(DEVICE);
	uint64_t hi = x->written, journal = x->h->journal_offset;

	memcpy(img, x->disk, DEVICE);
	recover_and_check(x, img, x->durable, hi);
	memcpy(img, x->dev, DEVICE);
	recover_and_check(x, img, x->durable, hi);
	for (unsigned trial = 0; trial < 3; trial++) {
			memcpy(img, x->disk, DEVICE);
		for (uint64_t off = 0; off < DEVICE; off += JN_PAGE) {
			bool keep = trial == 2 && off >= journal ? true : test_rand(&x->rng) % 2;

			if (keep && memcmp(x->dev + off, x->disk + off, JN_PAGE))
				memcpy(img + off, x->dev + off, JN_PAGE);
		}
		recover_and_check(x, img, x->durable, hi);
	}
	free(img);
}

/* write_pages -- the epoch's work: `n` random heap pages get random bytes */
static void write_pages(struct world *x, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		uint64_t p = test_rand(&x->rng) % x->heap_pages;
		uint8_t *page = x->dev + p * JN_PAGE;

		for (unsigned b = 0; b < JN_PAGE; b += 8) {
			uint64_t v = test_rand(&x->rng);

			memcpy(page + b, &v, 8);
		}
		x->dirty[p] = 1;
	}
}

/* flush_wait -- a flush asked for and completed at once */
static void flush_wait(struct world *x, uint64_t record)
{
	memcpy(x->asked, x->dev, DEVICE);
	x->inflight = record;
	flush_done(x);
}

/* rebase -- the kernel's rebase of a group the journal cannot hold, with
 * crash images between its steps: the state it makes durable is counted
 * as the record after the last one written */
static void rebase(struct world *x)
{
	x->rebases++;
	x->state[x->written + 1] = heap_crc(x->dev, x->h);
	flush_wait(x, x->written);
	jn_rebase_begin(x->h);
	x->written++;
	crash_images(x);
	flush_wait(x, x->written);
	jn_rebase_copy(x->dev, x->h);
	crash_images(x);
	flush_wait(x, x->written);
	jn_rebase_end(x->h);
	crash_images(x);
	flush_wait(x, x->written);
	jn_writer_init(&x->w, x->dev, x->h, 0);
	x->state[0] = x->state[x->written];
	x->durable = x->written = 0;
}

/* group -- the pages written since the last group as a record, and its
 * flush asked for (a rebase when the journal cannot hold them) */
static void group(struct world *x)
{
	uint32_t n = 0;
	uint64_t seq = 0;

	for (uint64_t p = 0; p < x->heap_pages; p++)
		if (x->dirty[p]) {
			x->list[n++] = (uint32_t)p;
			x->dirty[p] = 0;
		}
	if (jn_write(&x->w, x->list, n, &seq) == -ERR_NOSPC) {
		rebase(x);
	} else {
		x->state[seq] = heap_crc(x->dev, x->h);
		x->written = seq;
	}
	memcpy(x->asked, x->dev, DEVICE);
	x->inflight = seq;
}

/* power_on -- a kill of QEMU and a power-on: recovery, a new generation */
static void power_on(struct world *x)
{
	const struct jn_header *found;
	struct jn_recovery r;
	const char *why;

	CHECK_EQ(jn_find(x->dev, DEVICE, &found, &why), 0);
	CHECK_EQ(jn_recover(x->dev, found, &r, &why), 0);
	CHECK_EQ(r.newest, x->written);
	flush_wait(x, x->written);
	x->h->generation++;
	jn_seal_header(x->h);
	flush_wait(x, x->written);
	jn_restore_heap(x->dev, x->h);
	memset(x->dirty, 0, x->heap_pages);
	jn_writer_init(&x->w, x->dev, x->h, 0);
	x->power_ons++;
	/* a new generation numbers its records from 1 again: the states kept
	 * so far are the base copy's, now durable */
	x->state[0] = heap_crc(x->dev, x->h);
	x->durable = x->written = 0;
}

CHECK_TEST(every_host_crash_recovers_a_group_at_or_past_the_last_flushed)
{
	struct world x = { 0 };
	struct jn_layout l;

	x.rng = 20261206;
	x.dev = test_heap_new(DEVICE);
	x.disk = test_heap_new(DEVICE);
	x.asked = test_heap_new(DEVICE);
	CHECK_EQ(jn_plan(DEVICE, 1u << 20, &l), 0);
	x.h = (struct jn_header *)(x.dev + DEVICE - JN_PAGE);
	jn_make_header(x.h, DEVICE, &l, 0x5eed);
	x.heap_pages = l.heap_size / JN_PAGE;
	x.dirty = calloc(1, x.heap_pages);
	x.list = calloc(x.heap_pages, sizeof(uint32_t));
	jn_writer_init(&x.w, x.dev, x.h, 0);
	flush_wait(&x, 0); /* genesis makes the header durable first */
	x.state[0] = heap_crc(x.dev, x.h);
	crash_images(&x);
	for (unsigned g = 0; g < GROUPS; g++) {
		write_pages(&x, 1 + (unsigned)(test_rand(&x.rng) % 120));
		group(&x);
		crash_images(&x);
		write_pages(&x, (unsigned)(test_rand(&x.rng) % 60)); /* while it flies */
		crash_images(&x);
		if (test_rand(&x.rng) % 8 == 0) {
			x.inflight = 0; /* the device failed it: nothing more is durable */
			x.failed++;
		} else {
			uint64_t seq = x.inflight;

			flush_done(&x);
			jn_flushed(&x.w, seq);
		}
		crash_images(&x);
		if (g % 30 == 14)
			power_on(&x);
	}
	printf("    %llu crash images recovered; %u flushes failed, %u rebases of a group the "
	       "journal could not hold, %u power-ons\n", (unsigned long long)x.images, x.failed,
	       x.rebases, x.power_ons);
	CHECK(x.failed > 0 && x.rebases > 0 && x.power_ons > 0); /* every path taken */
	free(x.dev);
	free(x.disk);
	free(x.asked);
	free(x.dirty);
	free(x.list);
}

CHECK_TEST(a_damaged_header_or_a_needed_record_is_refused)
{
	uint8_t *dev = test_heap_new(DEVICE);
	struct jn_header *h = (struct jn_header *)(dev + DEVICE - JN_PAGE);
	const struct jn_header *found;
	struct jn_writer w;
	struct jn_recovery r;
	struct jn_layout l;
	const char *why;
	uint32_t pages[2] = { 3, 7 };
	uint64_t seq;

	CHECK_EQ(jn_find(dev, DEVICE, &found, &why), -ERR_NOENT);
	CHECK_EQ(jn_plan(DEVICE, 1u << 20, &l), 0);
	jn_make_header(h, DEVICE, &l, 1);
	CHECK_EQ(jn_find(dev, DEVICE, &found, &why), 0);
	jn_writer_init(&w, dev, h, 0);
	CHECK_EQ(jn_write(&w, pages, 2, &seq), 0);   /* record 1 */
	jn_flushed(&w, seq);
	CHECK_EQ(jn_write(&w, pages, 1, &seq), 0);   /* record 2 needs record 1 */
	CHECK_EQ(jn_recover(dev, h, &r, &why), 0);
	CHECK_EQ(r.newest, 2);
	CHECK_EQ(r.replayed, 2);
	dev[l.journal_offset + 8] ^= 1;              /* record 1's header page */
	CHECK_EQ(jn_recover(dev, h, &r, &why), -ERR_CORRUPT);
	CHECK(strstr(why, "every record it needs whole") != NULL);
	h->heap_size ^= JN_PAGE;
	CHECK_EQ(jn_find(dev, DEVICE, &found, &why), -ERR_CORRUPT);
	CHECK(strstr(why, "checksum") != NULL);
	free(dev);
}

int main(void)
{
	return check_run_all();
}
