"""Knowledge-base search results and listings as reports and data (their layouts: :mod:`ddpdoctor.present.kb`)."""

from __future__ import annotations

from typing import Any

from ddpdoctor.findings import Evidence, Finding, Report, Severity
from ddpdoctor.kb import KnowledgeBase
from ddpdoctor.kb.matching import Match, split_lines
from ddpdoctor.kb.schema import Entry

SEARCH_SCHEMA = "ddpdoctor.kb-search/1"
LIST_SCHEMA = "ddpdoctor.kb-list/1"


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


class SearchReport(Report):
    """Which entries a pasted message matches (outermost matches only, each with its chain)."""

    query: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON form with the query text."""
        return {**super().to_dict(), "query": self.query}


def search(kb: KnowledgeBase, text: str) -> SearchReport:
    """Match pasted text; inner matches reached through a wrapper are folded into its chain."""
    findings = []
    for line_no, line in split_lines(text):
        matches = kb.matcher.match_line(line, line_no=line_no)
        chains = [kb.matcher.unwrap(m) for m in matches]
        reached = {link.entry.id for chain in chains for link in chain[1:]}
        findings += [match_finding(c[0], c) for c in chains if c[0].entry.id not in reached]
    return SearchReport(schema=SEARCH_SCHEMA, findings=findings, query=text)
