"""What `ddpdoctor run` costs a healthy job, and how long `stacks` takes for eight ranks.

1. Overhead, end to end: the same healthy torchrun job (gloo on CPU, two ranks, a 256x256 matmul
   and an all_reduce per step, a line of output every 20 steps; by default 12000 steps: 46-83 s a
   run, torchrun's start included, on the shared 2-core development machine at load 6-10) runs as
   `torchrun ...` and as `ddpdoctor run -o DIR -- torchrun ...`: the command line in a new process
   (its start, the supervisor with full instrumentation: startup hook, per-rank capture over
   sockets, Flight Recorder buffers, heartbeat folder, hang watch; the report and the bundle at
   the end), both with standard output to a pipe. Rounds are interleaved, the order alternating
   (plain first, then run first), so that a slow spell of a shared machine hits both sides alike.
   Reported: the median of the per-round wall-time ratios with a 95% bootstrap confidence interval
   and the range of the ratios, the ratio of the medians, and the same per-round ratios for two
   CPU views that the load of other programs disturbs much less: the CPU time of every process
   (ddpdoctor itself included), and the CPU time of the ranks' training loops alone (what the
   instrumentation costs per step).
   Target: wall-time ratio <= 1.02. With `--decompose`, a third variant runs under
   `ddpdoctor run --no-instrument` (supervision and output capture only).
2. The fixed cost, apart: `ddpdoctor run -- python -c ...` against `python -c ...` (interleaved),
   split into the delay before the job's first statement and the time after it exits (report,
   bundle): what a run adds once, however long the job.
3. Stack collection: an eight-rank job that hangs (rank 1 sleeps, seven ranks wait in all_reduce);
   the time to find its ranks, take every stack with py-spy and merge them. Target: < 3 s.

    .venv/bin/python bench/bench_run.py [--rounds 8] [--steps 12000] [--nproc 2] [--stack-ranks 8] [--decompose]

Measurements are recorded in docs/run.md ("Measurements").
"""

from __future__ import annotations

import argparse
import os
import random
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ddpdoctor.supervise import find_processes, hang_report, procfs

warnings.filterwarnings("ignore", message="Failed to initialize NumPy")
HANG_JOB = Path(__file__).resolve().parent.parent / "ddpdoctor" / "scenarios" / "jobs" / "hang.py"
HEALTHY_JOB = """
import sys, time, torch, torch.distributed as dist
torch.set_num_threads(1)
dist.init_process_group("gloo")
rank = dist.get_rank()
weights = torch.randn(256, 256)
started = time.process_time()
for step in range(int(sys.argv[1])):
    grad = weights @ torch.randn(256, 256) / 256
    dist.all_reduce(grad)
    weights -= 1e-3 * grad
    if step % 20 == 0:
        print(f"rank {rank} step {step} norm {float(weights.norm()):.3f}", flush=True)
print(f"loop-cpu {rank} {time.process_time() - started:.6f}", flush=True)
dist.destroy_process_group()
"""
# The job of the fixed-cost measurement: it prints when its first statement runs.
FIRST_STATEMENT = "import time; print(time.time())"
MARK = "DDPDOCTOR_BENCH_MARK"
# The line each rank of the healthy job ends with: the CPU seconds its training loop took.
LOOP_CPU = "loop-cpu"
TARGET = 1.02
BOOTSTRAP_RESAMPLES = 10000


def _torchrun(nproc: int, *args: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        "--nproc-per-node",
        str(nproc),
        *args,
    ]


def _under_run(command: Sequence[str], folder: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "ddpdoctor", "run", "-o", str(folder), *extra, "--", *command]


@dataclass
class Sample:
    """One run of a command: wall seconds, CPU seconds of all its processes and of the ranks'
    training loops (summed), and what it wrote to standard output."""

    wall: float
    cpu: float
    loop_cpu: float
    launched: float
    output: str


def _loop_cpu(output: str) -> float:
    """The sum of the ranks' `loop-cpu` figures (ranks writing at once may run their lines together)."""
    return sum(float(x) for x in re.findall(rf"{LOOP_CPU} \d+ (\d+\.\d{{6}})", output))


def _cpu(usage: resource.struct_rusage) -> float:
    return usage.ru_utime + usage.ru_stime


def _measure(command: Sequence[str]) -> Sample:
    """Run `command` (stdout to a pipe, stderr dropped) and measure it; exit when it fails."""
    before = _cpu(resource.getrusage(resource.RUSAGE_CHILDREN))
    launched = time.time()
    started = time.monotonic()
    done = subprocess.run(command, check=False, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    wall = time.monotonic() - started
    cpu = _cpu(resource.getrusage(resource.RUSAGE_CHILDREN)) - before
    output = done.stdout.decode(errors="replace")
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:6])} ... failed ({done.returncode}): {output[-2000:]!r}")
    return Sample(wall, cpu, _loop_cpu(output), launched, output)


def _bootstrap_median(values: Sequence[float], level: float = 0.95) -> tuple[float, float]:
    """A percentile-bootstrap confidence interval for the median of `values`."""
    rng = random.Random(0)
    medians = sorted(
        statistics.median(rng.choices(values, k=len(values))) for _ in range(BOOTSTRAP_RESAMPLES)
    )
    tail = (1 - level) / 2
    return medians[int(tail * len(medians))], medians[int((1 - tail) * len(medians)) - 1]


@dataclass(frozen=True)
class Ratios:
    """Per-round ratios of a variant to plain, summarised: median, its 95% interval, the range."""

    median: float
    low: float
    high: float
    spread: tuple[float, float]

    def __str__(self) -> str:
        return f"{self.median:.3f} ({self.low:.3f}-{self.high:.3f})"


def _ratios(samples: Sequence[Sample], base: Sequence[Sample], measure: Callable[[Sample], float]) -> Ratios:
    ratios = [measure(x) / measure(b) for x, b in zip(samples, base, strict=True)]
    low, high = _bootstrap_median(ratios)
    return Ratios(statistics.median(ratios), low, high, (min(ratios), max(ratios)))


def _wall(sample: Sample) -> float:
    return sample.wall


def _row(name: str, samples: list[Sample], base: list[Sample]) -> str:
    walls = [x.wall for x in samples]
    wall = _ratios(samples, base, _wall)
    cpu = _ratios(samples, base, lambda x: x.cpu)
    loop = _ratios(samples, base, lambda x: x.loop_cpu)
    return (
        f"| {name} | {statistics.median(walls):.2f} s | {wall} | {wall.spread[0]:.3f}-{wall.spread[1]:.3f} "
        f"| {statistics.median(walls) / statistics.median(x.wall for x in base):.3f} | {cpu} | {loop} "
        f"| {', '.join(f'{t:.1f}' for t in walls)} |"
    )


def _interleaved(variants: dict[str, Callable[[int], Sample]], rounds: int) -> dict[str, list[Sample]]:
    """Every variant once per round, in an order that alternates from round to round."""
    samples: dict[str, list[Sample]] = {name: [] for name in variants}
    for index in range(rounds):
        order = list(variants) if index % 2 == 0 else list(reversed(variants))
        for name in order:
            samples[name].append(variants[name](index))
        walls = ", ".join(f"{name} {samples[name][-1].wall:.1f} s" for name in variants)
        print(f"round {index + 1}/{rounds}: {walls}", file=sys.stderr, flush=True)
    return samples


def overhead(rounds: int, steps: int, nproc: int, scratch: Path, *, decompose: bool) -> Ratios:
    """Print the plain vs supervised times; return the per-round wall-time ratios of `run`."""
    script = scratch / "healthy.py"
    script.write_text(HEALTHY_JOB, encoding="utf-8")
    command = _torchrun(nproc, str(script), str(steps))
    variants: dict[str, Callable[[int], Sample]] = {
        "plain torchrun": lambda _: _measure(command),
        "ddpdoctor run": lambda i: _measure(_under_run(command, scratch / f"run{i}")),
    }
    if decompose:
        variants["ddpdoctor run --no-instrument"] = lambda i: _measure(
            _under_run(command, scratch / f"bare{i}", "--no-instrument")
        )
    samples = _interleaved(variants, rounds)
    plain = samples["plain torchrun"]
    print(f"healthy job: {nproc} ranks, {steps} steps, {rounds} rounds, order alternating each round\n")
    print(
        "| | median wall | wall ratio: median of rounds (95% CI) | range of wall ratios | ratio of median walls "
        "| CPU of all processes: ratio (95% CI) | CPU of the training loops: ratio (95% CI) "
        "| all rounds (wall, s) |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name in variants:
        print(_row(name, samples[name], plain))
    return _ratios(samples["ddpdoctor run"], plain, _wall)


def fixed_cost(repeat: int, scratch: Path) -> None:
    """Print what `run` adds to a job that does nothing: before its first statement, and after it."""
    command = [sys.executable, "-c", FIRST_STATEMENT]
    samples = _interleaved(
        {
            "plain": lambda _: _measure(command),
            "run": lambda i: _measure(_under_run(command, scratch / f"fixed{i}")),
        },
        repeat,
    )

    def split(sample: Sample) -> tuple[float, float]:
        began = float(sample.output.split()[0]) - sample.launched
        return began, sample.wall - began

    (plain_start, plain_end), (run_start, run_end) = (
        tuple(statistics.median(part) for part in zip(*map(split, samples[name]), strict=True))
        for name in ("plain", "run")
    )
    print(
        f"\nfixed cost of a run ({repeat} interleaved pairs, medians): the job's first statement runs "
        f"{run_start - plain_start:.2f} s later under `ddpdoctor run` ({run_start:.2f} s vs {plain_start:.2f} s "
        f"for `python -c`), and ddpdoctor exits {run_end - plain_end:.2f} s after the job "
        f"(report, bundle); together {run_start + run_end - plain_start - plain_end:.2f} s once per run"
    )


def stack_collection(ranks: int, repeat: int) -> float:
    """Start a hanging job of `ranks` ranks, time the hang report `repeat` times; return the median."""
    env = {**os.environ, MARK: str(os.getpid()), "PYTHONWARNINGS": "ignore"}
    job = subprocess.Popen(
        _torchrun(ranks, str(HANG_JOB), "sleep"),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert job.stdout is not None
        seen: set[str] = set()
        while len(seen) < ranks:
            line = job.stdout.readline()
            if not line:
                raise SystemExit("the eight-rank job ended before it hung")
            # Unbuffered ranks write a line and its newline apart, so lines of two ranks can merge.
            seen.update(re.findall(r"rank (\d+) step 2(?!\d)", line))
        time.sleep(2)
        times = []
        for _ in range(repeat):
            started = time.monotonic()
            report = hang_report(find_processes([], job=job.pid))
            times.append(time.monotonic() - started)
        assert report.analysis is not None
        suspects = [s.label for s in report.analysis.suspects]
        print(
            f"\n{ranks}-rank hang: suspects {suspects}; stacks by {sorted({str(p.method) for p in report.processes})}"
        )
        print(
            f"find + take + merge: median {statistics.median(times):.2f} s ({', '.join(f'{t:.2f}' for t in times)})"
        )
        print("target < 3 s")
        return statistics.median(times)
    finally:
        procfs.terminate(procfs.processes_with_variable(MARK, str(os.getpid())), grace_s=0)
        job.wait()


def main(argv: list[str]) -> int:
    """Run the measurements; exit 1 when a target is missed."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--steps", type=int, default=12000)
    parser.add_argument("--nproc", type=int, default=2)
    parser.add_argument("--stack-ranks", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3, help="stack collections timed")
    parser.add_argument("--fixed-repeat", type=int, default=10, help="pairs of the fixed-cost measurement")
    parser.add_argument("--decompose", action="store_true", help="also run under run --no-instrument")
    args = parser.parse_args(argv)
    print(f"load average at the start: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory(prefix="ddpdoctor-bench-run-") as tmp:
        ratios = overhead(args.rounds, args.steps, args.nproc, Path(tmp), decompose=args.decompose)
        fixed_cost(args.fixed_repeat, Path(tmp))
    verdict = "met" if ratios.median <= TARGET else "missed"
    print(
        f"\n`ddpdoctor run` / plain, wall time: median of round ratios {ratios.median:.3f} "
        f"(95% CI {ratios.low:.3f}-{ratios.high:.3f}); target <= {TARGET}: {verdict}"
        + ("" if ratios.high <= TARGET else "; the interval reaches above the target")
    )
    print(f"load average after the overhead rounds: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    seconds = stack_collection(args.stack_ranks, args.repeat)
    missed = [
        m for m, bad in (("overhead", ratios.median > TARGET), ("stack collection", seconds >= 3.0)) if bad
    ]
    print("\nmissed targets: " + ", ".join(missed) if missed else "\nall targets met")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
