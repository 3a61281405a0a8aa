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

	.section .note.GNU-stack, "", @progbits
