# linux.mk -- Linux programs the tests run unmodified in Ferrite
# (tests/system/test_linux.py, docs/linux.md), built as a user on a Debian
# host builds them: static, with glibc (gcc) and musl (musl-gcc from
# musl-tools); with glibc also position-independent (static PIE). (Debian's
# musl-gcc given -static-pie still names musl's loader as an interpreter,
# so what it makes is not a static binary.)
#
#   build/linux/hello-glibc  hello-glibc-pie  hello-musl
#   build/linux/hello-dynamic  the same by the host's plain gcc: a dynamic
#                            PIE that needs Debian's ld.so and libc.so.6
#                            (docs/linux.md, "Dynamic binaries")
#   build/linux/lua-repl     a Lua REPL: Debian's liblua5.4.a and our main
#   build/linux/sql          a SQL shell over Debian's libsqlite3.a
#   build/linux/pipes-glibc  pipes-musl: a pipe, select and poll
#   build/linux/lxfuzz       sysfuzz's Linux mode (musl)
#   build/linux/signals-glibc  signals-musl   signals within a program
#   build/linux/procs-glibc  procs-musl       fork, exec, wait, pipes, groups
#   build/linux/lxcount      the power-cut campaign's Linux program (musl)
#   build/linux/threads-glibc  threads-musl   POSIX threads
#   build/linux/remap-glibc  remap-musl       mremap, and realloc through it
#   build/linux/locks        record locks and flock between programs (glibc)
#   build/linux/meta-glibc  meta-musl   a file's mode and times
#   build/linux/lxbench      system calls timed in-process, against Linux
#                            (tests/bench/run-lxprog-bench; glibc, -pthread)
#   build/linux/sqlbench     SQLite inserts, a transaction each, timed
#                            in-process (Debian's libsqlite3.a; the same)
#   build/linux/kvbench      a Redis-like key-value store and its workload,
#                            each operation timed (tests/bench/run-peers-bench;
#                            glibc)
#
# (glibc's static libraries warn that dlopen, which liblua's `require` of C
# modules and libsqlite3's extensions could use, needs shared libraries at
# run time: neither program loads any.)

LINUX_DIR := $(BUILD)/linux
LINUX_PROGRAMS := $(addprefix $(LINUX_DIR)/,hello-glibc hello-glibc-pie hello-musl hello-dynamic lua-repl sql \
		  pipes-glibc pipes-musl signals-glibc signals-musl lxfuzz lxcount threads-glibc threads-musl \
		  remap-glibc remap-musl locks meta-glibc meta-musl lxbench sqlbench kvbench \
		  procs-glibc procs-musl)
LINUX_LIBS := /usr/lib/x86_64-linux-gnu
LINUX_CFLAGS := -O2 -Wall -Wextra -Werror

.PHONY: linux-programs
linux-programs: $(LINUX_PROGRAMS)

$(LINUX_DIR)/hello-glibc: tests/linux/hello.c | $(LINUX_DIR)/
	gcc $(LINUX_CFLAGS) -static -o $@ $<
$(LINUX_DIR)/hello-glibc-pie: tests/linux/hello.c | $(LINUX_DIR)/
	gcc $(LINUX_CFLAGS) -static-pie -fPIE -o $@ $<
$(LINUX_DIR)/hello-dynamic: tests/linux/hello.c | $(LINUX_DIR)/
	gcc $(LINUX_CFLAGS) -o $@ $<
$(LINUX_DIR)/hello-musl: tests/linux/hello.c | $(LINUX_DIR)/
	musl-gcc $(LINUX_CFLAGS) -static -o $@ $<

$(LINUX_DIR)/lua-repl: tests/linux/lua-repl.c | $(LINUX_DIR)/
	gcc $(LINUX_CFLAGS) -static -I/usr/include/lua5.4 -o $@ $< $(LINUX_LIBS)/liblua5.4.a -lm
$(LINUX_DIR)/sql: tests/linux/sql.c | $(LINUX_DIR)/
	gcc $(LINUX_CFLAGS) -static -o $@ $< $(LINUX_LIBS)/libsqlite3.a -lm

$(LINUX_DIR)/pipes-glibc: tests/linux/pipes.c | $(LINUX_DIR)/
	gcc $(LINUX_CFLAGS) -static -o $@ $<
$(LINUX_DIR)/pipes-musl: tests/linux/pipes.c | $(LINUX_DIR)/
	musl-gcc $(LINUX_CFLAGS) -static -o $@ $<

$(LINUX_DIR)/lxfuzz: tests/linux/lxfuzz.c | $(LINUX_DIR)/
	musl-gcc $(LINUX_CFLAGS) -static -o $@ $<

$(LINUX_DIR)/lxcount: tests/linux/lxcount.c | $(LINUX_DIR)/
	musl-gcc $(LINUX_CFLAGS) -static -o $@ $<

$(LINUX_DIR)/signals-glibc: tests/linux/signals.c | $(LINUX_DIR)/
	gcc $(LINUX_CFLAGS) -static -o $@ $<
$(LINUX_DIR)/signals-musl: tests/linux/signals.c | $(LINUX_DIR)/
	musl-gcc $(LINUX_CFLAGS) -static -o $@ $<
$(LINUX_DIR)/procs-glibc: tests/linux/procs.c | $(LINUX_DIR)/
	gcc $(LINUX_CFLAGS) -static -o $@ $<
$(LINUX_DIR)/procs-musl: tests/linux/procs.c | $(LINUX_DIR)/
	musl-gcc $(LINUX_CFLAGS) -static -o $@ $<

$(LINUX_DIR)/threads-glibc: tests/linux/threads.c | $(LINUX_DIR)/
	gcc $(LINUX_CFLAGS) -static -pthread -o $@ $<
$(LINUX_DIR)/threads-musl: tests/linux/threads.c | $(LINUX_DIR)/
	musl-gcc $(LINUX_CFLAGS) -static -pthread -o $@ $<

$(LINUX_DIR)/remap-glibc: tests/linux/remap.c | $(LINUX_DIR)/
	gcc $(LINUX_CFLAGS) -static -o $@ $<
$(LINUX_DIR)/remap-musl: tests/linux/remap.c | $(LINUX_DIR)/
	musl-gcc $(LINUX_CFLAGS) -static -o $@ $<

$(LINUX_DIR)/locks: tests/linux/locks.c | $(LINUX_DIR)/
	gcc $(LINUX_CFLAGS) -static -o $@ $<

$(LINUX_DIR)/meta-glibc: tests/linux/meta.c | $(LINUX_DIR)/
	gcc $(LINUX_CFLAGS) -static -o $@ $<
$(LINUX_DIR)/meta-musl: tests/linux/meta.c | $(LINUX_DIR)/
	musl-gcc $(LINUX_CFLAGS) -static -o $@ $<
$(LINUX_DIR)/lxbench: tests/linux/lxbench.c | $(LINUX_DIR)/
	gcc $(LINUX_CFLAGS) -static -pthread -o $@ $<
$(LINUX_DIR)/sqlbench: tests/linux/sqlbench.c | $(LINUX_DIR)/
	gcc $(LINUX_CFLAGS) -static -o $@ $< $(LINUX_LIBS)/libsqlite3.a -lm

$(LINUX_DIR)/kvbench: tests/linux/kvbench.c | $(LINUX_DIR)/
	gcc $(LINUX_CFLAGS) -static -o $@ $<

$(LINUX_DIR)/:
	mkdir -p $@
