/*
 * uart.c -- the 16550 UART on COM1.
 *
 * Transmit polls the line-status register, once per 16 bytes: when it says
 * the transmit FIFO is empty, 16 bytes fit without asking again (uart_init
 * turns the FIFOs on). Receive is interrupt driven into a ring that the
 * console drains at every return to user mode and while idle.
 *
 * The ring never drops a byte. When it is full, the handler leaves what
 * is still waiting in the UART, whose sender then waits (QEMU's serial
 * backend offers bytes only as the receive FIFO has room; a real line
 * overruns the 16-byte FIFO, as it would with any driver), and the reader
 * takes those bytes itself once it has emptied the ring. Dropping input
 * is the console's policy (console_io.c), never the driver's accident: a
 * host that writes a 4 KiB line in one go makes one interrupt handler
 * loop for all of it, and a ring that dropped what did not fit lost the
 * line's middle.
 */
#include <stdbool.h>
#include <stdint.h>

#include "arch/arch.h"
#include "dev/uart.h"

#define COM1 0x3f8
#define UART_DATA 0        /* receive / transmit holding register */
#define UART_IER 1         /* interrupt enable */
#define UART_FCR 2         /* FIFO control */
#define UART_LCR 3         /* line control */
#define UART_MCR 4         /* modem control */
#define UART_LSR 5         /* line status */
#define UART_DLL 0         /* divisor latch, low (DLAB = 1) */
#define UART_DLM 1         /* divisor latch, high (DLAB = 1) */

#define LSR_DATA_READY 0x01
#define LSR_THR_EMPTY 0x20
#define IER_RECEIVED_DATA 0x01
#define MCR_DTR_RTS_OUT2 0x0b /* OUT2 gates the IRQ line on PC hardware */
#define COM1_IRQ 4

#define RX_RING_SIZE 1024 /* a power of two */
#define TX_FIFO_SIZE 16   /* the 16550A's transmit FIFO */

static volatile char rx_ring[RX_RING_SIZE];
static volatile uint32_t rx_head; /* written by uart_receive */
static volatile uint32_t rx_tail; /* written by the reader */
static volatile bool rx_held;     /* the ring was full with bytes still in the UART */
static unsigned tx_room;          /* bytes the transmit FIFO surely takes now */

/* uart_init -- 115200 baud, 8N1, FIFOs on, interrupts off */
void uart_init(void)
{
	arch_outb(COM1 + UART_IER, 0);
	arch_outb(COM1 + UART_LCR, 0x80); /* DLAB: set the divisor */
	arch_outb(COM1 + UART_DLL, 1);    /* 115200 / 1 */
	arch_outb(COM1 + UART_DLM, 0);
	arch_outb(COM1 + UART_LCR, 0x03); /* 8 bits, no parity, 1 stop */
	arch_outb(COM1 + UART_FCR, 0xc7); /* enable and clear FIFOs, 14-byte trigger */
	arch_outb(COM1 + UART_MCR, MCR_DTR_RTS_OUT2);
}

/* uart_put -- send one byte; the line-status register is polled only when
 * the bytes written since it last said "transmit FIFO empty" may fill it */
static void uart_put(char c)
{
	if (!tx_room) {
		while (!(arch_inb(COM1 + UART_LSR) & LSR_THR_EMPTY))
			;
		tx_room = TX_FIFO_SIZE;
	}
	arch_outb(COM1 + UART_DATA, (uint8_t)c);
	arch_trace_output((uint8_t)c);
	tx_room--;
}

/* uart_write -- send bytes, turning "\n" into "\r\n" */
void uart_write(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n')
			uart_put('\r');
		uart_put(s[i]);
	}
}

/* uart_receive -- IRQ 4: move waiting bytes into the ring while it has
 * room; the rest stays in the UART (rx_held) for the reader. Run by the
 * interrupt and by the reader with interrupts off: never two at once. */
static void uart_receive(void)
{
	while (arch_inb(COM1 + UART_LSR) & LSR_DATA_READY) {
		if (rx_head - rx_tail == RX_RING_SIZE) {
			rx_held = true;
			return;
		}
		rx_ring[rx_head % RX_RING_SIZE] = (char)arch_inb(COM1 + UART_DATA);
		rx_head++;
	}
}

/* uart_enable_receive_interrupt -- route IRQ 4 and buffer what arrives */
void uart_enable_receive_interrupt(void)
{
	arch_irq_route(COM1_IRQ, uart_receive);
	arch_outb(COM1 + UART_IER, IER_RECEIVED_DATA);
	uart_receive(); /* anything that arrived before */
}

/* uart_read_byte -- take one received byte; false when none is waiting.
 * Called with interrupts off. */
bool uart_read_byte(char *out)
{
	if (rx_tail == rx_head && rx_held) {
		rx_held = false; /* the handler stopped at a full ring: go on */
		uart_receive();
	}
	if (rx_tail == rx_head)
		return false;
	*out = rx_ring[rx_tail % RX_RING_SIZE];
	rx_tail++;
	return true;
}
