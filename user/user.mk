# user.mk -- Ferrite's user space: crt0, the user library, the programs.
#
#   build/user/libfe.a        the user library: user/lib/*.c and libc/*.c,
#                             both compiled with the user flags below
#   build/user/crt0.o         the entry point (_start)
#   build/user/bin/NAME       one static executable per program, linked at
#                             0x400000 by user/user.ld; unstripped, so gdb
#                             has the symbols (and, with frame pointers kept,
#                             fe-bt can unwind any thread's stack without
#                             unwind tables). A program is either one file,
#                             user/bin/NAME.c, or a directory of them,
#                             user/bin/NAME/*.c (its files include their
#                             own headers with "..." from that directory)
#
# User code is ordinary x86_64 SysV code (red zone, SSE allowed: the kernel
# saves each thread's FPU state), freestanding and without PIE. libc/ is
# compiled a second time here rather than shared with the kernel because the
# kernel's flags (-mcmodel=kernel, no SSE) do not suit user code.
#
# Uses BUILD, CC, LD, WARN and FREESTANDING_INC from the top-level Makefile.

USER_DIR := $(BUILD)/user
USER_CFLAGS := -std=gnu11 -O2 -g $(WARN) -ffreestanding -fno-pie \
	-fno-stack-protector -fno-asynchronous-unwind-tables -fno-common \
	-fno-omit-frame-pointer \
	$(FREESTANDING_INC) -Iinclude -Ilibc/include -Iuser/include
USER_LDFLAGS := -nostdlib -static -no-pie -z max-page-size=4096 \
	-z noexecstack -Wl,--build-id=none -T user/user.ld

USER_LIB_SRCS := $(sort $(wildcard user/lib/*.c user/lib/*.S)) \
	$(sort $(wildcard libc/*.c))
USER_LIB_OBJS := $(patsubst %,$(USER_DIR)/obj/%.o,$(USER_LIB_SRCS))
USER_FILE_PROGRAMS := $(patsubst user/bin/%.c,%,$(wildcard user/bin/*.c))
USER_DIR_PROGRAMS := $(patsubst user/bin/%/,%,$(sort $(dir $(wildcard user/bin/*/*.c))))
USER_PROGRAMS := $(addprefix $(USER_DIR)/bin/,\
	$(sort $(USER_FILE_PROGRAMS) $(USER_DIR_PROGRAMS)))
USER_CRT0 := $(USER_DIR)/obj/user/crt0.S.o
USER_PROGRAM_OBJS := $(patsubst %,$(USER_DIR)/obj/%.o,\
	$(wildcard user/bin/*.c user/bin/*/*.c))

# The flags user space was last built with, rewritten only when they change:
# every object depends on it, so a changed flag rebuilds user space.
USER_FLAGS := $(USER_DIR)/flags
USER_FLAGS_NOW := $(USER_CFLAGS) $(USER_LDFLAGS)
$(shell mkdir -p $(USER_DIR) && echo '$(USER_FLAGS_NOW)' | \
	cmp -s - $(USER_FLAGS) || echo '$(USER_FLAGS_NOW)' > $(USER_FLAGS))

# Keep the objects of the programs (make would delete them as intermediates).
.SECONDARY: $(USER_CRT0) $(USER_PROGRAM_OBJS)

.PHONY: user
all: user
user: $(USER_PROGRAMS)

$(USER_DIR)/obj/%.c.o: %.c $(USER_FLAGS)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -MMD -MP -c $< -o $@

$(USER_DIR)/obj/%.S.o: %.S $(USER_FLAGS)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -D__ASSEMBLY__ -MMD -MP -c $< -o $@

$(USER_DIR)/libfe.a: $(USER_LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

# A one-file program: crt0, its object, the library.
$(addprefix $(USER_DIR)/bin/,$(USER_FILE_PROGRAMS)): $(USER_DIR)/bin/%: \
		$(USER_CRT0) $(USER_DIR)/obj/user/bin/%.c.o $(USER_DIR)/libfe.a \
		user/user.ld
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) $(USER_LDFLAGS) -o $@ \
		$(USER_CRT0) $(USER_DIR)/obj/user/bin/$*.c.o $(USER_DIR)/libfe.a

# A directory program: crt0, the objects of user/bin/NAME/*.c, the library.
define USER_DIR_PROGRAM
$(USER_DIR)/bin/$(1): $(USER_CRT0) \
		$(patsubst %,$(USER_DIR)/obj/%.o,$(sort $(wildcard user/bin/$(1)/*.c))) \
		$(USER_DIR)/libfe.a user/user.ld
	@mkdir -p $$(dir $$@)
	$(CC) $(USER_CFLAGS) $(USER_LDFLAGS) -o $$@ $$(filter %.o %.a,$$^)
endef
$(foreach p,$(USER_DIR_PROGRAMS),$(eval $(call USER_DIR_PROGRAM,$(p))))
