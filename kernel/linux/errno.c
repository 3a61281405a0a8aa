/*
 * errno.c -- Ferrite's errors as Linux's errno values.
 *
 * Every handler of the personality turns an error of the kernel's own
 * (-ERR_x) into Linux's here, where it arises, so that no value is ever
 * taken for the other kind (ERR_CORRUPT and ENOMEM are both 12). A damaged
 * heap structure stops the machine without committing, as it does for a
 * native call (heap_damaged).
 */
#include <stdint.h>

#include "core/heap.h"
#include "ferrite/errors.h"
#include "linux/lx.h"
#include "task/proc.h"
#include "task/sched.h"

/* lx_errno -- Ferrite's error as Linux's errno (negative), a result as it
 * is; a damaged heap structure stops the machine without committing */
int64_t lx_errno(int64_t err)
{
	static const uint8_t to_linux[ERR__COUNT] = {
		[ERR_PERM] = LX_EACCES,
		[ERR_NOENT] = LX_ENOENT,
		[ERR_NOMEM] = LX_ENOMEM,
		[ERR_FAULT] = LX_EFAULT,
		[ERR_BUSY] = LX_EBUSY,
		[ERR_EXIST] = LX_EEXIST,
		[ERR_INVAL] = LX_EINVAL,
		[ERR_NOSPC] = LX_ENOSPC,
		[ERR_RANGE] = LX_ERANGE,
		[ERR_NOSYS] = LX_ENOSYS,
		[ERR_BADF] = LX_EBADF,
		[ERR_CORRUPT] = LX_EIO,
		[ERR_VERSION] = LX_EINVAL,
		[ERR_NOTSUP] = LX_EOPNOTSUPP,
		[ERR_TOOBIG] = LX_E2BIG,
		[ERR_AGAIN] = LX_EAGAIN,
		[ERR_IO] = LX_EIO,
		[ERR_NOEXEC] = LX_ENOEXEC,
		[ERR_PEER] = LX_EPIPE,
		[ERR_RESET] = LX_ECONNRESET,
	};

	if (err >= 0 || err == SYSCALL_BLOCKED || err == SYSCALL_GONE)
		return err;
	if (err == -ERR_CORRUPT)
		heap_damaged("a Linux call of pid %llu (%s) met a damaged heap structure",
			     (unsigned long long)sched_current()->proc->pid,
			     sched_current()->proc->name);
	if (-err >= ERR__COUNT || !to_linux[-err])
		return -LX_EIO;
	return -(int64_t)to_linux[-err];
}

