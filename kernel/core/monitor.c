/*
 * console.c -- a minimal kernel console on the serial line.
 *
 * Until processes and the object shell exist, this is what a person at the
 * serial console talks to: it echoes what is typed, edits the line with
 * Backspace, and knows three commands (help, uptime, poweroff). Between
 * keystrokes the CPU halts until the next interrupt.
 */
#include <stdbool.h>
#include <string.h>

#include "acpi/acpi.h"
#include "arch/arch.h"
#include "core/monitor.h"
#include "core/printk.h"
#include "core/time.h"
#include "dev/uart.h"

#define LINE_MAX 128

/* read_byte -- wait for the next byte from the serial line */
static char read_byte(void)
{
	char c;

	while (!uart_read_byte(&c)) {
		arch_wait_for_interrupt();
		arch_interrupts_disable();
	}
	return c;
}

/* read_line -- one line, echoed, with Backspace; NUL-terminated */
static void read_line(char *line, size_t size)
{
	size_t len = 0;

	for (;;) {
		char c = read_byte();

		if (c == '\r' || c == '\n') {
			uart_write("\n", 1);
			line[len] = '\0';
			return;
		}
		if ((c == 0x7f || c == '\b') && len > 0) {
			len--;
			uart_write("\b \b", 3);
		} else if (c >= ' ' && c < 0x7f && len + 1 < size) {
			line[len++] = c;
			uart_write(&c, 1);
		}
	}
}

/* run_command -- do what one line asks */
static void run_command(const char *line)
{
	if (!*line)
		return;
	if (strcmp(line, "help") == 0) {
		pr_info("commands: help, uptime, poweroff\n");
	} else if (strcmp(line, "uptime") == 0) {
		uint64_t ms = time_ns() / 1000000;

		pr_info("up %llu.%03llu s, %llu ticks\n",
			(unsigned long long)(ms / 1000),
			(unsigned long long)(ms % 1000),
			(unsigned long long)time_ticks());
	} else if (strcmp(line, "poweroff") == 0) {
		pr_info("ferrite: powering off\n");
		acpi_poweroff();
		pr_err("acpi: power-off did not happen\n");
	} else {
		pr_info("%s: unknown command (try 'help')\n", line);
	}
}

/* monitor_run -- read commands from the serial line forever */
void monitor_run(void)
{
	char line[LINE_MAX];

	pr_info("ferrite: kernel console ready ('help' lists the commands)\n");
	for (;;) {
		uart_write("ferrite> ", 9);
		read_line(line, sizeof(line));
		run_command(line);
	}
}
