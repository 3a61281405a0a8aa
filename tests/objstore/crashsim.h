/*
 * crashsim.h -- a power-cut simulator for objstore: a platform that
 * records every flush and fence against a durable image, and builds the
 * images a power cut at a fence could leave behind.
 *
 * The heap lives in an ordinary buffer, M, that objstore reads and writes
 * directly. The simulator keeps a second buffer, the durable image D.
 *
 *   flush(p, len)  records the 64-byte lines of [p, p+len) with their
 *                  contents at the time of the flush ("pending"; a line
 *                  flushed twice keeps its latest flushed contents);
 *   fence()        first calls the crash-point hook (a power cut "just
 *                  before fence k" sees every store made before it), then
 *                  copies every pending line into D.
 *
 * A crash image at a crash point is D, plus any choice among the lines
 * that are not settled (crashsim_collect):
 *
 *   a dirty line (M differs from D, not pending): D's value or M's (the
 *     cache may have evicted it on its own);
 *   a pending line: D's value, its flushed value or M's (the write-back
 *     may not have happened, may have happened, or a later eviction may
 *     have carried the later stores).
 *
 * Only the values a line has at its last flush and at the crash point are
 * candidates: a value it held only in between is not modelled. x86
 * promises power-fail atomicity for aligned 8-byte stores only, so images
 * may also tear a line: each of its 8-byte words takes its own value
 * (crashsim_image_random does so for one seed in four). See
 * docs/crash-testing.md.
 *
 * Several simulators may live at once (a scenario and, inside its hook,
 * the recovery of one of its crash images): each has its own platform
 * table. The platform's fatal() long-jumps to the innermost
 * crashsim_protect(), so an objstore invariant failure becomes a reported
 * result instead of an abort.
 */
#ifndef CRASHSIM_H
#define CRASHSIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "objstore/objstore.h"

#define CRASHSIM_LINE 64u
#define CRASHSIM_MAX 4      /* simulators alive at once */

struct crashsim;

/* Called at every fence, before it takes effect; `fence` counts from 0. */
typedef void crashsim_hook(struct crashsim *cs, uint64_t fence, void *ctx);

/* crashsim_new -- a simulator for a heap of `size` bytes (a multiple of
 * 4096): M and D zeroed, nothing pending; NULL when CRASHSIM_MAX live */
struct crashsim *crashsim_new(uint64_t size);

/* crashsim_free -- release the simulator and its buffers */
void crashsim_free(struct crashsim *cs);

/* crashsim_mem -- M, the buffer the heap code works on */
uint8_t *crashsim_mem(const struct crashsim *cs);

/* crashsim_durable -- D, the durable image */
const uint8_t *crashsim_durable(const struct crashsim *cs);

/* crashsim_size -- bytes in M (and D) */
uint64_t crashsim_size(const struct crashsim *cs);

/* crashsim_set_clock -- the wall clock objstore reads (NULL, the default: none) */
void crashsim_set_clock(struct crashsim *cs, uint64_t (*now_ns)(void));

/* crashsim_platform -- the platform table that records into this simulator */
const struct os_platform *crashsim_platform(const struct crashsim *cs);

/* crashsim_set_hook -- call hook(cs, fence, ctx) at every fence (NULL: none);
 * the hook is not re-entered by fences of the same simulator */
void crashsim_set_hook(struct crashsim *cs, crashsim_hook *hook, void *ctx);

/* crashsim_load -- M = D = image: a machine powered on from `image`;
 * fences are counted from 0 again */
void crashsim_load(struct crashsim *cs, const void *image);

/* crashsim_settle -- D = M, nothing pending: a clean shutdown */
void crashsim_settle(struct crashsim *cs);

/* crashsim_fences -- fences seen so far */
uint64_t crashsim_fences(const struct crashsim *cs);

/* crashsim_stray_flushes -- flushes that fell outside the heap, and the
 * first such address in *first (if any) */
uint64_t crashsim_stray_flushes(const struct crashsim *cs, const void **first);

/* --- crash points ------------------------------------------------------ */

/* crashsim_collect -- find the lines that are not settled now (dirty or
 * pending, with more than one possible value); their number */
uint64_t crashsim_collect(struct crashsim *cs);

/* crashsim_combinations -- crash images the collected lines allow (the
 * product of their choices), saturating at UINT64_MAX */
uint64_t crashsim_combinations(const struct crashsim *cs);

/* crashsim_image_none -- D alone: nothing persisted beyond the fences */
void crashsim_image_none(const struct crashsim *cs, uint8_t *out);

/* crashsim_image_all -- every collected line with M's value */
void crashsim_image_all(const struct crashsim *cs, uint8_t *out);

/* crashsim_image_enum -- combination `index` (< crashsim_combinations),
 * mixed radix over the collected lines: 0 is crashsim_image_none */
void crashsim_image_enum(const struct crashsim *cs, uint64_t index, uint8_t *out);

/* crashsim_image_random -- a random choice for every collected line,
 * determined by `seed`: how likely a line persists varies with the seed,
 * and for one seed in four half the lines tear (a choice per 8-byte word) */
void crashsim_image_random(const struct crashsim *cs, uint64_t seed, uint8_t *out);

/* crashsim_describe_random -- print the choice crashsim_image_random(seed)
 * makes for each line (at most `max` lines), for replaying a failure */
void crashsim_describe_random(const struct crashsim *cs, uint64_t seed,
			      unsigned max, FILE *f);

/* crashsim_describe_enum -- the same for crashsim_image_enum(index) */
void crashsim_describe_enum(const struct crashsim *cs, uint64_t index,
			    unsigned max, FILE *f);

/* --- running code that may call fatal() ------------------------------- */

/* crashsim_plain_platform -- flush and fence do nothing; fatal long-jumps
 * to the innermost crashsim_protect: for opening crash images */
const struct os_platform *crashsim_plain_platform(void);

/* crashsim_protect -- run fn(arg); NULL, or the message of a fatal() it
 * called (on any simulator platform, or the plain one) */
const char *crashsim_protect(void (*fn)(void *arg), void *arg);

#endif
