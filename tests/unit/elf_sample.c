/*
 * elf_sample.c -- the smallest real program for test_elf to parse: built by
 * the host's gcc as a static, non-PIE executable with 4 KiB pages, with
 * text, read-only data, data and bss, so the linker lays out every kind of
 * segment. Never run.
 */
static const char greeting[] = "hello from a static executable";
static volatile char copy[sizeof(greeting)];
static volatile unsigned long counter = 1;

void _start(void);

/* _start -- copy the greeting and count forever */
void _start(void)
{
	for (unsigned long i = 0;; i++) {
		copy[i % sizeof(copy)] = greeting[i % sizeof(greeting)];
		counter++;
	}
}
