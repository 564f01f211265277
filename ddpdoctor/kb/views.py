"""Knowledge-base pages and search results, as documents and reports."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ddpdoctor.findings import Evidence, Finding, Report, Severity
from ddpdoctor.kb import KnowledgeBase
from ddpdoctor.kb.matching import Match, split_lines
from ddpdoctor.kb.schema import Entry
from ddpdoctor.present.document import Block, Bullets, Code, Document, Fields, Heading, Table, Text

SEARCH_SCHEMA = "ddpdoctor.kb-search/1"
LIST_SCHEMA = "ddpdoctor.kb-list/1"


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
                ("status", entry.status),
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
        Bullets(entry.solutions, ordered=True),
        Heading("Example fix"),
        *_fix_blocks(entry),
    ]
    if entry.checks:
        doc += [
            Heading("Caught before launch by"),
            Bullets(tuple(f"ddpdoctor check: {c}" for c in entry.checks)),
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
        )
    ]


def list_dict(entries: list[Entry]) -> dict[str, Any]:
    """JSON form of `kb list`: {"schema", "entries": [{id, title, framework, category, kind, status}]}."""
    return {"schema": LIST_SCHEMA, "entries": [e.summary() for e in entries]}


def match_finding(match: Match, chain: list[Match]) -> Finding:
    """A finding for one matched message, carrying its unwrap chain in `data`."""
    innermost = chain[-1]
    entry = innermost.entry
    return Finding(
        id=match.entry.id,
        severity=Severity.ERROR if entry.kind == "root" else Severity.WARNING,
        category=entry.category,
        title=match.entry.title,
        message=match.text,
        rank=match.rank,
        evidence=(Evidence(text=match.text, line=match.line + 1),),
        entry=entry.id,
        solutions=entry.solutions,
        data={
            "chain": [{"entry": m.entry.id, "kind": m.entry.kind, "text": m.text} for m in chain],
            "captures": dict(match.groups),
        },
    )


@dataclass
class SearchReport(Report):
    """Which entries a pasted message matches (outermost matches only, each with its chain)."""

    query: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON form with the query text."""
        return {**super().to_dict(), "query": self.query}

    def to_document(self) -> Document:
        """One section per match: its chain, then the innermost entry's solutions."""
        if not self.findings:
            return [Text("No knowledge-base entry matches this text.", tone="warning")]
        doc: Document = []
        for f in self.findings:
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


def search(kb: KnowledgeBase, text: str) -> SearchReport:
    """Match pasted text; inner matches reached through a wrapper are folded into its chain."""
    findings = []
    for line_no, line in split_lines(text):
        matches = kb.matcher.match_line(line, line_no=line_no)
        chains = [kb.matcher.unwrap(m) for m in matches]
        reached = {link.entry.id for chain in chains for link in chain[1:]}
        findings += [match_finding(c[0], c) for c in chains if c[0].entry.id not in reached]
    return SearchReport(schema=SEARCH_SCHEMA, findings=findings, query=text)
