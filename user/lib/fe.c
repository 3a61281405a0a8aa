/*
 * fe.c -- conveniences over the system calls: names as C strings, a blob
 * opened or made by name, sleeping for a duration, running a program by
 * name, printing an error, reading a numeric argument.
 *
 * Sleeping is built on an absolute deadline because SYS_SLEEP_UNTIL is
 * restartable: a sleeper resumed after a power cut re-issues the same call
 * and still wakes at the same moment of monotonic time.
 */
#include <fe.h>

#define NS_PER_MS 1000000ull
#define PROGRAM_DIR "bin/"

/* Set by crt0 from rdx at entry. */
uint64_t fe_inherited_count;

/* fe_open -- fe_obj_open with a C string */
long fe_open(const char *name, uint32_t rights)
{
	return fe_obj_open(name, strlen(name), rights);
}

/* fe_bind -- fe_name_bind with a C string */
long fe_bind(int32_t handle, const char *name)
{
	return fe_name_bind(handle, name, strlen(name));
}

/* fe_unbind -- fe_name_unbind with a C string */
long fe_unbind(const char *name)
{
	return fe_name_unbind(name, strlen(name));
}

/* fe_open_or_create -- a read+write handle to the blob NAME, made and bound if missing */
long fe_open_or_create(const char *name)
{
	long h, err;

	h = fe_open(name, FE_RIGHT_READ | FE_RIGHT_WRITE);
	if (h != -ERR_NOENT)
		return h;
	h = fe_obj_create(FE_TYPE_BLOB, 0);
	if (h < 0)
		return h;
	err = fe_bind((int32_t)h, name);
	if (err < 0) {
		fe_close((int32_t)h);
		return err;
	}
	return h;
}

/* fe_now -- FE_CLOCK_MONOTONIC in ns */
uint64_t fe_now(void)
{
	return (uint64_t)fe_time(FE_CLOCK_MONOTONIC);
}

/* fe_sleep_ms -- sleep ms milliseconds (an absolute deadline underneath) */
long fe_sleep_ms(uint64_t ms)
{
	return fe_sleep_until(fe_now() + ms * NS_PER_MS);
}

/* fe_spawn_program -- run "bin/NAME" with argv */
long fe_spawn_program(const char *name, const char *const *argv)
{
	return fe_spawn_program_grant(name, argv, NULL, 0, 0);
}

/* fe_spawn_program_grant -- fe_spawn_program, passing count handle grants
 * and FE_SPAWN_* flags */
long fe_spawn_program_grant(const char *name, const char *const *argv,
			    const struct fe_handle_grant *grants,
			    uint32_t count, uint32_t flags)
{
	struct fe_spawn spawn = {.handles = grants, .handle_count = count};

	return fe_spawn_program_with(name, argv, &spawn, flags);
}

/* fe_spawn_program_with -- run "bin/NAME" with argv, the rest of *spawn
 * and FE_SPAWN_* flags */
long fe_spawn_program_with(const char *name, const char *const *argv,
			   struct fe_spawn *spawn, uint32_t flags)
{
	const char *default_argv[2] = {name, NULL};
	char path[FE_NAME_MAX + 1];
	long code, process;

	if (snprintf(path, sizeof(path), PROGRAM_DIR "%s", name) >= (int)sizeof(path))
		return -ERR_TOOBIG;
	if (argv == NULL)
		argv = default_argv;
	for (spawn->argc = 0; argv[spawn->argc] != NULL; spawn->argc++)
		;
	spawn->argv = argv;

	code = fe_open(path, FE_RIGHT_READ | FE_RIGHT_EXEC);
	if (code < 0)
		return code;
	process = fe_spawn((int32_t)code, spawn, flags);
	fe_close((int32_t)code);
	return process;
}

/* fe_perror -- print "prefix: message of err" on the console */
void fe_perror(const char *prefix, long err)
{
	printf("%s: %s\n", prefix, err_str((int)err));
}

/* fe_parse_arg -- the number (parse_number) text into *out, or false and a message */
bool fe_parse_arg(const char *program, const char *what, const char *text,
		  uint64_t *out)
{
	if (parse_number(text, out) < 0) {
		printf("%s: %s '%s' is not a number\n", program, what, text);
		return false;
	}
	return true;
}
