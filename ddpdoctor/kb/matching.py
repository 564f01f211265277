"""Match log text against knowledge-base patterns, and peel wrappers down to their inner cause.

`kb search`, `kb lint` and the sample checks match every entry; `explain` matches only the entries
its prefilter selects. Both follow the one matching core, :mod:`ddpdoctor.matching`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ddpdoctor.kb.schema import Entry
from ddpdoctor.matching import (
    MAX_MATCH_CHARS,
    MAX_UNWRAP_DEPTH,
    clean_line,
    inner_text,
    ordered,
    split_lines,
    unwrap,
)

__all__ = ["MAX_MATCH_CHARS", "Match", "Matcher", "split_lines"]


@dataclass(frozen=True)
class Match:
    """One pattern of one entry matching one piece of text."""

    entry: Entry
    pattern: int
    text: str
    start: int
    end: int
    groups: Mapping[str, str]
    line: int = 0
    depth: int = 0

    @property
    def rank(self) -> int | None:
        """The rank the entry's rank rule reads from this match."""
        return self.entry.rank.rank_from(self.groups)

    @property
    def inner(self) -> str | None:
        """The wrapped message, for wrapper entries that capture it."""
        return inner_text(self.groups)


class Matcher:
    """Matches text against a fixed set of entries."""

    def __init__(self, entries: Iterable[Entry]) -> None:
        self.entries: tuple[Entry, ...] = tuple(entries)

    def match_line(self, line: str, *, line_no: int = 0, depth: int = 0) -> list[Match]:
        """Every entry that matches this one line (its first matching pattern), most specific first."""
        text = clean_line(line)
        found = []
        for entry in self.entries:
            for index, pattern in enumerate(entry.patterns):
                m = pattern.regex.search(text)
                if m is None:
                    continue
                groups = {k: v for k, v in m.groupdict().items() if v is not None}
                found.append(Match(entry, index, text, m.start(), m.end(), groups, line_no, depth))
                break
        return ordered(found)

    def unwrap(self, match: Match) -> list[Match]:
        """The chain from `match` inwards, outermost first, following each wrapper's inner message."""
        return unwrap(
            match, lambda text, outer: self.match_line(text, line_no=outer.line, depth=outer.depth + 1)
        )

    def match_text(self, text: str) -> list[Match]:
        """Every match in a multi-line text, including the inner messages of wrappers."""
        out: list[Match] = []
        seen: set[tuple[str, int, str]] = set()
        for line_no, line in split_lines(text):
            for direct in self.match_line(line, line_no=line_no):
                self._collect(direct, out, seen)
        return out

    def _collect(self, match: Match, out: list[Match], seen: set[tuple[str, int, str]]) -> None:
        key = (match.entry.id, match.line, match.text)
        if key in seen:
            return
        seen.add(key)
        out.append(match)
        if match.inner is not None and match.depth < MAX_UNWRAP_DEPTH:
            for inner in self.match_line(match.inner, line_no=match.line, depth=match.depth + 1):
                self._collect(inner, out, seen)
