"""ExplainReport: typed results of `explain`, and the `ddpdoctor.explain/1` JSON contract at the edge.

`to_dict` is a contract outside tools rely on (keys are only ever added, see
`docs/schema/explain-1.json`, checked by a test):

    {"schema": "ddpdoctor.explain/1", "ok": bool, "inputs": [...],
     "root_cause": null | {"entry", "category", "rank", "file", "line", "text",
                           "chain": [{"entry", "text"}], "solutions", "confidence", "why",
                           "user_frame", "headline", ...},
     "victims": [{"rank", "category", "entry", "line", ...}],
     "findings": [...], "stats": {"engine", "events"}}
"""

from __future__ import annotations

from ddpdoctor.findings import Evidence, Finding, Report, Severity
from ddpdoctor.records import Record, field

TYPE_CHECKING = False  # typing's constant, without importing typing (explain's cold start)
if TYPE_CHECKING:
    from typing import Any

SCHEMA = "ddpdoctor.explain/1"
MAX_SHOWN = 600
MAX_EVIDENCE = 12  # evidence lines kept per root cause and per finding


def short(text: str) -> str:
    """Text cut to what a report shows."""
    if len(text) <= MAX_SHOWN:
        return text
    return text[:MAX_SHOWN] + f" ... [{len(text) - MAX_SHOWN} more characters]"


class ChainLink(Record, frozen=True):
    """One message of the root cause's chain, outermost first."""

    entry: str | None
    text: str

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"entry": self.entry, "text": self.text}


class UserFrame(Record, frozen=True):
    """The innermost frame of the user's own code in the culprit's stack."""

    file: str
    line: int
    function: str
    code: str | None

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"file": self.file, "line": self.line, "function": self.function, "code": self.code}

    def where(self) -> str:
        """`file:line in function`."""
        return f"{self.file}:{self.line}" + (f" in {self.function}" if self.function else "")


class RootCause(Record, frozen=True):
    """The culprit: which rank, which message, where, what kind of conclusion, and what to do."""

    entry: str | None
    category: str
    rank: int | None
    file: str
    line: int
    text: str
    headline: str
    title: str
    kind: str
    confidence: str
    why: tuple[str, ...]
    chain: tuple[ChainLink, ...] = ()
    solutions: tuple[str, ...] = ()
    advice: tuple[str, ...] = ()
    status: str | None = None
    rank_note: str | None = None
    rank_source: str | None = None
    local_rank: bool = False
    frame: str | None = None
    user_frame: UserFrame | None = None
    thread: str | None = None
    exit_code: int | None = None
    suspect_ranks: tuple[int, ...] = ()
    evidence: tuple[Evidence, ...] = ()
    example_fix: dict[str, str] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The contract's `root_cause` object."""
        return {
            "entry": self.entry,
            "category": self.category,
            "rank": self.rank,
            "file": self.file,
            "line": self.line,
            "text": self.text,
            "chain": [link.to_dict() for link in self.chain],
            "solutions": list(self.solutions),
            "kind": self.kind,
            "status": self.status,
            "title": self.title,
            "headline": self.headline,
            "confidence": self.confidence,
            "why": list(self.why),
            "user_frame": self.user_frame.to_dict() if self.user_frame else None,
            "rank_note": self.rank_note,
            "rank_source": self.rank_source,
            "local_rank": self.local_rank,
            "frame": self.frame,
            "thread": self.thread,
            "exit_code": self.exit_code,
            "suspect_ranks": list(self.suspect_ranks),
            "advice": list(self.advice),
            "evidence": [{"file": e.file, "line": e.line, "text": e.text} for e in self.evidence],
            "example_fix": dict(self.example_fix) if self.example_fix else None,
        }


class Victim(Record, frozen=True):
    """Another failing rank: a victim of the culprit, or a rank that also failed on its own."""

    rank: int | None
    category: str
    entry: str | None
    file: str
    line: int
    text: str
    role: str  # victim, also-failed
    exit_code: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """The contract's victim object."""
        return {
            "rank": self.rank,
            "category": self.category,
            "entry": self.entry,
            "line": self.line,
            "file": self.file,
            "text": self.text,
            "role": self.role,
            "exit_code": self.exit_code,
        }


class ExplainReport(Report):
    """What `explain` found in a set of logs."""

    schema: str = SCHEMA
    inputs: list[dict[str, Any]] = field(default_factory=list)
    root_cause: RootCause | None = None
    victims: list[Victim] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    excerpt: list[tuple[int, str]] = field(default_factory=list)  # lines around the root line, for filing

    def redacted(self) -> ExplainReport:
        """A copy without host names, IP addresses and home folders (`--redact`)."""
        from ddpdoctor.explain.redact import hosts_in, map_strings, redactor

        texts = [e.text for f in self.findings for e in f.evidence]
        if self.root_cause is not None:
            texts += [self.root_cause.text, *(e.text for e in self.root_cause.evidence)]
        texts += [line for _, line in self.excerpt]
        redacted: ExplainReport = map_strings(self, redactor(hosts_in(texts)))
        return redacted

    def to_dict(self) -> dict[str, Any]:
        """The `ddpdoctor.explain/1` JSON object."""
        base = super().to_dict()
        return {
            "schema": self.schema,
            "ok": base["ok"],
            "inputs": self.inputs,
            "root_cause": self.root_cause.to_dict() if self.root_cause else None,
            "victims": [v.to_dict() for v in self.victims],
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
    """A Finding for one observation of the diagnosis."""
    return Finding(
        id=finding_id,
        severity=severity,
        category=category,
        title=title,
        message=message,
        rank=rank,
        evidence=tuple(Evidence(short(text), file, line) for file, line, text in evidence[:MAX_EVIDENCE]),
        entry=entry,
        solutions=solutions,
        data=data or {},
    )
