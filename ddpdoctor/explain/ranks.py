"""Who printed a line and when: rank prefixes, per-file ranks and timestamps.

Launchers label lines in different ways, and a line may carry more than one label:

- torchrun `--tee` / PyTorch's rank-prefixed logging: `[rank3]: ...`;
- torchrun `--role`: `[default3]: ...` (the local rank);
- `srun --label`: `3: ...` (only trusted when most lines of the file look like that, because a
  Rust backtrace frame `  3: std::panicking` has the same shape);
- Open MPI `--tag-output`: `[1,3]<stderr>: ...` (job 1, rank 3);
- Lightning: `[rank: 3] ...`;
- pdsh/DeepSpeed host labels (`worker-1: [rank3]: ...`) and process-id labels (`[80746] `).

Timestamps are read in the forms glog (`E1129 13:00:01.000000`, month and day only), ISO 8601
and torchrun's failure table (`2026-11-29_13:00:01`). They become seconds since the start of an
unspecified year, which orders the events of one job.
"""

from __future__ import annotations

import re
import time

from ddpdoctor.explain.lines import LazyRegex

_MAX_PREFIXES = 4

# `[80746] ` process ids, and Ray's `(WorkerDict pid=231421) ` / `(pid=123, ip=10.0.0.1) ` labels.
_PID_LABEL = LazyRegex(r"\[\d+\] |\((?:\w+ )?pid=\d+(?:, ip=[\d.]+)?\) ")
_HOST_LABEL = LazyRegex(r"[\w.-]+: (?=\[)")
_RANK_LABELS: tuple[tuple[LazyRegex, str], ...] = (
    (LazyRegex(r"\[rank(\d+)\]:[ \t]?"), "rank"),
    (LazyRegex(r"\[RANK (\d+)\][ \t]?"), "rank"),
    (LazyRegex(r"\[(\d+),(\d+)\]<std(?:out|err)>:[ \t]?"), "mpi"),
    (LazyRegex(r"\[rank: ?(\d+)\][ \t]?"), "rank"),
    (LazyRegex(r"\[[A-Za-z_][\w-]*?(\d+)\]:[ \t]?"), "local"),
    # Determined AI: `[2024-02-27T21:35:28.419846Z] fa88a9df [rank=5] || message`
    (LazyRegex(r"\[[^\]]{10,40}\] [0-9a-f]{8} \[rank=(\d+)\] \|\|[ \t]?"), "rank"),
)
SRUN_LABEL = LazyRegex(r"[ \t]*(\d{1,5}): ")

# glog and c10 logging: `E1129 13:00:01.000000` or `[E626 06:24:44.9038]` (the month may lack its zero).
_GLOG = LazyRegex(r"\[?([IWEF])(\d{1,2})(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?\b")
_ISO = LazyRegex(r"(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:[.,](\d{1,9}))?")
TORCHRUN_TIME = LazyRegex(r"(\d{4})-(\d\d)-(\d\d)_(\d\d):(\d\d):(\d\d)")

_TORCHRUN_FILE = LazyRegex(r"attempt_\d+$")
# `rank3.log`, `train_rank-3.txt`, `log.rank3.err.gz`, a folder `rank3`: the rank ends the name.
_RANK_IN_NAME = LazyRegex(
    r"(?:^|.*[_.-])(?:local_)?rank[-_]?(\d{1,5})(?:\.(?:log|txt|out|err|json))*(?:\.gz)?$", re.IGNORECASE
)


class Prefix:
    """The labels found at the start of a line."""

    __slots__ = ("local", "rank", "rest")

    def __init__(self, rank: int | None, local: bool, rest: str) -> None:
        self.rank = rank
        self.local = local
        self.rest = rest


def split_prefix(line: str, *, srun: bool = False) -> Prefix:
    """Peel the rank labels off a line; `rest` is the text the program printed."""
    rest = line.lstrip(" \t")
    if rest[:1] not in ("[", "(") and not (srun and rest[:1].isdigit()):
        return Prefix(None, False, line)  # no label: keep the indentation (traceback frames need it)
    rank: int | None = None
    local = False
    for _ in range(_MAX_PREFIXES):
        m = _PID_LABEL.match(rest)
        if m:
            rest = rest[m.end() :]
            continue
        found = _rank_label(rest)
        if found is None:
            host = _HOST_LABEL.match(rest)
            found = _rank_label(rest[host.end() :]) if host else None
            if found is not None and host is not None:
                rest = rest[host.end() :]
        if found is None and srun and rank is None:
            m = SRUN_LABEL.match(rest)
            if m:
                found = (int(m.group(1)), False, m.end())
        if found is None:
            break
        value, is_local, end = found
        if rank is None or (local and not is_local):
            rank, local = value, is_local
        rest = rest[end:]
    if rank is None:
        return Prefix(None, False, line)
    return Prefix(rank, local, rest)


def _rank_label(text: str) -> tuple[int, bool, int] | None:
    if not text.startswith("["):
        return None
    for regex, kind in _RANK_LABELS:
        m = regex.match(text)
        if m:
            return int(m.group(m.lastindex or 1)), kind == "local", m.end()
    return None


def looks_srun_labelled(head: bytes) -> bool:
    """Whether most lines of a file's first bytes carry `srun --label` numbers."""
    lines = [line for line in head.split(b"\n")[:200] if line.strip()]
    if len(lines) < 3:
        return False
    labelled = sum(1 for line in lines if SRUN_LABEL.match(line.decode("utf-8", "replace")))
    return labelled >= 0.8 * len(lines)


def _seconds(month: int, day: int, hour: int, minute: int, second: int, frac: str | None) -> float | None:
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour < 24 and minute < 60 and second < 61):
        return None
    value = ((month - 1) * 31 + day - 1) * 86400 + hour * 3600 + minute * 60 + second
    return value + (float("0." + frac) if frac else 0.0)


class Stamp:
    """A timestamp found on a line (an object, so that second 0.0 is not mistaken for none)."""

    __slots__ = ("seconds",)

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds


def find_timestamp(text: str) -> Stamp | None:
    """The timestamp at (or near) the start of a line, if any."""
    head = text[:64]
    m = _GLOG.match(head)
    if m:
        _level, month, day, hour, minute, second, frac = m.groups()
        value = _seconds(int(month), int(day), int(hour), int(minute), int(second), frac)
        return Stamp(value) if value is not None else None
    m = _ISO.search(head)
    if m:
        _year, month, day, hour, minute, second, frac = m.groups()
        value = _seconds(int(month), int(day), int(hour), int(minute), int(second), frac)
        return Stamp(value) if value is not None else None
    return None


def torchrun_time(text: str) -> float | None:
    """Seconds for torchrun's `time : 2026-11-29_13:00:01` field."""
    m = TORCHRUN_TIME.search(text)
    if not m:
        return None
    _year, month, day, hour, minute, second = m.groups()
    return _seconds(int(month), int(day), int(hour), int(minute), int(second), None)


def epoch_seconds(epoch: float) -> float | None:
    """Seconds (same scale as log timestamps) for a Unix time, in local time as torchrun prints it."""
    try:
        t = time.localtime(epoch)
    except (OverflowError, OSError, ValueError):
        return None
    return _seconds(t.tm_mon, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec, None)


def rank_from_path(path: str) -> tuple[int | None, str | None]:
    """(rank, how it was read) from a file path: torchrun's log-dir layout or a `rank3` in a name."""
    parts = [part for part in path.replace("\\", "/").split("/") if part]
    if len(parts) >= 3 and parts[-2].isdigit() and _TORCHRUN_FILE.match(parts[-3]):
        return int(parts[-2]), "torchrun log folder (local rank)"
    for part in reversed(parts[-3:]):
        m = _RANK_IN_NAME.match(part)
        if m:
            return int(m.group(1)), f"file name {part!r}"
    return None, None
