"""ExplainReport: the `ddpdoctor.explain/1` JSON contract and its document form.

`to_dict` is a contract outside tools rely on (keys are only ever added):

    {"schema": "ddpdoctor.explain/1", "ok": bool, "inputs": [...],
     "root_cause": null | {"entry", "category", "rank", "file", "line", "text",
                           "chain": [{"entry", "text"}], "solutions", ...extra keys},
     "victims": [{"rank", "category", "entry", "line", ...extra keys}],
     "findings": [...], "stats": {"engine", "events"}}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ddpdoctor.findings import Evidence, Finding, Report, Severity

if TYPE_CHECKING:
    from ddpdoctor.document import Document

SCHEMA = "ddpdoctor.explain/1"
_EXPERIMENTAL_NOTE = (
    "experimental: built from the message's source and documented formats, not yet from a real log; "
    "please report whether it fit (--format markdown)"
)
_KIND_LABEL = {
    "root": "root cause",
    "unknown": "unrecognised failure (innermost error line)",
    "host-kill": "killed by the host (no error printed)",
    "exit": "process exited without an error message",
    "symptom": "only symptoms were found (timeouts, collateral signals)",
    "wrapper": "only a launcher's summary was found",
}
_MAX_SHOWN = 600
MAX_EVIDENCE = 12  # evidence lines kept per root cause and per finding


def _short(text: str) -> str:
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

    def to_document(self, *, verbose: bool = False) -> Document:
        """Root cause first, then the chain, victims, advice, solutions and the example fix."""
        from ddpdoctor.document import Bullets, Code, Fields, Heading, Table, Text, finding_blocks

        names = ", ".join(str(i["path"]) for i in self.inputs) or "(no input)"
        doc: Document = []
        rc = self.root_cause
        if rc is None:
            doc.append(Heading("No failure found", level=1))
            doc.append(
                Text(f"Read {names}: no error, panic, failed rank or known failure message.", tone="ok")
            )
        else:
            title = rc.get("title") or rc["text"]
            doc.append(Heading(f"Root cause: {_short(title)}", level=1))
            pairs: list[tuple[str, str]] = []
            rank = "unknown" if rc["rank"] is None else str(rc["rank"])
            if rc.get("rank_note"):
                rank += f" ({rc['rank_note']})"
            pairs.append(("rank", rank))
            pairs.append(("category", rc["category"]))
            if rc.get("entry"):
                pairs.append(("knowledge base", f"{rc['entry']} (ddpdoctor kb show {rc['entry']})"))
                if rc.get("status") == "experimental":
                    pairs.append(("entry status", _EXPERIMENTAL_NOTE))
            pairs.append(("kind", _KIND_LABEL.get(rc.get("kind", ""), rc.get("kind", ""))))
            pairs.append(("where", f"{rc['file']}:{rc['line']}"))
            if rc.get("frame"):
                pairs.append(("raised at", rc["frame"]))
            if rc.get("exit_code") is not None:
                pairs.append(("exit code", str(rc["exit_code"])))
            doc.append(Fields(tuple(pairs)))
            doc.append(Code(_short(rc["text"]), title="evidence"))
            if len(rc["chain"]) > 1:
                doc.append(Heading("Chain (outermost first)"))
                doc.append(
                    Bullets(
                        tuple(
                            f"{link['entry'] or '(unknown)'}: {_short(link['text'])}" for link in rc["chain"]
                        ),
                        ordered=True,
                    )
                )
            if self.victims:
                doc.append(Heading("Victims and other failures"))
                rows = tuple(
                    (
                        "?" if v["rank"] is None else str(v["rank"]),
                        v.get("role", ""),
                        v["category"],
                        v["entry"] or "",
                        f"{v.get('file', '')}:{v['line']}",
                    )
                    for v in self.victims
                )
                doc.append(Table(("rank", "role", "category", "entry", "where"), rows))
            if rc.get("advice"):
                doc.append(Heading("What the evidence says"))
                doc.append(Bullets(tuple(rc["advice"])))
            if rc["solutions"]:
                doc.append(Heading("Solutions (most likely first)"))
                doc.append(Bullets(tuple(rc["solutions"]), ordered=True))
            fix = rc.get("example_fix")
            if fix:
                doc.append(Heading("Example fix"))
                if fix.get("note"):
                    doc.append(Text(fix["note"]))
                doc.append(Code(fix["before"], language=fix["language"], title="before"))
                doc.append(Code(fix["after"], language=fix["language"], title="after"))
        if verbose:
            doc.append(Heading("Every finding"))
            for finding in self.findings:
                doc += finding_blocks(finding, with_solutions=False)
            doc.append(Heading("Inputs"))
            doc.append(
                Table(
                    ("input", "rank", "bytes", "lines", "selected"),
                    tuple(
                        (
                            str(i["path"]),
                            "" if i.get("rank") is None else str(i["rank"]),
                            str(i.get("bytes", "")),
                            str(i.get("lines", "")),
                            str(i.get("selected_lines", "")),
                        )
                        for i in self.inputs
                    ),
                )
            )
        return doc


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
        evidence=tuple(Evidence(_short(text), file, line) for file, line, text in evidence[:MAX_EVIDENCE]),
        entry=entry,
        solutions=solutions,
        data=data or {},
    )
