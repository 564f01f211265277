"""The page `ddpdoctor explain` prints: root cause first, then the chain, victims, advice and fixes."""

from __future__ import annotations

from typing import IO

from ddpdoctor.explain.report import ExplainReport, shorten
from ddpdoctor.present.document import Bullets, Code, Document, Fields, Heading, Table, Text
from ddpdoctor.present.findings import finding_blocks
from ddpdoctor.present.render import OutputFormat, emit
from ddpdoctor.present.sanitize import escape_controls

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


def explain_document(report: ExplainReport, *, verbose: bool = False) -> Document:
    """Root cause first, then the chain, victims, advice, solutions and the example fix."""
    names = ", ".join(str(i["path"]) for i in report.inputs) or "(no input)"
    doc: Document = []
    rc = report.root_cause
    if rc is None:
        doc.append(Heading("No failure found", level=1))
        doc.append(Text(f"Read {names}: no error, panic, failed rank or known failure message.", tone="ok"))
    else:
        title = rc.get("title") or rc["text"]
        doc.append(Heading(f"Root cause: {shorten(title)}", level=1))
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
        doc.append(Code(shorten(rc["text"]), title="evidence"))
        if len(rc["chain"]) > 1:
            doc.append(Heading("Chain (outermost first)"))
            doc.append(
                Bullets(
                    tuple(f"{link['entry'] or '(unknown)'}: {shorten(link['text'])}" for link in rc["chain"]),
                    ordered=True,
                )
            )
        if report.victims:
            doc.append(Heading("Victims and other failures"))
            rows = tuple(
                (
                    "?" if v["rank"] is None else str(v["rank"]),
                    v.get("role", ""),
                    v["category"],
                    v["entry"] or "",
                    f"{v.get('file', '')}:{v['line']}",
                )
                for v in report.victims
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
        for finding in report.findings:
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
                    for i in report.inputs
                ),
            )
        )
    return doc


def print_diagnosis(report: ExplainReport, *, title: str, stream: IO[str]) -> None:
    """Write an explain report to `stream` (rich on a terminal, plain text otherwise) under a headline."""
    stream.write(f"\nddpdoctor: diagnosis of {escape_controls(title)}\n")
    emit(explain_document(report), report.to_dict(), OutputFormat.AUTO, stream=stream)
