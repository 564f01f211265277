"""What `ddpdoctor run` costs a healthy job, and how long `stacks` takes for eight ranks.

1. Overhead: the same healthy torchrun job (gloo on CPU, compute and an all_reduce per step, a
   line of output every few steps) runs on its own and under `ddpdoctor run` (the supervisor with
   full instrumentation: startup hook, per-rank capture over sockets, Flight Recorder buffers,
   heartbeat folder, hang watch), interleaved: each round runs both, in an order that alternates
   (plain first, then run first), so that a slow spell of a shared machine hits both sides alike.
   Reported: the median of the per-round ratios of wall time (start to exit of the job), the
   ratio of the medians, and the same for the CPU time the job's processes used (user + system of
   every child, which the load of other programs changes much less than wall time) and for the
   CPU time of the ranks' training loops alone (what the instrumentation costs per step: Flight
   Recorder entries, output through the hook's socket; startup is left out).
   Target: wall-time ratio <= 1.02. With `--decompose`, a third variant runs under
   `ddpdoctor run --no-instrument` (supervision and output capture only). The CLI's own start
   (importing ddpdoctor) is measured apart.
2. Stack collection: an eight-rank job that hangs (rank 1 sleeps, seven ranks wait in all_reduce);
   the time to find its ranks, take every stack with py-spy and merge them. Target: < 3 s.

    .venv/bin/python bench/bench_run.py [--rounds 7] [--steps 400] [--nproc 2] [--stack-ranks 8] [--decompose]
"""

from __future__ import annotations

import argparse
import io
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

from ddpdoctor.supervise import RunOptions, find_processes, hang_report, procfs, supervise

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
MARK = "DDPDOCTOR_BENCH_MARK"
# The line each rank of the healthy job ends with: the CPU seconds its training loop took.
LOOP_CPU = "loop-cpu"


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


@dataclass
class Sample:
    """One run of the job: wall seconds, CPU seconds of the job's processes and of its training
    loops (summed over the ranks), the supervisor's CPU seconds."""

    wall: float
    job_cpu: float
    loop_cpu: float
    own_cpu: float = 0.0


def _loop_cpu(output: bytes) -> float:
    """The sum of the ranks' `loop-cpu` figures (ranks writing at once may run their lines together)."""
    return sum(
        float(x) for x in re.findall(rf"{LOOP_CPU} \d+ (\d+\.\d{{6}})", output.decode(errors="replace"))
    )


def _cpu(usage: resource.struct_rusage) -> float:
    return usage.ru_utime + usage.ru_stime


def _plain(command: list[str], folder: Path) -> Sample:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    done = subprocess.run(command, check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    wall = time.monotonic() - started
    job = _cpu(resource.getrusage(resource.RUSAGE_CHILDREN)) - _cpu(before)
    return Sample(wall, job, _loop_cpu(done.stdout))


def _supervised(command: list[str], folder: Path, *, instrument: bool = True) -> Sample:
    """The job under the supervisor (its report's duration), its CPU and the supervisor's own CPU."""
    sink = io.BytesIO()
    before = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    report = supervise(
        RunOptions(command=tuple(command), out=folder, hang_after=300, instrument=instrument),
        stdout=sink,
        stderr=sink,
    )
    own = _cpu(resource.getrusage(resource.RUSAGE_SELF)) - _cpu(before)
    job = _cpu(resource.getrusage(resource.RUSAGE_CHILDREN)) - _cpu(children)
    if report.exit_status != 0:
        raise SystemExit(f"the healthy job failed under run: {sink.getvalue()[-2000:]!r}")
    return Sample(report.duration_s, job, _loop_cpu(sink.getvalue()), own)


def _bare(command: list[str], folder: Path) -> Sample:
    return _supervised(command, folder, instrument=False)


def _cli_start() -> float:
    started = time.monotonic()
    subprocess.run(
        [sys.executable, "-m", "ddpdoctor", "run", "--help"], check=True, stdout=subprocess.DEVNULL
    )
    return time.monotonic() - started


def _row(name: str, samples: list[Sample], base: list[Sample]) -> str:
    walls = [x.wall for x in samples]
    ratios = [x.wall / b.wall for x, b in zip(samples, base, strict=True)]
    cpu = statistics.median(x.job_cpu for x in samples) / statistics.median(b.job_cpu for b in base)
    loop = statistics.median(x.loop_cpu for x in samples) / statistics.median(b.loop_cpu for b in base)
    return (
        f"| {name} | {statistics.median(walls):.2f} s | {statistics.median(ratios):.3f} "
        f"| {statistics.median(walls) / statistics.median(x.wall for x in base):.3f} | {cpu:.3f} "
        f"| {loop:.3f} | {', '.join(f'{t:.2f}' for t in walls)} |"
    )


def overhead(rounds: int, steps: int, nproc: int, scratch: Path, *, decompose: bool) -> float:
    """Print the plain vs supervised times; return the median of the per-round wall-time ratios."""
    script = scratch / "healthy.py"
    script.write_text(HEALTHY_JOB, encoding="utf-8")
    command = _torchrun(nproc, str(script), str(steps))
    variants = {"plain torchrun": _plain, "under ddpdoctor run": _supervised}
    if decompose:
        variants["under ddpdoctor run --no-instrument"] = _bare
    samples: dict[str, list[Sample]] = {name: [] for name in variants}
    for index in range(rounds):
        order = list(variants) if index % 2 == 0 else list(reversed(variants))
        for name in order:
            samples[name].append(variants[name](command, scratch / f"{name.split()[-1]}{index}"))
    plain = samples["plain torchrun"]
    print(f"healthy job: {nproc} ranks, {steps} steps, {rounds} rounds, order alternating each round\n")
    print(
        "| | median wall | median of round ratios | ratio of medians | job CPU ratio | loop CPU ratio "
        "| all rounds (wall) |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name in variants:
        print(_row(name, samples[name], plain))
    under = samples["under ddpdoctor run"]
    ratio = statistics.median(x.wall / b.wall for x, b in zip(under, plain, strict=True))
    own = sum(x.own_cpu for x in under)
    total = sum(x.wall for x in under)
    print(f"\nratio {ratio:.3f} (target <= 1.02); the CLI's own start adds {_cli_start():.2f} s once")
    print(
        f"the supervisor itself used {own:.2f} CPU s over {total:.1f} s of jobs ({own / total:.2%} of a core)"
    )
    print(f"load average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return ratio


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
            if line.endswith("step 2\n"):
                seen.add(line.split()[1])
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
    """Run both measurements; exit 1 when a target is missed."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--nproc", type=int, default=2)
    parser.add_argument("--stack-ranks", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--decompose", action="store_true", help="also run under run --no-instrument")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="ddpdoctor-bench-run-") as tmp:
        ratio = overhead(args.rounds, args.steps, args.nproc, Path(tmp), decompose=args.decompose)
    seconds = stack_collection(args.stack_ranks, args.repeat)
    missed = [m for m, bad in (("overhead", ratio > 1.02), ("stack collection", seconds >= 3.0)) if bad]
    print("\nmissed targets: " + ", ".join(missed) if missed else "\nall targets met")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
