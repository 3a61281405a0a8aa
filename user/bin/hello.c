/*
 * hello.c -- the smallest Ferrite program: says who and which process it is.
 */
#include <fe.h>

/* main -- print "hello from NAME, pid N" and exit 0 */
int main(int argc, char **argv)
{
	printf("hello from %s, pid %ld\n", argc > 0 ? argv[0] : "?", fe_getpid());
	return 0;
}
