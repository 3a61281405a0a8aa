/*
 * sqlbench.c -- SQLite inserts, each in its own transaction, timed inside
 * the program: the same static binary (Debian's libsqlite3.a) in Ferrite
 * and in a Linux guest on the same QEMU (tests/bench/run-lxprog-bench,
 * docs/performance.md).
 *
 *   sqlbench DATABASE SYNCHRONOUS COUNT
 *
 * removes DATABASE (and its journal) if they exist, makes it with one
 * table, sets PRAGMA synchronous=SYNCHRONOUS (OFF, NORMAL, FULL), then
 * inserts COUNT rows of about 100 bytes, each its own transaction (no
 * BEGIN: SQLite's autocommit), through one prepared statement, and prints
 *
 *   sqlbench: COUNT inserts synchronous=MODE NS ns (PER ns/insert)
 *
 * the monotonic time around the inserts alone; then checks that the table
 * holds COUNT rows. The journal mode is SQLite's default (DELETE), the
 * same on both sides.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

/* now_ns -- CLOCK_MONOTONIC in ns */
static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* exec -- run one statement; 0, or -1 after saying why */
static int exec(sqlite3 *db, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &err) == SQLITE_OK)
		return 0;
	printf("sqlbench: %s: %s\n", sql, err ? err : sqlite3_errmsg(db));
	sqlite3_free(err);
	return -1;
}

/* insert -- count single-row transactions through one statement */
static int insert(sqlite3 *db, long count)
{
	static const char text[] = "a row of about a hundred bytes, the same in every "
				   "transaction, so that only the commits differ.";
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, "INSERT INTO t VALUES (?, ?)", -1, &st, NULL) != SQLITE_OK) {
		printf("sqlbench: prepare: %s\n", sqlite3_errmsg(db));
		return -1;
	}
	for (long i = 0; i < count; i++) {
		sqlite3_bind_int64(st, 1, i);
		sqlite3_bind_text(st, 2, text, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE) {
			printf("sqlbench: insert %ld: %s\n", i, sqlite3_errmsg(db));
			sqlite3_finalize(st);
			return -1;
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return 0;
}

/* rows -- the table's row count, or -1 */
static long rows(sqlite3 *db)
{
	sqlite3_stmt *st;
	long n = -1;

	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM t", -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		n = (long)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

int main(int argc, char **argv)
{
	char pragma[64], journal[4096];
	long long start, took;
	long count;
	sqlite3 *db;

	if (argc != 4 || (count = atol(argv[3])) <= 0 || strlen(argv[2]) > 16) {
		fprintf(stderr, "usage: sqlbench DATABASE OFF|NORMAL|FULL COUNT\n");
		return 2;
	}
	snprintf(journal, sizeof(journal), "%s-journal", argv[1]);
	unlink(argv[1]);
	unlink(journal);
	if (sqlite3_open(argv[1], &db) != SQLITE_OK) {
		printf("sqlbench: %s: %s\n", argv[1], sqlite3_errmsg(db));
		return 1;
	}
	snprintf(pragma, sizeof(pragma), "PRAGMA synchronous=%s", argv[2]);
	if (exec(db, pragma) || exec(db, "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)"))
		return 1;
	start = now_ns();
	if (insert(db, count))
		return 1;
	took = now_ns() - start;
	if (rows(db) != count) {
		printf("sqlbench: the table holds %ld rows, not %ld\n", rows(db), count);
		return 1;
	}
	sqlite3_close(db);
	printf("sqlbench: %ld inserts synchronous=%s %lld ns (%.0f ns/insert)\n", count, argv[2],
	       took, (double)took / (double)count);
	return 0;
}
