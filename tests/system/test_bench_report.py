"""test_bench_report.py -- the benchmark report generator (tests/bench/report)
on a small made-up data set: every section, table and plot it should write,
and what it says when a benchmark, the Linux kernel or gnuplot is missing.

No benchmark runs and no QEMU starts: the data set is written here with
tests/bench/benchdata.py, the module the benchmark scripts write theirs with.
"""

import os
import shutil
import subprocess
import sys

import pytest

from ferrite import ROOT

sys.path.insert(0, os.path.join(ROOT, "tests", "bench"))
from benchdata import Results  # noqa: E402

REPORT = os.path.join(ROOT, "tests", "bench", "report")
PLOTS = ("objstore-pmdk.svg", "pause.svg", "resume-heap.svg", "resume-objects.svg")


def write_fixture(directory, linux=True):
    """A small data set of every benchmark, in the scripts' own format."""
    objstore = Results("objstore", "objstore against PMDK's libpmemobj")
    objstore.figure("per-op", "objstore against PMDK, time per operation", "same ops")
    for op, os_ns, pmdk_ns in (("tx_alloc_64", [750, 800, 700], [1000, 1100, 1050]),
                               ("open_full", [6000, 6100, 5900], [1.3e6, 1.2e6, 1.4e6])):
        objstore.add("per-op", op, "ns/op", "host", os_ns, side="objstore", target=">= 2x")
        objstore.add("per-op", op, "ns/op", "host", pmdk_ns, side="pmdk", target=">= 2x")
    objstore.write(directory)

    kernel = Results("kernel", "Inside Ferrite")
    kernel.figure("kernel-ops", "Kernel operations seen from user mode", "bin/bench")
    kernel.add("kernel-ops", "null-syscall", "TSC cycles/op", "tcg", runs=7, median=2292,
               what="SYS_NULL round trip")
    kernel.add("kernel-ops", "null-syscall", "TSC cycles/op", "kvm", runs=7, median=2353859,
               what="SYS_NULL round trip")
    kernel.data["machine"]["kvm"] = "kvm (PVM, a software hypervisor)"
    kernel.write(directory)

    boot = Results("boot", "Power-on time")
    boot.figure("boot-to-nvm", "Launch to the end of the kernel's power-on", "launch to line")
    boot.add("boot-to-nvm", "--boot kernel", "s", "tcg", [0.148, 0.136, 0.192])
    boot.write(directory)

    ckpt = Results("ckpt", "Resume and checkpoints")
    ckpt.figure("resume-heap", "Resume time against heap size", "entry to user", x="bytes")
    ckpt.figure("resume-objects", "Resume time against object count", "entry to user",
                x="objects")
    profile = {"boot": 480000, "heap": 2000000, "total": 25000000}
    for label, size, us in (("16 MiB", 16 << 20, [11500, 12000, 13000]),
                            ("4 GiB", 4 << 30, [11400, 12100, 20000])):
        ckpt.add("resume-heap", label, "us", "tcg", us, x=size, objects=0, profile=profile)
    for n, us in ((0, [11000, 11500, 12000]), (1000000, [11200, 11600, 30000])):
        ckpt.add("resume-objects", "4 GiB + %d objects" % n, "us", "tcg", us, x=n,
                 objects=n, profile=profile)
    ckpt.figure("wall", "Wall time from launch to a resumed program", "launch to line")
    ckpt.add("wall", "first console byte", "s", "tcg", [0.28, 0.26, 0.58])
    ckpt.add("wall", "first line of the resumed counter", "s", "tcg", [0.31, 0.27, 0.58])
    ckpt.figure("pause", "Commit pause against dirty pages", "ckptbench pause", x="pages")
    for pages, us, bare in ((1, 8.4, 4.2), (64, 57.8, 90.0), (1024, 813.3, 1500.0)):
        ckpt.add("pause", "%d pages" % pages, "us", "tcg", runs=7, median=us, lo=us * 0.9,
                 hi=us * 1.5, x=pages, logged=pages + 1, bare=bare)
    ckpt.figure("overhead", "Checkpoint overhead", "ckpt=1000 against nopersist and ckpt=0")
    ckpt.add("overhead", "malloc nopersist", "cycles/op", "tcg", [700, 720, 710],
             workload="malloc", ckpt=None, what="malloc/free")
    ckpt.add("overhead", "write-4m ckpt=0", "cycles/op", "tcg", [100, 100, 100],
             workload="write-4m", ckpt=0, what="random writes")
    ckpt.add("overhead", "write-4m ckpt=1000", "cycles/op", "tcg", [110, 110, 110],
             workload="write-4m", ckpt=1000, what="random writes")
    ckpt.add("overhead", "malloc ckpt=0", "cycles/op", "tcg", [759, 760, 770],
             workload="malloc", ckpt=0, what="malloc/free")
    ckpt.add("overhead", "malloc ckpt=1000", "cycles/op", "tcg", [1267, 1200, 1300],
             workload="malloc", ckpt=1000, what="malloc/free")
    ckpt.write(directory)

    smp = Results("smp", "Every CPU")
    smp.figure("targets", "2 CPUs against 1: the targets", "round by round")
    smp.add("targets", "throughput of two spins (host wall time)", "x", "tcg", [1.8, 1.9, 1.6],
            target=">= 1.7x", result="met")
    smp.add("targets", "two-thread write-heavy program, 2 CPUs / 1", "x", "tcg", runs=0,
            target=">= 1.5x", result="not measured yet: needs threads")
    smp.figure("throughput", "Two CPU-bound programs on 1 CPU and on 2", "spin")
    for cpus, wall, guest in ((1, [2.2, 2.4, 2.3], [2200, 2300, 2250]),
                              (2, [1.2, 1.3, 1.4], [1150, 1200, 1250])):
        smp.add("throughput", "%d CPU(s), 2 spins, wall" % cpus, "s", "tcg", wall, cpus=cpus,
                programs=2, clock="wall")
        smp.add("throughput", "%d CPU(s), 2 spins, guest" % cpus, "ms", "tcg", guest,
                cpus=cpus, programs=2, clock="guest")
    smp.figure("pause", "Commit pause at 64 dirty pages", "ckptbench pause 64")
    for part, values in (("pause", [50.0, 55.0, 60.0]), ("stop", [10.0, 12.0, 30.0]),
                         ("pause + stop", [60.0, 67.0, 90.0]), ("pages logged", [65, 65, 65])):
        smp.add("pause", "2 CPUs: " + part, "pages" if part == "pages logged" else "us", "tcg",
                values, machine="smp2-spin", label="2 CPUs, a spin busy on the other",
                cpus=2, busy=True, part=part)
    smp.figure("overhead", "Checkpoint overhead with both CPUs busy", "ckptbench write")
    for ckpt, values in ((0, [400, 410, 420]), (1000, [440, 450, 460])):
        smp.add("overhead", "2 CPUs ckpt=%d" % ckpt, "cycles/op", "tcg", values, cpus=2,
                ckpt=ckpt, label="2 CPUs, a spin busy on the other")
    smp.figure("threads", "Two writer threads of one process on 1 CPU and on 2",
               "ckptbench threads")
    for cpus, ms, held, waited in ((1, [200, 210, 190], [9.0, 9.5, 8.5], [0.0, 0.1, 0.0]),
                                   (2, [110, 120, 100], [8.0, 8.5, 7.5], [4.0, 5.0, 3.0])):
        smp.add("threads", "%d CPU(s)" % cpus, "ms", "tcg", ms, cpus=cpus)
        smp.add("threads", "%d CPU(s): kernel lock held" % cpus, "ms", "tcg", held, cpus=cpus,
                part="lock held")
        smp.add("threads", "%d CPU(s): kernel lock waited for" % cpus, "ms", "tcg", waited,
                cpus=cpus, part="lock waited")
    smp.write(directory)

    link = Results("link", "The host link: bulk transfers and latency")
    link.figure("targets", "The targets of issue 34", "the median against the target")
    link.add("targets", "put 64 MiB (MB/s)", "MB/s", "tcg", [61.0, 58.5, 63.2],
             target=">= 50", result="met")
    link.add("targets", "put: window / frames", "x", "tcg", median=540.0, runs=3,
             target="-", result="-")
    link.figure("rates", "Bulk transfers", "tools/fe put and get")
    link.add("rates", "put 64 MiB, window", "MB/s", "tcg", [61.0, 58.5, 63.2])
    link.figure("latency", "A small request", "LS of bin/")
    link.add("latency", "LS in a session (the request)", "us", "tcg", [2100.0, 1900.0, 2500.0])
    link.write(directory)

    linux_data = Results("linux", "Linux + busybox boot")
    linux_data.figure("linux-boot", "Launch to the first line of Linux + busybox", "qemu")
    if linux:
        linux_data.add("linux-boot", "Linux + busybox: launch to /init's line", "s", "tcg",
                       [5.3, 5.2, 5.6])
    else:
        linux_data.note("skipped: no Debian kernel")
    linux_data.write(directory)

    lxprog = Results("lxprog", "Linux programs: Ferrite against Linux")
    lxprog.figure("targets", "Ferrite against Linux: the targets", "ratio of the medians")
    lxprog.add("targets", "getpid", "x", "tcg", runs=3, median=2.5, lo=2.0, hi=3.0,
               op="getpid", target="<= 1x", result="MISSED", ferrite=5000.0, linux=2000.0,
               speedup=False, value_unit="ns/op")
    lxprog.add("targets", "md5sum of 16 MiB", "x", "tcg", runs=3, median=1.1, lo=1.0, hi=1.15,
               op="md5sum", target="<= 1.2x", result="met", ferrite=0.55, linux=0.5,
               speedup=False, value_unit="s")
    lxprog.figure("syscalls", "System calls, in-process", "lxbench")
    for side, values in (("ferrite", [5000.0, 4000.0, 6000.0]), ("linux", [2000.0, 1900.0, 2100.0])):
        lxprog.add("syscalls", side + ": getpid", "ns/op", "tcg", values, side=side, op="getpid",
                   what="getpid")
    lxprog.write(directory)

    peers = Results("peers", "Ferrite on its peers' workload: a key-value store")
    peers.figure("targets", "The targets of issue 34", "the ratio of the medians")
    peers.add("targets", "the checkpoint's throughput cost at 1 ms, against nopersist", "%",
              "tcg", runs=3, median=31.5, lo=28.0, hi=40.25, target="<= 10 %", result="MISSED")
    peers.add("targets", "Ferrite at 1 ms against Linux's fsync always", "x", "tcg", runs=3,
              median=700.0, lo=650.0, hi=720.0, target=">= 5x", result="met")
    peers.figure("periods", "Ferrite at each checkpoint period", "kvbench")
    peers.add("periods", "ckpt=1000", "ops/s", "tcg", [730000.0, 700000.0, 760000.0],
              setting="ckpt=1000", period_ms=1, cost=31.5, cost_lo=28.0, cost_hi=40.25,
              p99=6.2, p99_ratio=3.4, linux_ratio=700.0, linux_lo=650.0, linux_hi=720.0,
              commits_per_s=12.25, pages_per_s=13672.0, interval_ms=16.3, stalls=2,
              stall_ms=430.4, longest_ms=262.1)
    peers.add("periods", "nopersist", "ops/s", "tcg", [1080000.0, 1000000.0, 1100000.0],
              setting="nopersist", period_ms=None, cost=0.0, cost_lo=0.0, cost_hi=0.0,
              p99=1.8, p99_ratio=1.0, linux_ratio=1040.0, linux_lo=1000.0, linux_hi=1100.0,
              commits_per_s=11.9, pages_per_s=None, interval_ms=None, stalls=0,
              stall_ms=0, longest_ms=0.2)
    peers.figure("throughput", "kvbench's throughput", "in-process")
    peers.figure("latency", "kvbench's latency quantiles", "the TSC")
    for side, config, ops, speed, quantiles in (
            ("ferrite", "ckpt=1000", 2000000, [730000.0, 700000.0, 760000.0],
             (0.8, 6.2, 22.2, 74341.0)),
            ("linux", "fsync always", 2000, [1035.0, 1000.0, 1100.0],
             (1330.0, 4068.0, 4100.0, 4185.0))):
        peers.add("throughput", "%s: %s" % (side, config), "ops/s", "tcg", speed, side=side,
                  config=config, ops=ops)
        for q, v in zip(("p50", "p99", "p99.9", "max"), quantiles):
            peers.add("latency", "%s: %s %s" % (side, config, q), "us", "tcg", [v, v, v],
                      side=side, config=config, quantile=q)
    peers.figure("by-length", "Where the run's time went", "kvbench's histogram")
    for length, ms in (("under 10 us", [2000.0, 1900.0, 2100.0]), ("10 ms or more", [0, 0, 0])):
        peers.add("by-length", "ferrite: ckpt=1000 " + length, "ms", "tcg", ms, side="ferrite",
                  config="ckpt=1000", length=length)
    peers.figure("replies", "A reply leaving the machine", "the host's clock")
    for neighbour, trips in (("none", [1.2, 1.0, 6.5]), ("spin", [26.3, 20.0, 130.5])):
        peers.add("replies", "ckpt=1000, beside " + neighbour, "ms", "tcg", trips,
                  setting="ckpt=1000", neighbour=neighbour)
    peers.add("replies", "ckpt=50000, beside spin", "ms", "tcg", [51.0, 50.2, 56.1],
              setting="ckpt=50000", neighbour="spin")
    peers.write(directory)

    pmem = Results("pmem", "virtio-pmem against the NVDIMM")
    pmem.figure("pause", "Commit pause, virtio-pmem against the NVDIMM", "ckptbench pause",
                x="dirty pages")
    for device, values in (("nvdimm", [13.0, 14.0]), ("virtio", [129.0, 130.0])):
        pmem.add("pause", "%s 1 pages" % device, "us", "tcg", values, x=1)
    pmem.figure("overhead", "Checkpoint overhead on each device", "ckptbench write")
    pmem.add("overhead", "virtio ckpt=1000", "cycles/op", "tcg", [364, 370])
    pmem.figure("flushes", "Flushes on virtio-pmem", "during the writes")
    pmem.add("flushes", "flush mean", "us", "tcg", [42651.0, 40000.0])
    pmem.write(directory)

    nvm = Results("nvm", "NVM write accounting")
    nvm.figure("nvm-writes", "NVM writes per workload", "traced power-ons")
    for column, values in (("guest ms", [45.7, 45.7, 45.8]),
                           ("bytes stored", [4336482, 4336482, 4336500])):
        nvm.add("nvm-writes", "genesis: " + column, column, "tcg", values,
                workload="genesis", column=column)
    nvm.add("nvm-writes", "genesis: hottest line", "line writes", "tcg", [18],
            workload="genesis", column="hottest line", line="0x100",
            owner="superblock (committed epoch)")
    nvm.write(directory)


def make_report(tmp_path, env=None):
    """Run the generator on tmp_path/data; the report's text and its plot directory."""
    out = tmp_path / "out" / "report.md"
    p = subprocess.run([sys.executable, REPORT, "--data", str(tmp_path / "data"),
                        "--out", str(out)], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    return out.read_text(), tmp_path / "out" / "plots"


@pytest.mark.skipif(not shutil.which("gnuplot"), reason="gnuplot-nox (tools/deps.sh) missing")
def test_report_has_every_section_table_and_plot(tmp_path):
    write_fixture(str(tmp_path / "data"))
    text, plots = make_report(tmp_path)
    for heading in ("## The machine", "## objstore against PMDK", "## Inside Ferrite",
                    "## Power-on time",
                    "### Resume time against heap size", "### Resume time against object count",
                    "### Wall time to a resumed program", "### Commit pause against dirty pages",
                    "### Checkpoint overhead",
                    "## virtio-pmem against the NVDIMM (`make bench-pmem`)",
                    "## Every CPU (`make bench-smp`)",
                    "## Linux + busybox boot",
                    "## The host link: bulk transfers and latency (`make bench-link`)",
                    "## NVM write accounting (`make nvm-stats`)",
                    "## Linux programs: Ferrite against Linux (`make bench-lxprog`)",
                    "## Ferrite on its peers' workload: a key-value store (`make bench-peers`)"):
        assert heading in text, heading
    # what was measured, where, median of how many runs, the spread
    assert "accelerator: tcg; median of 3 runs" in text
    assert "kvm (PVM, a software hypervisor)" in text
    assert "| `tx_alloc_64` | 750.0 ns | 700.0 ns – 800.0 ns | 1050.0 ns |" in text
    assert "| `null-syscall` | SYS_NULL round trip | 2,292 | 2,353,859 |" in text
    assert "| 4 GiB | 0 | 12,100 us | 11,400 us – 20,000 us | 3 |" in text
    assert "| virtio 1 pages | 130 us | 129 us – 130 us | 2 |" in text
    assert "| flush mean | 41,326 us | 40,000 us – 42,651 us | 2 |" in text
    assert "| 1,024 | 813 us | 732 us – 1,220 us | 1,025 | 0.79 us | 1,500 us | 0.54x |" in text
    assert "| 1 | 8.4 us | 7.6 us – 12.6 us | 2 | 8.40 us | 4.2 us | 2.00x |" in text
    assert "| malloc/free | 710 | 760 | 759 – 770 | 1,267 | 1,200 – 1,300 | +78.5 % | +66.7 % |" in text
    # A workload measured without the baseline shows no slowdown against it.
    assert "| random writes | - | 100 | 100 – 100 | 110 | 110 – 110 | - | +10.0 % |" in text
    assert "| --boot kernel | 0.148 s | 0.136 s – 0.192 s | 3 |" in text
    assert ("| throughput of two spins (host wall time) | 1.80x | 1.60x – 1.90x | >= 1.7x | met |"
            in text)
    assert ("| two-thread write-heavy program, 2 CPUs / 1 | - | - | >= 1.5x | "
            "not measured yet: needs threads |" in text)
    assert ("| two spins | guest time | 2,250 ms | 2,200 ms – 2,300 ms | 1,200 ms | "
            "1,150 ms – 1,250 ms | 1.88x |" in text)
    assert ("| 2 CPUs, a spin busy on the other | 55.0 us | 50.0 us – 60.0 us | 12.0 us | "
            "10.0 us – 30.0 us | 67.0 us | 65 |" in text)
    assert ("| 2 CPUs, a spin busy on the other | 410 | 400 – 420 | 450 | 440 – 460 | +9.8 % |"
            in text)
    assert "| two writer threads | 200 ms | 190 ms – 210 ms | 110 ms | 100 ms – 120 ms | 1.82x |" in text
    assert ("| the kernel lock waited for, every CPU | 0 ms | 0 ms – 0 ms | 4 ms | 3 ms – 5 ms | - |"
            in text)
    assert "| put 64 MiB (MB/s) | 61.0 MB/s | 58.5 MB/s – 63.2 MB/s | >= 50 | met |" in text
    assert "| put: window / frames | 540.00x | - | - | - |" in text
    assert "| LS in a session (the request) | 2,100 us | 1,900 us – 2,500 us | 3 |" in text
    assert "takes 5.300 s to its first line, 17x Ferrite's 0.310 s" in text
    # Issue 34's targets gathered at the top, each from its benchmark's run
    assert text.index("## Issue 34's targets") < text.index("## objstore against PMDK")
    assert "| objstore | `tx_alloc_64`, PMDK / objstore | 1.40x | >= 2x | missed |" in text
    assert "| write path | commit pause at 1024 pages / bare | 0.54x | <= 2x | met |" in text
    assert "| host link | put 64 MiB (MB/s) | 61.0 MB/s | >= 50 | met |" in text
    assert ("| genesis | 45.7 | 4,336,482 | 0x100 (superblock (committed epoch)), 18 |"
            in text)
    assert "| getpid | 5000.0 ns | 2000.0 ns | 2.50x | 2.00x – 3.00x | <= 1x | **MISSED** |" in text
    assert "| md5sum of 16 MiB | 550.0 ms | 500.0 ms | 1.10x | 1.00x – 1.15x | <= 1.2x | met |" in text
    assert "Missed: getpid." in text
    assert "| getpid | 5000.0 ns | 4000.0 ns – 6000.0 ns | 2000.0 ns | 1900.0 ns – 2100.0 ns |" in text
    assert ("| the checkpoint's throughput cost at 1 ms, against nopersist | 31.5 % | "
            "28.0 – 40.2 % | <= 10 % | **MISSED** |" in text)
    assert ("| Ferrite at 1 ms against Linux's fsync always | 700.00x | 650.00x – 720.00x | "
            ">= 5x | met |" in text)
    assert ("| ckpt=1000 | 730,000 | 31.5 % | 28.0 – 40.2 % | 6.2 us | 3.40x | 700.00x | "
            "650.00x – 720.00x | 12.2 | 13,672 | 16.3 ms | 2, 430 ms in all, the longest "
            "262 ms |" in text)
    assert ("| nopersist | 1,080,000 | 0.0 % | 0.0 – 0.0 % | 1.8 us | 1.00x | 1040.00x | "
            "1000.00x – 1100.00x | 11.9 | - | - | 0, 0 ms in all, the longest 0 ms |" in text)
    assert ("| ferrite ckpt=1000 | 2,000,000 | 730,000 | 0.8 us | 6.2 us | 22.2 us | 74,341 us |"
            in text)
    assert ("| linux fsync always | 2,000 | 1,035 | 1,330 us | 4,068 us | 4,100 us | 4,185 us |"
            in text)
    assert ("| setting | beside none: median (max) | beside spin: median (max) |" in text)
    assert "| ckpt=1000 | 1.2 ms (6.5 ms) | 26.3 ms (130.5 ms) |" in text
    assert "| ckpt=50000 | - | 51.0 ms (56.1 ms) |" in text
    assert "| configuration | under 10 us | 10 ms or more | in all |" in text
    assert "| ferrite ckpt=1000 | 2,000.0 | 0.0 | 2,000.0 |" in text
    assert "Not run" not in text
    for plot in PLOTS:
        svg = (plots / plot).read_text()
        assert svg.startswith("<?xml") and "</svg>" in svg, plot
        assert "](plots/%s)" % plot in text


def test_report_says_what_is_missing(tmp_path):
    """No kernel benchmark, no Linux kernel, no gnuplot: each said, nothing fails."""
    write_fixture(str(tmp_path / "data"), linux=False)
    os.unlink(tmp_path / "data" / "kernel.json")
    empty = tmp_path / "bin"
    empty.mkdir()
    text, plots = make_report(tmp_path, env=dict(os.environ, PATH=str(empty)))
    assert "Not run: no kernel.json (`make bench-kernel`)." in text
    assert "Linux + busybox: not measured: skipped: no Debian kernel." in text
    assert text.count("no plot: gnuplot is not installed") == len(PLOTS)
    assert not plots.exists()


def test_report_without_data(tmp_path):
    (tmp_path / "data").mkdir()
    text, _ = make_report(tmp_path)
    assert "No benchmark has run" in text
