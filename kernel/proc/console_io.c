/*
 * console_io.c -- the console for programs: typed input, line editing, output.
 *
 * Typed bytes arrive in the UART's receive ring (an interrupt fills it);
 * console_input_poll, called at every return to user mode and while idle,
 * moves them into `typed` (volatile, like the UART ring: the persistent
 * input queue arrives with output commit in the checkpoint issue) and
 * acts on Ctrl-C at once: it kills the foreground process (SYS_CONSOLE_FG)
 * if there is one, else it is passed on like any byte.
 *
 * FE_CONSOLE_LINE reads edit the line in the kernel root (persistent, so a
 * half-typed line outlives a power cut): printable bytes are echoed and
 * appended, Backspace/DEL erases, Ctrl-U erases the line, Ctrl-C abandons
 * it, Enter completes it. FE_CONSOLE_RAW returns bytes as typed, unechoed.
 */
#include <string.h>

#include "dev/uart.h"
#include "ferrite/errors.h"
#include "proc/proc.h"

#define TYPED_MAX 1024
#define CTRL_C 0x03
#define CTRL_U 0x15
#define WRITE_CHUNK 256

static char typed[TYPED_MAX];
static unsigned typed_head, typed_count;

/* take -- the oldest typed byte, if any */
static bool take(char *c)
{
	if (!typed_count)
		return false;
	*c = typed[typed_head];
	typed_head = (typed_head + 1) % TYPED_MAX;
	typed_count--;
	return true;
}

/* interrupt_foreground -- Ctrl-C: kill the foreground process; whether there was one */
static bool interrupt_foreground(void)
{
	struct pctx *p = kroot->console_fg_pid ? proc_by_pid(kroot->console_fg_pid)
					       : NULL;

	if (!p)
		return false;
	uart_write("^C\n", 3);
	proc_end(p, FE_EXIT_INTERRUPT, 0, "interrupted (Ctrl-C)");
	return true;
}

/* console_input_poll -- take typed bytes from the UART; wake readers */
void console_input_poll(void)
{
	bool arrived = false;
	char c;

	while (uart_read_byte(&c)) {
		if (c == CTRL_C && interrupt_foreground())
			continue;
		if (typed_count == TYPED_MAX)
			continue; /* nobody reads: drop, like a full UART FIFO */
		typed[(typed_head + typed_count) % TYPED_MAX] = c;
		typed_count++;
		arrived = true;
	}
	if (arrived)
		sched_wake(KWAIT_CONSOLE, 0);
}

/* edit_line -- feed typed bytes to the line editor; whether a line is complete */
static bool edit_line(void)
{
	char c;

	while (!kroot->line_ready && take(&c)) {
		if (c == '\r' || c == '\n') {
			uart_write("\n", 1);
			KLOG(&kroot->line_ready);
			kroot->line_ready = 1;
		} else if (c == CTRL_C) {
			uart_write("^C\n", 3);
			KLOG(&kroot->line_len);
			kroot->line_len = 0;
			KLOG(&kroot->line_ready);
			kroot->line_ready = 1;
		} else if ((c == 0x7f || c == '\b') && kroot->line_len) {
			KLOG(&kroot->line_len);
			kroot->line_len--;
			uart_write("\b \b", 3);
		} else if (c == CTRL_U) {
			while (kroot->line_len) {
				KLOG(&kroot->line_len);
				kroot->line_len--;
				uart_write("\b \b", 3);
			}
		} else if ((unsigned char)c >= ' ' && c != 0x7f &&
			   kroot->line_len < KCONSOLE_LINE_MAX) {
			KLOG(&kroot->line[kroot->line_len]);
			kroot->line[kroot->line_len] = c;
			KLOG(&kroot->line_len);
			kroot->line_len++;
			uart_write(&c, 1);
		}
	}
	return kroot->line_ready;
}

/* read_line -- FE_CONSOLE_LINE: a whole line with '\n', or block */
static int64_t read_line(struct trap_frame *tf, struct pctx *p, uint64_t buf,
			 uint64_t cap, bool nonblock)
{
	char line[KCONSOLE_LINE_MAX + 1];
	uint64_t len;
	int err;

	if (!edit_line()) {
		if (nonblock)
			return -ERR_AGAIN;
		sched_block(tf, KWAIT_CONSOLE, 0, 0);
		return SYSCALL_BLOCKED;
	}
	len = kroot->line_len;
	memcpy(line, kroot->line, len);
	line[len++] = '\n';
	if (len > cap)
		len = cap; /* the rest of the line is dropped */
	err = uvm_copy_out(p, buf, line, len);
	if (err)
		return err; /* the line stays for the next read */
	KLOG(&kroot->line_len);
	kroot->line_len = 0;
	KLOG(&kroot->line_ready);
	kroot->line_ready = 0;
	return (int64_t)len;
}

/* read_raw -- FE_CONSOLE_RAW: the bytes typed so far (at least one), or block */
static int64_t read_raw(struct trap_frame *tf, struct pctx *p, uint64_t buf,
			uint64_t cap, bool nonblock)
{
	char bytes[TYPED_MAX];
	unsigned n = 0;
	int err;

	if (!typed_count) {
		if (nonblock)
			return -ERR_AGAIN;
		sched_block(tf, KWAIT_CONSOLE, 0, 0);
		return SYSCALL_BLOCKED;
	}
	for (unsigned i = 0; i < typed_count && n < cap; i++)
		bytes[n++] = typed[(typed_head + i) % TYPED_MAX];
	err = uvm_copy_out(p, buf, bytes, n);
	if (err)
		return err; /* nothing consumed */
	typed_head = (typed_head + n) % TYPED_MAX;
	typed_count -= n;
	return n;
}

/* console_read -- SYS_CONSOLE_READ */
int64_t console_read(struct trap_frame *tf, struct pctx *p, uint64_t buf,
		     uint64_t cap, uint64_t mode)
{
	bool nonblock = mode & FE_CONSOLE_NONBLOCK;

	if (!cap || (mode & ~(uint64_t)(FE_CONSOLE_NONBLOCK | 0xff)))
		return -ERR_INVAL;
	if (uvm_check(p, buf, cap, UVM_WRITE))
		return -ERR_FAULT;
	switch (mode & 0xff) {
	case FE_CONSOLE_LINE:
		return read_line(tf, p, buf, cap, nonblock);
	case FE_CONSOLE_RAW:
		return read_raw(tf, p, buf, cap, nonblock);
	default:
		return -ERR_INVAL;
	}
}

/* console_write -- SYS_CONSOLE_WRITE: up to FE_IO_MAX bytes */
int64_t console_write(struct pctx *p, uint64_t buf, uint64_t len)
{
	char chunk[WRITE_CHUNK];
	uint64_t done = 0;

	if (len > FE_IO_MAX)
		len = FE_IO_MAX;
	while (done < len) {
		uint64_t n = len - done < WRITE_CHUNK ? len - done : WRITE_CHUNK;
		int err = uvm_copy_in(p, chunk, buf + done, n);

		if (err)
			return done ? (int64_t)done : err;
		uart_write(chunk, n);
		done += n;
	}
	return (int64_t)done;
}
