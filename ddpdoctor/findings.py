"""The one result model shared by `kb`, `explain`, `check` and `preflight`.

A :class:`Finding` is one observation (a root cause in a log, a duplicate device, a slow
dataloader). A :class:`Report` holds findings and knows its JSON schema name; command-specific
reports subclass it and add their own keys. Core code returns reports as data; the layouts and
formatters of :mod:`ddpdoctor.present` turn them into terminal text, plain text, JSON or Markdown.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping

from ddpdoctor.errors import ExitCode
from ddpdoctor.records import Record, field

TYPE_CHECKING = False  # typing's constant, without importing typing (explain's cold start)
if TYPE_CHECKING:
    from typing import Any


class Severity(str, enum.Enum):
    """How much a finding matters; `error` makes a command exit 1."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"
    OK = "ok"

    @property
    def rank(self) -> int:
        """Sort key: errors first."""
        return _SEVERITY_ORDER[self]


_SEVERITY_ORDER = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2, Severity.OK: 3}


class Evidence(Record, frozen=True):
    """A line of input that supports a finding, with where it was read."""

    text: str
    file: str | None = None
    line: int | None = None

    @property
    def location(self) -> str:
        """`file:line`, `file` or an empty string."""
        if self.file is None:
            return ""
        return f"{self.file}:{self.line}" if self.line is not None else self.file

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"text": self.text, "file": self.file, "line": self.line}


class Finding(Record, frozen=True):
    """One observation: what was found, where, how bad, and what to do about it."""

    id: str
    severity: Severity
    category: str
    title: str
    message: str
    rank: int | None = None
    device: str | None = None
    evidence: tuple[Evidence, ...] = ()
    entry: str | None = None
    solutions: tuple[str, ...] = ()
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON form; keys are part of every report schema."""
        return {
            "id": self.id,
            "severity": self.severity.value,
            "category": self.category,
            "title": self.title,
            "message": self.message,
            "rank": self.rank,
            "device": self.device,
            "evidence": [e.to_dict() for e in self.evidence],
            "entry": self.entry,
            "solutions": list(self.solutions),
            "data": dict(self.data),
        }


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    """Errors first, then warnings, info and passes; stable within a severity."""
    return sorted(findings, key=lambda f: f.severity.rank)


class Report(Record):
    """Findings plus the schema name of their JSON form (e.g. `ddpdoctor.check/1`)."""

    schema: str
    findings: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when no finding is an error."""
        return not any(f.severity is Severity.ERROR for f in self.findings)

    def has_warnings(self) -> bool:
        """True when any finding is a warning."""
        return any(f.severity is Severity.WARNING for f in self.findings)

    def exit_code(self, *, strict: bool = False) -> ExitCode:
        """0 when healthy, 1 when an error (or, with `strict`, a warning) was found."""
        if not self.ok or (strict and self.has_warnings()):
            return ExitCode.PROBLEM
        return ExitCode.OK

    def to_dict(self) -> dict[str, Any]:
        """JSON form: `schema`, `ok` and `findings`; subclasses add their own keys."""
        return {
            "schema": self.schema,
            "ok": self.ok,
            "findings": [f.to_dict() for f in sort_findings(self.findings)],
        }
