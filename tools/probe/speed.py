"""tools/probe/speed.py: the host's speed, checked beside the measurements.

This VM shares its host with other machines, and the host's speed moves: on 2026-11-27 the
same block1 call at batch 1 took 22.1 ms in the micro-benchmarks and 26.5 ms inside the
end-to-end runs a minute later, and 21.8 ms in both twenty minutes after that
(docs/calibration.md). The per-run CPU counters of load.py cannot see it: the cycles go
elsewhere on the host.

The check: the pipeline's whole chain (every process's compute in order: block1, block2,
block3, block4_class) at batch 1 with one torch thread, in the probe's own process while the
pipeline is idle, `rounds` requests after one to warm up; it returns each request's wall time
in seconds. The probe takes it four times beside the micro-benchmarks (phase "micro") and
before and after every end-to-end run (phase "e2e"), logs each run's two checks, and writes
each check as a kind "speed" sample (probe-speed.json); an e2e check names the run it stood
beside (`run`, the run's id in probe-e2e.json) and whether before or after it (`at`).
`servesim calibrate` reports the ratio of the two phases' means and warns when the host moved
(docs/calibration.md, "The host's speed"). The checks are not end-to-end results: nothing of a
run's own requests goes into them. samples() and text() need only the standard library
(name_speed_checks.py uses text() without torch)."""
import statistics
import time


class SpeedCheck:
    """A callable: one speed check, each request's chain time in seconds (a list)."""

    def __init__(self, split, seed=0, rounds=5):
        import torch
        import blocks
        net = blocks.build_resnet(seed=seed)
        piece_map = blocks.pieces(split, net)
        names = blocks.process_names(split)
        self.chain = [piece_map[n][0] for n in names]
        self.x = torch.zeros((1,) + piece_map[names[0]][1])
        self.rounds = rounds

    def __call__(self):
        import torch
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        times = []
        try:
            with torch.inference_mode():
                for k in range(self.rounds + 1):
                    t0 = time.perf_counter()
                    y = self.x
                    for mod in self.chain:
                        y = mod(y)
                    if k:  # the first one warms up
                        times.append(time.perf_counter() - t0)
        finally:
            torch.set_num_threads(threads)
        return times


def samples(checks, model="resnet50-split"):
    """kind "speed" samples, one per check, in order: {"micro": [check, ...], "e2e": [...]} -> list.
    A check is its requests' times (a list), or, beside an end-to-end run, (times, run, at): the
    run's id and "before" or "after", written as the sample's `run` and `at` (between `phase` and
    `latency_s`, where name_speed_checks.py puts them too)."""
    out = []
    for phase, phase_checks in checks.items():
        for check in phase_checks:
            times, run, at = (check, None, None) if isinstance(check, list) else check
            if len(times) < 2:
                continue
            sample = {"kind": "speed", "model": model, "device": "cpu", "threads": 1, "phase": phase}
            if run is not None:
                sample["run"], sample["at"] = run, at
            sample["latency_s"] = [round(t, 7) for t in times]
            out.append(sample)
    return out


def text(times):
    """The median of a check's (or several checks', flattened) requests for the log, ms."""
    flat = [t for x in times for t in (x if isinstance(x, list) else [x])]
    return f"{1e3 * statistics.median(flat):.1f} ms"

