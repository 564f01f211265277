"""ExplainReport: the `ddpdoctor.explain/1` JSON contract (its layout is :mod:`ddpdoctor.present.explain`).

`to_dict` is a contract outside tools rely on (keys are only ever added):

    {"schema": "ddpdoctor.explain/1", "ok": bool, "inputs": [...],
     "root_cause": null | {"entry", "category", "rank", "file", "line", "text",
                           "chain": [{"entry", "text"}], "solutions", ...extra keys},
     "victims": [{"rank", "category", "entry", "line", ...extra keys}],
     "findings": [...], "stats": {"engine", "events"}}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ddpdoctor.findings import Evidence, Finding, Report, Severity

SCHEMA = "ddpdoctor.explain/1"
_MAX_SHOWN = 600
MAX_EVIDENCE = 12  # evidence lines kept per root cause and per finding


def shorten(text: str) -> str:
    """`text`, cut after 600 characters with a note of how much was left out."""
    return (
        text
        if len(text) <= _MAX_SHOWN
        else text[:_MAX_SHOWN] + f" ... [{len(text) - _MAX_SHOWN} more characters]"
    )


@dataclass
class ExplainReport(Report):
    """What `explain` found in a set of logs."""

    schema: str = SCHEMA
    inputs: list[dict[str, Any]] = field(default_factory=list)
    root_cause: dict[str, Any] | None = None
    victims: list[dict[str, Any]] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The `ddpdoctor.explain/1` JSON object."""
        base = super().to_dict()
        return {
            "schema": self.schema,
            "ok": base["ok"],
            "inputs": self.inputs,
            "root_cause": self.root_cause,
            "victims": self.victims,
            "findings": base["findings"],
            "stats": self.stats,
        }


def event_finding(
    finding_id: str,
    severity: Severity,
    *,
    category: str,
    title: str,
    message: str,
    rank: int | None,
    evidence: list[tuple[str, int, str]],
    entry: str | None,
    solutions: tuple[str, ...] = (),
    data: dict[str, Any] | None = None,
) -> Finding:
    """A Finding for one event of the diagnosis."""
    return Finding(
        id=finding_id,
        severity=severity,
        category=category,
        title=title,
        message=message,
        rank=rank,
        evidence=tuple(Evidence(shorten(text), file, line) for file, line, text in evidence[:MAX_EVIDENCE]),
        entry=entry,
        solutions=solutions,
        data=data or {},
    )
