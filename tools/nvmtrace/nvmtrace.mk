# nvmtrace.mk -- the NVM tracer (docs/persistence-model.md): the QEMU
# plugin build/nvmtrace.so, and the kernel built for tracing,
# build/trace/ferrite.elf (FERRITE_NVM_TRACE: a load right after each
# cache-line write-back, so the plugin sees its address). Uses BUILD, CC, WARN and
# the kernel's rules from the top-level Makefile.

NVMTRACE_PLUGIN := $(BUILD)/nvmtrace.so
TRACE_BUILD := $(BUILD)/trace

$(NVMTRACE_PLUGIN): tools/nvmtrace/nvmtrace.c tools/nvmtrace/plugin-api.h \
		include/ferrite/nvmtrace.h
	$(CC) -std=gnu11 -O2 -g $(WARN) -Wno-missing-prototypes -fPIC -shared \
		-fvisibility=hidden -Iinclude -o $@ tools/nvmtrace/nvmtrace.c

.PHONY: trace-kernel
trace-kernel:
	@$(MAKE) --no-print-directory BUILD=$(TRACE_BUILD) \
		KERNEL_DEFS=-DFERRITE_NVM_TRACE $(TRACE_BUILD)/ferrite.elf

# Mutants: kernels built for tracing with one persistence bug planted on
# purpose, which the crash states must catch (tests/system/test_persistence.py,
# docs/persistence-model.md). FERRITE_MUTANT_UNFLUSHED_UNDO: an undo record
# is never written back (objstore/tx.c).
.PHONY: mutants
mutants:
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/mutant-unflushed-undo \
		KERNEL_DEFS="-DFERRITE_NVM_TRACE -DFERRITE_MUTANT_UNFLUSHED_UNDO" \
		$(BUILD)/mutant-unflushed-undo/ferrite.elf
