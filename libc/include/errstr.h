/*
 * errstr.h -- names and messages for the error enum in <ferrite/errors.h>.
 */
#ifndef LIBC_ERRSTR_H
#define LIBC_ERRSTR_H

/* err_name -- "ERR_INVAL" for ERR_INVAL or -ERR_INVAL; "ERR_?" if unknown */
const char *err_name(int err);

/* err_str -- a short human message for an error code (sign ignored) */
const char *err_str(int err);

#endif
