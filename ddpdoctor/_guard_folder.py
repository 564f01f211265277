"""The folder `guard()` reports into: one JSON record and one log per rank, and peers' records.

Every rank writes `ddpdoctor-rank{N}.json` (the `ddpdoctor.guard/1` record) and
`ddpdoctor-rank{N}.log` (its exception, each line labelled `[rankN]:` after a timestamped header,
the way torchrun prints a rank's output) into the same folder, so `ddpdoctor explain FOLDER`
reads the whole job. A rank whose failure is a symptom of a peer's (a timeout, a connection closed
by the peer) looks there for a culprit: the record of a rank whose own failure was a cause, written
during the same launch attempt and after this process started.
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

GUARD_SCHEMA = "ddpdoctor.guard/1"
CULPRIT = "culprit"
VICTIM = "victim"
PREFIX = "ddpdoctor-"
_MAX_RECORD_BYTES = 4 * 1024 * 1024
_MAX_ENTRIES = 10_000  # folder entries looked at per scan
_POLL_SECONDS = 0.1
MAX_WAIT_SECONDS = 60.0
# /proc/stat's boot time has one-second resolution; clocks of nodes sharing a folder differ a little.
_CLOCK_SLACK = 2.0
_IMPORTED_AT = time.time()


def report_stem(rank: int | None) -> str:
    """`ddpdoctor-rank3`, or `ddpdoctor-pid1234` when the rank is unknown."""
    return f"{PREFIX}rank{rank}" if rank is not None else f"{PREFIX}pid{os.getpid()}"


def _write_atomic(path: Path, text: str) -> None:
    """Write through a temporary file and rename it, so a peer never reads half a report."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    partial.write_text(text, encoding="utf-8", errors="backslashreplace")
    partial.replace(path)


def write_reports(folder: Path, stem: str, record: dict[str, Any], log_text: str) -> Path:
    """Write `stem.log` then `stem.json` (peers look for the JSON) into `folder`; return the JSON's path."""
    folder.mkdir(parents=True, exist_ok=True)
    _write_atomic(folder / f"{stem}.log", log_text)
    report = folder / f"{stem}.json"
    _write_atomic(report, json.dumps(record, indent=2, ensure_ascii=False, default=str) + "\n")
    return report


@dataclass(frozen=True)
class PeerFailure:
    """A peer's failure as its report tells it."""

    rank: int | None
    report: Path
    summary: str
    entry: str | None
    failed_at: float


def process_start_time() -> float:
    """When this process started (seconds since the epoch), from /proc; else when ddpdoctor was imported."""
    try:
        stat = Path("/proc/self/stat").read_text(encoding="ascii")
        ticks = int(stat.rsplit(")", 1)[1].split()[19])  # field 22, starttime, in clock ticks after boot
        boot = next(
            int(line.split()[1])
            for line in Path("/proc/stat").read_text(encoding="ascii").splitlines()
            if line.startswith("btime ")
        )
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return _IMPORTED_AT


def _peer(path: Path, run: str | None, since: float) -> PeerFailure | None:
    """The culprit failure recorded in `path`, or None when it is not one (or not readable)."""
    try:
        if not path.is_file() or path.stat().st_size > _MAX_RECORD_BYTES:
            return None
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(record, dict) or record.get("schema") != GUARD_SCHEMA or record.get("role") != CULPRIT:
        return None
    failed_at, rank = record.get("failed_at"), record.get("rank")
    if not isinstance(failed_at, (int, float)) or not math.isfinite(failed_at) or failed_at < since:
        return None
    if record.get("run") != run or not (rank is None or (isinstance(rank, int) and rank >= 0)):
        return None
    summary, entry = record.get("summary"), record.get("entry")
    return PeerFailure(
        rank=rank,
        report=path,
        summary=summary if isinstance(summary, str) else "",
        entry=entry if isinstance(entry, str) else None,
        failed_at=float(failed_at),
    )


def earliest_culprit(folder: Path, *, own: str, run: str | None, since: float) -> PeerFailure | None:
    """The earliest culprit record of this launch attempt in `folder`, other than this rank's `own` stem."""
    found: list[PeerFailure] = []
    try:
        with os.scandir(folder) as entries:
            for count, entry in enumerate(entries):
                if count >= _MAX_ENTRIES:
                    break
                name = entry.name
                if name.startswith(PREFIX) and name.endswith(".json") and name != f"{own}.json":
                    peer = _peer(Path(entry.path), run, since - _CLOCK_SLACK)
                    if peer is not None:
                        found.append(peer)
    except OSError:
        return None
    return min(found, key=lambda p: p.failed_at, default=None)


def bounded_wait(seconds: float) -> float:
    """`seconds` within 0..MAX_WAIT_SECONDS; NaN counts as 0."""
    return min(max(seconds, 0.0), MAX_WAIT_SECONDS) if not math.isnan(seconds) else 0.0


def wait_for_culprit(
    folder: Path, *, own: str, run: str | None, since: float, wait: float
) -> PeerFailure | None:
    """Look for a culprit record for up to `wait` seconds (a dying peer may still be writing it)."""
    deadline = time.monotonic() + bounded_wait(wait)
    while True:
        found = earliest_culprit(folder, own=own, run=run, since=since)
        left = deadline - time.monotonic()
        if found is not None or left <= 0:
            return found
        time.sleep(min(_POLL_SECONDS, left))
