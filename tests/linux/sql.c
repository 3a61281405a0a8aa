/*
 * sql.c -- a small SQL shell over Debian's libsqlite3.a (SQLite 3.40), for
 * the Linux-programs tests (tests/linux/linux.mk).
 *
 *   sql DATABASE
 *
 * opens (or creates) the database file, then reads statements from
 * standard input, a line each, and runs them: each row comes out as its
 * columns joined by '|', an error as "error: MESSAGE"; ".quit" ends it,
 * as the end of the input does. The prompt is "sql> ". The connection, and a transaction a user began, live in the
 * program's memory and in the database's file; in Ferrite both are in the
 * persistent heap, so a power cut in the middle of a transaction leaves
 * the transaction open where it was.
 */
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

/* row -- sqlite3_exec's callback: one row, columns joined by '|' */
static int row(void *unused, int n, char **values, char **names)
{
	(void)unused;
	(void)names;
	for (int i = 0; i < n; i++)
		printf("%s%s", values[i] ? values[i] : "NULL", i + 1 < n ? "|" : "\n");
	return 0;
}

int main(int argc, char **argv)
{
	char line[4096];
	sqlite3 *db;

	if (argc != 2) {
		fprintf(stderr, "usage: sql DATABASE\n");
		return 2;
	}
	if (sqlite3_open(argv[1], &db) != SQLITE_OK) {
		printf("error: %s\n", sqlite3_errmsg(db));
		return 1;
	}
	printf("SQLite %s on %s\n", sqlite3_libversion(), argv[1]);
	for (;;) {
		char *err = NULL;

		printf("sql> ");
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin) || !strncmp(line, ".quit", 5))
			break;
		if (sqlite3_exec(db, line, row, NULL, &err) != SQLITE_OK) {
			printf("error: %s\n", err);
			sqlite3_free(err);
		}
	}
	return sqlite3_close(db) == SQLITE_OK ? 0 : 1;
}
