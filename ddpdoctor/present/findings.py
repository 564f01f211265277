"""The layout every report shares: a summary table, then each finding that did not pass."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from ddpdoctor.findings import Finding, Report, Severity, sort_findings
from ddpdoctor.present.document import Block, Bullets, Code, Document, Fields, Table, Text
from ddpdoctor.present.render import ColorMode, OutputFormat, emit, resolve_format

TYPE_CHECKING = False  # typing's constant, without importing typing (explain's cold start)
if TYPE_CHECKING:
    from typing import IO, TypeVar

    from ddpdoctor.present.document import Tone

    R = TypeVar("R", bound=Report)

SEVERITY_TONE: dict[Severity, Tone] = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFO: "info",
    Severity.OK: "ok",
}


def finding_blocks(finding: Finding, *, with_solutions: bool = True) -> list[Block]:
    """The blocks that present one finding: a headline, facts, evidence and solutions."""
    blocks: list[Block] = [
        Text(f"[{finding.severity.value}] {finding.title}", tone=SEVERITY_TONE[finding.severity]),
    ]
    if finding.message and finding.message != finding.title:
        blocks.append(Text(finding.message))
    pairs: list[tuple[str, str]] = [("id", finding.id), ("category", finding.category)]
    if finding.rank is not None:
        pairs.append(("rank", str(finding.rank)))
    if finding.device is not None:
        pairs.append(("device", finding.device))
    if finding.entry is not None:
        pairs.append(("knowledge base", f"{finding.entry} (ddpdoctor kb show {finding.entry})"))
    blocks.append(Fields(tuple(pairs)))
    if finding.evidence:
        lines = [f"{e.location}: {e.text}" if e.location else e.text for e in finding.evidence]
        blocks.append(Code("\n".join(lines), title="evidence"))
    if with_solutions and finding.solutions:
        blocks.append(Bullets(tuple(finding.solutions), ordered=True))
    return blocks


def findings_table(findings: Sequence[Finding]) -> Table:
    """A one-row-per-finding summary table."""
    rows = tuple(
        (f.severity.value, f.id, "" if f.rank is None else str(f.rank), f.device or "", f.title)
        for f in findings
    )
    return Table(("severity", "id", "rank", "device", "title"), rows)


def report_document(report: Report) -> Document:
    """The default presentation of a report: a summary table and every non-passing finding in detail."""
    findings = sort_findings(report.findings)
    if not findings:
        return [Text("No findings.", tone="ok")]
    doc: Document = [findings_table(findings)]
    for finding in findings:
        if finding.severity is not Severity.OK:
            doc += finding_blocks(finding)
    return doc


def problems_only(report: R) -> R:
    """A copy of `report` that keeps only its errors and warnings."""
    kept = [f for f in report.findings if f.severity in (Severity.ERROR, Severity.WARNING)]
    return report._replace(findings=kept)


def emit_report(
    report: R,
    layout: Callable[[R], Document],
    fmt: OutputFormat,
    *,
    color: ColorMode = ColorMode.AUTO,
    quiet: bool = False,
    stream: IO[str] | None = None,
) -> None:
    """Print `report` laid out by `layout` in `fmt`; the layout is skipped for JSON.

    With `quiet`, human formats show only the problems, and nothing at all when there is none;
    JSON always carries the whole report.
    """
    out = stream or sys.stdout
    machine = out is not None and resolve_format(fmt, color, out) is OutputFormat.JSON
    if quiet and not machine:
        if report.ok and not report.has_warnings():
            return
        report = problems_only(report)
    emit([] if machine else layout(report), report.to_dict(), fmt, color=color, stream=stream)
