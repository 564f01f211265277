"""Flight Recorder dumps: find them, read them with torch's own loader, compare the ranks.

A dump is one file per rank, `<prefix><rank>`, where the prefix is `TORCH_FR_DUMP_TEMP_FILE` (or
`TORCH_NCCL_DEBUG_INFO_TEMP_FILE`) of the rank's environment. torch writes one when a watchdog
times out; `ddpdoctor run` asks its ranks for one when the job hangs. Reading uses
`torch.distributed.flight_recorder.components.loader.read_dump`, so the pickle format stays
torch's business; torch is imported only when a dump exists.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ddpdoctor.supervise.procfs import RankProcess, read_environ

PREFIX_VARIABLES = ("TORCH_FR_DUMP_TEMP_FILE", "TORCH_NCCL_DEBUG_INFO_TEMP_FILE")


@dataclass(frozen=True)
class RankTrace:
    """What one rank's dump says: its last collectives, entered and completed."""

    rank: int
    file: str
    entries: int
    last_entered: str | None
    last_entered_seq: int | None
    last_completed_seq: int | None

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "rank": self.rank,
            "file": self.file,
            "entries": self.entries,
            "last_entered": self.last_entered,
            "last_entered_seq": self.last_entered_seq,
            "last_completed_seq": self.last_completed_seq,
        }


@dataclass(frozen=True)
class Disagreement:
    """The first collective (process group, sequence number) on which the ranks differ."""

    process_group: str
    seq: int
    ops: Mapping[int, str]
    sizes: Mapping[int, str]
    missing: tuple[int, ...]

    @property
    def message(self) -> str:
        """In words: which rank did what at this sequence number."""
        parts = [f"rank {r}: {op} {self.sizes.get(r, '')}".rstrip() for r, op in sorted(self.ops.items())]
        if self.missing:
            parts.append(f"never entered by rank(s) {', '.join(map(str, self.missing))}")
        return f"process group {self.process_group}, seq {self.seq}: " + "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "process_group": self.process_group,
            "seq": self.seq,
            "ops": {str(r): op for r, op in sorted(self.ops.items())},
            "sizes": {str(r): s for r, s in sorted(self.sizes.items())},
            "missing": list(self.missing),
            "message": self.message,
        }


@dataclass(frozen=True)
class FlightRecorderAnalysis:
    """Per-rank traces and the first disagreement between ranks (None when they agree)."""

    ranks: tuple[RankTrace, ...]
    disagreement: Disagreement | None
    errors: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "ranks": [r.to_dict() for r in self.ranks],
            "first_disagreement": None if self.disagreement is None else self.disagreement.to_dict(),
            "errors": list(self.errors),
        }


def dump_prefix(pid: int) -> str | None:
    """The Flight Recorder dump prefix in a process's environment."""
    env = read_environ(pid)
    return next((env[name] for name in PREFIX_VARIABLES if env.get(name)), None)


def dump_files(processes: Sequence[RankProcess], prefixes: Mapping[int, str]) -> dict[int, Path]:
    """The dump file of each rank that has one: `<prefix><rank>` (prefixes by pid)."""
    found = {}
    for process in processes:
        prefix = prefixes.get(process.pid)
        if process.rank is None or not prefix:
            continue
        path = Path(f"{prefix}{process.rank}")
        if path.is_file() and path.stat().st_size > 0:
            found[process.rank] = path
    return found


def _seq(entry: Mapping[str, Any]) -> int | None:
    value = entry.get("collective_seq_id")
    return value if isinstance(value, int) else None


def _op(entry: Mapping[str, Any]) -> str:
    name = str(entry.get("profiling_name") or "?")
    return name.split(":", 1)[-1]


def _group(entry: Mapping[str, Any]) -> str:
    group = entry.get("process_group")
    if isinstance(group, (list, tuple)) and group:
        return str(group[1] if len(group) > 1 and group[1] else group[0])
    return str(entry.get("pg_id", "?"))


def _completed_seq(dump: Mapping[str, Any], entries: Sequence[Mapping[str, Any]]) -> int | None:
    status = dump.get("pg_status")
    if isinstance(status, Mapping):
        values = [s.get("last_completed_collective") for s in status.values() if isinstance(s, Mapping)]
        numbers = [v for v in values if isinstance(v, int) and v >= 0]
        if numbers:
            return max(numbers)
    done = [_seq(e) for e in entries if e.get("state") == "completed"]
    numbers = [n for n in done if n is not None]
    return max(numbers) if numbers else None


def compare(dumps: Mapping[int, Mapping[str, Any]], files: Mapping[int, Path]) -> FlightRecorderAnalysis:
    """Per-rank last collectives and the first (group, seq) where ranks differ in op, size or presence."""
    traces = []
    table: dict[tuple[str, int], dict[int, Mapping[str, Any]]] = {}
    for rank, dump in sorted(dumps.items()):
        entries = [e for e in dump.get("entries", []) if isinstance(e, Mapping) and not e.get("is_p2p")]
        for entry in entries:
            seq = _seq(entry)
            if seq is not None:
                table.setdefault((_group(entry), seq), {})[rank] = entry
        last = entries[-1] if entries else None
        traces.append(
            RankTrace(
                rank=rank,
                file=str(files[rank]),
                entries=len(entries),
                last_entered=None if last is None else _op(last),
                last_entered_seq=None if last is None else _seq(last),
                last_completed_seq=_completed_seq(dump, entries),
            )
        )
    disagreement = None
    ranks = set(dumps)
    for (group, seq), by_rank in sorted(table.items(), key=lambda item: (item[0][1], item[0][0])):
        ops = {r: _op(e) for r, e in by_rank.items()}
        sizes = {r: str(e.get("input_sizes", "")) for r, e in by_rank.items()}
        missing = tuple(sorted(ranks - set(by_rank)))
        if len(set(ops.values())) > 1 or len(set(sizes.values())) > 1 or missing:
            disagreement = Disagreement(group, seq, ops, sizes, missing)
            break
    return FlightRecorderAnalysis(tuple(traces), disagreement)


def analyse_dumps(files: Mapping[int, Path]) -> FlightRecorderAnalysis | None:
    """Read every rank's dump with torch's loader and compare them; None when there is no dump."""
    if not files:
        return None
    try:
        from torch.distributed.flight_recorder.components.loader import read_dump
    except ImportError as exc:
        return FlightRecorderAnalysis((), None, (f"torch's Flight Recorder reader is not available: {exc}",))
    dumps: dict[int, Mapping[str, Any]] = {}
    errors = []
    for rank, path in sorted(files.items()):
        prefix = path.name[: len(path.name) - len(str(rank))]
        try:
            dumps[rank] = read_dump(prefix, os.fspath(path))
        except Exception as exc:  # a truncated or foreign file must not stop the report
            errors.append(f"{path}: {type(exc).__name__}: {exc}")
    analysis = compare(dumps, files)
    return FlightRecorderAnalysis(analysis.ranks, analysis.disagreement, tuple(errors))
