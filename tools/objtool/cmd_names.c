/*
 * cmd_names.c -- the commands that change the catalogue: rm and mv.
 *
 * Each is one transaction. Before it begins, every name is looked up and
 * every object it leads to is read (read-only calls), so a missing name is
 * refused and a corrupt catalogue or header is found without writing.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "objtool.h"

/* bound_name -- the live object `name` is bound to, read-only; an exit status */
static int bound_name(struct image *img, const char *cmd, const char *name,
		      uint64_t *id)
{
	char text[NAME_TEXT_MAX];
	struct os_obj_info info;
	int err = lookup_name(&img->os, name, id);

	name_text(text, name, strlen(name));
	if (err == -ERR_INVAL)
		return fail(EXIT_USAGE, "%s: '%s' is not a valid name (1 to %d bytes)",
			    cmd, text, OS_NAME_MAX);
	if (err == -ERR_NOENT)
		return fail(EXIT_FAILED, "%s: no object named '%s'", cmd, text);
	if (!err)
		err = os_obj_stat(&img->os, *id, &info);
	if (err == -ERR_NOENT)
		return fail(EXIT_CORRUPT, "%s: '%s' is bound to object #%" PRIu64
			    ", which does not exist: the image is corrupt (run 'objtool %s check')",
			    cmd, text, *id, img->path);
	if (err)
		return fail(os_err_exit(err), "%s: '%s': %s", cmd, text, os_err_text(err));
	return EXIT_OK;
}

/* unbind -- inside the transaction: unbind `name`, drop its object's
 * reference, delete the object when none is left; 0 or an objstore error */
static int unbind(struct image *img, const char *name)
{
	uint64_t id;
	uint32_t count;
	int err = os_cat_remove(&img->os, name, strlen(name), &id);

	if (!err)
		err = os_obj_ref(&img->os, id, -1, &count);
	if (!err && count == 0)
		err = os_obj_delete(&img->os, id);
	return err;
}

/* run_rm -- objtool IMAGE rm NAME... */
static int run_rm(struct image *img, const struct args *a)
{
	char text[NAME_TEXT_MAX];
	uint64_t id;
	int status;

	for (int i = 0; i < a->npos; i++) {
		for (int j = 0; j < i; j++)
			if (strcmp(a->pos[i], a->pos[j]) == 0)
				return fail(EXIT_USAGE, "rm: '%s' is given twice",
					    name_text(text, a->pos[i], strlen(a->pos[i])));
		status = bound_name(img, "rm", a->pos[i], &id);
		if (status)
			return status;
	}
	status = image_tx_begin(img, "rm");
	for (int i = 0; !status && i < a->npos; i++) {
		int err = unbind(img, a->pos[i]);

		if (err)
			return image_tx_fail(img, "rm", err,
					     name_text(text, a->pos[i], strlen(a->pos[i])));
	}
	return status ? status : image_tx_commit(img, "rm");
}

const struct command cmd_rm = {
	.name = "rm",
	.access = ACCESS_WRITE,
	.min_pos = 1,
	.max_pos = -1,
	.usage = "rm NAME...",
	.summary = "unbind names, delete objects left unreferenced",
	.help = "Unbinds each NAME and drops one reference to its object; an object\n"
		"whose reference count reaches 0 is deleted, its pages freed. All the\n"
		"names go in one transaction: if any NAME is not bound, nothing is\n"
		"removed.\n",
	.run = run_rm,
};

/* run_mv -- objtool IMAGE mv OLD NEW */
static int run_mv(struct image *img, const struct args *a)
{
	const char *from = a->pos[0], *to = a->pos[1];
	char text[NAME_TEXT_MAX];
	uint64_t id;
	int err, status = bound_name(img, "mv", from, &id);

	if (status)
		return status;
	name_text(text, to, strlen(to));
	err = lookup_name(&img->os, to, &id);
	if (err == -ERR_INVAL)
		return fail(EXIT_USAGE, "mv: '%s' is not a valid name (1 to %d bytes)", text,
			    OS_NAME_MAX);
	if (!err)
		return fail(EXIT_FAILED, "mv: '%s' already exists", text);
	if (err != -ERR_NOENT)
		return fail(os_err_exit(err), "mv: looking up '%s': %s", text,
			    os_err_text(err));
	status = image_tx_begin(img, "mv");
	if (status)
		return status;
	err = os_cat_rename(&img->os, from, strlen(from), to, strlen(to));
	if (err)
		return image_tx_fail(img, "mv", err, "renaming");
	return image_tx_commit(img, "mv");
}

const struct command cmd_mv = {
	.name = "mv",
	.access = ACCESS_WRITE,
	.min_pos = 2,
	.max_pos = 2,
	.usage = "mv OLD NEW",
	.summary = "rename: bind NEW to OLD's object, unbind OLD",
	.help = "Moves the binding of OLD to NEW in one transaction. NEW must not be\n"
		"bound (rm it first). The object, its id and its refcount are\n"
		"unchanged.\n",
	.run = run_mv,
};
