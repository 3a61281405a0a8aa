/*
 * entry.h -- the kernel's way in from user mode and out again (entry.c,
 * fault.c). kernel_enter_from_user, kernel_exit_to_user and user_fault
 * are declared in arch/arch.h, which calls them.
 */
#ifndef ENTRY_ENTRY_H
#define ENTRY_ENTRY_H

/* entry_tick -- every CPU's timer tick (time_init's hook): the
 * scheduler's quantum and sleepers, the host link's UART */
void entry_tick(void);

#endif
