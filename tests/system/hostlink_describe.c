/*
 * hostlink_describe.c -- the host link's protocol as the C compiler makes
 * it, for tests/system/test_hostlink_header.py.
 *
 * Prints one JSON document: the value of every constant of
 * <ferrite/hostlink.h>, of the error codes (<ferrite/errors.h>) and of the
 * object types and exit reasons (<ferrite/syscall.h>), and every
 * structure of hostlink.h with its size and each field's offset and size,
 * taken with sizeof and offsetof. The test compiles it, runs it and sets
 * it against what tools/hostlink.py read from the same headers: the names
 * must be the same (a constant the header gains must be listed here) and
 * so must every number.
 */
#include <stddef.h>
#include <stdio.h>

#include <ferrite/errors.h>
#include <ferrite/hostlink.h>
#include <ferrite/syscall.h>

static const char *sep;    /* what goes before the next member of an object */

/* constant -- "NAME": value */
static void constant(const char *name, long long value)
{
	printf("%s\"%s\": %lld", sep, name, value);
	sep = ", ";
}

/* begin -- open a structure's description: its size, then its fields */
static void begin(const char *name, size_t size)
{
	printf("%s\"%s\": {\"size\": %zu, \"fields\": [", sep, name, size);
	sep = "";
}

/* field -- one field: [name, offset, size] */
static void field(const char *name, size_t offset, size_t size)
{
	printf("%s[\"%s\", %zu, %zu]", sep, name, offset, size);
	sep = ", ";
}

/* end -- close a structure's description */
static void end(void)
{
	printf("]}");
	sep = ",\n  ";
}

#define CONSTANT(c) constant(#c, (long long)(c))
#define FIELD(s, f) field(#f, offsetof(struct s, f), sizeof(((struct s *)0)->f))

/* constants -- every constant of hostlink.h, and the ABI's it carries */
static void constants(void)
{
	CONSTANT(HOSTLINK_VERSION);
	CONSTANT(HOSTLINK_DATA_MAX);
	CONSTANT(HOSTLINK_RUN_LINE_MAX);
	CONSTANT(HOSTLINK_CRC_SIZE);
	CONSTANT(HOSTLINK_PAYLOAD_MAX);
	CONSTANT(HOSTLINK_FRAME_MAX);
	CONSTANT(HOSTLINK_ENCODED_MAX);
	CONSTANT(HOSTLINK_REQ_HELLO);
	CONSTANT(HOSTLINK_REQ_LS);
	CONSTANT(HOSTLINK_REQ_GET);
	CONSTANT(HOSTLINK_REQ_PUT);
	CONSTANT(HOSTLINK_REQ_DATA);
	CONSTANT(HOSTLINK_REQ_RUN);
	CONSTANT(HOSTLINK_REQ_PUT_SPAN);
	CONSTANT(HOSTLINK_REQ_GET_WINDOW);
	CONSTANT(HOSTLINK_REQ_GET_SPAN);
	CONSTANT(HOSTLINK_ANS_HELLO);
	CONSTANT(HOSTLINK_ANS_NAMES);
	CONSTANT(HOSTLINK_ANS_INFO);
	CONSTANT(HOSTLINK_ANS_READY);
	CONSTANT(HOSTLINK_ANS_DATA);
	CONSTANT(HOSTLINK_ANS_OUT);
	CONSTANT(HOSTLINK_ANS_EXIT);
	CONSTANT(HOSTLINK_ANS_SPAN);
	CONSTANT(HOSTLINK_ANS_END);
	CONSTANT(HOSTLINK_ANS_ERR);
	CONSTANT(HOSTLINK_KIND_BLOB);
	CONSTANT(HOSTLINK_KIND_CODE);
}

/* abi_constants -- the error codes, object types and exit reasons */
static void abi_constants(void)
{
	CONSTANT(ERR_NONE);
	CONSTANT(ERR_PERM);
	CONSTANT(ERR_NOENT);
	CONSTANT(ERR_NOMEM);
	CONSTANT(ERR_FAULT);
	CONSTANT(ERR_BUSY);
	CONSTANT(ERR_EXIST);
	CONSTANT(ERR_INVAL);
	CONSTANT(ERR_NOSPC);
	CONSTANT(ERR_RANGE);
	CONSTANT(ERR_NOSYS);
	CONSTANT(ERR_BADF);
	CONSTANT(ERR_CORRUPT);
	CONSTANT(ERR_VERSION);
	CONSTANT(ERR_NOTSUP);
	CONSTANT(ERR_TOOBIG);
	CONSTANT(ERR_AGAIN);
	CONSTANT(ERR_IO);
	CONSTANT(ERR_NOEXEC);
	CONSTANT(ERR_PEER);
	CONSTANT(ERR_RESET);
	CONSTANT(ERR__COUNT);
	CONSTANT(FE_TYPE_BLOB);
	CONSTANT(FE_TYPE_CODE);
	CONSTANT(FE_TYPE_PROCESS);
	CONSTANT(FE_TYPE_THREAD);
	CONSTANT(FE_TYPE_ASPACE);
	CONSTANT(FE_TYPE_CHANNEL);
	CONSTANT(FE_TYPE_CATALOGUE);
	CONSTANT(FE_TYPE_ANON);
	CONSTANT(FE_EXIT_RUNNING);
	CONSTANT(FE_EXIT_NORMAL);
	CONSTANT(FE_EXIT_KILLED);
	CONSTANT(FE_EXIT_FAULT);
	CONSTANT(FE_EXIT_INTERRUPT);
}

/* structures -- every structure of hostlink.h */
static void structures(void)
{
	begin("hostlink_header", sizeof(struct hostlink_header));
	FIELD(hostlink_header, version);
	FIELD(hostlink_header, type);
	FIELD(hostlink_header, reserved);
	FIELD(hostlink_header, tag);
	FIELD(hostlink_header, length);
	end();
	begin("hostlink_hello", sizeof(struct hostlink_hello));
	FIELD(hostlink_hello, nonce);
	end();
	begin("hostlink_hello_answer", sizeof(struct hostlink_hello_answer));
	FIELD(hostlink_hello_answer, nonce);
	FIELD(hostlink_hello_answer, version);
	FIELD(hostlink_hello_answer, data_max);
	FIELD(hostlink_hello_answer, window);
	end();
	begin("hostlink_put", sizeof(struct hostlink_put));
	FIELD(hostlink_put, size);
	FIELD(hostlink_put, crc);
	FIELD(hostlink_put, kind);
	end();
	begin("hostlink_data", sizeof(struct hostlink_data));
	FIELD(hostlink_data, offset);
	end();
	begin("hostlink_span", sizeof(struct hostlink_span));
	FIELD(hostlink_span, offset);
	FIELD(hostlink_span, at);
	FIELD(hostlink_span, length);
	end();
	begin("hostlink_span_answer", sizeof(struct hostlink_span_answer));
	FIELD(hostlink_span_answer, offset);
	FIELD(hostlink_span_answer, at);
	FIELD(hostlink_span_answer, length);
	FIELD(hostlink_span_answer, crc);
	end();
	begin("hostlink_name_entry", sizeof(struct hostlink_name_entry));
	FIELD(hostlink_name_entry, type);
	FIELD(hostlink_name_entry, size);
	FIELD(hostlink_name_entry, id);
	FIELD(hostlink_name_entry, name_len);
	end();
	begin("hostlink_info", sizeof(struct hostlink_info));
	FIELD(hostlink_info, size);
	FIELD(hostlink_info, modified_epoch);
	FIELD(hostlink_info, type);
	FIELD(hostlink_info, reserved);
	end();
	begin("hostlink_exit", sizeof(struct hostlink_exit));
	FIELD(hostlink_exit, status);
	FIELD(hostlink_exit, reason);
	end();
	begin("hostlink_end_ls", sizeof(struct hostlink_end_ls));
	FIELD(hostlink_end_ls, count);
	end();
	begin("hostlink_end_get", sizeof(struct hostlink_end_get));
	FIELD(hostlink_end_get, size);
	FIELD(hostlink_end_get, crc);
	end();
	begin("hostlink_end_put", sizeof(struct hostlink_end_put));
	FIELD(hostlink_end_put, size);
	end();
	begin("hostlink_error", sizeof(struct hostlink_error));
	FIELD(hostlink_error, code);
	end();
}

/* main -- the JSON document on stdout */
int main(void)
{
	printf("{\"constants\": {");
	sep = "";
	constants();
	abi_constants();
	printf("},\n\"structs\": {\n  ");
	sep = "";
	structures();
	printf("}}\n");
	return 0;
}
