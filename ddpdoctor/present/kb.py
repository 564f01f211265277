"""The pages of `ddpdoctor kb`: an entry, the list, search results, lint problems and census coverage."""

from __future__ import annotations

from ddpdoctor.check.registry import checks_linking
from ddpdoctor.kb import KnowledgeBase
from ddpdoctor.kb.census import UNCOVERED_SHOWN, CoverageReport
from ddpdoctor.kb.lint import LintReport
from ddpdoctor.kb.schema import Entry
from ddpdoctor.kb.views import SearchReport
from ddpdoctor.present.document import Block, Bullets, Code, Document, Fields, Heading, Table, Text


def entry_document(entry: Entry, kb: KnowledgeBase) -> Document:
    """The page `kb show` prints: message, meaning, when it happens, fixes, links and sources."""
    doc: Document = [
        Heading(entry.title, level=1),
        Fields(
            (
                ("id", entry.id),
                ("framework", entry.framework),
                ("category", f"{entry.category} ({kb.categories.get(entry.category, '')})"),
                ("kind", _KIND_LABEL[entry.kind]),
                ("status", entry.status + (f" ({entry.status_note})" if entry.status_note else "")),
                *(
                    (("consequence of", ", ".join(_CONSEQUENCE_LABEL[c] for c in entry.consequence_of)),)
                    if entry.consequence_of
                    else ()
                ),
                *((("supersedes", ", ".join(entry.supersedes)),) if entry.supersedes else ()),
            )
        ),
        Heading("Error message"),
        Code(entry.title),
        Heading("What it means"),
        Text(entry.meaning.strip()),
        Heading("When it happens"),
        Bullets(entry.triggers),
        Heading("Common situations"),
        Bullets(entry.situations),
        Heading("Solutions"),
        Bullets(
            tuple(
                text + (f" ({_STAGE_LABEL[stage]})" if stage else "")
                for text, stage in zip(entry.solutions, entry.stages(), strict=True)
            ),
            ordered=True,
        ),
        Heading("Example fix"),
        *_fix_blocks(entry),
    ]
    checks = (*entry.checks, *(c for c in checks_linking(entry.id) if c not in entry.checks))
    if checks:
        doc += [
            Heading("Caught before launch by"),
            Bullets(tuple(f"ddpdoctor check: {c}" for c in checks)),
        ]
    if entry.reproducer:
        doc += [Heading("See it happen"), Code(f"ddpdoctor reproduce {entry.reproducer}", language="shell")]
    if entry.related:
        rows = tuple(
            (r.type, r.id, kb.by_id[r.id].title if r.id in kb.by_id else "(missing entry)")
            for r in entry.related
        )
        doc += [Heading("Related errors"), Table(("relation", "id", "message"), rows)]
    doc += [
        Heading("Source"),
        Bullets(tuple(_source_line(s.kind, s.ref, s.note) for s in entry.sources)),
        Heading("False positives"),
        Bullets(entry.false_positives),
        Heading("Log sample"),
        Code(entry.samples_match[0].text),
    ]
    return doc


_CONSEQUENCE_LABEL = {
    "peer-failure": "a failure on another rank (look for the rank that died or stalled)",
    "earlier-error": "an earlier error on the same rank (look above it)",
    "launcher": "the launcher stopping the other workers after one failed (look for that one)",
}
_STAGE_LABEL = {"runtime": "after a failure", "preflight": "before launch"}

_KIND_LABEL = {
    "root": "root cause",
    "wrapper": "wrapper (the real error is the message it carries)",
    "symptom": "symptom (a victim's view: look for the failure that caused it)",
}


def code_url(ref: str) -> str:
    """The GitHub address of a `repo@commit:path:line` source."""
    repo, _, rest = ref.partition("@")
    commit, path, line = rest.split(":", 2)
    first = line.split("-", 1)[0]
    return f"https://github.com/{repo}/blob/{commit}/{path}#L{first}"


def _source_line(kind: str, ref: str, note: str | None) -> str:
    label = {"code": "raised at", "docs": "documented at", "issue": "reported in"}[kind]
    link = f"\n  {code_url(ref)}" if kind == "code" else ""
    return f"{label} {ref}" + (f" ({note})" if note else "") + link


def _fix_blocks(entry: Entry) -> list[Block]:
    fix = entry.example_fix
    blocks: list[Block] = []
    if fix.note:
        blocks.append(Text(fix.note))
    blocks += [
        Code(fix.before, language=fix.language, title="before"),
        Code(fix.after, language=fix.language, title="after"),
    ]
    return blocks


def list_document(entries: list[Entry]) -> Document:
    """A table of entries for `kb list`."""
    rows = tuple((e.id, e.framework, e.category, e.kind, e.status, e.title) for e in entries)
    return [
        Table(
            ("id", "framework", "category", "kind", "status", "message"),
            rows,
            title=f"{len(entries)} entries",
            truncate=True,
            optional=("status", "category", "framework"),
        )
    ]


def search_document(report: SearchReport) -> Document:
    """One section per match: its chain, then the innermost entry's solutions."""
    if not report.findings:
        return [Text("No knowledge-base entry matches this text.", tone="warning")]
    doc: Document = []
    for f in report.findings:
        doc.append(Heading(f"{f.id}: {f.title}"))
        chain = f.data.get("chain", [])
        if len(chain) > 1:
            doc.append(
                Bullets(tuple(f"{c['entry']} ({c['kind']}): {c['text']}" for c in chain), ordered=True)
            )
        pairs = [("matched", f.message), ("category", f.category)]
        if f.rank is not None:
            pairs.append(("rank", str(f.rank)))
        doc.append(Fields(tuple(pairs)))
        if f.solutions:
            doc.append(Bullets(f.solutions, ordered=True))
    return doc


def lint_document(report: LintReport) -> Document:
    """One row per problem (file, rule, problem, fix), or a one-line pass."""
    if report.ok:
        return [Text(f"{report.entries_checked} entries checked, no problems.", tone="ok")]
    rows = tuple(
        (f.evidence[0].text if f.evidence else "", f.id, f.title, f.solutions[0] if f.solutions else "")
        for f in report.findings
    )
    summary = f"{len(report.findings)} problem(s) in {report.entries_checked} valid entries"
    return [Table(("file", "rule", "problem", "fix"), rows, title=summary)]


def coverage_document(report: CoverageReport) -> Document:
    """A table per ecosystem, the overall line, and the most frequent uncovered templates."""
    rows = tuple(
        (
            e.ecosystem,
            f"{100 * e.share:.1f}%" if e.weight else "n/a (no threads)",
            f"{e.covered_weight}/{e.weight}",
            f"{e.covered_templates}/{e.templates}",
        )
        for e in report.ecosystems
    )
    doc: Document = [
        Table(("ecosystem", "covered", "threads", "templates"), rows, title="Census coverage"),
        Text(
            f"Overall: {100 * report.share:.1f}% of {report.weight} thread(s); raise sites with an entry: "
            f"{report.covered_raise_sites}/{report.raise_sites}.",
            tone="ok" if not report.findings else "warning",
        ),
    ]
    if report.findings:
        shown = report.findings[:UNCOVERED_SHOWN]
        doc.append(
            Table(
                ("threads", "ecosystem", "template"),
                tuple((str(f.data["threads"]), f.data["ecosystem"], f.title) for f in shown),
                title=f"Most frequent uncovered templates ({len(shown)} of {len(report.findings)})",
            )
        )
    return doc
