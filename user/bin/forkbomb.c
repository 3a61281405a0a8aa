/*
 * forkbomb.c -- forkbomb: spawn copies of itself without end; each copy
 * does the same. A runaway program on purpose: the process table stays
 * full at every power-on, and ending any one copy only makes room for the
 * next, which is what a safe power-on is for (docs/checkpoints.md, "Safe
 * power-on").
 *
 * Each copy spawns `forkbomb child`, closes the handle (so its own handle
 * table never fills) and spawns again; a refused spawn (the table full:
 * -ERR_NOSPC, or the heap) is tried again after a yield. The first copy
 * prints "forkbomb: spawn refused (REASON); spawning on" the first time
 * one of its spawns is refused.
 */
#include <fe.h>

/* main -- spawn, forever */
int main(int argc, char **argv)
{
	static const char *const child[] = {"forkbomb", "child", NULL};
	bool first = argc == 1, said = false;
	long h;

	if (argc > 2 || (argc == 2 && strcmp(argv[1], "child") != 0)) {
		printf("usage: forkbomb\n");
		return 2;
	}
	for (;;) {
		h = fe_spawn_program("forkbomb", child);
		if (h >= 0) {
			fe_close((int32_t)h);
			continue;
		}
		if (first && !said) {
			printf("forkbomb: spawn refused (%s); spawning on\n", err_name((int)h));
			said = true;
		}
		fe_yield();
	}
}
