/*
 * spin.c -- spin [ROUNDS]: compute, touching no memory but the stack:
 * ROUNDS million rounds (default 100) of a 64-bit mixing function, then
 * print "spin: N million rounds, checksum X, T ms" and exit 0.
 *
 * The CPU-bound yardstick: two of them on two CPUs take the time one
 * takes on one (make bench's SMP figure, tests/system/test_smp.py). The
 * state lives in registers between checkpoints and in the stack frame at
 * them, so a power cut in the middle resumes the count where the last
 * commit left it, and the checksum is the same as without the cut.
 */
#include <fe.h>

#define MILLION 1000000ul

/* mix -- one round: a xorshift-multiply step (splitmix64's finalizer) */
static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ul;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebul;
	return x ^ (x >> 31);
}

/* main -- ROUNDS million rounds, then the checksum and the time they took */
int main(int argc, char **argv)
{
	uint64_t rounds = 100, x = 1;
	uint64_t start = fe_now();

	if (argc > 2) {
		printf("usage: spin [ROUNDS]\n");
		return 2;
	}
	if (argc > 1 && !fe_parse_arg("spin", "ROUNDS", argv[1], &rounds))
		return 2;
	for (uint64_t i = 0; i < rounds * MILLION; i++)
		x = mix(x + i);
	printf("spin: %lu million rounds, checksum %016lx, %lu ms\n", rounds, x,
	       (fe_now() - start) / MILLION);
	return 0;
}
