"""The pages of `ddpdoctor stacks` (the hang report) and `ddpdoctor run` (the run report)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ddpdoctor.present.document import Block, Bullets, Code, Document, Fields, Heading, Table, Text
from ddpdoctor.supervise.analysis import TreeNode, ranks_label

if TYPE_CHECKING:
    from ddpdoctor.supervise.report import HangReport, RunReport

# Deeper trees are cut: the frames that matter are near the user's code.
_TREE_MAX_LINES = 60


def tree_lines(nodes: list[TreeNode] | tuple[TreeNode, ...], depth: int = 0) -> list[str]:
    """The merged prefix tree as indented lines: `frame  [ranks 0-3]`, one level per frame.

    A chain of frames shared by the same ranks is printed flat, so only branches indent.
    """
    lines: list[str] = []
    for node in nodes:
        chain = [node]
        while len(chain[-1].children) == 1 and chain[-1].children[0].members == node.members:
            chain.append(chain[-1].children[0])
        for index, link in enumerate(chain):
            frame = link.frame
            mark = f"  [{ranks_label(link.members)}]" if index == 0 else ""
            lines.append(f"{'  ' * depth}{frame.function} ({frame.location}){mark}")
        lines += tree_lines(chain[-1].children, depth + 1)
    return lines


def hang_document(report: HangReport) -> Document:
    """Suspects first, then the equivalence classes, the tree, Flight Recorder and the method used."""
    analysis = report.analysis
    doc: Document = [Heading("Hang report: where every rank is", level=2)]
    if analysis is None or (not analysis.classes and not analysis.gone):
        doc.append(Text("No rank stack could be taken.", tone="error"))
        if analysis is not None and analysis.unreadable:
            doc.append(Bullets(analysis.unreadable))
        return doc
    if analysis.suspects:
        doc.append(Heading("Suspects", level=3))
        for suspect in analysis.suspects:
            doc.append(Text(f"{suspect.label}: {suspect.message}", tone="error"))
            pairs = []
            if suspect.user is not None:
                pairs.append(
                    ("your code", f"{suspect.user.file}:{suspect.user.line} in {suspect.user.function}")
                )
            if suspect.entries:
                pairs.append(("knowledge base", ", ".join(f"ddpdoctor kb show {e}" for e in suspect.entries)))
            if pairs:
                doc.append(Fields(tuple(pairs)))
    else:
        doc.append(Text("No rank stands out.", tone="warning"))
    for note in report.notes:
        doc.append(Text(note, tone="info"))
    rows = tuple((cls.label, cls.summary) for cls in analysis.classes)
    doc.append(Table(("ranks", "where (innermost frame of your code)"), rows, title="Equivalence classes"))
    lines = tree_lines(analysis.tree)
    if len(lines) > _TREE_MAX_LINES:
        lines = [
            *lines[:_TREE_MAX_LINES],
            f"... {len(lines) - _TREE_MAX_LINES} more lines in the JSON report",
        ]
    doc.append(Code("\n".join(lines), title="merged stacks (outermost first)"))
    flight = report.flight_recorder
    if flight is not None:
        doc.append(Heading("Flight Recorder", level=3))
        if flight.ranks:
            doc.append(
                Table(
                    ("rank", "entries", "last entered", "seq", "last completed seq"),
                    tuple(
                        (
                            str(t.rank),
                            str(t.entries),
                            t.last_entered or "-",
                            "-" if t.last_entered_seq is None else str(t.last_entered_seq),
                            "-" if t.last_completed_seq is None else str(t.last_completed_seq),
                        )
                        for t in flight.ranks
                    ),
                )
            )
        if flight.disagreement is not None:
            doc.append(Text(f"first disagreement: {flight.disagreement.message}", tone="error"))
        elif flight.ranks:
            doc.append(Text("The ranks' recorded collectives agree.", tone="ok"))
        if flight.errors:
            doc.append(Bullets(flight.errors))
    methods = sorted({f"{p.process.label}: {p.method}" for p in report.processes if p.method})
    extra: list[Block] = []
    if analysis.unreadable:
        extra.append(Bullets(tuple(f"not read: {u}" for u in analysis.unreadable)))
    doc += extra
    doc.append(
        Text(f"Stacks taken in {report.seconds:.1f} s ({'; '.join(methods) or 'none'}).", tone="muted")
    )
    return doc


def run_document(report: RunReport) -> Document:
    """What `ddpdoctor run` prints at the end: the outcome, the hang report, explain's diagnosis."""
    doc: Document = [Heading("ddpdoctor run", level=2)]
    if report.killed:
        outcome = f"hung; stopped by ddpdoctor (exit {report.returncode})"
    elif report.exit_status is None:
        outcome = "still running when ddpdoctor stopped"
    else:
        outcome = f"exit status {report.exit_status} after {report.duration_s:.1f} s"
    pairs = [("command", " ".join(report.command)), ("outcome", outcome), ("run folder", report.folder)]
    if report.hang_trigger == "heartbeat":
        pairs.append(
            ("hang seen by", f"the heartbeat of rank(s) {', '.join(map(str, report.stalled_ranks))}")
        )
    if report.bundle:
        pairs.append(("bundle", report.bundle))
    if report.leftover:
        pairs.append(("processes left running", ", ".join(map(str, report.leftover))))
    doc.append(Fields(tuple(pairs)))
    if report.hang is not None:
        doc += hang_document(report.hang)
    if report.explanation is not None:
        from ddpdoctor.present.explain import explain_document  # only a failed run loads explain

        doc += [
            Heading("Diagnosis (ddpdoctor explain over the run folder)", level=2),
            *explain_document(report.explanation),
        ]
    return doc
