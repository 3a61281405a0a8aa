/*
 * console.c -- the console: an empty write and a line written (it shows
 * in the output as "usertest: console"), a raw read that would block with
 * nothing typed (-ERR_AGAIN), and bad read modes and lengths.
 */
#include "usertest.h"

/* test_console -- console reads and writes */
void test_console(void)
{
	char buf[8];

	EQ(fe_console_write("", 0), 0);
	EQ(fe_console_write("usertest: console\n", 18), 18);
	ERR(fe_console_read(buf, sizeof(buf), FE_CONSOLE_RAW | FE_CONSOLE_NONBLOCK), ERR_AGAIN);
	ERR(fe_console_read(buf, sizeof(buf), 5), ERR_INVAL);
	ERR(fe_console_read(buf, sizeof(buf), FE_CONSOLE_RAW | FE_CONSOLE_NOECHO), ERR_INVAL);
	ERR(fe_console_read(buf, sizeof(buf), FE_CONSOLE_LINE | 0x400), ERR_INVAL);
	ERR(fe_console_read(buf, 0, FE_CONSOLE_RAW | FE_CONSOLE_NONBLOCK), ERR_INVAL);
}
