# linux.mk -- Linux programs the tests run unmodified in Ferrite
# (tests/system/test_linux.py, docs/linux.md), built as a user on a Debian
# host builds them: static, with glibc (gcc) and musl (musl-gcc from
# musl-tools); with glibc also position-independent (static PIE). (Debian's
# musl-gcc given -static-pie still names musl's loader as an interpreter,
# so what it makes is not a static binary.)
#
#   build/linux/hello-glibc  hello-glibc-pie  hello-musl

LINUX_DIR := $(BUILD)/linux
LINUX_PROGRAMS := $(addprefix $(LINUX_DIR)/,hello-glibc hello-glibc-pie hello-musl)
LINUX_CFLAGS := -O2 -Wall -Wextra -Werror

.PHONY: linux-programs
linux-programs: $(LINUX_PROGRAMS)

$(LINUX_DIR)/hello-glibc: tests/linux/hello.c | $(LINUX_DIR)/
	gcc $(LINUX_CFLAGS) -static -o $@ $<
$(LINUX_DIR)/hello-glibc-pie: tests/linux/hello.c | $(LINUX_DIR)/
	gcc $(LINUX_CFLAGS) -static-pie -fPIE -o $@ $<
$(LINUX_DIR)/hello-musl: tests/linux/hello.c | $(LINUX_DIR)/
	musl-gcc $(LINUX_CFLAGS) -static -o $@ $<

$(LINUX_DIR)/:
	mkdir -p $@
