/*
 * counter.c -- counter [START] [PERIOD_MS] [COUNT]: print START, START+1,
 * ... one a line, every PERIOD_MS milliseconds (default 1000; 0: as fast as
 * it can), forever, or COUNT numbers and exit (0: forever).
 *
 * The count lives in an ordinary global variable: process memory is
 * persistent, so after a power cut the counter carries on from where the
 * last committed epoch left it. With output commit (DESIGN.md section 4) no
 * number is ever printed twice, except the one line in flight at the cut.
 */
#include <fe.h>

/* The next number to print. */
static uint64_t counter_next = 1;

/* main -- count, forever or COUNT numbers */
int main(int argc, char **argv)
{
	uint64_t period_ms = 1000, count = 0;

	if (argc > 4) {
		printf("usage: counter [START] [PERIOD_MS] [COUNT]\n");
		return 2;
	}
	if (argc > 1 && !fe_parse_arg("counter", "START", argv[1], &counter_next))
		return 2;
	if (argc > 2 && !fe_parse_arg("counter", "PERIOD_MS", argv[2], &period_ms))
		return 2;
	if (argc > 3 && !fe_parse_arg("counter", "COUNT", argv[3], &count))
		return 2;
	for (uint64_t printed = 0; !count || printed < count; printed++) {
		printf("%lu\n", counter_next);
		counter_next++;
		if (period_ms > 0)
			fe_sleep_ms(period_ms);
	}
	return 0;
}
