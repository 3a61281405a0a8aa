# Ferrite -- top-level build.
#
#   make            build the kernel, the ISO and the host tools
#   make run        build, then power Ferrite on in QEMU (tools/run-qemu)
#   make debug      build, then Ferrite paused in QEMU with gdb attached and
#                   the fe-* commands loaded (tools/debug, docs/debugging.md);
#                   IMAGE=PATH, ACCEL=kvm, GDB_PORT=N, DEBUG_ARGS='--boot
#                   kernel --append crash=panic' (more run-qemu options)
#   make test       build (one job per CPU), then run every test (as many at
#                   a time); ends with the 15 slowest tests and one summary
#                   line. The KVM boot runs only where KVM is fast
#                   (tests/system/kvmprobe.py), and a line says why not
#   make test-kvm   the KVM boot test alone, whatever KVM's speed
#   make torture    the long power-cut campaign (CUTS=200 cuts, SEED=...),
#                   with sysfuzz in the workload
#   make fuzz       the fuzzing campaigns: fuzz-images (hostile images,
#                   TRIALS=..., SEED=...), fuzz-calls (sysfuzz, >= 1,000,000
#                   random system calls, FUZZ_CALLS=..., FUZZ_SEED=...) and
#                   fuzz-link (malformed host-link frames, LINK_FRAMES=...,
#                   LINK_SEED=...) and fuzz-linux (sysfuzz's Linux mode:
#                   1,000,000 random Linux calls, LINUX_CALLS=...,
#                   LINUX_SEED=...)
#   make bench      every benchmark, then build/bench/report.md with plots
#                   (tests/bench/bench.mk, docs/performance.md)
#   make clean      remove build/ (never var/, where the NVM images live)
#   make plant      build/plant/ferrite.elf: a kernel with a planted bug, for
#                   the log checker's test (docs/logcheck.md)
#   make nvm-stats  NVM write accounting of genesis, a shell session, the
#                   power-cut programs, malloc, kv and the wear program,
#                   with the DRAM cache and without: bytes stored,
#                   write-backs, line writes, fences, undo bytes, the
#                   hottest lines (tests/bench/nvm-stats, docs/performance.md)
#   make trace-kernel  build/trace/ferrite.elf, the kernel tools/run-qemu
#                   --trace-nvm boots (docs/persistence-model.md)
#   make mutants    trace kernels with a persistence bug planted, which the
#                   crash states must catch (docs/persistence-model.md)
#   make install IMAGE=PATH [PROGRAMS="a b"]  put the built programs (all of
#                   build/user/bin by default) into a powered-off image as
#                   bin/NAME, each replacing the old one; running processes
#                   keep their code; refused while QEMU holds the image
#                   (docs/programs.md)
#   make persist-check  the long crash-state campaign: every ordering point
#                   of genesis, a session and kv, most of a workload's, 600
#                   power-ons; and the host-crash states on virtio-pmem
#                   (docs/persistence-model.md)
#
# Everything built lands in build/. Sources are found by folder: every .c and
# .S under boot/ and kernel/ is part of the kernel, with libc/*.c and the
# objstore library (objstore/*.c), which the host tools share.

BUILD := build
CC := gcc
LD := ld
OBJCOPY := objcopy
PYTHON := /usr/bin/python3

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes

# --- the kernel --------------------------------------------------------------

FREESTANDING_INC := -nostdinc -isystem $(shell $(CC) -print-file-name=include)
KERNEL_CFLAGS := -std=gnu11 -O2 -g $(WARN) -ffreestanding -fno-builtin \
	-fno-pic -fno-pie -mno-red-zone -mcmodel=kernel -mgeneral-regs-only \
	-fno-stack-protector -fno-omit-frame-pointer -fno-asynchronous-unwind-tables \
	-fno-strict-aliasing -fno-common -mno-sse -mno-mmx -mno-80387 \
	$(FREESTANDING_INC) -Iinclude -Ilibc/include -Ikernel -Iobjstore/include \
	$(KERNEL_DEFS)
KERNEL_ASFLAGS := $(KERNEL_CFLAGS) -D__ASSEMBLY__
KERNEL_LDFLAGS := -nostdlib -static -z max-page-size=0x1000 -z noexecstack \
	--no-warn-rwx-segments -T linker.ld

# The include rules (tools/check-layers, docs/architecture.md): kernel
# includes point down the rooms (tools/layers.py), never up or across; only
# kernel/arch/ includes kernel/arch/<arch>/ headers; objstore's private
# headers stay objstore's. Checked on every make.
LAYER_PROBLEMS := $(shell test -x $(PYTHON) && $(PYTHON) tools/check-layers)
ifneq ($(LAYER_PROBLEMS),)
$(error the include rules are broken (tools/check-layers): $(LAYER_PROBLEMS))
endif

KERNEL_SRCS := $(sort $(shell find boot kernel -name '*.c' -o -name '*.S')) \
	$(sort $(wildcard libc/*.c)) $(sort $(wildcard objstore/*.c))
KERNEL_OBJS := $(patsubst %,$(BUILD)/kernel-obj/%.o,$(KERNEL_SRCS))

# A variant of a kernel build (the planted kernel, the mutants): KERNEL_BASE
# is the build it differs from only by the macros VARIANT_DEFS (which
# KERNEL_DEFS holds too), built first. A macro changes nothing in a file
# that never names it, so the variant links the base's objects and compiles
# again only the sources that name one of those macros, themselves or in a
# header they include (as the base's dependency files list them): one or
# two files, not the whole kernel.
ifdef KERNEL_BASE
VARIANT_NAMED := $(abspath $(shell grep -rlw $(patsubst -D%,-e %,$(VARIANT_DEFS)) \
	boot kernel libc objstore include))
variant_own = $(filter $(VARIANT_NAMED),\
	$(abspath $(1) $(file <$(KERNEL_BASE)/kernel-obj/$(1).d)))
KERNEL_OBJS := $(foreach s,$(KERNEL_SRCS),\
	$(if $(call variant_own,$(s)),$(BUILD),$(KERNEL_BASE))/kernel-obj/$(s).o)
endif

.PHONY: all kernel iso tools objstore run debug test unit-test system-test \
	torture clean deps
all: kernel user iso tools

kernel: $(BUILD)/ferrite.elf

$(BUILD)/kernel-obj/%.c.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(KERNEL_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/kernel-obj/%.S.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(KERNEL_ASFLAGS) -MMD -MP -c $< -o $@

# The call rules between the kernel's files and rooms (tools/check-calls,
# docs/architecture.md), checked before every link.
$(BUILD)/ferrite.elf: $(KERNEL_OBJS) linker.ld tools/check-calls tools/layers.py
	@$(PYTHON) tools/check-calls $(KERNEL_OBJS)
	$(LD) $(KERNEL_LDFLAGS) -o $@ $(KERNEL_OBJS)

# --- the GRUB rescue ISO (multiboot2) ----------------------------------------

iso: $(BUILD)/ferrite.iso

# The user programs (USER_PROGRAMS, user/user.mk) the ISO carries as
# multiboot2 modules: each is copied to /boot/bin/NAME and loaded by a
# `module2 /boot/bin/NAME NAME` line added to grub.cfg before `boot`; the
# kernel imports them as bin/NAME at genesis.
include user/user.mk

$(BUILD)/ferrite.iso: $(BUILD)/ferrite.elf boot/grub.cfg $(USER_PROGRAMS)
	@mkdir -p $(BUILD)/iso/boot/grub
	cp $(BUILD)/ferrite.elf $(BUILD)/iso/boot/ferrite.elf
	rm -rf $(BUILD)/iso/boot/bin && mkdir -p $(BUILD)/iso/boot/bin
	$(if $(USER_PROGRAMS),cp $(USER_PROGRAMS) $(BUILD)/iso/boot/bin/)
	awk -v programs="$(notdir $(USER_PROGRAMS))" \
		'/^[ \t]*boot[ \t]*$$/ { n = split(programs, p, " "); \
		  for (i = 1; i <= n; i++) printf "\tmodule2 /boot/bin/%s %s\n", p[i], p[i] } \
		 { print }' boot/grub.cfg > $(BUILD)/iso/boot/grub/grub.cfg
	grub-mkrescue -o $@ $(BUILD)/iso 2>$(BUILD)/grub-mkrescue.log || \
		{ cat $(BUILD)/grub-mkrescue.log; exit 1; }

# --- host tools and tests ----------------------------------------------------

include tests/unit/unit.mk
include objstore/objstore.mk
include tools/objtool/objtool.mk
include tools/heapformat/heapformat.mk
include tests/bench/bench.mk
include tools/nvmtrace/nvmtrace.mk
include tests/linux/linux.mk

tools: $(UNIT_TESTS) objstore $(BUILD)/objtool $(HEAPFORMAT_JSON) $(NVMTRACE_PLUGIN)

# A kernel with a bug planted on purpose: one write of every commit skips
# its log record (FERRITE_PLANT_UNLOGGED, kernel/epoch/epoch.c), so the log
# checker's test (tests/system/test_logcheck.py) sees it fail. Built in a
# build directory of its own, never in place of $(BUILD)/ferrite.elf, as a
# variant of it (KERNEL_BASE above: its objects, but epoch.c's).
PLANT_BUILD := $(BUILD)/plant
.PHONY: plant
plant: kernel
	@$(MAKE) --no-print-directory BUILD=$(PLANT_BUILD) KERNEL_BASE=$(BUILD) \
		KERNEL_DEFS=-DFERRITE_PLANT_UNLOGGED VARIANT_DEFS=-DFERRITE_PLANT_UNLOGGED \
		$(PLANT_BUILD)/ferrite.elf

deps:
	@tools/deps.sh

run: deps all
	tools/run-qemu $(RUN_ARGS)

debug: deps all
	tools/debug $(if $(GDB_PORT),--port $(GDB_PORT)) $(if $(IMAGE),--image $(IMAGE)) \
		$(if $(ACCEL),--accel $(ACCEL)) $(DEBUG_ARGS)

# What the tests need built, built one job per CPU unless make was given -j.
# (MAKEFLAGS holds -j only once recipes run, so the test is in the recipe.)
NPROC := $(shell nproc 2>/dev/null || echo 1)
TEST_BUILD_JOBS = $(if $(findstring -j,$(MAKEFLAGS)),,-j$(NPROC))
.PHONY: test-build test-kvm
test-build: all plant trace-kernel mutants crash-mutants linux-programs

test: deps
	@$(MAKE) --no-print-directory $(TEST_BUILD_JOBS) test-build
	@$(PYTHON) tests/run-all

unit-test: $(UNIT_TESTS)
	@$(PYTHON) tests/run-all --unit-only

system-test:
	@$(MAKE) --no-print-directory $(TEST_BUILD_JOBS) test-build
	@$(PYTHON) tests/run-all --system-only

# The KVM boot (tests/system/test_boot.py), whatever the speed probe says
# (make test skips it where KVM is slow or absent, and says why).
test-kvm: deps all
	@$(PYTHON) tests/run-all --system-only --kvm-boot force -k test_kvm_boot

# The long form of the power-cut campaign (docs/powercut.md): CUTS random
# power cuts under the mixed workload, SEED to replay a run; the image and
# the console log of every power-on are left in build/torture/.
CUTS := 200
torture: deps all linux-programs
	@$(PYTHON) tests/system/powercut.py --cuts $(CUTS) $(if $(SEED),--seed $(SEED)) $(if $(PMEM),--pmem $(PMEM))

# The hostile-image campaign (docs/hostile-images.md): TRIALS corrupted
# images powered on in QEMU, SEED to replay a run; failing images are kept
# in build/hostile/. `make test` runs a quick one (test_hostile.py).
TRIALS := 1000
.PHONY: fuzz fuzz-images
fuzz: fuzz-images
fuzz-images: deps all
	@$(PYTHON) tests/system/hostile.py --trials $(TRIALS) $(if $(SEED),--seed $(SEED))

# The system-call fuzzer's campaign (docs/fuzzing.md): sysfuzz with seeds
# FUZZ_SEED, FUZZ_SEED+1, ... until FUZZ_CALLS calls (default 1,000,000),
# under the log checker; no panic, no hang, no leak, a clean image. The
# image and the console log are left in build/fuzz/.
.PHONY: fuzz fuzz-calls
fuzz: fuzz-calls
fuzz-calls: deps all
	@$(PYTHON) tests/system/sysfuzz.py $(if $(FUZZ_CALLS),--calls $(FUZZ_CALLS)) \
		$(if $(FUZZ_SEED),--seed $(FUZZ_SEED))

# The host link's frame fuzzing, long form (docs/hostlink.md): LINK_FRAMES
# malformed frames at a running machine (make test sends 200), LINK_SEED to
# replay a run.
LINK_FRAMES := 5000
.PHONY: fuzz fuzz-link
fuzz: fuzz-link
fuzz-link: deps all
	@FERRITE_LINKFUZZ_FRAMES=$(LINK_FRAMES) $(if $(LINK_SEED),FERRITE_LINKFUZZ_SEED=$(LINK_SEED)) \
		$(PYTHON) -m pytest -q -p no:cacheprovider tests/system/test_hostlink.py -k malformed

# sysfuzz's Linux mode, long form (docs/fuzzing.md, tests/linux/lxfuzz.c):
# LINUX_CALLS random Linux calls under the log checker (make test makes
# 2 x 10,000), LINUX_SEED to replay a run.
LINUX_CALLS := 1000000
.PHONY: fuzz fuzz-linux
fuzz: fuzz-linux
fuzz-linux: deps all linux-programs
	@FERRITE_LXFUZZ_CALLS=$(LINUX_CALLS) $(if $(LINUX_SEED),FERRITE_LXFUZZ_SEED=$(LINUX_SEED)) \
		$(PYTHON) -m pytest -q -p no:cacheprovider tests/system/test_linux.py -k lxfuzz

# The long crash-state campaign (docs/persistence-model.md): the crash
# tests of test_persistence.py at every ordering point of genesis, of the
# session and of kv, 1,500 of the workload's and all of its commits and
# page logs, with 600 crash states powered on; and the host-crash states
# of test_persistence_virtio.py at every flush edge, commit end and
# console output of its session and workload and 200 random places of
# each, 70 powered on. `make test` runs the quick form.
.PHONY: persist-check
persist-check: deps all trace-kernel
	@PERSIST_CHECK=long $(PYTHON) -m pytest -q -s -p no:cacheprovider \
		tests/system/test_persistence.py tests/system/test_persistence_virtio.py \
		-k crash_states

# Programs into a powered-off image (docs/programs.md): one objtool import
# each, its own transaction; objtool refuses an image a QEMU holds (exit 6).
.PHONY: install
install: user $(BUILD)/objtool
	@test -n "$(IMAGE)" || { echo "make install: IMAGE=PATH is required (the image, powered off)"; exit 2; }
	@test -f "$(IMAGE)" || { echo "make install: no image $(IMAGE)"; exit 1; }
	@for p in $(or $(PROGRAMS),$(notdir $(wildcard $(BUILD)/user/bin/*))); do \
		test -f $(BUILD)/user/bin/$$p || { echo "make install: no program $$p in $(BUILD)/user/bin"; exit 1; }; \
		$(BUILD)/objtool "$(IMAGE)" import bin/$$p $(BUILD)/user/bin/$$p --type code --replace \
			>/dev/null || exit $$?; \
		echo "install: bin/$$p"; \
	done

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
