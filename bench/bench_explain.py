"""Benchmark of `ddpdoctor explain`: big-log throughput and memory, fallback engine, cold start.

What it measures (issue 4 targets in brackets):

1. On synthetic multi-rank logs (256 MiB and 1 GiB by default) whose only failure is at the very
   end, the wall time of `ddpdoctor explain LOG --format json` against
   `LC_ALL=C grep -c -E -f PATTERNS LOG`, where PATTERNS are the knowledge base's patterns turned
   into POSIX ERE (`ddpdoctor.explain.prefilter.superset_regex(..., "ere")`), in the same run,
   best of N each [ratio <= 1.0], and the peak RSS of the ddpdoctor process [<= 256 MiB].
2. The same with `--engine python` (no hyperscan), to show what the fallback costs.
3. Cold start on a small log against `python -c pass`, with bytecode caches as an installed
   package has them, best of N [ratio <= 6.0], and that torch, typer and rich are not imported.

Exits 1 when a target is missed or the failure at the end is not found (`bench/run.py` relies on
that). Run: `python bench/bench_explain.py` (`--sizes 64M` for a quick run, `--keep DIR` keeps
the generated logs), or `python bench/run.py explain` / `make bench` with the defaults.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

PYTHON = sys.executable
MiB = 1 << 20
GREP_RATIO_TARGET = 1.0
RSS_TARGET_MIB = 256
COLD_RATIO_TARGET = 6.0
HEAVY_MODULES = ("torch", "typer", "click", "rich", "yaml")
EXPECTED_ROOT = ("cuda-out-of-memory", 3)  # the failure TAIL ends every log with

TAIL = """\
[rank3]:Traceback (most recent call last):
[rank3]:  File "/home/alice/proj/train.py", line 61, in <module>
[rank3]:    main()
[rank3]:  File "/home/alice/proj/train.py", line 54, in main
[rank3]:    loss = model(batch).mean()
[rank3]:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.50 GiB. GPU 3 has a total \
capacity of 79.15 GiB of which 1.20 GiB is free. Including non-PyTorch memory, this process has 77.93 GiB \
memory in use. Of the allocated memory 70.12 GiB is allocated by PyTorch, and 6.31 GiB is reserved by \
PyTorch but unallocated.
[rank1]:[E1129 13:10:02.500000 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation \
timeout: WorkNCCL(SeqNum=1204, OpType=ALLREDUCE, NumelIn=25000000, NumelOut=25000000, Timeout(ms)=600000) \
ran for 600042 milliseconds before timing out.
"""


def _block(rng: random.Random, ranks: int = 8) -> str:
    """About 4 MiB of ordinary multi-rank training output (no failure)."""
    lines = []
    step = 0
    while sum(len(x) for x in lines) < 4 * MiB:
        step += 1
        for rank in range(ranks):
            ms = rng.randrange(1_000_000)
            loss = rng.uniform(0.5, 3.0)
            kind = rng.random()
            if kind < 0.6:
                lines.append(
                    f"[rank{rank}]:[I1129 13:{step % 60:02d}:{rank:02d}.{ms:06d} trainer.py:88] step {step} "
                    f"loss={loss:.4f} lr={rng.uniform(1e-5, 1e-3):.2e} grad_norm={rng.uniform(0.1, 5):.3f} "
                    f"tokens/s={rng.randrange(10_000, 90_000)}\n"
                )
            elif kind < 0.8:
                lines.append(
                    f"node{rank // 4}:{4000 + rank}:{4100 + rank} [{rank % 4}] NCCL INFO Channel "
                    f"{rng.randrange(32):02d}/0 : {rank} -> {(rank + 1) % ranks} via P2P/IPC/read\n"
                )
            elif kind < 0.9:
                done = step % 100
                lines.append(
                    f"[rank{rank}]:Epoch {step // 100}: {done:3d}%|{'#' * (done // 10):<10}| "
                    f"{done}/100 [00:{done % 60:02d}<00:{(100 - done) % 60:02d}, {rng.uniform(1, 9):.2f}it/s]\n"
                )
            else:
                lines.append(
                    f"[rank{rank}]:[2026-11-29 13:{step % 60:02d}:{rank:02d},{ms % 1000:03d}] INFO "
                    f"eval batch {step} accuracy={rng.uniform(0.1, 0.9):.4f} samples={rng.randrange(1, 512)}\n"
                )
    return "".join(lines)


def make_log(path: Path, size: int, seed: int = 1) -> None:
    """A `size`-byte multi-rank log whose only failure is at the end."""
    block = _block(random.Random(seed)).encode()
    tail = TAIL.encode()
    with open(path, "wb") as fh:
        written = 0
        while written + len(block) + len(tail) <= size:
            fh.write(block)
            written += len(block)
        rest = size - written - len(tail)
        if rest > 0:
            cut = block.rfind(b"\n", 0, rest) + 1
            fh.write(block[:cut])
        fh.write(tail)


def ere_patterns(path: Path) -> int:
    """Write the knowledge base's patterns as POSIX ERE, one per line; return how many."""
    from ddpdoctor.explain.prefilter import PrefilterError, superset_regex
    from ddpdoctor.kb import load_knowledge_base

    lines = []
    for entry in load_knowledge_base().entries:
        for pattern in entry.patterns:
            try:
                lines.append(superset_regex(pattern.source, "ere"))
            except PrefilterError:
                continue
    path.write_bytes(b"\n".join(lines) + b"\n")
    return len(lines)


def run(cmd: Sequence[str], env: dict[str, str] | None = None) -> tuple[float, int, int, str]:
    """(wall seconds, peak RSS in KiB, exit code, stdout) of one command."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert proc.stdout is not None
    out = proc.stdout.read()
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_maxrss, proc.returncode, out.decode("utf-8", "replace")


def best(cmd: Sequence[str], repeat: int, env: dict[str, str] | None = None) -> tuple[float, int, int, str]:
    """Best wall time of `repeat` runs (and the largest peak RSS seen)."""
    results = [run(cmd, env) for _ in range(repeat)]
    wall = min(r[0] for r in results)
    return wall, max(r[1] for r in results), results[0][2], results[0][3]


def bytecode_env(cache: Path) -> dict[str, str]:
    """The environment of an installed package: bytecode caches written and used."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(cache)
    return env


def parse_size(text: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(float(text[:-1]) * units[text[-1].upper()]) if text[-1].upper() in units else int(text)


def bench_big(work: Path, sizes: list[str], repeat: int, env: dict[str, str]) -> list[dict[str, object]]:
    patterns = work / "kb.ere"
    count = ere_patterns(patterns)
    print(f"knowledge base: {count} patterns as ERE for grep")
    rows = []
    for label in sizes:
        log = work / f"multirank-{label}.log"
        if not log.exists():
            make_log(log, parse_size(label))
        grep = ["grep", "-c", "-E", "-f", str(patterns), str(log)]
        grep_env = {**os.environ, "LC_ALL": "C"}
        ours = [PYTHON, "-m", "ddpdoctor", "explain", str(log), "--format", "json"]
        fallback = [*ours, "--engine", "python"]
        g = best(grep, repeat, grep_env)
        d = best(ours, repeat, env)
        data = json.loads(d[3])
        root = data["root_cause"]
        found = (root["entry"], root["rank"]) if root else None
        row: dict[str, object] = {
            "size": label,
            "bytes": log.stat().st_size,
            "grep_s": round(g[0], 3),
            "grep_matches": g[3].strip(),
            "explain_s": round(d[0], 3),
            "ratio": round(d[0] / g[0], 2),
            "rss_mib": round(d[1] / 1024, 1),
            "found": found,
        }
        p = best(fallback, 1, env)
        row["python_engine_s"] = round(p[0], 3)
        row["python_engine_rss_mib"] = round(p[1] / 1024, 1)
        row["python_engine_slowdown"] = round(p[0] / d[0], 1)
        rows.append(row)
        print(
            f"{label:>6}: grep {g[0]:.3f} s | explain {d[0]:.3f} s (x{d[0] / g[0]:.2f} of grep, target <= "
            f"{GREP_RATIO_TARGET}) | peak RSS {d[1] / 1024:.0f} MiB (target <= {RSS_TARGET_MIB}) | python "
            f"engine {p[0]:.2f} s (x{p[0] / d[0]:.1f}, RSS {p[1] / 1024:.0f} MiB) | found {found}"
        )
    return rows


def bench_cold(work: Path, repeat: int, env: dict[str, str]) -> dict[str, object]:
    small = work / "small.log"
    small.write_text(TAIL)
    base = [PYTHON, "-c", "pass"]
    cmds = {
        "json": [PYTHON, "-m", "ddpdoctor", "explain", str(small), "--format", "json"],
        "text": [PYTHON, "-m", "ddpdoctor", "explain", str(small), "--format", "text"],
    }
    for cmd in cmds.values():
        run(cmd, env)  # write bytecode and the knowledge index
    interp = best(base, repeat, env)[0]
    out: dict[str, object] = {"python_c_pass_ms": round(interp * 1000, 1)}
    for name, cmd in cmds.items():
        wall = best(cmd, repeat, env)[0]
        out[f"explain_{name}_ms"] = round(wall * 1000, 1)
        out[f"explain_{name}_ratio"] = round(wall / interp, 2)
        print(
            f"cold start ({name}): {wall * 1000:.1f} ms = x{wall / interp:.2f} of `python -c pass` "
            f"({interp * 1000:.1f} ms), target <= {COLD_RATIO_TARGET}"
        )
    probe = (
        "import sys\nfrom ddpdoctor.cli import main\nsys.argv = ['ddpdoctor', 'explain', sys.argv[1], '-f', 'json']\n"
        f"code = main()\nprint(sorted(m for m in {HEAVY_MODULES!r} if m in sys.modules))\n"
    )
    imported = run([PYTHON, "-c", probe, str(small)], env)[3].strip().splitlines()[-1]
    out["heavy_modules_imported"] = imported
    print(f"modules imported on the small-log path among {'/'.join(HEAVY_MODULES)}: {imported}")
    return out


def missed_targets(results: dict[str, Any]) -> list[str]:
    """What the results fall short of, one line each."""
    missed = []
    cold = results["cold_start"]
    for name in ("json", "text"):
        if cold[f"explain_{name}_ratio"] > COLD_RATIO_TARGET:
            missed.append(f"cold start ({name}) x{cold[f'explain_{name}_ratio']} > {COLD_RATIO_TARGET}")
    if cold["heavy_modules_imported"] != "[]":
        missed.append(f"the small-log path imported {cold['heavy_modules_imported']}")
    for row in results["big_logs"]:
        if row["ratio"] > GREP_RATIO_TARGET:
            missed.append(f"{row['size']}: x{row['ratio']} of grep > {GREP_RATIO_TARGET}")
        if row["rss_mib"] > RSS_TARGET_MIB:
            missed.append(f"{row['size']}: peak RSS {row['rss_mib']} MiB > {RSS_TARGET_MIB}")
        if row["found"] != EXPECTED_ROOT:
            missed.append(f"{row['size']}: found {row['found']}, expected {EXPECTED_ROOT}")
    return missed


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print the numbers and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="256M,1G", help="comma-separated log sizes (default 256M,1G)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per command for the big logs (best wins)")
    parser.add_argument("--cold-repeat", type=int, default=30, help="runs per command for the cold start")
    parser.add_argument("--keep", type=Path, help="folder for the generated logs (kept afterwards)")
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    args = parser.parse_args(argv)
    if shutil.which("grep") is None:
        print("grep is not installed", file=sys.stderr)
        return 2
    work = args.keep or Path(tempfile.mkdtemp(prefix="ddpdoctor-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    env = bytecode_env(work / "pycache")
    env["DDPDOCTOR_CACHE_DIR"] = str(work / "kb-cache")
    try:
        results = {
            "python": sys.version.split()[0],
            "cpus": os.cpu_count(),
            "cold_start": bench_cold(work, args.cold_repeat, env),
            "big_logs": bench_big(
                work, [s.strip() for s in args.sizes.split(",") if s.strip()], args.repeat, env
            ),
        }
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    missed = missed_targets(results)
    if missed:
        print("\nmissed targets: " + "; ".join(missed))
        return 1
    print("\nall targets met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
