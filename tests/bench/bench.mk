# bench.mk -- benchmarks. Not tests: nothing here fails on time.
#
#   make bench-objstore   objstore against PMDK's libpmemobj, same machine,
#                         same run: build/bench/bench_objstore and
#                         build/bench/bench_pmdk, then the ratio table
#                         (tests/bench/run-objstore-bench; docs/performance.md)
#   make bench-kernel     system calls, object I/O, first-touch faults and
#                         spawn+exit+wait inside Ferrite, in TSC cycles, under
#                         TCG and KVM (tests/bench/run-kernel-bench, bin/bench)
#   make bench-ckpt       resume time (64 MiB and 4 GiB heaps), launch to a
#                         resumed counter's first byte, commit pause against
#                         dirty pages, checkpoint overhead (ckpt=1000 vs 0)
#                         (tests/bench/run-ckpt-bench, bin/ckptbench,
#                         build/bench/fill_heap)
#   make bench-smp        two CPUs against one, side by side under TCG: two
#                         CPU-bound programs (bin/spin) at once, the commit
#                         pause at 64 dirty pages and the stop of another
#                         busy CPU, checkpoint overhead with both CPUs busy;
#                         the two-thread figure waits for threads
#                         (tests/bench/run-smp-bench, bin/spin, bin/ckptbench)
#   make bench-link       the host link: a 64 MiB put and get through the
#                         window, the same through frames alone (2 MiB),
#                         the latency of fe ls, against issue 34's targets
#                         (tests/bench/run-link-bench)
#   make bench-boot       wall time from launching QEMU to the kernel's NVM
#                         line, both boot paths; genesis of a 256 MiB and a
#                         16 GiB heap, side by side (tests/bench/boot-time)
#   make bench-linux      wall time from launching QEMU to the first line of
#                         a Debian kernel + busybox initramfs, the yardstick
#                         for a resumed program (tests/bench/linux-boot-time)
#   make bench-lxprog     Linux programs, the same static binaries in Ferrite
#                         and in the Linux + busybox guest on the same QEMU
#                         (TCG), side by side: system calls in-process
#                         (lxbench), busybox sort, md5sum, tar, gzip timed
#                         from outside (osh's time), SQLite's single-insert
#                         transactions (sqlbench) against ext4 on
#                         virtio-blk, against issue 31's targets
#                         (tests/bench/run-lxprog-bench)
#   make bench-peers      Ferrite measured the way TreeSLS and Aurora measured
#                         themselves: a Redis-like key-value store (kvbench)
#                         at ckpt= 1, 5, 10 and 50 ms against nopersist, and
#                         against the same binary in the Linux guest with its
#                         append-only file fsynced on every write (ext4 on
#                         virtio-blk), side by side, against issue 34's
#                         targets (tests/bench/run-peers-bench)
#   make bench-pmem       the heap on virtio-pmem against the NVDIMM, side
#                         by side: the commit pause against dirty pages,
#                         the checkpoint overhead, flushes a second, commits
#                         a flush, their latency, the most commits a host
#                         crash could lose (tests/bench/run-pmem-bench)
#   make bench-snapshot   snapshots in objstore: taking one (64 MiB vs 4 GiB
#                         with a million objects), the first write to a
#                         page after one with 0, 1 and 5 held, restoring
#                         against the pages changed; and in the kernel, a
#                         write-heavy program with 0, 1 and 5 held
#                         (tests/bench/run-snapshot-bench, bench_snapshot)
#   make nvm-stats        NVM write accounting: bytes stored, write-backs,
#                         line writes, fences, undo bytes, the hottest line,
#                         for genesis, a shell session, the power-cut
#                         programs and kv, traced under --icount 0
#                         (tests/bench/nvm-stats, tools/nvmtrace)
#   make bench-report     build/bench/report.md and its plots from the
#                         build/bench/*.json the benchmarks wrote
#                         (tests/bench/report)
#   make bench            every benchmark, one after the other (never in
#                         parallel: they would time each other), then the
#                         report; BENCH_QUICK=1 for a short run that only
#                         tries the machinery (docs/performance.md)
#
# Benchmark programs: -O2, no sanitizers. The objstore side links
# build/host/libobjstore.a (objstore.mk), the PMDK side -lpmemobj and the
# hashmap_tx example that libpmemobj-dev installs, compiled from the
# installed sources into build/bench/ (never copied into this tree), with
# its own warnings left alone: it is PMDK's code, not ours.
#
# BENCH_ARGS is passed to both programs (e.g. BENCH_ARGS="--runs 3").
# Uses BUILD, CC and WARN from the top-level Makefile.

BENCH_DIR := $(BUILD)/bench
PMDK_EXAMPLES ?= /usr/share/doc/libpmemobj-dev/examples
PMDK_HASHMAP := $(PMDK_EXAMPLES)/hashmap

BENCH_CFLAGS := -std=gnu11 -O2 -g $(WARN) -Iinclude -Iobjstore/include \
	-Itools/host -Itests/bench -idirafter libc/include
BENCH_OBJSTORE := $(BENCH_DIR)/bench_objstore
BENCH_PMDK := $(BENCH_DIR)/bench_pmdk
BENCH_PMDK_COUNT := $(BENCH_DIR)/pmdk_count.so
BENCH_FILL_HEAP := $(BENCH_DIR)/fill_heap
BENCH_SNAPSHOT := $(BENCH_DIR)/bench_snapshot

.PHONY: bench bench-objstore bench-objstore-bins bench-kernel bench-ckpt \
	bench-boot bench-linux bench-report bench-deps nvm-stats bench-snapshot bench-smp \
	bench-link bench-lxprog bench-pmem bench-peers

# Each script writes build/bench/NAME.json; old ones go first, so that the
# report shows this run only and says which benchmark did not run. A
# failing benchmark does not stop the others; make bench fails at the end.
BENCH_RUNS := \
	"tests/bench/run-objstore-bench --bin $(BENCH_DIR) $(BENCH_ARGS)" \
	"tests/bench/boot-time" \
	"tests/bench/run-kernel-bench" \
	"tests/bench/run-ckpt-bench --fill-heap $(BENCH_FILL_HEAP) $(CKPT_BENCH_ARGS)" \
	"tests/bench/run-pmem-bench $(PMEM_BENCH_ARGS)" \
	"tests/bench/run-smp-bench $(SMP_BENCH_ARGS)" \
	"tests/bench/run-snapshot-bench --bin $(BENCH_SNAPSHOT)" \
	"tests/bench/run-link-bench $(LINK_BENCH_ARGS)" \
	"tests/bench/linux-boot-time" \
	"tests/bench/run-lxprog-bench $(LXPROG_BENCH_ARGS)" \
	"tests/bench/run-peers-bench $(PEERS_BENCH_ARGS)" \
	"tests/bench/nvm-stats"

bench: bench-deps
	@$(MAKE) --no-print-directory all trace-kernel bench-objstore-bins $(BENCH_FILL_HEAP) \
		$(BENCH_SNAPSHOT) $(BENCH_LXPROGS) $(BENCH_KVBENCH)
	@rm -f $(BENCH_DIR)/*.json
	@start=$$(date +%s); status=0; \
	for run in $(BENCH_RUNS); do \
		echo "bench: $$run"; $$run || status=1; \
	done; \
	tests/bench/report || status=1; \
	echo "bench: $$(( $$(date +%s) - start )) s"; exit $$status

bench-deps:
	@tools/deps.sh --bench

bench-report:
	@tests/bench/report

bench-boot: deps kernel iso
	@tests/bench/boot-time

bench-linux: bench-deps
	@tests/bench/linux-boot-time

# the programs run on both sides (tests/linux/linux.mk)
BENCH_LXPROGS := $(BUILD)/linux/lxbench $(BUILD)/linux/sqlbench

bench-lxprog: bench-deps
	@$(MAKE) --no-print-directory all $(BENCH_LXPROGS)
	@tests/bench/run-lxprog-bench $(LXPROG_BENCH_ARGS)

# the key-value store run on both sides (tests/linux/linux.mk)
BENCH_KVBENCH := $(BUILD)/linux/kvbench

bench-peers: bench-deps
	@$(MAKE) --no-print-directory all $(BENCH_KVBENCH)
	@tests/bench/run-peers-bench $(PEERS_BENCH_ARGS)

# the traced kernel and the plugin (tools/nvmtrace/nvmtrace.mk)
nvm-stats: all trace-kernel
	@tests/bench/nvm-stats $(NVM_STATS_ARGS)

bench-kernel: all
	@tests/bench/run-kernel-bench

bench-pmem: all
	@tests/bench/run-pmem-bench $(PMEM_BENCH_ARGS)

bench-ckpt: all $(BENCH_FILL_HEAP)
	@tests/bench/run-ckpt-bench --fill-heap $(BENCH_FILL_HEAP) $(CKPT_BENCH_ARGS)

bench-smp: all
	@tests/bench/run-smp-bench $(SMP_BENCH_ARGS)

bench-link: all
	@tests/bench/run-link-bench $(LINK_BENCH_ARGS)

# deps first (it installs libpmemobj-dev), then build, then run: a
# sub-make so that the PMDK files exist before make looks for them.
bench-objstore: deps
	@$(MAKE) --no-print-directory bench-objstore-bins
	@tests/bench/run-objstore-bench --bin $(BENCH_DIR) $(BENCH_ARGS)

bench-objstore-bins: $(BENCH_OBJSTORE) $(BENCH_PMDK) $(BENCH_PMDK_COUNT)

$(BENCH_DIR)/%.o: tests/bench/%.c tests/bench/bench.h
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -MMD -MP -c $< -o $@

$(BENCH_DIR)/bench_pmdk.o: BENCH_CFLAGS += -I$(PMDK_HASHMAP)

$(BENCH_DIR)/hashmap_tx.o: $(PMDK_HASHMAP)/hashmap_tx.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -I$(PMDK_HASHMAP) -c $< -o $@

$(BENCH_OBJSTORE): $(BENCH_DIR)/bench_objstore.o $(BENCH_DIR)/bench_common.o \
		$(NUMTEXT_HOST) $(BUILD)/host/libobjstore.a
	$(CC) -o $@ $^

$(BENCH_PMDK): $(BENCH_DIR)/bench_pmdk.o $(BENCH_DIR)/bench_common.o \
		$(BENCH_DIR)/hashmap_tx.o $(NUMTEXT_HOST)
	$(CC) -o $@ $^ -lpmemobj -lpmem

# Adds objects to a heap image on the host, through the objstore library.
$(BENCH_FILL_HEAP): $(BENCH_DIR)/fill_heap.o $(NUMTEXT_HOST) $(BUILD)/host/libobjstore.a
	$(CC) -o $@ $^

$(BENCH_SNAPSHOT): $(BENCH_DIR)/bench_snapshot.o $(BUILD)/host/libobjstore.a
	$(CC) -o $@ $^

bench-snapshot: all $(BENCH_SNAPSHOT)
	@tests/bench/run-snapshot-bench --bin $(BENCH_SNAPSHOT) $(SNAPSHOT_BENCH_ARGS)

# LD_PRELOADed by bench_pmdk --count: counts PMDK's flushes and fences
$(BENCH_PMDK_COUNT): tests/bench/pmdk_count.c tests/bench/bench.h
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -fPIC -shared -o $@ $< -ldl
