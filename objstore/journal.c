/*
 * journal.c -- the journal of a heap on a device with flush requests:
 * planning the layout, writing records, copying them into the base copy,
 * and recovering at power-on (the design: objstore/journal.h).
 *
 * Nothing here flushes: the caller (the kernel's epoch, kernel/epoch/
 * durable.c) asks the device for a flush between the steps the design
 * orders, and objtool recovers into a private mapping. Nothing here keeps
 * state but the writer's, which the caller holds.
 */
#include <string.h>

#include "ferrite/errors.h"
#include "objstore/format.h"
#include "objstore/journal.h"
#include "objstore/objstore.h"

#define MIN_JOURNAL (1ull << 20)
#define RECORD_FIXED offsetof(struct jn_record_page, entry)

/* --- the layout ----------------------------------------------------------- */

/* jn_plan -- the layout genesis gives a device of `device_size` bytes */
int jn_plan(uint64_t device_size, uint64_t min_heap, struct jn_layout *out)
{
	uint64_t usable = device_size / JN_PAGE * JN_PAGE;
	uint64_t journal = usable / 8 / JN_PAGE * JN_PAGE;
	uint64_t heap;

	if (journal < MIN_JOURNAL)
		journal = MIN_JOURNAL;
	if (usable < journal + JN_PAGE)
		return -ERR_NOSPC;
	heap = (usable - journal - JN_PAGE) / 2 / JN_PAGE * JN_PAGE;
	if (heap < min_heap)
		return -ERR_NOSPC;
	*out = (struct jn_layout){
		.heap_size = heap,
		.base_offset = heap,
		.journal_offset = 2 * heap,
		.journal_size = usable - JN_PAGE - 2 * heap,
	};
	return 0;
}

/* header_crc -- the header's checksum */
static uint32_t header_crc(const struct jn_header *h)
{
	return os_crc32c_reference(0, h, offsetof(struct jn_header, crc));
}

/* jn_seal_header -- recompute h's checksum */
void jn_seal_header(struct jn_header *h)
{
	h->crc = header_crc(h);
}

/* jn_make_header -- the header of layout l, checksummed */
void jn_make_header(struct jn_header *h, uint64_t device_size,
		    const struct jn_layout *l, uint64_t journal_id)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, JN_MAGIC, 8);
	h->version = JN_VERSION;
	h->header_size = sizeof(*h);
	h->device_size = device_size;
	h->heap_size = l->heap_size;
	h->base_offset = l->base_offset;
	h->journal_offset = l->journal_offset;
	h->journal_size = l->journal_size;
	h->journal_id = journal_id;
	jn_seal_header(h);
}

/* zeroed -- whether n bytes are all zero */
static bool zeroed(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* geometry_sound -- the regions lie in order inside the device */
static bool geometry_sound(const struct jn_header *h, uint64_t size)
{
	uint64_t end = size - JN_PAGE;

	return h->heap_size && h->heap_size % JN_PAGE == 0 &&
	       (h->base_offset == h->heap_size || h->base_offset == 0) &&
	       h->journal_offset == 2 * h->heap_size &&
	       h->journal_size >= 3 * JN_PAGE && h->journal_size % JN_PAGE == 0 &&
	       h->journal_offset + h->journal_size <= end &&
	       h->journal_size / JN_PAGE < UINT32_MAX;
}

/* header_at -- the journal header in the page at `off`, if its magic is there */
static const struct jn_header *header_at(const void *dev, uint64_t off)
{
	const struct jn_header *h = (const void *)((const uint8_t *)dev + off);

	return memcmp(h->magic, JN_MAGIC, 8) == 0 ? h : NULL;
}

/* moved_header -- a device larger than its journal's layout (its image
 * file grown): the header of the layout made for its first device_size
 * bytes, found after the heap and its base copy; or NULL */
static const struct jn_header *moved_header(const void *dev, uint64_t size)
{
	const struct os_superblock *sb = dev;
	const struct jn_header *h;

	if (memcmp(sb->magic, OS_MAGIC, 8) != 0 || sb->heap_size % JN_PAGE ||
	    sb->heap_size > size / 2)
		return NULL;
	for (uint64_t off = 2 * sb->heap_size; off + JN_PAGE < size; off += JN_PAGE) {
		h = header_at(dev, off);
		if (h && h->device_size == off + JN_PAGE)
			return h;
	}
	return NULL;
}

/* jn_find -- the device's journal header, checked */
int jn_find(const void *dev, uint64_t size, const struct jn_header **out,
	    const char **why)
{
	const struct jn_header *h;

	*why = NULL;
	if (size < 4 * JN_PAGE || size % JN_PAGE)
		return -ERR_NOENT;
	h = header_at(dev, size - JN_PAGE);
	if (!h)
		h = moved_header(dev, size);
	if (!h)
		return -ERR_NOENT;
	*out = h;
	if (h->version != JN_VERSION) {
		*why = "journal header: another version";
		return -ERR_VERSION;
	}
	if (h->header_size != sizeof(*h) || h->crc != header_crc(h)) {
		*why = "journal header: checksum mismatch";
		return -ERR_CORRUPT;
	}
	if (!zeroed(h->reserved, sizeof(h->reserved))) {
		*why = "journal header: reserved bytes are not zero";
		return -ERR_CORRUPT;
	}
	if ((const uint8_t *)h + JN_PAGE != (const uint8_t *)dev + h->device_size) {
		*why = "journal header: not in the last page of the device it was made for";
		return -ERR_CORRUPT;
	}
	if (!geometry_sound(h, h->device_size)) {
		*why = "journal header: the heap, base copy and journal do not fit the device in order";
		return -ERR_CORRUPT;
	}
	return 0;
}

/* --- slots ---------------------------------------------------------------- */

/* slot_at -- slot s of the journal */
static uint8_t *slot_at(uint8_t *dev, const struct jn_header *h, uint64_t s)
{
	return dev + h->journal_offset + (s % (h->journal_size / JN_PAGE)) * JN_PAGE;
}

/* record_crc -- the checksum of a header page: its fixed part and entries */
static uint32_t record_crc(const struct jn_record_page *r)
{
	struct jn_record_page fixed;
	uint32_t crc;

	memcpy(&fixed, r, RECORD_FIXED);
	fixed.crc = 0;
	crc = os_crc32c_reference(0, &fixed, RECORD_FIXED);
	return os_crc32c_reference(crc, r->entry, (size_t)r->entries * sizeof(r->entry[0]));
}

/* header_page_valid -- whether slot page r is a sound header page of this
 * journal's generation */
static bool header_page_valid(const struct jn_record_page *r, const struct jn_header *h)
{
	uint32_t slots = (uint32_t)(h->journal_size / JN_PAGE);

	return memcmp(r->magic, JN_RECORD_MAGIC, 8) == 0 &&
	       r->journal_id == h->journal_id && r->generation == h->generation &&
	       r->entries <= JN_ENTRIES_PER_PAGE && r->crc == record_crc(r) &&
	       r->header_pages == jn_header_pages(r->pages) &&
	       r->index < r->header_pages && r->first_slot < slots &&
	       r->header_pages + (uint64_t)r->pages <= slots &&
	       r->first_needed <= r->seq && r->seq;
}

/* entries_on -- the entries header page `index` of a record of `pages` holds */
static uint32_t entries_on(uint32_t pages, uint32_t index)
{
	uint32_t before = index * JN_ENTRIES_PER_PAGE;
	uint32_t left = pages - before;

	return left < JN_ENTRIES_PER_PAGE ? left : JN_ENTRIES_PER_PAGE;
}

/* record_complete -- whether the record whose header page 0 is r0 is
 * whole: every header page sound and of it, every page image stamped */
static bool record_complete(uint8_t *dev, const struct jn_header *h,
			    const struct jn_record_page *r0)
{
	uint64_t stamp = jn_stamp(h->journal_id, h->generation, r0->seq);
	uint64_t heap_pages = h->heap_size / JN_PAGE;

	for (uint32_t i = 0; i < r0->header_pages; i++) {
		const struct jn_record_page *r =
			(const void *)slot_at(dev, h, r0->first_slot + i);

		if (!header_page_valid(r, h) || r->seq != r0->seq || r->index != i ||
		    r->first_slot != r0->first_slot || r->pages != r0->pages ||
		    r->entries != entries_on(r0->pages, i))
			return false;
		for (uint32_t e = 0; e < r->entries; e++) {
			uint64_t n = (uint64_t)i * JN_ENTRIES_PER_PAGE + e;
			uint64_t word;

			if (r->entry[e].page >= heap_pages || r->entry[e].reserved)
				return false;
			memcpy(&word, slot_at(dev, h, r0->first_slot + r0->header_pages + n), 8);
			if (word != stamp)
				return false;
		}
	}
	return true;
}

/* find_record -- header page 0 of this generation's complete record `seq`,
 * or NULL */
static const struct jn_record_page *find_record(uint8_t *dev, const struct jn_header *h,
						uint64_t seq)
{
	uint64_t slots = h->journal_size / JN_PAGE;

	for (uint64_t s = 0; s < slots; s++) {
		const struct jn_record_page *r = (const void *)slot_at(dev, h, s);

		if (header_page_valid(r, h) && r->index == 0 && r->seq == seq &&
		    r->first_slot == s && record_complete(dev, h, r))
			return r;
	}
	return NULL;
}

/* newest_complete -- header page 0 of this generation's newest complete
 * record numbered below `below`, or NULL; the torn ones counted */
static const struct jn_record_page *newest_complete(uint8_t *dev, const struct jn_header *h,
						    uint64_t below, uint64_t *torn)
{
	const struct jn_record_page *best = NULL;
	uint64_t slots = h->journal_size / JN_PAGE;

	*torn = 0;
	for (uint64_t s = 0; s < slots; s++) {
		const struct jn_record_page *r = (const void *)slot_at(dev, h, s);

		if (!header_page_valid(r, h) || r->index != 0 || r->first_slot != s ||
		    r->seq >= below)
			continue;
		if (!record_complete(dev, h, r))
			(*torn)++;
		else if (!best || r->seq > best->seq)
			best = r;
	}
	return best;
}

/* chain_whole -- whether the records `newest` needs are all complete */
static bool chain_whole(uint8_t *dev, const struct jn_header *h,
			const struct jn_record_page *newest)
{
	for (uint64_t seq = newest->first_needed; seq < newest->seq; seq++)
		if (!find_record(dev, h, seq))
			return false;
	return true;
}

/* copy_record -- the record's page images into `to` (the base copy), each
 * with its first word back */
static uint64_t copy_record(uint8_t *dev, const struct jn_header *h,
			    const struct jn_record_page *r0, uint8_t *to)
{
	for (uint32_t i = 0; i < r0->header_pages; i++) {
		const struct jn_record_page *r =
			(const void *)slot_at(dev, h, r0->first_slot + i);

		for (uint32_t e = 0; e < r->entries; e++) {
			uint64_t n = (uint64_t)i * JN_ENTRIES_PER_PAGE + e;
			uint8_t *page = to + (uint64_t)r->entry[e].page * JN_PAGE;

			memcpy(page, slot_at(dev, h, r0->first_slot + r0->header_pages + n),
			       JN_PAGE);
			memcpy(page, &r->entry[e].first_word, 8);
		}
	}
	return r0->pages;
}

/* jn_recover -- replay the newest complete record whose needed records
 * are whole, and those */
int jn_recover(uint8_t *dev, const struct jn_header *h, struct jn_recovery *out,
	       const char **why)
{
	const struct jn_record_page *newest;
	uint64_t below = UINT64_MAX, torn;

	*why = NULL;
	*out = (struct jn_recovery){ 0 };
	/* A record written after a failed flush can be whole while the one
	 * before it, which no flush covered either, is torn: then the last
	 * record whose needs are all whole is the state to go back to. */
	while ((newest = newest_complete(dev, h, below, &torn)) && !chain_whole(dev, h, newest)) {
		out->skipped++;
		below = newest->seq;
	}
	out->incomplete = torn;
	if (!newest) {
		if (out->skipped) {
			*why = "journal: no complete record has every record it needs whole";
			return -ERR_CORRUPT;
		}
		return 0;
	}
	out->newest = newest->seq;
	for (uint64_t seq = newest->first_needed; seq <= newest->seq; seq++) {
		const struct jn_record_page *r = seq == newest->seq ? newest
								    : find_record(dev, h, seq);

		out->pages += copy_record(dev, h, r, dev + h->base_offset);
		out->replayed++;
	}
	return 0;
}

/* jn_restore_heap -- the working copy made equal to the base copy */
uint64_t jn_restore_heap(uint8_t *dev, const struct jn_header *h)
{
	uint64_t written = 0;

	for (uint64_t off = 0; off < h->heap_size; off += JN_PAGE) {
		if (memcmp(dev + off, dev + h->base_offset + off, JN_PAGE) == 0)
			continue;
		memcpy(dev + off, dev + h->base_offset + off, JN_PAGE);
		written++;
	}
	return written;
}

/* jn_rebase_begin -- the working copy is the base from now on */
void jn_rebase_begin(struct jn_header *h)
{
	h->base_offset = 0;
	h->generation++;
	jn_seal_header(h);
}

/* jn_rebase_copy -- the base copy's place made equal to the working copy,
 * writing only the pages that differ; how many it wrote */
uint64_t jn_rebase_copy(uint8_t *dev, const struct jn_header *h)
{
	uint64_t written = 0;

	for (uint64_t off = 0; off < h->heap_size; off += JN_PAGE) {
		if (memcmp(dev + off, dev + h->heap_size + off, JN_PAGE) == 0)
			continue;
		memcpy(dev + h->heap_size + off, dev + off, JN_PAGE);
		written++;
	}
	return written;
}

/* jn_rebase_end -- the base copy is in its place again */
void jn_rebase_end(struct jn_header *h)
{
	h->base_offset = h->heap_size;
	h->generation++;
	jn_seal_header(h);
}

/* --- the writer ----------------------------------------------------------- */

/* jn_writer_init -- records continue after `newest`, from slot 0 */
void jn_writer_init(struct jn_writer *w, uint8_t *dev, struct jn_header *h,
		    uint64_t newest)
{
	*w = (struct jn_writer){
		.dev = dev,
		.header = h,
		.slots = (uint32_t)(h->journal_size / JN_PAGE),
		.next_seq = newest + 1,
		.oldest_needed = newest + 1,
	};
}

/* slots_used -- slots the live records hold */
static uint32_t slots_used(const struct jn_writer *w)
{
	uint32_t used = 0;

	for (unsigned i = 0; i < w->live_count; i++)
		used += w->live[i].slots;
	return used;
}

/* jn_slots_free -- slots a record may take now */
uint32_t jn_slots_free(const struct jn_writer *w)
{
	if (w->live_count == sizeof(w->live) / sizeof(w->live[0]))
		return 0;
	return w->slots - slots_used(w);
}

/* write_header_pages -- the record's header pages, entries filled from
 * the working copy's pages */
static void write_header_pages(struct jn_writer *w, const struct jn_record_page *fixed,
			       const uint32_t *pages)
{
	for (uint32_t i = 0; i < fixed->header_pages; i++) {
		struct jn_record_page *r = (void *)slot_at(w->dev, w->header, fixed->first_slot + i);

		memcpy(r, fixed, RECORD_FIXED);
		r->index = i;
		r->entries = entries_on(fixed->pages, i);
		for (uint32_t e = 0; e < r->entries; e++) {
			uint32_t page = pages[i * JN_ENTRIES_PER_PAGE + e];

			r->entry[e] = (struct jn_entry){ .page = page };
			memcpy(&r->entry[e].first_word, w->dev + (uint64_t)page * JN_PAGE, 8);
		}
		r->crc = record_crc(r);
	}
}

/* jn_write -- the working copy's pages as the next record */
int jn_write(struct jn_writer *w, const uint32_t *pages, uint32_t n, uint64_t *seq)
{
	uint32_t header_pages = jn_header_pages(n);
	uint64_t stamp = jn_stamp(w->header->journal_id, w->header->generation, w->next_seq);
	struct jn_record_page fixed;

	if ((uint64_t)header_pages + n > jn_slots_free(w))
		return -ERR_NOSPC;
	memset(&fixed, 0, RECORD_FIXED);
	memcpy(fixed.magic, JN_RECORD_MAGIC, 8);
	fixed.journal_id = w->header->journal_id;
	fixed.generation = w->header->generation;
	fixed.seq = w->next_seq;
	fixed.first_needed = w->oldest_needed;
	fixed.first_slot = w->head;
	fixed.header_pages = header_pages;
	fixed.pages = n;
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *slot = slot_at(w->dev, w->header, w->head + header_pages + i);

		memcpy(slot, w->dev + (uint64_t)pages[i] * JN_PAGE, JN_PAGE);
		memcpy(slot, &stamp, 8);
	}
	write_header_pages(w, &fixed, pages);
	w->live[w->live_count++] = (struct jn_live){
		.seq = w->next_seq, .first_needed = fixed.first_needed,
		.first_slot = w->head, .slots = header_pages + n,
	};
	w->head = (w->head + header_pages + n) % w->slots;
	*seq = w->next_seq++;
	return 0;
}

/* live_index -- the live record `seq`'s index, or -1 */
static int live_index(const struct jn_writer *w, uint64_t seq)
{
	for (unsigned i = 0; i < w->live_count; i++)
		if (w->live[i].seq == seq)
			return (int)i;
	return -1;
}

/* jn_flushed -- a flush covered the records through `seq` */
bool jn_flushed(struct jn_writer *w, uint64_t seq)
{
	int at = live_index(w, seq);
	uint64_t keep_from = at >= 0 ? w->live[at].first_needed : seq;
	uint64_t first_copied = 0;
	unsigned keep = 0;

	for (unsigned i = 0; i < w->live_count; i++)
		if (w->live[i].seq >= keep_from)
			w->live[keep++] = w->live[i];
	w->live_count = keep;
	for (unsigned i = 0; i < w->live_count; i++) {
		struct jn_live *r = &w->live[i];

		if (r->applied || r->seq > seq)
			continue;
		copy_record(w->dev, w->header, (const void *)slot_at(w->dev, w->header, r->first_slot),
			    w->dev + w->header->base_offset);
		r->applied = true;
		if (!first_copied)
			first_copied = r->seq;
	}
	w->oldest_needed = first_copied ? first_copied : seq + 1;
	return first_copied != 0;
}
