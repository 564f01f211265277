"""What `ddpdoctor run` costs a healthy job, and how long `stacks` takes for eight ranks.

1. Overhead: the same healthy torchrun job (gloo on CPU, compute and an all_reduce per step, a
   line of output every few steps) runs alternately on its own and under `ddpdoctor run` (the
   supervisor with full instrumentation: startup hook, per-rank capture over sockets, Flight
   Recorder buffers, hang watch). Wall time from start to exit of the job; ratio of the medians.
   Target: <= 1.02. The CLI's own start (importing ddpdoctor) is measured apart.
2. Stack collection: an eight-rank job that hangs (rank 1 sleeps, seven ranks wait in all_reduce);
   the time to find its ranks, take every stack with py-spy and merge them. Target: < 3 s.

    .venv/bin/python bench/bench_run.py [--rounds 5] [--steps 400] [--nproc 2] [--stack-ranks 8]
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

from ddpdoctor.supervise import RunOptions, find_processes, hang_report, procfs, supervise

warnings.filterwarnings("ignore", message="Failed to initialize NumPy")
HANG_JOB = Path(__file__).resolve().parent.parent / "ddpdoctor" / "scenarios" / "jobs" / "hang.py"
HEALTHY_JOB = """
import sys, torch, torch.distributed as dist
torch.set_num_threads(1)
dist.init_process_group("gloo")
rank = dist.get_rank()
weights = torch.randn(256, 256)
for step in range(int(sys.argv[1])):
    grad = weights @ torch.randn(256, 256) / 256
    dist.all_reduce(grad)
    weights -= 1e-3 * grad
    if step % 20 == 0:
        print(f"rank {rank} step {step} norm {float(weights.norm()):.3f}", flush=True)
dist.destroy_process_group()
"""
MARK = "DDPDOCTOR_BENCH_MARK"


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


def _plain(command: list[str]) -> float:
    started = time.monotonic()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - started


def _supervised(command: list[str], folder: Path) -> tuple[float, float]:
    """Wall time of the job under the supervisor, and the supervisor's own CPU seconds."""
    sink = io.BytesIO()
    before = resource.getrusage(resource.RUSAGE_SELF)
    report = supervise(
        RunOptions(command=tuple(command), out=folder, hang_after=300), stdout=sink, stderr=sink
    )
    after = resource.getrusage(resource.RUSAGE_SELF)
    if report.exit_status != 0:
        raise SystemExit(f"the healthy job failed under run: {sink.getvalue()[-2000:]!r}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return report.duration_s, cpu


def _cli_start() -> float:
    started = time.monotonic()
    subprocess.run(
        [sys.executable, "-m", "ddpdoctor", "run", "--help"], check=True, stdout=subprocess.DEVNULL
    )
    return time.monotonic() - started


def overhead(rounds: int, steps: int, nproc: int, scratch: Path) -> float:
    """Print the plain vs supervised times; return the ratio of the medians."""
    script = scratch / "healthy.py"
    script.write_text(HEALTHY_JOB, encoding="utf-8")
    command = _torchrun(nproc, str(script), str(steps))
    plain, under, cpu = [], [], []
    for index in range(rounds):
        plain.append(_plain(command))
        wall, own = _supervised(command, scratch / f"run{index}")
        under.append(wall)
        cpu.append(own)
    ratio = statistics.median(under) / statistics.median(plain)
    print(f"healthy job: {nproc} ranks, {steps} steps, {rounds} rounds, alternating\n")
    print("| | median wall time | all rounds |")
    print("| --- | --- | --- |")
    print(f"| plain torchrun | {statistics.median(plain):.2f} s | {', '.join(f'{t:.2f}' for t in plain)} |")
    print(
        f"| under ddpdoctor run | {statistics.median(under):.2f} s | {', '.join(f'{t:.2f}' for t in under)} |"
    )
    share = sum(cpu) / sum(under)
    print(f"\nratio {ratio:.3f} (target <= 1.02); the CLI's own start adds {_cli_start():.2f} s once")
    print(
        f"the supervisor itself used {sum(cpu):.2f} CPU s over {sum(under):.1f} s of jobs ({share:.2%} of a core)"
    )
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
            f"\n{ranks}-rank hang: suspects {suspects}; stacks by {sorted({p.method for p in report.processes})}"
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
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--nproc", type=int, default=2)
    parser.add_argument("--stack-ranks", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="ddpdoctor-bench-run-") as tmp:
        ratio = overhead(args.rounds, args.steps, args.nproc, Path(tmp))
    seconds = stack_collection(args.stack_ranks, args.repeat)
    missed = [m for m, bad in (("overhead", ratio > 1.02), ("stack collection", seconds >= 3.0)) if bad]
    print("\nmissed targets: " + ", ".join(missed) if missed else "\nall targets met")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
