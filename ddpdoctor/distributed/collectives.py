"""The collective tests every rank runs once the process group is up, and the bandwidth sweep.

Each test returns a :class:`CollectiveResult` for this rank; rank 0 combines the ranks' results
into findings. Bandwidth follows nccl-tests: the mean time per call, averaged over the ranks;
algorithm bandwidth = bytes / time; bus bandwidth = algbw x 2(n-1)/n for all_reduce.
"""

from __future__ import annotations

import importlib
import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from ddpdoctor.check.registry import declare
from ddpdoctor.distributed.rendezvous import Coordinator, StoreUnavailable, first_line

# Tests in the order they run; a failure skips the rest (the group is then unreliable).
TESTS: tuple[str, ...] = ("process_group", "barrier", "all_reduce", "broadcast", "bandwidth")
# The check id each test reports under (declared below).
TEST_IDS: dict[str, str] = {
    "process_group": "dist.process-group",
    "barrier": "collective.barrier",
    "all_reduce": "collective.all_reduce",
    "broadcast": "collective.broadcast",
    "bandwidth": "collective.bandwidth",
}
# Element counts for the value checks: one element, and an odd size that forces chunking.
CHECK_COUNTS: tuple[int, ...] = (1, 262147)
# Bandwidth sweep defaults (bytes): smaller on CPU/gloo, larger on GPUs.
CPU_SIZES: tuple[int, ...] = (64 * 1024, 1024**2, 16 * 1024**2)
GPU_SIZES: tuple[int, ...] = (1024**2, 16 * 1024**2, 128 * 1024**2)
WARMUP_ITERS = 3
MIN_ITERS = 5
MAX_ITERS = 1000
TARGET_SECONDS = 0.25
GB = 1e9

declare(
    "dist.process-group",
    category="backend_unsupported",
    title="torch.distributed.init_process_group succeeds on every rank",
    entries=("dist-backend-error",),
)
declare(
    "collective.barrier",
    category="collective_timeout",
    title="every rank reaches a barrier within --timeout (monitored_barrier on gloo, a store check otherwise)",
    entries=("monitored-barrier-failed",),
)
declare(
    "collective.all_reduce",
    category="collective_mismatch",
    title="all_reduce returns the correct sum on every rank",
    entries=("collective-mismatch-detected",),
)
declare(
    "collective.broadcast",
    category="collective_mismatch",
    title="broadcast from rank 0 delivers the same tensor to every rank",
    entries=("collective-mismatch-detected",),
)
declare(
    "collective.bandwidth",
    category="other",
    title="all_reduce algorithm and bus bandwidth over a range of sizes (as nccl-tests reports them)",
)

_MONITORED_RE = re.compile(r"Ranks?\s+([\d,\s]+?)\s+failed to pass monitoredBarrier")


@dataclass
class CollectiveResult:
    """One test on one rank: passed, failed (with what went wrong) or skipped."""

    test: str
    status: str  # "ok", "failed" or "skipped"
    detail: str = ""
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Wire/JSON form."""
        return {"test": self.test, "status": self.status, "detail": self.detail, "data": self.data}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CollectiveResult:
        """Read the wire form."""
        return cls(
            str(data["test"]), str(data["status"]), str(data.get("detail", "")), dict(data.get("data", {}))
        )


@dataclass(frozen=True)
class BandwidthRow:
    """One size of the all_reduce sweep, as nccl-tests prints it."""

    size: int
    count: int
    dtype: str
    iterations: int
    time_us: float
    algbw: float
    busbw: float

    def to_dict(self) -> dict[str, Any]:
        """JSON form: bytes, elements, dtype, iterations, microseconds, GB/s."""
        return {
            "size": self.size,
            "count": self.count,
            "dtype": self.dtype,
            "iterations": self.iterations,
            "time_us": self.time_us,
            "algbw_gbps": self.algbw,
            "busbw_gbps": self.busbw,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BandwidthRow:
        """Read the JSON form."""
        return cls(
            int(data["size"]),
            int(data["count"]),
            str(data["dtype"]),
            int(data["iterations"]),
            float(data["time_us"]),
            float(data["algbw_gbps"]),
            float(data["busbw_gbps"]),
        )


def bus_bandwidth(algbw: float, world_size: int) -> float:
    """nccl-tests' bus bandwidth for all_reduce: algbw x 2(n-1)/n (0 for one rank: nothing crosses a link)."""
    return algbw * 2 * (world_size - 1) / world_size


def synchronize(torch: Any, device: str) -> Callable[[], None]:
    """A function that waits for the device's queued work (a no-op on CPU)."""
    if device.startswith("cuda"):
        return lambda: torch.cuda.synchronize(device)
    return lambda: None


def monitored_barrier_ranks(message: str) -> list[int]:
    """The ranks a failed monitored_barrier names (`Ranks 1, 3 failed to pass monitoredBarrier`)."""
    match = _MONITORED_RE.search(message)
    if match is None:
        return []
    return [int(r) for r in re.findall(r"\d+", match.group(1))]


def check_barrier(
    dist: Any, backend: str, coordinator: Coordinator, timeout_s: float, device_index: int | None
) -> CollectiveResult:
    """Every rank reaches a barrier: monitored_barrier on gloo; on other backends a store check first."""
    if backend == "gloo":
        try:
            dist.monitored_barrier(timeout=timedelta(seconds=timeout_s), wait_all_ranks=True)
        except Exception as exc:
            text = first_line(exc)
            return CollectiveResult("barrier", "failed", text, {"missing": monitored_barrier_ranks(str(exc))})
        return CollectiveResult("barrier", "ok", "monitored_barrier")
    coordinator.publish("barrier")
    if coordinator.rank == 0:
        gathered = coordinator.gather("barrier", timeout_s)
        coordinator.announce("barrier", ",".join(map(str, gathered.missing)) or "all")
        if gathered.missing:
            return CollectiveResult(
                "barrier",
                "failed",
                f"ranks never reached the barrier within {timeout_s:g}s",
                {"missing": gathered.missing},
            )
    else:
        try:
            verdict = coordinator.await_announcement("barrier", 2 * timeout_s)
        except StoreUnavailable as exc:
            return CollectiveResult("barrier", "failed", str(exc), {"missing": [0]})
        if verdict != "all":
            return CollectiveResult("barrier", "failed", "other ranks never reached the barrier")
    try:
        dist.barrier(device_ids=[device_index] if device_index is not None else None)
    except Exception as exc:
        return CollectiveResult("barrier", "failed", first_line(exc))
    return CollectiveResult("barrier", "ok", "store check and barrier")


def check_all_reduce(dist: Any, torch: Any, device: str, rank: int, world_size: int) -> CollectiveResult:
    """all_reduce(SUM) of rank-scaled patterns returns the exact expected sum on this rank."""
    wrong = 0
    checked = 0
    for count in CHECK_COUNTS:
        pattern = torch.arange(count, dtype=torch.float32, device=device) % 7 + 1
        tensor = pattern * (rank + 1)
        dist.all_reduce(tensor)
        expected = pattern * (world_size * (world_size + 1) // 2)
        wrong += int((tensor != expected).sum().item())
        checked += count
    if wrong:
        return CollectiveResult(
            "all_reduce",
            "failed",
            f"{wrong} of {checked} elements differ from the expected sum",
            {"wrong": wrong},
        )
    return CollectiveResult("all_reduce", "ok", f"{checked} elements correct", {"elements": checked})


def check_broadcast(dist: Any, torch: Any, device: str, rank: int) -> CollectiveResult:
    """broadcast from rank 0 delivers rank 0's tensor unchanged."""
    count = CHECK_COUNTS[-1]
    expected = torch.arange(count, dtype=torch.float32, device=device) * 3 + 11
    tensor = expected.clone() if rank == 0 else torch.zeros(count, dtype=torch.float32, device=device)
    dist.broadcast(tensor, src=0)
    wrong = int((tensor != expected).sum().item())
    if wrong:
        return CollectiveResult(
            "broadcast", "failed", f"{wrong} of {count} elements differ from rank 0's", {"wrong": wrong}
        )
    return CollectiveResult("broadcast", "ok", f"{count} elements correct", {"elements": count})


def _iterations(estimate_s: float, target_s: float) -> int:
    if estimate_s <= 0:
        return MAX_ITERS
    return max(MIN_ITERS, min(MAX_ITERS, math.ceil(target_s / estimate_s)))


def measure_all_reduce(
    dist: Any,
    torch: Any,
    device: str,
    world_size: int,
    sizes: Sequence[int],
    *,
    target_s: float = TARGET_SECONDS,
    warmup: int = WARMUP_ITERS,
) -> list[BandwidthRow]:
    """Time all_reduce on float32 buffers of each size; every rank gets the same rows.

    The iteration count is chosen from the slowest rank's warm-up so that each size takes about
    `target_s`; the reported time is the per-call mean averaged over the ranks, as nccl-tests does.
    """
    sync = synchronize(torch, device)
    rows = []
    for size in sizes:
        count = max(1, size // 4)
        buffer = torch.zeros(count, dtype=torch.float32, device=device)
        dist.all_reduce(buffer)
        sync()
        start = time.perf_counter()
        for _ in range(warmup):
            dist.all_reduce(buffer)
        sync()
        estimate = torch.tensor([(time.perf_counter() - start) / warmup], dtype=torch.float64, device=device)
        dist.all_reduce(estimate, op=dist.ReduceOp.MAX)
        iterations = _iterations(float(estimate.item()), target_s)
        start = time.perf_counter()
        for _ in range(iterations):
            dist.all_reduce(buffer)
        sync()
        elapsed = torch.tensor(
            [(time.perf_counter() - start) / iterations], dtype=torch.float64, device=device
        )
        dist.all_reduce(elapsed)
        seconds = float(elapsed.item()) / world_size
        algbw = count * 4 / seconds / GB
        rows.append(
            BandwidthRow(
                count * 4,
                count,
                "float32",
                iterations,
                seconds * 1e6,
                algbw,
                bus_bandwidth(algbw, world_size),
            )
        )
    return rows


@dataclass
class CollectiveRun:
    """This rank's results of every test, plus the bandwidth rows (identical on every rank)."""

    results: list[CollectiveResult]
    bandwidth: list[BandwidthRow]


def run_collectives(
    backend: str,
    device: str,
    coordinator: Coordinator,
    timeout_s: float,
    *,
    sizes: Sequence[int],
    target_s: float = TARGET_SECONDS,
) -> CollectiveRun:
    """Initialise the process group on the store, run the tests in order, stop at the first failure."""
    torch: Any = importlib.import_module("torch")
    dist: Any = importlib.import_module("torch.distributed")
    rank, world_size = coordinator.rank, coordinator.world_size
    device_index: int | None = None
    if device.startswith("cuda"):
        device_index = torch.device(device).index or 0
        torch.cuda.set_device(device_index)
    results: list[CollectiveResult] = []
    bandwidth: list[BandwidthRow] = []

    def attempt(test: str, body: Callable[[], CollectiveResult]) -> bool:
        if any(r.status == "failed" for r in results):
            results.append(CollectiveResult(test, "skipped", "an earlier test failed"))
            return False
        try:
            results.append(body())
        except Exception as exc:
            results.append(CollectiveResult(test, "failed", first_line(exc)))
        return results[-1].status == "ok"

    def init() -> CollectiveResult:
        dist.init_process_group(
            backend,
            store=dist.PrefixStore("process-group", coordinator.store),
            rank=rank,
            world_size=world_size,
            timeout=timedelta(seconds=timeout_s),
        )
        return CollectiveResult("process_group", "ok", backend)

    def bandwidth_test() -> CollectiveResult:
        if world_size == 1:
            return CollectiveResult("bandwidth", "skipped", "a single rank has no peer to send to")
        bandwidth.extend(measure_all_reduce(dist, torch, device, world_size, sizes, target_s=target_s))
        return CollectiveResult("bandwidth", "ok", f"{len(bandwidth)} sizes")

    try:
        attempt("process_group", init)
        attempt("barrier", lambda: check_barrier(dist, backend, coordinator, timeout_s, device_index))
        attempt("all_reduce", lambda: check_all_reduce(dist, torch, device, rank, world_size))
        attempt("broadcast", lambda: check_broadcast(dist, torch, device, rank))
        attempt("bandwidth", bandwidth_test)
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()
    return CollectiveRun(results, bandwidth)
