"""benchdata.py -- the results every benchmark script writes for the report.

Each script (run-objstore-bench, run-kernel-bench, run-ckpt-bench,
boot-time, linux-boot-time, run-lxprog-bench...) prints its own tables as before and also
writes one JSON file, build/bench/NAME.json, that tests/bench/report turns
into build/bench/report.md with its plots. The file:

  {"benchmark": NAME, "title": ..., "started": ISO time, "quick": bool,
   "machine": {"cpu", "cores", "loadavg" (1, 5, 15 min at the start),
               "linux", "kvm" (what --accel kvm is here, or null)},
   "figures": {FIGURE: {"title", "what", "x"?: what the x column is}},
   "records": [{"figure", "name", "what", "unit", "accel", "runs",
                "median", "min", "max", "x"?, ...}],
   "notes": [lines the report shows under the benchmark's heading]}

A record is one measured quantity: `median`, `min` and `max` over `runs`
measurements (min and max are null when the program reports only its
median, like the guest's bench and ckptbench). `x` is the quantity a
series is plotted against (heap bytes, objects, dirty pages). Records of
one figure share its unit and accelerator per series.

BENCH_QUICK=1 in the environment asks every script for fewer runs and
fewer points (quick() tells them), for developing the report, not for
figures anyone should quote.
"""

import datetime
import json
import os
import platform
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "..", "..", "build", "bench")


def quick():
    """Whether BENCH_QUICK=1 asks for a short run."""
    return os.environ.get("BENCH_QUICK", "") not in ("", "0")


def cpu_model():
    """The CPU's model name from /proc/cpuinfo."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def kvm_kind():
    """What --accel kvm means on this host: None without /dev/kvm, 'kvm
    (PVM, a software hypervisor)' when the kvm_pvm module drives it (PVM
    runs guests without hardware virtualization: every exit is trapped by
    the outer hypervisor), else 'kvm'."""
    if not os.path.exists("/dev/kvm"):
        return None
    if os.path.isdir("/sys/module/kvm_pvm"):
        return "kvm (PVM, a software hypervisor)"
    return "kvm"


def machine():
    """The machine a benchmark ran on, with the load average now."""
    return {"cpu": cpu_model(), "cores": os.cpu_count(),
            "loadavg": [round(x, 2) for x in os.getloadavg()],
            "linux": platform.release(), "kvm": kvm_kind()}


def spread(values):
    """(median, min, max) of a non-empty list of numbers."""
    return statistics.median(values), min(values), max(values)


class Results:
    """The records of one benchmark run, written to build/bench/NAME.json."""

    def __init__(self, name, title):
        """Start a run now: the machine and its load average are taken here."""
        self.data = {"benchmark": name, "title": title,
                     "started": datetime.datetime.now().isoformat(timespec="seconds"),
                     "quick": quick(), "machine": machine(),
                     "figures": {}, "records": [], "notes": []}

    def figure(self, figure, title, what, x=None):
        """Describe a figure: its title, what it measures, what its x is."""
        fig = {"title": title, "what": what}
        if x:
            fig["x"] = x
        self.data["figures"][figure] = fig

    def add(self, figure, name, unit, accel, values=None, runs=None, median=None,
            lo=None, hi=None, **extra):
        """One record: from the measured `values`, or from a `median` (and
        the `lo` and `hi` extremes, if known) over `runs` that the program
        measured itself. `extra` fields (x, what, objects...) go into the
        record as they are."""
        if values:
            med, lo, hi = spread(values)
            runs = len(values)
        else:
            med = median
        rec = {"figure": figure, "name": name, "unit": unit, "accel": accel,
               "runs": runs, "median": med, "min": lo, "max": hi}
        rec.update(extra)
        self.data["records"].append(rec)

    def note(self, line):
        """A line the report shows under this benchmark's heading."""
        self.data["notes"].append(line)

    def write(self, directory=None):
        """Write build/bench/NAME.json (or into `directory`); its path."""
        directory = directory or OUT_DIR
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, self.data["benchmark"] + ".json")
        with open(path + ".tmp", "w") as f:
            json.dump(self.data, f, indent=1)
            f.write("\n")
        os.replace(path + ".tmp", path)
        return os.path.normpath(path)
