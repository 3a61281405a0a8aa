/*
 * test_rand.h -- the one seeded random sequence the objstore tests use
 * (splitmix64): deterministic, so a failure replays from its seed.
 */
#ifndef TEST_RAND_H
#define TEST_RAND_H

#include <stdint.h>

/* test_rand -- the next number of the sequence whose state is *s */
static inline uint64_t test_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

#endif
