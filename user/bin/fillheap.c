/*
 * fillheap.c -- fillheap: take every free page of the heap, and go on
 * taking each page that becomes free, forever. A runaway program on
 * purpose: the state it leaves misbehaves at every power-on, which is
 * what a safe power-on is for (docs/checkpoints.md, "Safe power-on").
 *
 * It writes a page at a time, with SYS_OBJ_WRITE, into an anonymous object
 * of FE_OBJ_SIZE_MAX bytes (sparse: each page written takes a heap page).
 * A write refused because the heap is full (-ERR_NOMEM) is tried again
 * after a yield, so a page freed anywhere is soon its own. It never stores
 * to a new page of its own memory: a store that needs a page of a full
 * heap would end it (heap full), and give everything back.
 *
 * When the heap is first full it prints "fillheap: the heap is full, N
 * pages taken; taking every page freed" and goes on.
 */
#include <fe.h>

#define PAGE FE_PAGE_SIZE

/* main -- fill the heap, and keep it full */
int main(int argc, char **argv)
{
	static const char page[PAGE] = "fillheap";
	uint64_t pages = 0;
	bool said_full = false;
	long object, r;

	(void)argv;
	if (argc != 1) {
		printf("usage: fillheap\n");
		return 2;
	}
	object = fe_obj_create(FE_TYPE_ANON, FE_OBJ_SIZE_MAX);
	if (object < 0) {
		fe_perror("fillheap", object);
		return 1;
	}
	for (;;) {
		r = fe_obj_write((int32_t)object, pages * PAGE, page, PAGE);
		if (r == PAGE) {
			pages++;
			continue;
		}
		if (r != -ERR_NOMEM) {
			fe_perror("fillheap", r);
			return 1;
		}
		if (!said_full) {
			printf("fillheap: the heap is full, %lu pages taken; taking every page freed\n",
			       pages);
			said_full = true;
		}
		fe_yield();
	}
}
