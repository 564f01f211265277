"""The explain report as a page: the answer on the first screen, the rest behind `--full`.

The first screen holds the headline (the real message and its rank), the user's own line, the
confidence with its main reason, what the numbers say, the top solutions and one line per victim.
`--full` adds the chain of wrappers, every reason, every solution and the example fix; `--verbose`
adds every finding and every input.
"""

from __future__ import annotations

from collections.abc import Sequence

from ddpdoctor.explain.report import ExplainReport, Victim, short
from ddpdoctor.present.document import Bullets, Code, Document, Fields, Heading, Table, Text
from ddpdoctor.present.findings import finding_blocks
from ddpdoctor.present.render import OutputFormat, emit
from ddpdoctor.present.sanitize import escape_controls

TYPE_CHECKING = False  # typing's constant, without importing typing (explain's cold start)
if TYPE_CHECKING:
    from typing import IO

FIRST_SOLUTIONS = 2
FIRST_ADVICE = 2
FIRST_VICTIMS = 8
MAX_NOTES = 8
_EXPERIMENTAL_NOTE = (
    "experimental: built from the message's source and documented formats, not yet from a real log; "
    "please report whether it fit (--format markdown)"
)


def explain_document(
    report: ExplainReport, *, verbose: bool = False, full: bool = False, filing: bool = False
) -> Document:
    """Root cause first; `full`: the whole knowledge-base page; `verbose`: every finding; `filing`:
    the log excerpt and the versions an issue needs."""
    doc: Document = []
    rc = report.root_cause
    if rc is None:
        names = ", ".join(str(i["path"]) for i in report.inputs) or "(no input)"
        doc.append(Heading("No failure found", level=1))
        doc.append(Text(f"Read {names}: no error, panic, failed rank or known failure message.", tone="ok"))
    else:
        doc.append(Heading(short(rc.headline), level=1))
        pairs: list[tuple[str, str]] = []
        rank = "unknown" if rc.rank is None else str(rc.rank)
        if rc.rank_note:
            rank += f" ({rc.rank_note})"
        pairs.append(("rank", rank))
        if rc.user_frame is not None:
            code = f"  {rc.user_frame.code}" if rc.user_frame.code else ""
            pairs.append(("your code", rc.user_frame.where() + code))
        pairs.append(("category", rc.category))
        pairs.append(("confidence", f"{rc.confidence}: {rc.why[0]}" if rc.why else rc.confidence))
        if rc.entry:
            pairs.append(("knowledge base", f"{rc.entry} (ddpdoctor kb show {rc.entry})"))
            if rc.status == "experimental":
                pairs.append(("entry status", _EXPERIMENTAL_NOTE))
        pairs.append(("where", f"{rc.file}:{rc.line}"))
        if rc.exit_code is not None:
            pairs.append(("exit code", str(rc.exit_code)))
        doc.append(Fields(tuple(pairs)))
        if rc.text.strip() and rc.text.strip() not in rc.headline:
            doc.append(Code(short(rc.text), title="evidence"))
        advice = rc.advice if full else rc.advice[:FIRST_ADVICE]
        if advice:
            doc.append(Heading("What the evidence says"))
            doc.append(Bullets(tuple(advice)))
        solutions = rc.solutions if full else rc.solutions[:FIRST_SOLUTIONS]
        if solutions:
            doc.append(Heading("What to do" if not full else "Solutions (most likely first)"))
            doc.append(Bullets(tuple(solutions), ordered=True))
        if report.victims:
            doc.append(Heading("Other ranks"))
            victims = report.victims if full else _unranked_alike_once(report.victims)
            shown = victims if full else victims[:FIRST_VICTIMS]
            lines = [
                f"rank {'?' if v.rank is None else v.rank}: {v.role}, {v.category}"
                f"{f' ({v.entry})' if v.entry else ''} - {short(v.text)[:120]}"
                for v in shown
            ]
            if len(report.victims) > len(shown):
                lines.append(f"... and {len(report.victims) - len(shown)} more (--full)")
            doc.append(Bullets(tuple(lines), truncate=not full))
        if full:
            if len(rc.chain) > 1:
                doc.append(Heading("Chain (outermost first)"))
                doc.append(
                    Bullets(
                        tuple(f"{link.entry or '(unknown)'}: {short(link.text)}" for link in rc.chain),
                        ordered=True,
                    )
                )
            if len(rc.why) > 1:
                doc.append(Heading("Why this verdict"))
                doc.append(Bullets(rc.why))
            fix = rc.example_fix
            if fix:
                doc.append(Heading("Example fix"))
                if fix.get("note"):
                    doc.append(Text(fix["note"]))
                doc.append(Code(fix["before"], language=fix["language"], title="before"))
                doc.append(Code(fix["after"], language=fix["language"], title="after"))
        elif rc.entry or len(rc.chain) > 1 or len(rc.why) > 1:
            doc.append(Text("More: --full (chain, every reason and solution, example fix).", tone="muted"))
    notes = input_notes(report)
    if notes:
        doc.append(Heading("Notes"))
        doc.append(Bullets(notes))
    if filing:
        if report.excerpt:
            doc.append(Heading("Log excerpt"))
            doc.append(
                Code("\n".join(f"{n:>6}  {t}" for n, t in report.excerpt), title=rc.file if rc else None)
            )
        doc.append(Heading("Environment"))
        from ddpdoctor.environment import filing_facts

        doc.append(Fields(filing_facts()))
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


def _unranked_alike_once(victims: Sequence[Victim]) -> list[Victim]:
    """The victims with one line for those of no known rank that failed alike (same role, category
    and entry): on the first screen they say nothing the first of them does not."""
    seen: set[tuple[str, str, str | None]] = set()
    kept = []
    for victim in victims:
        if victim.rank is None:
            key = (victim.role, victim.category, victim.entry)
            if key in seen:
                continue
            seen.add(key)
        kept.append(victim)
    return kept


def input_notes(report: ExplainReport, limit: int = MAX_NOTES) -> tuple[str, ...]:
    """What limited the reading: inputs skipped in a folder (a FIFO, a device), team patterns stopped."""
    notes: list[str] = []
    for info in report.inputs:
        if info.get("skipped"):
            notes.append(f"{info['path']}: {info['skipped']}")
        notes += [note for note in info.get("notes", ()) if note not in notes]
    if len(notes) > limit:
        notes[limit - 1 :] = [f"... and {len(notes) - limit + 1} more (--format json lists every input)"]
    return tuple(notes)


def print_diagnosis(report: ExplainReport, *, title: str, stream: IO[str]) -> None:
    """Write an explain report to `stream` (rich on a terminal, plain text otherwise) under a headline."""
    stream.write(f"\nddpdoctor: diagnosis of {escape_controls(title)}\n")
    emit(explain_document(report), report.to_dict(), OutputFormat.AUTO, stream=stream)
