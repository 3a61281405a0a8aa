# objtool.mk -- build/objtool, the offline host tool for Ferrite images
# (docs/objtool.md), and nothing else.
#
# Every tools/objtool/*.c, and the few files of the kernel and libc it
# shares (below), compiled for the host by objstore.mk's $(BUILD)/host/%.o
# rule (HOST_CFLAGS: -O2 -g $(WARN) and the objstore include path), linked
# with the host's libc and build/host/libobjstore.a, which carries
# tools/host/host_platform.o. Uses BUILD, CC, WARN from the top-level
# Makefile; include it after objstore/objstore.mk.

OBJTOOL_SRCS := $(sort $(wildcard tools/objtool/*.c))
OBJTOOL_OBJS := $(patsubst %.c,$(BUILD)/host/%.o,$(OBJTOOL_SRCS))

# Numbers as people type and read them (libc/numtext.c: parse_size,
# size_text), as osh and the kernel have them; the benchmarks link it too
# (NUMTEXT_HOST). Its header is found after the host's own (-idirafter),
# so that <stdio.h> stays the host's.
NUMTEXT_HOST := $(BUILD)/host/libc/numtext.o
OBJTOOL_OBJS += $(NUMTEXT_HOST)
$(OBJTOOL_OBJS): HOST_CFLAGS += -idirafter libc/include

# The kernel's ELF checker (kernel/task/elf.c, pure C), so that import
# --type code refuses what a spawn would refuse, in the same words.
OBJTOOL_OBJS += $(BUILD)/host/kernel/task/elf.o
$(BUILD)/host/kernel/task/elf.o $(BUILD)/host/tools/objtool/cmd_data.o: HOST_CFLAGS += -Ikernel

# The kernel's own checker of its objects (kernel/kformat/kcheck.h), so that
# `objtool check` and a power-on name the same problems: it uses only
# objstore's interface and the layouts of kernel/kformat/kformat.h.
OBJTOOL_OBJS += $(BUILD)/host/kernel/kformat/kcheck.o
$(BUILD)/host/kernel/kformat/kcheck.o $(BUILD)/host/tools/objtool/cmd_check.o \
$(BUILD)/host/tools/objtool/cmd_info.o: HOST_CFLAGS += -Ikernel

$(BUILD)/objtool: $(OBJTOOL_OBJS) $(BUILD)/host/libobjstore.a
	$(CC) -O2 -g -o $@ $(OBJTOOL_OBJS) $(BUILD)/host/libobjstore.a
