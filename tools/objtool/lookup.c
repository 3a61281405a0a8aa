/*
 * lookup.c -- finding the object a command names, with read-only calls.
 *
 * Commands that write call these before os_tx_begin, so a missing name is
 * refused, and a corrupt catalogue or object header is found, before the
 * image is written at all.
 */
#include <inttypes.h>
#include <string.h>

#include "objtool.h"

/* lookup_name -- os_cat_lookup for a C string, the name checked first */
int lookup_name(const struct objstore *os, const char *name, uint64_t *id)
{
	uint64_t len = strlen(name);
	int err = os_cat_name_ok(name, len);

	return err ? err : os_cat_lookup(os, name, len, id);
}

/* parse_id -- "#12" as an object id; false if arg is not of that form */
static bool parse_id(const char *arg, uint64_t *id)
{
	return arg[0] == '#' && parse_number(arg + 1, id) == 0;
}

/* resolve_object -- "NAME" or "#ID" to the id of a live object */
int resolve_object(struct image *img, const char *cmd, const char *arg,
		   uint64_t *id, const char **name)
{
	char text[NAME_TEXT_MAX];
	struct os_obj_info info;
	int err;

	*name = NULL;
	if (!parse_id(arg, id)) {
		err = lookup_name(&img->os, arg, id);
		if (err == -ERR_INVAL)
			return fail(EXIT_USAGE, "%s: '%s' is not a valid name (1 to %d bytes)",
				    cmd, name_text(text, arg, strlen(arg)), OS_NAME_MAX);
		if (err == -ERR_NOENT)
			return fail(EXIT_FAILED, "%s: no object named '%s'", cmd,
				    name_text(text, arg, strlen(arg)));
		if (err)
			return fail(os_err_exit(err), "%s: looking up '%s': %s", cmd,
				    name_text(text, arg, strlen(arg)), os_err_text(err));
		*name = arg;
	}
	err = os_obj_stat(&img->os, *id, &info);
	if (err == -ERR_NOENT && !*name)
		return fail(EXIT_FAILED, "%s: no object #%" PRIu64, cmd, *id);
	if (err == -ERR_NOENT)
		return fail(EXIT_CORRUPT, "%s: '%s' is bound to object #%" PRIu64
			    ", which does not exist: the image is corrupt (run 'objtool %s check')",
			    cmd, name_text(text, arg, strlen(arg)), *id, img->path);
	if (err)
		return fail(os_err_exit(err), "%s: object #%" PRIu64 ": %s", cmd, *id,
			    os_err_text(err));
	return EXIT_OK;
}
