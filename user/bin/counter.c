/*
 * counter.c -- counter [START] [PERIOD_MS]: print START, START+1, ... one a
 * line, every PERIOD_MS milliseconds (default 1000; 0: as fast as it can),
 * forever.
 *
 * The count lives in an ordinary global variable: process memory is
 * persistent, so after a power cut the counter carries on from where the
 * last committed epoch left it. With output commit (DESIGN.md section 4) no
 * number is ever printed twice, except the one line in flight at the cut.
 */
#include <fe.h>

/* The next number to print. */
static uint64_t counter_next = 1;

/* main -- count forever */
int main(int argc, char **argv)
{
	uint64_t period_ms = 1000;

	if (argc > 3) {
		printf("usage: counter [START] [PERIOD_MS]\n");
		return 2;
	}
	if (argc > 1 && !fe_parse_arg("counter", "START", argv[1], &counter_next))
		return 2;
	if (argc > 2 && !fe_parse_arg("counter", "PERIOD_MS", argv[2], &period_ms))
		return 2;
	for (;;) {
		printf("%lu\n", counter_next);
		counter_next++;
		if (period_ms > 0)
			fe_sleep_ms(period_ms);
	}
}
