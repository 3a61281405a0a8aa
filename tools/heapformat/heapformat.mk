# heapformat.mk -- build/heapformat/layout.json, the heap's format as the C
# compiler lays it out (tools/heapformat/describe.c), which the host's
# Python readers load through tools/heapformat/heapformat.py: the gdb
# helpers (tools/gdb/) and the tests' image reader (tests/system/heapimage.py).
#
# describe.c is compiled by objstore.mk's $(BUILD)/host/%.o rule (its
# dependency files make a changed header rebuild it) with the kernel's
# include path for kformat.h, and linked with the host objstore library for
# the object type names. Uses BUILD and CC from the top-level Makefile;
# include it after objstore/objstore.mk.

HEAPFORMAT_DIR := $(BUILD)/heapformat
HEAPFORMAT_JSON := $(HEAPFORMAT_DIR)/layout.json

$(BUILD)/host/tools/heapformat/describe.o: HOST_CFLAGS += -Ikernel

$(HEAPFORMAT_DIR)/describe: $(BUILD)/host/tools/heapformat/describe.o $(BUILD)/host/libobjstore.a
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -o $@ $^

$(HEAPFORMAT_JSON): $(HEAPFORMAT_DIR)/describe
	$< > $@.tmp && mv $@.tmp $@
