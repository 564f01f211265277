"""Report models of `ddpdoctor stacks` (`ddpdoctor.stacks/1`) and `ddpdoctor run` (`ddpdoctor.run/1`).

Both follow the `explain` contract: a `schema` key, `ok`, `findings`, and keys that are only ever
added. Their pages are laid out by :mod:`ddpdoctor.present.run`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ddpdoctor.errors import ExitCode
from ddpdoctor.findings import Evidence, Finding, Report, Severity
from ddpdoctor.records import field
from ddpdoctor.supervise.analysis import StackAnalysis, analyse, member_ranks, same_collective_note
from ddpdoctor.supervise.flight import FlightRecorderAnalysis, analyse_dumps, dump_files, dump_prefix
from ddpdoctor.supervise.procfs import RankProcess
from ddpdoctor.supervise.stacks import ProcessStacks, collect_stacks

if TYPE_CHECKING:
    from ddpdoctor.explain.report import ExplainReport

STACKS_SCHEMA = "ddpdoctor.stacks/1"
RUN_SCHEMA = "ddpdoctor.run/1"
# `ddpdoctor run --on-hang kill` exits with this code, as GNU timeout does.
HANG_KILLED_EXIT = 124


class HangReport(Report):
    """Every rank's stacks, merged; the suspects; what the Flight Recorder dumps say."""

    processes: list[ProcessStacks] = field(default_factory=list)
    analysis: StackAnalysis | None = None
    flight_recorder: FlightRecorderAnalysis | None = None
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON form (`ddpdoctor.stacks/1`)."""
        analysis = self.analysis
        return {
            **super().to_dict(),
            "processes": [p.to_dict() for p in self.processes],
            "classes": [] if analysis is None else [c.to_dict() for c in analysis.classes],
            "tree": [] if analysis is None else [n.to_dict() for n in analysis.tree],
            "suspects": [] if analysis is None else [s.to_dict() for s in analysis.suspects],
            "gone": [] if analysis is None else list(analysis.gone),
            "unreadable": [] if analysis is None else list(analysis.unreadable),
            "flight_recorder": None if self.flight_recorder is None else self.flight_recorder.to_dict(),
            "notes": list(self.notes),
            "seconds": round(self.seconds, 3),
        }


# The knowledge-base category of each suspect's situation (the rest are collective timeouts).
_CATEGORIES = {
    "different-collective": "collective_mismatch",
    "left-loop": "collective_mismatch",
    "dataloader": "dataloader",
}


def _findings(analysis: StackAnalysis) -> list[Finding]:
    findings = []
    for suspect in analysis.suspects:
        evidence = (
            ()
            if suspect.user is None
            else (Evidence(suspect.user.function, suspect.user.file, suspect.user.line),)
        )
        ranks = member_ranks(suspect.members)
        findings.append(
            Finding(
                id=f"stacks.{suspect.reason}",
                severity=Severity.ERROR,
                category=_CATEGORIES.get(suspect.reason, "collective_timeout"),
                title=f"{suspect.label}: {suspect.reason.replace('-', ' ')}",
                message=suspect.message,
                rank=ranks[0] if len(ranks) == 1 else None,
                evidence=evidence,
                entry=suspect.entries[0] if suspect.entries else None,
                data={"members": list(suspect.members)},
            )
        )
    return findings


def hang_report(
    processes: Sequence[RankProcess],
    *,
    native: bool = False,
    use_py_spy: bool = True,
    before_dumps: Callable[[], None] | None = None,
) -> HangReport:
    """Take the stacks of `processes`, merge them, and read their Flight Recorder dumps if any.

    `before_dumps` is called after the stacks are taken and before the dumps are looked for
    (`run` waits there for the dumps it asked the ranks for).
    """
    started = time.monotonic()
    prefixes = {p.pid: prefix for p in processes if (prefix := dump_prefix(p.pid))}
    stacks = collect_stacks(processes, native=native, use_py_spy=use_py_spy)
    analysis = analyse(stacks)
    if before_dumps is not None:
        before_dumps()
    flight = analyse_dumps(dump_files(processes, prefixes))
    report = HangReport(
        schema=STACKS_SCHEMA,
        findings=_findings(analysis),
        processes=stacks,
        analysis=analysis,
        flight_recorder=flight,
    )
    note = same_collective_note(analysis)
    if note:
        report.notes.append(note)
    report.seconds = time.monotonic() - started
    return report


class RunReport(Report):
    """A supervised run: the command, how it ended, what was set, and the diagnoses."""

    command: tuple[str, ...] = ()
    folder: str = ""
    exit_status: int | None = None
    duration_s: float = 0.0
    instrumentation: list[tuple[str, str]] = field(default_factory=list)
    hang: HangReport | None = None
    hang_silence_s: float | None = None
    # What made the job look stuck ("silence" or "heartbeat"), the ranks whose heartbeat had
    # stopped, and for how long the first of them had been stalled when the suspects were named.
    hang_trigger: str | None = None
    stalled_ranks: list[int] = field(default_factory=list)
    hang_stall_s: float | None = None
    killed: bool = False
    stopped_at_bound: bool = False
    # Processes of the job still running when it ended (stopped by run), and any that survived.
    reaped: list[int] = field(default_factory=list)
    leftover: list[int] = field(default_factory=list)
    explanation: ExplainReport | None = None
    files: list[str] = field(default_factory=list)
    bundle: str | None = None

    @property
    def returncode(self) -> int:
        """What `ddpdoctor run` exits with: the job's code, 124 after a hang it killed."""
        if self.killed:
            return HANG_KILLED_EXIT
        if self.exit_status is None:
            return int(ExitCode.PROBLEM)
        return self.exit_status if self.exit_status >= 0 else 128 - self.exit_status

    def hang_reason(self, hang_after: float) -> str:
        """Why the job was taken for hung, in words."""
        if self.hang_trigger != "heartbeat":
            return f"no output and no progress for {hang_after:g} s"
        ranks = ", ".join(map(str, self.stalled_ranks))
        return (
            f"rank(s) {ranks} made no progress for {hang_after:g} s (their heartbeat from "
            "guard()/preflight()/heartbeat() stopped) while the job kept printing"
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON form (`ddpdoctor.run/1`)."""
        return {
            **super().to_dict(),
            "command": list(self.command),
            "folder": self.folder,
            "exit_status": self.exit_status,
            "returncode": self.returncode,
            "duration_s": round(self.duration_s, 3),
            "instrumentation": [{"variable": k, "value": v} for k, v in self.instrumentation],
            "hang": None if self.hang is None else self.hang.to_dict(),
            "hang_silence_s": None if self.hang_silence_s is None else round(self.hang_silence_s, 3),
            "hang_trigger": self.hang_trigger,
            "stalled_ranks": list(self.stalled_ranks),
            "hang_stall_s": None if self.hang_stall_s is None else round(self.hang_stall_s, 3),
            "killed": self.killed,
            "stopped_at_bound": self.stopped_at_bound,
            "reaped_pids": list(self.reaped),
            "leftover_pids": list(self.leftover),
            "explain": None if self.explanation is None else self.explanation.to_dict(),
            "files": list(self.files),
            "bundle": self.bundle,
        }
