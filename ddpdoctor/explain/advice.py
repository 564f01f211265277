"""Numbers from the evidence, turned into sentences a user can act on."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from ddpdoctor.explain.lines import LazyRegex
from ddpdoctor.explain.model import SIGNAL_NAMES, Event

_SIZE = r"(\d+(?:\.\d+)?) ?([KMGTP]?i?B|bytes)"
_OOM_NEW = LazyRegex(
    rf"Tried to allocate {_SIZE}\. GPU (\d+) has a total capacity of {_SIZE} of which {_SIZE} is free"
)
_OOM_OLD = LazyRegex(
    rf"Tried to allocate {_SIZE} \(GPU (\d+); {_SIZE} total capacity; {_SIZE} already allocated; {_SIZE} free"
)
_OOM_RESERVED = LazyRegex(rf"and {_SIZE} is reserved by PyTorch but unallocated")
_OOM_BYTES = LazyRegex(
    r"(?:out of (?:device )?memory|OutOfMemory).{0,40}?(?:allocating|tried to allocate|size:?) (\d+) bytes",
    re.I,
)
_OOM_OTHERS = LazyRegex(rf"Process \d+ has {_SIZE} memory in use")
_WATCHDOG = LazyRegex(
    r"WorkNCCL\(SeqNum=(\d+), OpType=(\w+)(?:[^)]*?Timeout\(ms\)=(\d+))?[^)]*\)(?: ran for (\d+) milliseconds)?"
)
_LAST_COMPLETED = LazyRegex(r"last completed (?:NCCL )?work: (\d+)")
DUPLICATE_GPU = LazyRegex(r"rank (\d+) and rank (\d+) both on CUDA device (\w+)")
_DEVICE = LazyRegex(
    r"\b(cuda:\d+|Cuda\(\d+\)|CudaDevice \{ index: \d+ \}|DeviceId \{ type_id: \d+, index_id: \d+ \})"
)
_MONITORED = LazyRegex(r"Ranks? ([\d, ]+?) failed to pass monitoredBarrier")
_MISSING = LazyRegex(r"missing ranks: \{([\d, ]+)\}")

_UNITS = {"B": 1, "bytes": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "PB": 1e15}
_UNITS.update({"KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40, "PiB": 2**50})


def _bytes(value: str, unit: str) -> float:
    return float(value) * _UNITS.get(unit, 1)


def human(size: float) -> str:
    """Bytes as GiB/MiB/KiB text."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale:
            return f"{size / scale:.2f} {unit}"
    return f"{size:.0f} bytes"


def _who(event: Event) -> str:
    return f"rank {event.rank}" if event.rank is not None else "the failing process"


def oom_advice(event: Event, texts: Sequence[str]) -> list[str]:
    """The failed allocation against the GPU's total and free memory."""
    joined = "\n".join(texts)
    out: list[str] = []
    m = _OOM_NEW.search(joined) or _OOM_OLD.search(joined)
    if m:
        want = _bytes(m.group(1), m.group(2))
        gpu = m.group(3)
        total = _bytes(m.group(4), m.group(5))
        free = _bytes(m.groups()[-2], m.groups()[-1])
        used = 100.0 * (1 - free / total) if total else 0.0
        short = max(0.0, want - free)
        out.append(
            f"{_who(event)} asked for {human(want)} on GPU {gpu}, which had {human(free)} free of "
            f"{human(total)} ({used:.1f}% in use): {human(short)} more was needed. Reduce the per-GPU "
            "batch size or sequence length, or free memory on that GPU."
        )
        reserved = _OOM_RESERVED.search(joined)
        if reserved and _bytes(reserved.group(1), reserved.group(2)) >= want:
            out.append(
                f"{human(_bytes(reserved.group(1), reserved.group(2)))} was reserved by PyTorch but "
                "unallocated, more than the request: the memory is fragmented. Try "
                "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True."
            )
        others = [_bytes(v, u) for v, u in _OOM_OTHERS.findall(joined)]
        if len(others) > 1:
            out.append(
                f"{len(others)} processes hold memory on GPU {gpu} ({human(sum(others))} in all): "
                "if these are other ranks, more than one rank is using this device."
            )
        return out
    m = _OOM_BYTES.search(joined)
    if m:
        out.append(
            f"{_who(event)} failed to allocate {human(float(m.group(1)))} of device memory. Compare it "
            "with the free memory of that device (`nvidia-smi`, or `ddpdoctor check --devices ...`)."
        )
    return out


class TimeoutFacts:
    """What the watchdog lines of all ranks say about one collective timeout."""

    def __init__(self) -> None:
        self.reporters: dict[int, tuple[str, str, str | None, str | None]] = {}
        self.completed: dict[int, int] = {}
        self.named_missing: set[int] = set()

    def add(self, event: Event) -> None:
        for text in (event.text, *(t for _, _, t in event.evidence)):
            m = _WATCHDOG.search(text)
            if m and event.rank is not None:
                self.reporters.setdefault(event.rank, (m.group(1), m.group(2), m.group(3), m.group(4)))
            c = _LAST_COMPLETED.search(text)
            if c and event.rank is not None:
                self.completed.setdefault(event.rank, int(c.group(1)))
            for regex in (_MONITORED, _MISSING):
                found = regex.search(text)
                if found:
                    self.named_missing |= {int(x) for x in re.findall(r"\d+", found.group(1))}


def timeout_advice(facts: TimeoutFacts, known_ranks: Iterable[int]) -> tuple[list[str], list[int]]:
    """Sentences about the collective that timed out, and the ranks suspected of not joining it."""
    out: list[str] = []
    suspects: list[int] = sorted(facts.named_missing)
    if facts.reporters:
        ops = {(seq, op) for seq, op, _t, _r in facts.reporters.values()}
        ranks = ", ".join(str(r) for r in sorted(facts.reporters))
        seq, op, timeout, ran = next(iter(facts.reporters.values()))
        limit = f"; the timeout is {int(timeout)} ms ({int(timeout) / 60000:.1f} min)" if timeout else ""
        ran_for = f" after {ran} ms" if ran else ""
        if len(ops) == 1:
            out.append(f"{op} (SeqNum {seq}) timed out on rank(s) {ranks}{ran_for}{limit}.")
        else:
            detail = ", ".join(f"rank {r}: {o} #{s}" for r, (s, o, _t, _x) in sorted(facts.reporters.items()))
            out.append(
                f"The ranks were not in the same collective when the watchdog fired ({detail}): the "
                "order of collectives differs between ranks (a rank skipped or added one)."
            )
        if not suspects and len(facts.reporters) >= 2:
            # A gap between ranks that all report the same timeout is a rank that never joined it.
            seen = set(known_ranks) | set(facts.reporters)
            suspects = [r for r in range(max(seen) + 1) if r not in facts.reporters]
    if facts.completed and len(set(facts.completed.values())) > 1:
        low = min(facts.completed.values())
        behind = sorted(r for r, c in facts.completed.items() if c == low)
        out.append(
            f"Rank(s) {', '.join(map(str, behind))} completed the fewest collectives (last completed work "
            f"{low}): they fell behind first."
        )
    if facts.named_missing:
        out.append(
            f"The log names rank(s) {', '.join(map(str, sorted(facts.named_missing)))} as missing from the "
            "collective: look at what they were doing (their last log lines, py-spy dump)."
        )
    elif suspects:
        out.append(
            f"Rank(s) {', '.join(map(str, suspects))} did not report this timeout: they probably never "
            "entered the collective (stuck, crashed silently, or took another branch)."
        )
    return out, suspects


def duplicate_advice(texts: Sequence[str]) -> list[str]:
    """Which ranks or list entries share a device."""
    joined = "\n".join(texts)
    m = DUPLICATE_GPU.search(joined)
    if m:
        return [
            f"Ranks {m.group(2)} and {m.group(1)} both use CUDA device {m.group(3)}: give every rank its own "
            "GPU (torch.cuda.set_device(local_rank) before creating the process group)."
        ]
    devices = _DEVICE.findall(joined)
    repeated = sorted({d for d in devices if devices.count(d) > 1})
    if repeated:
        return [f"{', '.join(repeated)} appears more than once in the devices list: list each device once."]
    return []


def kill_advice(event: Event) -> list[str]:
    """A process killed by a signal, and what to check."""
    code = event.exit_code if event.exit_code is not None else 0
    name = SIGNAL_NAMES.get(-code if code < 0 else code - 128, "a signal")
    pid = f" (pid {event.pid})" if event.pid is not None else ""
    if name == "SIGKILL":
        return [
            f"{_who(event).capitalize()}{pid} was killed by SIGKILL and printed no Python error: most "
            "likely the kernel's out-of-memory killer (host RAM, not GPU memory). Check "
            "`dmesg -T | grep -i -E 'killed process|out of memory'` on that node, then reduce host "
            "memory: fewer DataLoader workers, smaller prefetch, memory-mapped datasets, or more RAM."
        ]
    return [f"{_who(event).capitalize()}{pid} was killed by {name} (exit code {code})."]


def exit_advice(event: Event) -> list[str]:
    """A process that exited with an error code but left no error text."""
    return [
        f"{_who(event).capitalize()} exited with code {event.exit_code} and left no error text in these "
        "logs. Decorate the entry point with torch.distributed.elastic.multiprocessing.errors.record, or run "
        "torchrun with --log-dir (and --tee 3) so every rank's traceback is kept."
    ]
