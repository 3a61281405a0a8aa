/*
 * malloc.c -- malloc, free, calloc and realloc for one program.
 *
 * The heap is ONE anonymous object of FE_HEAP_SIZE (1 GiB), created and
 * mapped shared read+write at first use near FE_HEAP_HINT. Objects are
 * sparse, so the heap costs only the pages actually touched; the program
 * never asks the kernel for more. Like all of a process's memory the heap
 * (and this file's state, in .bss) is persistent: a resumed program finds
 * its allocations intact.
 *
 * Layout: a sequence of blocks from heap.base + 8 up to heap.top, then the
 * never-used rest (the wilderness). Every block begins with an 8-byte
 * header word: its size (a multiple of 16, header included) | BLOCK_USED |
 * BLOCK_PREV_USED. Blocks sit at addresses = 8 mod 16, so payloads (just
 * after the header) are 16-byte aligned. A free block also holds its free
 * list links after the header and repeats its size in its last 8 bytes (the
 * boundary tag), so free() finds a free predecessor in O(1) and merges with
 * it. At heap.top sits an epilogue header: size 0, BLOCK_USED, and
 * BLOCK_PREV_USED telling whether the last block is in use.
 *
 * Free blocks live in size-class lists: one exact class per 16 bytes up to
 * SMALL_MAX, then one class per power of two. malloc takes the first block
 * that fits from the smallest class that can hold one, splits off the
 * remainder, and carves from the wilderness when no list has a fit.
 *
 * One mutex (heap_lock) makes malloc, free and realloc safe to call from
 * several threads at once.
 *
 * Invariants (broken only by a program writing outside its blocks, and then
 * caught where cheap by __builtin_trap, a fault of the program):
 *   - no two free blocks are adjacent (free merges both ways);
 *   - a block's BLOCK_PREV_USED bit equals the previous block's BLOCK_USED;
 *   - a free block is in exactly the list of its size class;
 *   - the last block before heap.top is in use (a freed last block returns
 *     to the wilderness instead).
 */
#include <fe.h>

#define ALIGN 16u
#define HEADER 8u
#define MIN_BLOCK 32u            /* header, two links, boundary tag */
#define BLOCK_USED 0x1ull
#define BLOCK_PREV_USED 0x2ull
#define BLOCK_FLAGS (BLOCK_USED | BLOCK_PREV_USED)

#define SMALL_MAX 1024u          /* exact classes of 16 bytes up to here */
#define SMALL_CLASSES (SMALL_MAX / ALIGN - 1)   /* 32, 48, ... 1024 */
#define LARGE_CLASSES 21u        /* [2^10, 2^11) ... [2^30, 2^31) */
#define CLASSES (SMALL_CLASSES + LARGE_CLASSES)

struct free_block {
	uint64_t header;
	struct free_block *next;
	struct free_block *prev;
};

/* The whole allocator: zero (unset) until heap_init. */
static struct {
	char *base;              /* the mapping, NULL before first use */
	char *top;               /* the epilogue: where the wilderness starts */
	char *end;               /* base + FE_HEAP_SIZE */
	struct free_block *classes[CLASSES];
} heap;

/* block_size -- the size of the block at b, header included */
static inline uint64_t block_size(const char *b)
{
	return *(const uint64_t *)b & ~BLOCK_FLAGS;
}

/* block_flag -- whether the block at b has flag set */
static inline bool block_flag(const char *b, uint64_t flag)
{
	return (*(const uint64_t *)b & flag) != 0;
}

/* set_header -- write the block header of b */
static inline void set_header(char *b, uint64_t size, uint64_t flags)
{
	*(uint64_t *)b = size | flags;
}

/* set_prev_used -- set or clear BLOCK_PREV_USED in the block at b */
static inline void set_prev_used(char *b, bool used)
{
	uint64_t *h = (uint64_t *)b;

	*h = used ? (*h | BLOCK_PREV_USED) : (*h & ~BLOCK_PREV_USED);
}

/* size_class -- the list a free block of size bytes belongs to */
static unsigned size_class(uint64_t size)
{
	if (size <= SMALL_MAX)
		return (unsigned)(size / ALIGN) - 2;
	return SMALL_CLASSES + (unsigned)(63 - __builtin_clzll(size)) - 10;
}

/* class_insert -- make the block b of size bytes free and list it */
static void class_insert(char *b, uint64_t size, bool prev_used)
{
	struct free_block *fb = (struct free_block *)b;
	struct free_block **head = &heap.classes[size_class(size)];

	set_header(b, size, prev_used ? BLOCK_PREV_USED : 0);
	*(uint64_t *)(b + size - HEADER) = size;
	fb->prev = NULL;
	fb->next = *head;
	if (*head != NULL)
		(*head)->prev = fb;
	*head = fb;
	set_prev_used(b + size, false);
}

/* class_remove -- take the free block b off its list */
static void class_remove(char *b)
{
	struct free_block *fb = (struct free_block *)b;

	if (fb->prev != NULL)
		fb->prev->next = fb->next;
	else
		heap.classes[size_class(block_size(b))] = fb->next;
	if (fb->next != NULL)
		fb->next->prev = fb->prev;
}

/* class_find -- a free block of at least need bytes, or NULL */
static char *class_find(uint64_t need)
{
	unsigned c;

	for (c = size_class(need); c < CLASSES; c++) {
		struct free_block *fb;

		for (fb = heap.classes[c]; fb != NULL; fb = fb->next)
			if (block_size((char *)fb) >= need)
				return (char *)fb;
	}
	return NULL;
}

/* heap_init -- create and map the heap object; false if the kernel refused */
static bool heap_init(void)
{
	long handle, addr;

	handle = fe_obj_create(FE_TYPE_ANON, FE_HEAP_SIZE);
	if (handle < 0)
		return false;
	addr = fe_map((int32_t)handle, 0, FE_HEAP_SIZE,
		      FE_PROT_READ | FE_PROT_WRITE | FE_MAP_SHARED, FE_HEAP_HINT);
	/* The mapping holds the object; the handle is not needed any more. */
	fe_close((int32_t)handle);
	if (addr < 0)
		return false;
	heap.base = (char *)addr;
	heap.end = heap.base + FE_HEAP_SIZE;
	heap.top = heap.base + HEADER;
	set_header(heap.top, 0, BLOCK_USED | BLOCK_PREV_USED);
	return true;
}

/* block_need -- the block size that holds size bytes, or 0 if too large */
static uint64_t block_need(size_t size)
{
	uint64_t need;

	if (size > FE_HEAP_SIZE)
		return 0;
	need = ((uint64_t)size + HEADER + ALIGN - 1) & ~(uint64_t)(ALIGN - 1);
	return need < MIN_BLOCK ? MIN_BLOCK : need;
}

/* carve -- make the free block b (already unlisted) a used block of need bytes */
static void carve(char *b, uint64_t need)
{
	uint64_t size = block_size(b);
	uint64_t prev = *(uint64_t *)b & BLOCK_PREV_USED;

	if (size - need >= MIN_BLOCK) {
		class_insert(b + need, size - need, true);
		size = need;
	}
	set_header(b, size, BLOCK_USED | prev);
	set_prev_used(b + size, true);
}

/* wilderness_take -- a used block of need bytes from the wilderness, or NULL */
static char *wilderness_take(uint64_t need)
{
	char *b = heap.top;

	if ((uint64_t)(heap.end - b) < need + HEADER)
		return NULL;
	set_header(b, need, BLOCK_USED | (*(uint64_t *)b & BLOCK_PREV_USED));
	heap.top = b + need;
	set_header(heap.top, 0, BLOCK_USED | BLOCK_PREV_USED);
	return b;
}

/* malloc_unlocked -- size bytes, 16-byte aligned, or NULL */
static void *malloc_unlocked(size_t size)
{
	uint64_t need = block_need(size);
	char *b;

	if (need == 0 || (heap.base == NULL && !heap_init()))
		return NULL;
	b = class_find(need);
	if (b != NULL) {
		class_remove(b);
		carve(b, need);
	} else {
		b = wilderness_take(need);
		if (b == NULL)
			return NULL;
	}
	return b + HEADER;
}

/* used_block -- the block of a pointer malloc returned; traps on a bad one */
static char *used_block(void *ptr)
{
	char *b = (char *)ptr - HEADER;

	/* Invariant: ptr came from malloc and was not freed since. */
	if (heap.base == NULL || b < heap.base || b >= heap.top ||
	    ((uintptr_t)ptr & (ALIGN - 1)) != 0 || !block_flag(b, BLOCK_USED))
		__builtin_trap();
	return b;
}

/* free_unlocked -- give back a block; merges with free neighbours */
static void free_unlocked(void *ptr)
{
	char *b, *next;
	uint64_t size;

	if (ptr == NULL)
		return;
	b = used_block(ptr);
	size = block_size(b);
	next = b + size;
	if (!block_flag(next, BLOCK_USED)) {
		class_remove(next);
		size += block_size(next);
	}
	if (!block_flag(b, BLOCK_PREV_USED)) {
		uint64_t prev_size = *(uint64_t *)(b - HEADER);

		b -= prev_size;
		class_remove(b);
		size += prev_size;
	}
	if (b + size == heap.top) {
		/* The last block goes back to the wilderness. */
		heap.top = b;
		set_header(b, 0, BLOCK_USED | (*(uint64_t *)b & BLOCK_PREV_USED));
		return;
	}
	class_insert(b, size, block_flag(b, BLOCK_PREV_USED));
}

/* calloc -- n * size zeroed bytes, or NULL */
void *calloc(size_t n, size_t size)
{
	size_t total;
	void *p;

	if (__builtin_mul_overflow(n, size, &total))
		return NULL;
	p = malloc(total);
	if (p != NULL)
		memset(p, 0, total);
	return p;
}

/* grow_in_place -- extend the last block b to need bytes from the wilderness */
static bool grow_in_place(char *b, uint64_t need)
{
	uint64_t size = block_size(b);

	if (b + size != heap.top || (uint64_t)(heap.end - b) < need + HEADER)
		return false;
	set_header(b, need, *(uint64_t *)b & BLOCK_FLAGS);
	heap.top = b + need;
	set_header(heap.top, 0, BLOCK_USED | BLOCK_PREV_USED);
	return true;
}

/* realloc_unlocked -- resize ptr's block to size bytes, moving it if need be */
static void *realloc_unlocked(void *ptr, size_t size)
{
	uint64_t need;
	char *b;
	void *moved;

	if (ptr == NULL)
		return malloc_unlocked(size);
	b = used_block(ptr);
	need = block_need(size);
	if (need == 0)
		return NULL;
	if (need <= block_size(b) || grow_in_place(b, need))
		return ptr;
	moved = malloc_unlocked(size);
	if (moved == NULL)
		return NULL;
	memcpy(moved, ptr, block_size(b) - HEADER);
	free_unlocked(ptr);
	return moved;
}

/* One lock for the heap: a program's threads share it (thread.c). */
static struct fe_mutex heap_lock;

/* malloc -- size bytes, 16-byte aligned; NULL if the heap is full */
void *malloc(size_t size)
{
	void *p;

	fe_mutex_lock(&heap_lock);
	p = malloc_unlocked(size);
	fe_mutex_unlock(&heap_lock);
	return p;
}

/* free -- give back a block of malloc, calloc or realloc (NULL: nothing) */
void free(void *ptr)
{
	fe_mutex_lock(&heap_lock);
	free_unlocked(ptr);
	fe_mutex_unlock(&heap_lock);
}

/* realloc -- the block resized, moved if need be; NULL (ptr kept) if it cannot */
void *realloc(void *ptr, size_t size)
{
	void *p;

	fe_mutex_lock(&heap_lock);
	p = realloc_unlocked(ptr, size);
	fe_mutex_unlock(&heap_lock);
	return p;
}

/* touch -- write every page of [from, to) with the bytes it holds, so that
 * each exists (a private page gets its copy, a sparse one its page) */
static void touch(char *from, char *to)
{
	for (char *p = (char *)((uintptr_t)from & ~(uintptr_t)(FE_PAGE_SIZE - 1)); p < to;
	     p += FE_PAGE_SIZE)
		*(volatile char *)p = *(volatile char *)p;
}

/* fe_keep_memory -- every page the program will write, made now */
long fe_keep_memory(uint64_t stack, uint64_t heap_bytes)
{
	extern char fe_image_data[], fe_image_end[]; /* user/user.ld */
	struct fe_sysinfo si;
	char here;
	uintptr_t sp = (uintptr_t)&here;
	uint64_t pages = (uint64_t)(fe_image_end - fe_image_data + stack + heap_bytes) /
			 FE_PAGE_SIZE + 3;
	long err = fe_sysinfo(&si);

	if (err < 0)
		return err;
	if (si.heap_free / FE_PAGE_SIZE < 2 * pages)
		return -ERR_NOMEM;
	fe_mutex_lock(&heap_lock);
	if (heap.base || heap_init())
		touch(heap.base, heap.base + heap_bytes);
	fe_mutex_unlock(&heap_lock);
	touch(fe_image_data, fe_image_end);
	touch((char *)(sp - stack), (char *)(sp - FE_PAGE_SIZE));
	return 0;
}
