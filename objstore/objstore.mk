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
