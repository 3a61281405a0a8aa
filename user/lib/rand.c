/*
 * rand.c -- reproducible pseudo-random numbers for programs that test.
 *
 * fe_mix64 is a bijective 64-bit mixing function (the finaliser of the
 * SplitMix64 generator): every input bit affects every output bit, so
 * fe_mix64(key + i) serves both as a pattern of bytes that depends on a key
 * and a position, and, with a state that advances by a fixed odd constant,
 * as a generator. The state is whatever uint64_t the caller keeps: in a
 * program's ordinary memory it is persistent like the rest of the process,
 * so a generator resumed after a power cut carries on with the same
 * sequence from the last committed epoch.
 */
#include <fe.h>

/* The golden-ratio increment of SplitMix64: odd, so the state visits 2^64 values. */
#define RAND_STEP 0x9e3779b97f4a7c15ull

/* fe_mix64 -- x mixed so that every bit of it affects every bit of the result */
uint64_t fe_mix64(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* fe_rand_next -- advance *state; the next pseudo-random value */
uint64_t fe_rand_next(uint64_t *state)
{
	*state += RAND_STEP;
	return fe_mix64(*state);
}

/* fe_rand_below -- a pseudo-random value in [0, bound) (0 when bound is 0) */
uint64_t fe_rand_below(uint64_t *state, uint64_t bound)
{
	return bound == 0 ? 0 : fe_rand_next(state) % bound;
}
