"""The layout every report shares: a summary table, then each finding that did not pass."""

from __future__ import annotations

from collections.abc import Sequence

from ddpdoctor.findings import Finding, Report, Severity, sort_findings
from ddpdoctor.present.document import Block, Bullets, Code, Document, Fields, Table, Text, Tone

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
