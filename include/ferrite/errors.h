/*
 * errors.h -- the one error enum of Ferrite.
 *
 * Shared by the kernel, the objstore library, the user library and the host
 * tools. Every action returns 0 (or a non-negative result) on success and the
 * negation of one of these codes on failure: `return -ERR_INVAL;`.
 * The numbers are part of the system-call ABI: never renumber, only append.
 */
#ifndef FERRITE_ERRORS_H
#define FERRITE_ERRORS_H

enum fe_error {
	ERR_NONE = 0,
	ERR_PERM = 1,     /* operation not permitted (rights) */
	ERR_NOENT = 2,    /* no such object or name */
	ERR_NOMEM = 3,    /* out of memory (DRAM or heap) */
	ERR_FAULT = 4,    /* bad address */
	ERR_BUSY = 5,     /* resource in use */
	ERR_EXIST = 6,    /* already exists */
	ERR_INVAL = 7,    /* invalid argument */
	ERR_NOSPC = 8,    /* no space left (heap, log, queue) */
	ERR_RANGE = 9,    /* value out of range */
	ERR_NOSYS = 10,   /* no such call or feature */
	ERR_BADF = 11,    /* bad handle */
	ERR_CORRUPT = 12, /* a checksum or structural check failed */
	ERR_VERSION = 13, /* incompatible layout or format version */
	ERR_NOTSUP = 14,  /* not supported by this platform */
	ERR_TOOBIG = 15,  /* argument too large */
	ERR_AGAIN = 16,   /* try again later */
	ERR_IO = 17,      /* device or host I/O error */
	ERR_NOEXEC = 18,  /* not a valid program (ELF checks) */
	ERR_PEER = 19,    /* the other end of a channel is closed */
	ERR_RESET = 20,   /* the other side started over: a host link after power-on */
	ERR__COUNT
};

#endif
