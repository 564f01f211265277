"""Is the all_reduce bandwidth that `check --distributed` reports the bandwidth torch.distributed gives?

For each world size this starts a torchrun job. In it, every rank alternates, round after round,
between the check's own measurement (:func:`ddpdoctor.distributed.collectives.measure_all_reduce`,
the code `check --distributed` reports from) and a plain `dist.all_reduce` loop on the same sizes
with the same iteration counts, in the same process group. The medians over the rounds are
compared: the ratio check/plain should be within 10% of 1.

    python bench/bench_distributed.py                      # gloo on CPU, 2 and 4 ranks
    python bench/bench_distributed.py --backend nccl --nproc 2 8   # NCCL: one GPU per rank

Exit 0 when every ratio is within the tolerance, 1 otherwise. `--json FILE` writes the numbers.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ddpdoctor.distributed.collectives import CPU_SIZES, GPU_SIZES, TARGET_SECONDS

REPO = Path(__file__).resolve().parent.parent
TOLERANCE = 0.10
# The sizes `check --distributed` sweeps by default on each backend.
DEFAULT_SIZES = {"gloo": CPU_SIZES, "nccl": GPU_SIZES}


def plain_all_reduce(
    dist: Any, torch: Any, device: str, world_size: int, size: int, iterations: int
) -> float:
    """algbw (GB/s) of a textbook loop: warm up, barrier, time `iterations` all_reduce calls, average ranks."""
    count = max(1, size // 4)
    buffer = torch.zeros(count, dtype=torch.float32, device=device)
    sync = torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)
    for _ in range(4):
        dist.all_reduce(buffer)
    sync()
    dist.barrier()
    start = time.perf_counter()
    for _ in range(iterations):
        dist.all_reduce(buffer)
    sync()
    seconds = torch.tensor([(time.perf_counter() - start) / iterations], dtype=torch.float64, device=device)
    dist.all_reduce(seconds)
    return count * 4 / (float(seconds.item()) / world_size) / 1e9


def worker(args: argparse.Namespace) -> None:
    """One rank: alternate the check's measurement and the plain loop; rank 0 prints JSON."""
    import torch
    import torch.distributed as dist

    from ddpdoctor.distributed.collectives import bus_bandwidth, measure_all_reduce

    local_rank = int(os.environ["LOCAL_RANK"])
    device = f"cuda:{local_rank}" if args.backend == "nccl" else "cpu"
    if device.startswith("cuda"):
        torch.cuda.set_device(local_rank)
    dist.init_process_group(args.backend, timeout=datetime.timedelta(seconds=120))
    world_size = dist.get_world_size()
    sizes = [int(s) for s in args.sizes.split(",")]
    check: dict[int, list[float]] = {s: [] for s in sizes}
    plain: dict[int, list[float]] = {s: [] for s in sizes}
    iterations: dict[int, int] = {}
    for round_index in range(args.rounds):
        order = ("check", "plain") if round_index % 2 == 0 else ("plain", "check")
        for method in order:
            if method == "check":
                for row in measure_all_reduce(dist, torch, device, world_size, sizes, target_s=args.target):
                    check[row.size].append(row.algbw)
                    iterations.setdefault(row.size, row.iterations)
            else:
                for size in sizes:
                    runs = iterations[size]  # round 0 runs the check first
                    plain[size].append(plain_all_reduce(dist, torch, device, world_size, size, runs))
    if dist.get_rank() == 0:
        rows = []
        for size in sizes:
            ours, theirs = statistics.median(check[size]), statistics.median(plain[size])
            rows.append(
                {
                    "size": size,
                    "iterations": iterations[size],
                    "check_algbw_gbps": ours,
                    "plain_algbw_gbps": theirs,
                    "check_busbw_gbps": bus_bandwidth(ours, world_size),
                    "ratio": ours / theirs,
                }
            )
        print(
            json.dumps(
                {"backend": args.backend, "world_size": world_size, "rounds": args.rounds, "rows": rows}
            )
        )
    dist.destroy_process_group()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def launch(nproc: int, args: argparse.Namespace) -> dict[str, Any]:
    """Run one torchrun job of `nproc` ranks and return rank 0's JSON."""
    env = {
        k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")
    }
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    env.setdefault("OMP_NUM_THREADS", "1")
    command = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        f"--nproc-per-node={nproc}",
        "--rdzv-backend=c10d",
        f"--rdzv-endpoint=127.0.0.1:{free_port()}",
        str(Path(__file__).resolve()),
        "--worker",
        "--backend",
        args.backend,
        "--sizes",
        args.sizes,
        "--rounds",
        str(args.rounds),
        "--target",
        str(args.target),
    ]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=args.limit, check=False)
    if done.returncode != 0:
        raise SystemExit(f"torchrun with {nproc} ranks failed ({done.returncode}):\n{done.stderr[-4000:]}")
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--backend", choices=("gloo", "nccl"), default="gloo")
    parser.add_argument(
        "--nproc", type=int, nargs="+", default=[2, 4], help="world sizes to run (default 2 4)"
    )
    parser.add_argument("--sizes", help="comma-separated byte sizes (default per backend)")
    parser.add_argument("--rounds", type=int, default=15, help="alternating rounds; medians are compared")
    parser.add_argument("--target", type=float, default=TARGET_SECONDS, help="seconds per size and round")
    parser.add_argument("--limit", type=float, default=600, help="seconds one torchrun job may take")
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.sizes = args.sizes or ",".join(map(str, DEFAULT_SIZES[args.backend]))
    if min(args.nproc) < 2:
        parser.error("every world size must be at least 2: a single rank sends nothing")
    if args.worker:
        worker(args)
        return 0
    results = [launch(n, args) for n in args.nproc]
    worst = 0.0
    print(f"all_reduce bandwidth, check --distributed vs a plain torch.distributed loop ({args.backend})")
    print(
        f"{'ranks':>5}  {'size':>10}  {'iters':>5}  {'check algbw':>12}  {'plain algbw':>12}  {'busbw':>9}  ratio"
    )
    for result in results:
        for row in result["rows"]:
            worst = max(worst, abs(row["ratio"] - 1))
            print(
                f"{result['world_size']:>5}  {row['size']:>10}  {row['iterations']:>5}  "
                f"{row['check_algbw_gbps']:>9.3f} GB/s {row['plain_algbw_gbps']:>9.3f} GB/s "
                f"{row['check_busbw_gbps']:>6.3f} GB/s  {row['ratio']:.3f}"
            )
    verdict = "within" if worst <= TOLERANCE else "OUTSIDE"
    print(f"largest deviation {worst:.1%}: {verdict} the {TOLERANCE:.0%} tolerance")
    if args.json is not None:
        args.json.write_text(json.dumps({"tolerance": TOLERANCE, "results": results}, indent=2) + "\n")
    return 0 if worst <= TOLERANCE else 1


if __name__ == "__main__":
    sys.exit(main())
