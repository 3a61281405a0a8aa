/*
 * trace_mark.c -- the marks of the kernel built for NVM tracing
 * (FERRITE_NVM_TRACE; include/ferrite/nvmtrace.h says what the tracer
 * makes of them, docs/persistence-model.md why). Each mark is one load of
 * a byte of `marks`, by an instruction the plugin recognises; the entry's
 * place in the table is the message. Other builds compile none of this.
 */
#ifdef FERRITE_NVM_TRACE
#include <stdint.h>

#include "arch/arch.h"
#include "ferrite/nvmtrace.h"

static const volatile uint8_t marks[NVT_MARK_ENTRIES]
	__attribute__((aligned(NVT_MARK_ALIGN)));

/* mark -- the tracer's instruction: a DS-prefixed MOVZX from the entry */
static inline void mark(unsigned entry)
{
	__asm__ volatile("ds movzbl %0, %%eax" : : "m"(marks[entry]) : "rax");
}

void arch_trace_output(uint8_t byte)
{
	mark(NVT_MARK_OUTPUT + byte);
}

void arch_trace_event(unsigned event)
{
	mark(NVT_MARK_EVENT + event);
}
#endif
