"""The report of `check --distributed`: the check report plus every rank's facts and the bandwidth table."""

from __future__ import annotations

from typing import Any

from ddpdoctor.check.runner import CheckReport
from ddpdoctor.distributed.collectives import BandwidthRow
from ddpdoctor.distributed.facts import RankFacts
from ddpdoctor.errors import ExitCode
from ddpdoctor.findings import Finding, Severity
from ddpdoctor.records import field


class DistributedCheckReport(CheckReport):
    """`ddpdoctor.check/1` with `ranks`, `world_size`, `backend`, `bandwidth` and `rank` added.

    Rank 0's report covers the whole job. Another rank's report holds only its own findings, and
    `job_ok` is rank 0's verdict on the whole job (None when rank 0 could not be heard).
    """

    rank: int = 0
    world_size: int = 1
    backend: str | None = None
    timeout_s: float = 0.0
    ranks: list[RankFacts] = field(default_factory=list)
    bandwidth: list[BandwidthRow] = field(default_factory=list)
    job_ok: bool | None = None

    @property
    def is_reporter(self) -> bool:
        """True on rank 0, the rank that prints the report for the whole job."""
        return self.rank == 0

    def own_errors(self) -> list[Finding]:
        """Error findings about this rank (what a non-reporting rank prints)."""
        return [f for f in self.findings if f.severity is Severity.ERROR]

    def exit_code(self, *, strict: bool = False) -> ExitCode:
        """1 when this rank's findings have an error or rank 0 judged the job not healthy."""
        if self.job_ok is False:
            return ExitCode.PROBLEM
        return super().exit_code(strict=strict)

    def to_dict(self) -> dict[str, Any]:
        """The check report's keys (devices: one per rank) plus ranks, backend and bandwidth."""
        return {
            **super().to_dict(),
            "devices": [
                {
                    "position": r.rank,
                    "written": r.device,
                    "device": r.device,
                    "type": r.device_type,
                    "ordinal": None if r.gpu is None else r.gpu.get("index"),
                    "gpu": None if r.gpu is None else dict(r.gpu),
                }
                for r in self.ranks
            ],
            "rank": self.rank,
            "world_size": self.world_size,
            "backend": self.backend,
            "timeout_s": self.timeout_s,
            "ranks": [r.to_dict() for r in self.ranks],
            "bandwidth": [b.to_dict() for b in self.bandwidth],
        }

    def summary(self) -> str:
        """One line: errors and warnings, and how many ranks were heard from."""
        problems = self._problem_count()
        return f"{problems or 'all checks passed'}; {len(self.ranks)} of {self.world_size} rank(s) reported"
