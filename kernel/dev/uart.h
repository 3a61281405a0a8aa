/*
 * uart.h -- the 16550 UARTs: COM1, the console, and COM2, the host link.
 *
 * The console:
 * Output is polled (it must work before interrupts, and in a panic).
 * Input arrives by interrupt (IRQ 4) into a small ring, once
 * uart_enable_receive_interrupt() has run; a full ring leaves bytes in
 * the UART rather than dropping them.
 */
#ifndef DEV_UART_H
#define DEV_UART_H

#include <stdbool.h>
#include <stddef.h>

/* uart_init -- 115200 baud, 8N1, FIFOs on, interrupts off */
void uart_init(void);

/* uart_write -- send bytes, turning "\n" into "\r\n" */
void uart_write(const char *s, size_t len);

/* uart_enable_receive_interrupt -- route IRQ 4 and buffer what arrives */
void uart_enable_receive_interrupt(void);

/* uart_read_byte -- take one received byte; false when none is waiting.
 * Called with interrupts off. */
bool uart_read_byte(char *out);

/* The host link (COM2; hostlink/hostlink.c). Output is held until released
 * and then sent by interrupt; input arrives by interrupt (IRQ 3). All of
 * these run with interrupts off; readable and room are hints, read
 * without the lock. */

/* uart_link_init -- find COM2, set it up, route IRQ 3; false if absent */
bool uart_link_init(void);

/* uart_link_poll -- service the port: what arrived into the ring, what
 * was released out (so an interrupt edge lost never stalls the link); at
 * every timer tick and when idle, also in interrupt context */
void uart_link_poll(void);

/* uart_link_read -- up to cap received bytes into buf -> how many */
size_t uart_link_read(char *buf, size_t cap);

/* uart_link_readable -- whether received bytes wait */
bool uart_link_readable(void);

/* uart_link_room -- bytes uart_link_put takes now */
size_t uart_link_room(void);

/* uart_link_put -- hold up to len bytes for sending -> how many were taken */
size_t uart_link_put(const char *s, size_t len);

/* uart_link_held -- whether bytes are held, waiting for a release */
bool uart_link_held(void);

/* uart_link_mark -- how many bytes were put so far (an index that only
 * grows, modulo 2^32) */
uint32_t uart_link_mark(void);

/* uart_link_release_to -- the bytes put before `mark` (a uart_link_mark)
 * may go out now */
void uart_link_release_to(uint32_t mark);

#endif
