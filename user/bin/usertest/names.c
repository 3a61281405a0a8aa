/*
 * names.c -- the catalogue's names: bind, open, rename and unbind, with
 * their errors (a name taken, a name missing, rights asked that do not
 * exist); empty and too long names, and the longest one allowed; memory
 * that has no name; and names listed by prefix, in order, in batches from
 * a cursor.
 */
#include "usertest.h"

/* test_names -- bind, open, rename, unbind, and bad names */
void test_names(void)
{
	char a[FE_NAME_MAX + 2], b[FE_NAME_MAX + 2], longest[FE_NAME_MAX + 2];
	int32_t h = new_blob(PAGE, "named");
	long h2;

	test_name(a, sizeof(a), "a");
	test_name(b, sizeof(b), "b");
	EQ(fe_bind(h, a), 0);
	ERR(fe_bind(h, a), ERR_EXIST);
	h2 = OK(fe_open(a, FE_RIGHT_READ));
	EQ(object_id((int32_t)h2), object_id(h));
	EQ(handle_rights((int32_t)h2), FE_RIGHT_READ);
	EQ(fe_close((int32_t)h2), 0);
	ERR(fe_open(a, 0x100), ERR_PERM);

	EQ(fe_name_rename(a, strlen(a), b, strlen(b)), 0);
	ERR(fe_open(a, FE_RIGHT_READ), ERR_NOENT);
	ERR(fe_name_rename(a, strlen(a), b, strlen(b)), ERR_NOENT);
	EQ(fe_bind(h, a), 0);
	ERR(fe_name_rename(a, strlen(a), b, strlen(b)), ERR_EXIST);
	EQ(fe_unbind(a), 0);
	EQ(fe_unbind(b), 0);
	ERR(fe_unbind(b), ERR_NOENT);
	ERR(fe_open(b, FE_RIGHT_READ), ERR_NOENT);

	/* Empty and too long names; the longest allowed one works. */
	ERR(fe_obj_open("x", 0, FE_RIGHT_READ), ERR_INVAL);
	ERR(fe_name_bind(h, "x", 0), ERR_INVAL);
	ERR(fe_name_unbind("x", 0), ERR_INVAL);
	memset(longest, 'n', sizeof(longest));
	ERR(fe_obj_open(longest, FE_NAME_MAX + 1, FE_RIGHT_READ), ERR_INVAL);
	ERR(fe_name_bind(h, longest, FE_NAME_MAX + 1), ERR_INVAL);
	ERR(fe_obj_open(longest, 1ull << 40, FE_RIGHT_READ), ERR_INVAL);
	ERR(fe_name_unbind(longest, ~0ull), ERR_INVAL);
	test_name(longest, sizeof(longest), "");
	memset(longest + strlen(longest), 'L', FE_NAME_MAX - strlen(longest));
	EQ(fe_name_bind(h, longest, FE_NAME_MAX), 0);
	h2 = OK(fe_obj_open(longest, FE_NAME_MAX, FE_RIGHT_READ));
	EQ(fe_close((int32_t)h2), 0);
	EQ(fe_name_unbind(longest, FE_NAME_MAX), 0);
	EQ(fe_close(h), 0);

	/* Anonymous memory has no name. */
	h2 = OK(fe_obj_create(FE_TYPE_ANON, PAGE));
	FAILS(fe_bind((int32_t)h2, a));
	EQ(fe_close((int32_t)h2), 0);
}

/* test_list -- names come back in order, in batches, from a cursor */
void test_list(void)
{
	char prefix[64], name[64];
	const char *suffixes[] = {"l/c", "l/a", "l/b"};
	struct fe_name_entry entries[2];
	struct fe_cursor cursor;
	int32_t h = new_blob(123, NULL);
	size_t i;

	for (i = 0; i < 3; i++)
		EQ(fe_bind(h, test_name(name, sizeof(name), suffixes[i])), 0);
	test_name(prefix, sizeof(prefix), "l/");
	memset(&cursor, 0, sizeof(cursor));
	EQ(fe_name_list(prefix, strlen(prefix), &cursor, entries, 2), 2);
	CHECK(strcmp(entries[0].name, test_name(name, sizeof(name), "l/a")) == 0);
	CHECK(strcmp(entries[1].name, test_name(name, sizeof(name), "l/b")) == 0);
	EQ(entries[0].len, strlen(name));
	EQ(entries[0].type, FE_TYPE_BLOB);
	EQ(entries[0].size, 123);
	EQ(entries[0].id, object_id(h));
	EQ(fe_name_list(prefix, strlen(prefix), &cursor, entries, 2), 1);
	CHECK(strcmp(entries[0].name, test_name(name, sizeof(name), "l/c")) == 0);
	EQ(fe_name_list(prefix, strlen(prefix), &cursor, entries, 2), 0);
	memset(&cursor, 0, sizeof(cursor));
	ERR(fe_name_list(prefix, strlen(prefix), &cursor, entries, 0), ERR_INVAL);
	EQ(fe_name_list("usertest-no-such-prefix/", 24, &cursor, entries, 2), 0);
	for (i = 0; i < 3; i++)
		EQ(fe_unbind(test_name(name, sizeof(name), suffixes[i])), 0);
	EQ(fe_close(h), 0);
}
