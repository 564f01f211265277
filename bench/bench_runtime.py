"""How fast the reference DDP runtime reports a failure, Burn-faithful vs default, side by side.

For a failing main worker (out of memory on devices[0]), a failing secondary worker (out of
memory on devices[2]) and a stalled worker (devices[1] blocks forever), it measures in-process,
on real threads and tensors:

- fault -> report: from the moment the fault fires to the supervisor's outer panic;
- fault -> others stopped: until every other worker thread has ended (the default mode aborts the
  collective; Burn's leaves them blocked until the process exits).

Targets for the default mode: a failure is reported in under 1 s, a stall in under the collective
timeout + 1 s. A Burn-faithful stall is reported never; the bench waits `--bound` seconds to show it.

    .venv/bin/python bench/bench_runtime.py [--repeat 3] [--timeout 2] [--bound 3]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import sys
import threading
import time
import warnings
from dataclasses import dataclass

from ddpdoctor.runtime import DdpRuntime, Fault, FaultKind, RuntimeConfig, RustPanic
from ddpdoctor.runtime.sync import Halted

warnings.filterwarnings("ignore", message="Failed to initialize NumPy")
DEVICES = ("cpu:0", "cpu:1", "cpu:2")
CASES = {
    "main worker fails": "oom@0:2",
    "worker fails": "oom@2:2",
    "worker stalls": "stall@1:2",
}


@dataclass
class Sample:
    """One run: seconds from the fault to the report and to the last other worker ending."""

    report: float | None
    stopped: float | None


def _measure(spec: str, faithful: bool, timeout: float, bound: float) -> Sample:
    fault = Fault.parse(spec)
    config = RuntimeConfig(devices=DEVICES, faults=(fault,), faithful=faithful, timeout=timeout)
    runtime = DdpRuntime(config, io.StringIO())
    stalled = fault.device if fault.kind is FaultKind.STALL else None
    others = [f"ddp-worker-{i}" for i in range(len(DEVICES)) if i != stalled]

    def fit() -> None:
        with contextlib.suppress(RustPanic, Halted):
            runtime.fit()

    thread = threading.Thread(target=fit, name="bench-fit")
    thread.start()
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline and not all(runtime.scope.first(f"ended {n}") for n in others):
        time.sleep(0.01)
    fault_at = runtime.scope.first("fault")
    report_at = runtime.scope.first("report")
    ended = [runtime.scope.first(f"ended {n}") for n in others]
    runtime.close()
    thread.join()
    assert fault_at is not None, "the fault never fired"
    report = None if report_at is None else report_at - fault_at
    stopped = None if None in ended else max(t for t in ended if t is not None) - fault_at
    return Sample(report, stopped)


def _cell(values: list[float | None], bound: float) -> str:
    if any(v is None for v in values):
        return f"never (> {bound:g} s)"
    numbers = [v for v in values if v is not None]
    return f"{statistics.median(numbers) * 1000:.1f} ms (max {max(numbers) * 1000:.1f})"


def main(argv: list[str]) -> int:
    """Run every case in both modes and print a Markdown table; exit 1 if a default-mode target is missed."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=2.0, help="collective timeout of the default mode")
    parser.add_argument("--bound", type=float, default=3.0, help="how long to wait for a report")
    args = parser.parse_args(argv)
    print(f"devices {','.join(DEVICES)}; collective timeout {args.timeout:g} s; {args.repeat} runs each\n")
    print("| case | mode | fault -> report | fault -> others stopped | target (default) |")
    print("| --- | --- | --- | --- | --- |")
    missed = []
    for case, fault in CASES.items():
        target = args.timeout + 1.0 if "stall" in fault else 1.0
        for faithful in (True, False):
            samples = [_measure(fault, faithful, args.timeout, args.bound) for _ in range(args.repeat)]
            mode = "Burn-faithful" if faithful else "default"
            goal = "" if faithful else f"report < {target:g} s"
            reports = [s.report for s in samples]
            print(
                f"| {case} | {mode} | {_cell(reports, args.bound)} | "
                f"{_cell([s.stopped for s in samples], args.bound)} | {goal} |"
            )
            if not faithful and any(r is None or r >= target for r in reports):
                missed.append(f"{case}: {reports}")
    if missed:
        print("\nmissed targets: " + "; ".join(missed))
        return 1
    print("\nall default-mode targets met")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
