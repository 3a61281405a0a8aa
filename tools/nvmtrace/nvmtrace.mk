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
# docs/persistence-model.md), each built as $(BUILD)/mutant-NAME/ferrite.elf
# with -DFERRITE_MUTANT_NAME (upper case, '_' for '-'):
#   unflushed-undo   a transaction's first undo record is not written back
#                    (objstore/log.c)
#   unflushed-pages  the commit writes back no logged whole page: a user
#                    page's new bytes (objstore/tx.c)
#   unfenced-commit  no fence between the commit's write-backs and the
#                    epoch store (objstore/tx.c)
#   early-console    the epoch's console output is sent before the commit
#                    (kernel/epoch/epoch.c)
#   output-before-flush  on virtio-pmem, a commit's output is let out at
#                    once, before the flush that makes it durable on the
#                    host completed (kernel/epoch/durable.c)
MUTANTS := unflushed-undo unflushed-pages unfenced-commit early-console \
	output-before-flush
MUTANT_TARGETS := $(addprefix mutant-,$(MUTANTS))

# Each is a variant of the trace kernel (KERNEL_BASE, the Makefile): its
# objects but those of the files that name the mutant's macro. One target
# each, so that make -j builds them side by side.
.PHONY: mutants $(MUTANT_TARGETS)
mutants: $(MUTANT_TARGETS)
$(MUTANT_TARGETS): mutant-%: trace-kernel
	@def=-DFERRITE_MUTANT_$$(echo $* | tr a-z- A-Z_); \
	$(MAKE) --no-print-directory BUILD=$(BUILD)/mutant-$* KERNEL_BASE=$(TRACE_BUILD) \
		KERNEL_DEFS="-DFERRITE_NVM_TRACE $$def" VARIANT_DEFS="$$def" \
		$(BUILD)/mutant-$*/ferrite.elf
