/*
 * uart.c -- the 16550 UARTs: COM1, the console, and COM2, the host link.
 *
 * Both ports receive by interrupt into a ring of their own. The console
 * transmits by polling the line-status register, once per 16 bytes: when
 * it says the transmit FIFO is empty, 16 bytes fit without asking again
 * (uart_init turns the FIFOs on). The link transmits by interrupt from a
 * ring whose bytes are *held* until released (uart_link_release_to): the host
 * link's output commit (hostlink/hostlink.c) lets bytes out only once the epoch
 * that wrote them committed, and a host that stops reading stalls only the
 * link, never a CPU.
 *
 * A receive ring never drops a byte. When it is full, the handler leaves
 * what is still waiting in the UART, whose sender then waits (QEMU's
 * serial backend offers bytes only as the receive FIFO has room; a real
 * line overruns the 16-byte FIFO, as it would with any driver), and the
 * reader takes those bytes itself once it has emptied the ring. Dropping
 * input is the console's policy (console/console.c), never the driver's
 * accident: a host that writes a 4 KiB line in one go makes one interrupt
 * handler loop for all of it, and a ring that dropped what did not fit
 * lost the line's middle.
 *
 * The console's ring has one producer, the interrupt handler (on CPU 0,
 * where the IOAPIC sends ISA interrupts), and one consumer, kernel code
 * under the kernel lock; indices only grow, each written by one side and
 * read by the other with acquire/release ordering. The link's port and
 * rings are all behind one spinlock (below).
 */
#include <stdbool.h>
#include <stdint.h>

#include "arch/arch.h"
#include "dev/uart.h"

#define COM1 0x3f8
#define COM2 0x2f8
#define UART_DATA 0        /* receive / transmit holding register */
#define UART_IER 1         /* interrupt enable */
#define UART_FCR 2         /* FIFO control (write) */
#define UART_IIR 2         /* interrupt identification (read) */
#define UART_LCR 3         /* line control */
#define UART_MCR 4         /* modem control */
#define UART_LSR 5         /* line status */
#define UART_SCR 7         /* scratch: tells whether a UART is there */
#define UART_DLL 0         /* divisor latch, low (DLAB = 1) */
#define UART_DLM 1         /* divisor latch, high (DLAB = 1) */

#define IIR_NONE_PENDING 0x01
#define SERVICE_ROUNDS 64  /* a bound on one service: a full ring keeps "data ready" up */
#define LSR_DATA_READY 0x01
#define LSR_THR_EMPTY 0x20
#define IER_RECEIVED_DATA 0x01
#define IER_THR_EMPTY 0x02
#define MCR_DTR_RTS_OUT2 0x0b /* OUT2 gates the IRQ line on PC hardware */
#define COM1_IRQ 4
#define COM2_IRQ 3

#define RX_RING_SIZE 1024 /* a power of two */
#define TX_RING_SIZE (16u << 10) /* the link's held and unsent output; a power of two */
#define TX_FIFO_SIZE 16   /* the 16550A's transmit FIFO */

struct rx_ring {
	char bytes[RX_RING_SIZE];
	uint32_t head;           /* written by the handler */
	uint32_t tail;           /* written by the reader */
	bool held;               /* the ring was full with bytes still in the UART */
};

static struct rx_ring console_rx, link_rx;
static unsigned tx_room;        /* bytes the console's transmit FIFO surely takes now */

/* The link's output: [tx_tail, tx_released) may go out, [tx_released,
 * tx_head) is held. Indices only grow. */
static char tx_ring[TX_RING_SIZE];
static uint32_t tx_head, tx_released, tx_tail;
static bool link_present;
static uint8_t link_ier;        /* what COM2's interrupt-enable register holds */

/* setup -- 115200 baud, 8N1, FIFOs on, interrupts off */
static void setup(uint16_t port)
{
	arch_outb(port + UART_IER, 0);
	arch_outb(port + UART_LCR, 0x80); /* DLAB: set the divisor */
	arch_outb(port + UART_DLL, 1);    /* 115200 / 1 */
	arch_outb(port + UART_DLM, 0);
	arch_outb(port + UART_LCR, 0x03); /* 8 bits, no parity, 1 stop */
	arch_outb(port + UART_FCR, 0xc7); /* enable and clear FIFOs, 14-byte trigger */
	arch_outb(port + UART_MCR, MCR_DTR_RTS_OUT2);
}

/* uart_init -- the console's UART: 115200 baud, 8N1, FIFOs on, interrupts off */
void uart_init(void)
{
	setup(COM1);
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

/* receive -- move the bytes waiting in the UART at `port` into ring r while
 * it has room; the rest stays in the UART (r->held) for the reader. Run by
 * the interrupt and by the reader with interrupts off: never two at once. */
static void receive(uint16_t port, struct rx_ring *r)
{
	uint32_t head = r->head;

	while (arch_inb(port + UART_LSR) & LSR_DATA_READY) {
		if (head - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) == RX_RING_SIZE) {
			r->held = true;
			break;
		}
		r->bytes[head % RX_RING_SIZE] = (char)arch_inb(port + UART_DATA);
		head++;
	}
	__atomic_store_n(&r->head, head, __ATOMIC_RELEASE);
}

/* take -- up to cap received bytes of ring r into buf (interrupts off) */
static size_t take(uint16_t port, struct rx_ring *r, char *buf, size_t cap)
{
	size_t n = 0;

	if (r->tail == __atomic_load_n(&r->head, __ATOMIC_ACQUIRE) && r->held) {
		r->held = false; /* the handler stopped at a full ring: go on */
		receive(port, r);
	}
	while (n < cap && r->tail != __atomic_load_n(&r->head, __ATOMIC_ACQUIRE)) {
		buf[n++] = r->bytes[r->tail % RX_RING_SIZE];
		__atomic_store_n(&r->tail, r->tail + 1, __ATOMIC_RELEASE);
	}
	return n;
}

/* console_interrupt -- IRQ 4 */
static void console_interrupt(void)
{
	receive(COM1, &console_rx);
}

/* uart_enable_receive_interrupt -- route IRQ 4 and buffer what arrives */
void uart_enable_receive_interrupt(void)
{
	arch_irq_route(COM1_IRQ, console_interrupt);
	arch_outb(COM1 + UART_IER, IER_RECEIVED_DATA);
	receive(COM1, &console_rx); /* anything that arrived before */
}

/* uart_read_byte -- take one received byte; false when none is waiting.
 * Called with interrupts off. */
bool uart_read_byte(char *out)
{
	return take(COM1, &console_rx, out, 1) == 1;
}

/* --- the host link (COM2) ------------------------------------------------ */

/* Every access to COM2 and to the link's rings holds link_lock with
 * interrupts off: the handler (CPU 0) and kernel code on any CPU. The
 * interrupt is edge-triggered: the handler services the port until it
 * says nothing is pending, so the line is low when it ends; and where it
 * cannot be (a full receive ring leaves "data ready" up), the kernel
 * services the port itself at every timer tick while the link is busy
 * (uart_link_poll), so a missed edge delays the link by a tick at most,
 * never stalls it. */
static int link_lock;

static void link_lock_take(void)
{
	while (__atomic_exchange_n(&link_lock, 1, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
}

static void link_lock_drop(void)
{
	__atomic_store_n(&link_lock, 0, __ATOMIC_RELEASE);
}

/* set_ier -- COM2's interrupt enables (a port write only when they change) */
static void set_ier(uint8_t ier)
{
	if (ier != link_ier) {
		arch_outb(COM2 + UART_IER, ier);
		link_ier = ier;
	}
}

/* transmit -- fill the transmit FIFO from the released bytes; ask for the
 * "transmit FIFO empty" interrupt only while released bytes wait */
static void transmit(void)
{
	bool more;

	while (tx_tail != tx_released && (arch_inb(COM2 + UART_LSR) & LSR_THR_EMPTY))
		for (unsigned i = 0; i < TX_FIFO_SIZE && tx_tail != tx_released; i++, tx_tail++)
			arch_outb(COM2 + UART_DATA, (uint8_t)tx_ring[tx_tail % TX_RING_SIZE]);
	more = tx_tail != tx_released;
	set_ier(IER_RECEIVED_DATA | (more ? IER_THR_EMPTY : 0));
}

/* service -- bytes in, bytes out, until the UART has nothing pending, so
 * that its interrupt line is low when the handler ends and the next
 * condition makes a new edge (link_lock held) */
static void service(void)
{
	for (unsigned i = 0; i < SERVICE_ROUNDS; i++) {
		receive(COM2, &link_rx);
		transmit();
		if (arch_inb(COM2 + UART_IIR) & IIR_NONE_PENDING)
			break;
	}
}

/* link_interrupt -- IRQ 3 */
static void link_interrupt(void)
{
	link_lock_take();
	service();
	link_lock_drop();
}

/* uart_link_init -- find COM2 (its scratch register keeps what is written
 * to it), set it up and route IRQ 3; false if there is none */
bool uart_link_init(void)
{
	arch_outb(COM2 + UART_SCR, 0x5a);
	if (arch_inb(COM2 + UART_SCR) != 0x5a)
		return false;
	arch_outb(COM2 + UART_SCR, 0xa5);
	if (arch_inb(COM2 + UART_SCR) != 0xa5)
		return false;
	setup(COM2);
	link_ier = 0;
	link_present = true;
	arch_irq_route(COM2_IRQ, link_interrupt);
	link_interrupt(); /* interrupts on, and anything that arrived before */
	return true;
}

/* uart_link_poll -- service the port while the link is busy (released
 * bytes unsent, or received bytes left in the UART by a full ring): the
 * only times an edge can be missed once the handler ends with nothing
 * pending. An idle link costs no port access: under a hypervisor each one
 * is an exit. */
void uart_link_poll(void)
{
	if (!link_present ||
	    (!__atomic_load_n(&link_rx.held, __ATOMIC_RELAXED) &&
	     __atomic_load_n(&tx_tail, __ATOMIC_RELAXED) ==
	     __atomic_load_n(&tx_released, __ATOMIC_RELAXED)))
		return;
	link_lock_take();
	service();
	link_lock_drop();
}

/* uart_link_read -- up to cap received bytes into buf */
size_t uart_link_read(char *buf, size_t cap)
{
	size_t n;

	if (!link_present)
		return 0;
	link_lock_take();
	n = take(COM2, &link_rx, buf, cap);
	link_lock_drop();
	return n;
}

/* uart_link_readable -- whether received bytes wait (a glance at the
 * indices, without the lock: the reader takes it) */
bool uart_link_readable(void)
{
	return link_present &&
	       (__atomic_load_n(&link_rx.held, __ATOMIC_RELAXED) ||
		link_rx.tail != __atomic_load_n(&link_rx.head, __ATOMIC_ACQUIRE));
}

/* uart_link_room -- bytes uart_link_put would take now (a glance: only
 * the handler makes it grow meanwhile) */
size_t uart_link_room(void)
{
	return TX_RING_SIZE - (tx_head - __atomic_load_n(&tx_tail, __ATOMIC_ACQUIRE));
}

/* uart_link_put -- hold up to len bytes for sending; how many were taken */
size_t uart_link_put(const char *s, size_t len)
{
	size_t n, room;

	link_lock_take();
	room = TX_RING_SIZE - (tx_head - tx_tail);
	n = len < room ? len : room;
	for (size_t i = 0; i < n; i++)
		tx_ring[(tx_head + i) % TX_RING_SIZE] = s[i];
	tx_head += (uint32_t)n;
	link_lock_drop();
	return n;
}

/* uart_link_held -- whether bytes are held, waiting for a release */
bool uart_link_held(void)
{
	return tx_released != tx_head; /* both written under the kernel lock only */
}

/* uart_link_mark -- how many bytes were put so far */
uint32_t uart_link_mark(void)
{
	return __atomic_load_n(&tx_head, __ATOMIC_ACQUIRE);
}

/* uart_link_release_to -- the bytes put before `mark` may go out now */
void uart_link_release_to(uint32_t mark)
{
	if (!link_present)
		return;
	link_lock_take();
	/* Invariant: tx_released <= mark <= tx_head, as indices that wrap. */
	if ((int32_t)(mark - tx_released) > 0 && (int32_t)(tx_head - mark) >= 0) {
		__atomic_store_n(&tx_released, mark, __ATOMIC_RELEASE);
		transmit();
	}
	link_lock_drop();
}
