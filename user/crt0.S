/*
 * crt0.S -- where every Ferrite program starts.
 *
 * The kernel enters _start in user mode with
 *   rdi = argc
 *   rsi = argv, an array of char * on the stack, NULL-terminated
 *   rdx = the number of handles inherited from the parent; they are
 *         FE_INHERITED_HANDLE(0) .. FE_INHERITED_HANDLE(rdx - 1)
 * _start records the handle count in fe_inherited_count, aligns the stack
 * to 16 bytes as the SysV ABI wants at a call, calls main(argc, argv) and
 * passes main's result to fe_exit. There are no constructors to run.
 *
 * The note at the end marks the file as a Ferrite program (FE_NOTE_* in
 * <ferrite/syscall.h>); without it the kernel would start the program as
 * a Linux one. user.ld keeps it in a PT_NOTE.
 */
	.text
	.globl _start
	.type _start, @function
_start:
	xorl %ebp, %ebp                 /* the outermost frame, for debuggers */
	andq $-16, %rsp
	movq %rdx, fe_inherited_count(%rip)
	call main                       /* rdi, rsi are still argc, argv */
	movslq %eax, %rdi
	call fe_exit
	ud2                             /* fe_exit does not return */
	.size _start, . - _start

	.section .note.ferrite, "a", @note
	.balign 4
	.long 8                         /* namesz: "Ferrite" and its NUL */
	.long 4                         /* descsz */
	.long 1                         /* FE_NOTE_PROGRAM */
	.asciz "Ferrite"                /* FE_NOTE_NAME */
	.long 1                         /* FE_NOTE_ABI */

	.section .note.GNU-stack, "", @progbits
