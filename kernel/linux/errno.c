/*
 * errno.c -- Ferrite's errors as Linux's errno values, and the names and
 * texts of those values (for the trace: trace.c).
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


/* The errno values the personality returns (abi.h), with the names and
 * texts strace shows for them: glibc's strerror. */
static const struct {
	const char *name, *text;
} errnos[] = {
	[LX_EPERM] = { "EPERM", "Operation not permitted" },
	[LX_ENOENT] = { "ENOENT", "No such file or directory" },
	[LX_ESRCH] = { "ESRCH", "No such process" },
	[LX_EINTR] = { "EINTR", "Interrupted system call" },
	[LX_EIO] = { "EIO", "Input/output error" },
	[LX_E2BIG] = { "E2BIG", "Argument list too long" },
	[LX_ECHILD] = { "ECHILD", "No child processes" },
	[LX_ELIBBAD] = { "ELIBBAD", "Accessing a corrupted shared library" },
	[LX_ENOEXEC] = { "ENOEXEC", "Exec format error" },
	[LX_EBADF] = { "EBADF", "Bad file descriptor" },
	[LX_EAGAIN] = { "EAGAIN", "Resource temporarily unavailable" },
	[LX_ENOMEM] = { "ENOMEM", "Cannot allocate memory" },
	[LX_EACCES] = { "EACCES", "Permission denied" },
	[LX_EFAULT] = { "EFAULT", "Bad address" },
	[LX_EBUSY] = { "EBUSY", "Device or resource busy" },
	[LX_EEXIST] = { "EEXIST", "File exists" },
	[LX_EXDEV] = { "EXDEV", "Invalid cross-device link" },
	[LX_ENOTDIR] = { "ENOTDIR", "Not a directory" },
	[LX_EISDIR] = { "EISDIR", "Is a directory" },
	[LX_EINVAL] = { "EINVAL", "Invalid argument" },
	[LX_EMFILE] = { "EMFILE", "Too many open files" },
	[LX_ENOTTY] = { "ENOTTY", "Inappropriate ioctl for device" },
	[LX_ENOSPC] = { "ENOSPC", "No space left on device" },
	[LX_ESPIPE] = { "ESPIPE", "Illegal seek" },
	[LX_EPIPE] = { "EPIPE", "Broken pipe" },
	[LX_ERANGE] = { "ERANGE", "Numerical result out of range" },
	[LX_ENAMETOOLONG] = { "ENAMETOOLONG", "File name too long" },
	[LX_ENOLCK] = { "ENOLCK", "No locks available" },
	[LX_ENOSYS] = { "ENOSYS", "Function not implemented" },
	[LX_ENOTEMPTY] = { "ENOTEMPTY", "Directory not empty" },
	[LX_ELOOP] = { "ELOOP", "Too many levels of symbolic links" },
	[LX_EOPNOTSUPP] = { "EOPNOTSUPP", "Operation not supported" },
	[LX_ECONNRESET] = { "ECONNRESET", "Connection reset by peer" },
	[LX_ETIMEDOUT] = { "ETIMEDOUT", "Connection timed out" },
};

/* lx_errno_name -- Linux's name of errno e ("ENOENT") and its text in
 * *text; NULL for a value the personality never returns */
const char *lx_errno_name(int64_t e, const char **text)
{
	if (e <= 0 || e >= (int64_t)(sizeof(errnos) / sizeof(errnos[0])) || !errnos[e].name)
		return NULL;
	*text = errnos[e].text;
	return errnos[e].name;
}
