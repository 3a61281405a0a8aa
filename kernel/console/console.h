/*
 * console.h -- the console for programs: persistent input and output
 * queues, output commit, line editing (console.c).
 */
#ifndef CONSOLE_CONSOLE_H
#define CONSOLE_CONSOLE_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

struct pctx;
struct trap_frame;

/* console_init -- find (or at genesis make) the console's queues */
void console_init(void);

/* console_power_on -- the raw reads blocked when the power went return
 * -ERR_AGAIN, so their programs draw their screens again at once */
void console_power_on(void);

/* console_read -- SYS_CONSOLE_READ: a line (FE_CONSOLE_LINE) or the bytes
 * typed (FE_CONSOLE_RAW) into p's buf of cap bytes; blocks unless
 * FE_CONSOLE_NONBLOCK */
int64_t console_read(struct trap_frame *tf, struct pctx *p, uint64_t buf,
		     uint64_t cap, uint64_t mode);

/* console_write -- SYS_CONSOLE_WRITE: queue up to FE_IO_MAX bytes of p's
 * buf for output after the epoch commits; blocks while the queue is full */
int64_t console_write(struct trap_frame *tf, struct pctx *p, uint64_t buf,
		      uint64_t len);

/* console_emit -- queue kernel text for the console (sent after the
 * epoch commits); the bytes queued (fewer when the queue is full) */
size_t console_emit(const char *text, size_t len);

/* console_keep -- room on p's console for `len` bytes of the kernel's line
 * on p's call (linux/trace.c), kept from p's writes and the echo until
 * console_say: 0, or SYSCALL_BLOCKED with the call of tf blocked until
 * there is room (it is issued again then) */
int64_t console_keep(struct trap_frame *tf, struct pctx *p, size_t len);

/* console_say -- the kernel's line on p's call to p's console (its
 * queue, after what p wrote, or its sink), in the room console_keep kept,
 * which is given back; len 0: nothing said, p not looked at */
void console_say(struct pctx *p, const char *text, size_t len);

/* console_output_waiting -- whether output was queued that only a commit
 * lets out */
bool console_output_waiting(void);

/* console_release -- right after a commit durable when it completes (an
 * NVDIMM's), or at power-on: send the output queued so far */
void console_release(void);

/* console_keep_sent_in -- at power-on, before anything is sent: `word`,
 * outside the heap, says how far output was sent before the power went
 * (taken if the heap's queue holds that far), and follows the cursor from
 * now on (virtio-pmem: epoch/durable.c) */
void console_keep_sent_in(uint64_t *word);

/* console_commit_mark -- how far output is queued (what a commit covers) */
uint64_t console_commit_mark(void);

/* console_release_to -- send the output queued before `mark`, a
 * console_commit_mark taken at a commit that is now durable */
void console_release_to(uint64_t mark);

/* console_set_sink -- SYS_CONSOLE_SINK: p's console output goes to the
 * channel end of `handle` (which needs the write right), or to the
 * console again (-1) */
int64_t console_set_sink(struct pctx *p, int64_t handle);

/* console_has_sink -- whether p's console goes to a channel */
bool console_has_sink(struct pctx *p);

/* console_readable -- whether a read of p's console would not block:
 * typed bytes wait, or its console is a sink (whose input is at its end) */
bool console_readable(struct pctx *p);

/* console_writable -- whether a write to p's console would take a byte
 * now rather than block (its output queue, or its sink, has room) */
bool console_writable(struct pctx *p);

/* console_ready_bytes -- how many bytes p's next read of the console
 * would find: in line mode (`line`) the line once its Enter is typed
 * (the bytes typed counted before editing), 0 until then; in raw mode the
 * bytes typed; 0 for a console sent to a sink */
uint64_t console_ready_bytes(struct pctx *p, bool line);

/* console_window -- the terminal window's size, as a program last set it
 * (console_set_window), 24 x 80 if none did */
void console_window(uint16_t *rows, uint16_t *cols);

/* console_set_window -- the terminal window is rows x cols (kept in the
 * heap; 0 rows: as if never set) */
void console_set_window(uint16_t rows, uint16_t cols);

/* console_inherit_sink -- at spawn: a child of a parent with a sink gets
 * a handle of its own to the same channel end as its sink */
int console_inherit_sink(struct pctx *parent, struct pctx *child);

/* console_set_foreground -- SYS_CONSOLE_FG: Ctrl-C ends process `pid`
 * (0: none); while a safe power-on holds processes, only until SYS_RESUME */
void console_set_foreground(uint64_t pid);

/* How a foreground Linux program takes Ctrl-C or Ctrl-Z (`c`; linux/
 * says, through the hook it registers): as a signal (SIGINT, SIGTSTP) to
 * the console's foreground group, or as a byte it reads (its terminal
 * modes lack ISIG). */
enum console_intr { CONSOLE_INTR_SIGNAL, CONSOLE_INTR_BYTE };

/* The two bytes the hook is called for. */
#define CONSOLE_CTRL_C 0x03            /* interrupt: SIGINT */
#define CONSOLE_CTRL_Z 0x1a            /* suspend: SIGTSTP */
struct pctx;
typedef enum console_intr (*console_intr_hook)(struct pctx *p, char c);

/* console_on_interrupt -- at power-on: Ctrl-C or Ctrl-Z typed to a
 * foreground Linux program goes to `hook` instead of ending it */
void console_on_interrupt(console_intr_hook hook);

/* console_input_poll -- take typed bytes from the UART (Ctrl-C ends the
 * foreground process, or raises its SIGINT); wakes readers */
void console_input_poll(void);

#endif
