# objstore.mk -- the objstore library for the host, and its tests.
#
#   build/host/libobjstore.a      -O2, for objtool and the benchmarks
#   build/host-san/libobjstore.a  ASan + UBSan, for the tests
#   build/tests/unit/test_os_*    one test binary per tests/objstore/test_*.c
#   build/kernel-obj/objstore/*.o the same sources compiled as the kernel
#                                 compiles them (freestanding, our libc),
#                                 linked into the kernel (Makefile)
#
# Both host builds include host_platform.c (tools/host/), the real
# flush instructions.

OBJSTORE_SRCS := $(sort $(wildcard objstore/*.c))
OBJSTORE_HOST_SRCS := $(OBJSTORE_SRCS) tools/host/host_platform.c
OBJSTORE_INC := -Iinclude -Iobjstore/include -Iobjstore -Itools/host

HOST_CFLAGS := -std=gnu11 -O2 -g $(WARN) $(OBJSTORE_INC)
HOST_SAN_CFLAGS := -std=gnu11 -O1 -g $(WARN) $(OBJSTORE_INC) \
	-fsanitize=address,undefined -fno-sanitize-recover=all

OBJSTORE_HOST_OBJS := $(patsubst %.c,$(BUILD)/host/%.o,$(OBJSTORE_HOST_SRCS))
OBJSTORE_SAN_OBJS := $(patsubst %.c,$(BUILD)/host-san/%.o,$(OBJSTORE_HOST_SRCS))
OBJSTORE_KERNEL_OBJS := $(patsubst %,$(BUILD)/kernel-obj/%.o,$(OBJSTORE_SRCS))

$(BUILD)/host/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/host-san/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(HOST_SAN_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/host/libobjstore.a: $(OBJSTORE_HOST_OBJS)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/host-san/libobjstore.a: $(OBJSTORE_SAN_OBJS)
	rm -f $@ && ar rcs $@ $^

OBJSTORE_TESTS := $(patsubst tests/objstore/test_%.c,$(BUILD)/tests/unit/test_os_%,\
	$(sort $(wildcard tests/objstore/test_*.c)))

$(BUILD)/tests/unit/test_os_%: tests/objstore/test_%.c tests/objstore/os_test.h tests/objstore/test_rand.h \
		tests/unit/check.h $(BUILD)/host-san/libobjstore.a
	@mkdir -p $(dir $@)
	$(CC) $(HOST_SAN_CFLAGS) -Itests/unit -Itests/objstore -o $@ $< \
		$(BUILD)/host-san/libobjstore.a

objstore: $(BUILD)/host/libobjstore.a $(OBJSTORE_TESTS) $(OBJSTORE_KERNEL_OBJS)

# The crash tests link the simulator platform (tests/objstore/crashsim.c) too.
$(BUILD)/tests/unit/test_os_resize: tests/objstore/test_resize.c tests/objstore/crashsim.c \
		tests/objstore/crashsim.h tests/objstore/os_test.h \
		tests/unit/check.h $(BUILD)/host-san/libobjstore.a
	@mkdir -p $(dir $@)
	$(CC) $(HOST_SAN_CFLAGS) -Itests/unit -Itests/objstore -o $@ \
		tests/objstore/test_resize.c tests/objstore/crashsim.c $(BUILD)/host-san/libobjstore.a

$(BUILD)/tests/unit/test_os_crash: tests/objstore/test_crash.c tests/objstore/crashsim.c \
		tests/objstore/crashsim.h tests/objstore/os_test.h tests/objstore/test_rand.h \
		tests/unit/check.h $(BUILD)/host-san/libobjstore.a
	@mkdir -p $(dir $@)
	$(CC) $(HOST_SAN_CFLAGS) -Itests/unit -Itests/objstore -o $@ \
		tests/objstore/test_crash.c tests/objstore/crashsim.c $(BUILD)/host-san/libobjstore.a

# Crash mutants: the crash simulator built on an objstore with one
# persistence bug of the commit by redo planted on purpose (tx.c, log.c:
# FERRITE_MUTANT_NAME, upper case, '_' for '-'), which its crash states
# must catch (tests/system/test_crash_mutants.py, docs/crash-testing.md):
#   unfenced-redo-commit  no fence at the commit by redo
#   unreplayed-chains     recovery does not replay the committed chains
#   unflushed-redo        REDO records are not written back
#   replayed-done         recovery replays chains its epoch store retired
#   unflushed-apply       the deferred bytes are written in place unflushed,
#                         so the log starts over without them durable
# Only tx.c and log.c (where the macros live) are compiled again; the
# rest are the tests' objects.
CRASH_MUTANTS := unfenced-redo-commit unreplayed-chains unflushed-redo replayed-done \
	unflushed-apply
CRASH_MUTANT_BINS := $(foreach m,$(CRASH_MUTANTS),$(BUILD)/crash-mutant-$(m)/test_os_crash)
CRASH_MUTANT_SHARED := $(filter-out $(BUILD)/host-san/objstore/tx.o $(BUILD)/host-san/objstore/log.o,\
	$(OBJSTORE_SAN_OBJS))

.PHONY: crash-mutants
crash-mutants: $(CRASH_MUTANT_BINS)
$(BUILD)/crash-mutant-%/test_os_crash: tests/objstore/test_crash.c tests/objstore/crashsim.c \
		tests/objstore/crashsim.h tests/objstore/os_test.h tests/objstore/test_rand.h \
		tests/unit/check.h objstore/tx.c objstore/log.c $(CRASH_MUTANT_SHARED)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_SAN_CFLAGS) -DFERRITE_MUTANT_$$(echo $* | tr a-z- A-Z_) \
		-Itests/unit -Itests/objstore -o $@ tests/objstore/test_crash.c \
		tests/objstore/crashsim.c objstore/tx.c objstore/log.c $(CRASH_MUTANT_SHARED)
