/*
 * hello.c -- the smallest Linux program the tests run in Ferrite, built by
 * the host's compilers as a user would (tests/linux/linux.mk): glibc and
 * musl, fixed-address and position-independent (static PIE). It prints
 * its arguments, its first environment variable, and a line from the heap,
 * and exits with status 3 so that the status is seen to come through.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv, char **envp)
{
	char *copy = malloc(64);

	printf("hello from %s, %d arguments:", argv[0], argc);
	for (int i = 1; i < argc; i++)
		printf(" [%s]", argv[i]);
	printf("\nfirst variable: %s\n", envp[0] ? envp[0] : "(none)");
	if (!copy)
		return 1;
	strcpy(copy, "a line from malloc");
	puts(copy);
	free(copy);
	return 3;
}
