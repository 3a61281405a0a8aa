/*
 * builtins.c -- the helpers gcc calls for some builtins on targets that
 * lack the instruction (libgcc's job elsewhere). The kernel does not link
 * libgcc: it is built for user code (red zone, SSE), which the kernel
 * forbids. Add a helper here when the linker asks for one.
 */

int __popcountdi2(long long value);

/* __popcountdi2 -- the number of bits set in a 64-bit value (__builtin_popcountll) */
int __popcountdi2(long long value)
{
	unsigned long long v = (unsigned long long)value;

	v = v - ((v >> 1) & 0x5555555555555555ull);
	v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
	v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (int)((v * 0x0101010101010101ull) >> 56);
}
