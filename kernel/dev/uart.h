/*
 * uart.h -- the 16550 UART on COM1: the console.
 *
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

#endif
