"""tools/probe/kernel.py: the kernel's fair-scheduler constants, for environment.kernel.

The simulator's per-core run queues (sim/pipeline/pipeline_runq.c, `pipeline.run_queues`) run threads
as Linux's fair scheduler does, with three of its constants; `servesim calibrate` fits the fourth,
how many ticks apart an idle core balances, from the ring benchmark under these
(sim/calib/calibrate_runq.c). They are read here, where the probe runs:

- slice_s: this process's base slice, `se.slice` in /proc/self/sched (ns; EEVDF, kernel 6.6 on);
- tick_s: 1 / CONFIG_HZ, from /proc/config.gz or /boot/config-<release>;
- migration_cost_s: /sys/kernel/debug/sched/migration_cost_ns (debugfs; often not readable).

Each is null where it cannot be read; calibrate says what it assumes then (docs/profiles.md).
"""
import gzip
import os
import re


def _slice_s():
    try:
        with open("/proc/self/sched", encoding="ascii") as f:
            for line in f:
                if line.startswith("se.slice"):
                    return int(line.split(":", 1)[1].strip().split(".")[0]) * 1e-9
    except (OSError, ValueError):
        pass
    return None


def _tick_s(release):
    for path, opener in (("/proc/config.gz", gzip.open), (f"/boot/config-{release}", open)):
        try:
            with opener(path, "rt", encoding="ascii") as f:
                for line in f:
                    m = re.fullmatch(r"CONFIG_HZ=(\d+)\s*", line)
                    if m:
                        return 1.0 / int(m.group(1))
        except OSError:
            continue
    return None


def _migration_cost_s():
    try:
        with open("/sys/kernel/debug/sched/migration_cost_ns", encoding="ascii") as f:
            return int(f.read().strip()) * 1e-9
    except (OSError, ValueError):
        return None


def kernel():
    """environment.kernel: {release, slice_s, tick_s, migration_cost_s}, None where not read."""
    release = os.uname().release
    return {"release": release, "slice_s": _slice_s(), "tick_s": _tick_s(release),
            "migration_cost_s": _migration_cost_s()}


if __name__ == "__main__":
    print(kernel())
