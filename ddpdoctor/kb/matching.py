"""Match log text against knowledge-base patterns, and peel wrappers down to their inner cause.

This is the reference matcher: `kb search`, `kb lint` and the samples tests use it directly, and
the fast scanner of `explain` must agree with it on every line it selects.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from ddpdoctor.kb.schema import INNER_GROUP, Entry

# Lines longer than this are cut before full regex matching, which bounds the time any pattern
# can spend on one line; every message the knowledge base knows fits well inside it.
MAX_MATCH_CHARS = 64 * 1024
# How many wrappers `unwrap` peels before it stops (hostile input can nest thousands).
MAX_UNWRAP_DEPTH = 16

ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?")
# A wrapper whose inner message is on this line comes first (it is peeled); a wrapper without one
# (a launcher's summary line) carries nothing here, so a root cause on the same line wins over it.
_KIND_PREFERENCE = {"root": 1, "wrapper": 2, "symptom": 3}


def clean_line(line: str) -> str:
    """Strip ANSI colour codes and trailing whitespace; cut very long lines."""
    if "\x1b" in line:
        line = ANSI_RE.sub("", line)
    return line[:MAX_MATCH_CHARS].rstrip()


def split_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line index, cleaned segment) pairs; carriage-return progress segments count as their own text."""
    for index, raw in enumerate(text.split("\n")):
        for segment in raw.split("\r"):
            cleaned = clean_line(segment)
            if cleaned:
                yield index, cleaned


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
        value = self.groups.get(INNER_GROUP)
        return value.strip() if value and value.strip() else None


def _preference(match: Match) -> tuple[int, int, str]:
    kind = match.entry.kind
    rank = 0 if kind == "wrapper" and match.inner else _KIND_PREFERENCE[kind]
    return (rank, -(match.end - match.start), match.entry.id)


def superseding_first(matches: list[Match]) -> list[Match]:
    """Move each match ahead of the matches whose entries it `supersedes`, keeping the order otherwise."""
    out = list(matches)
    for _ in range(len(out)):
        pair = next(
            (
                (i, j)
                for i in range(len(out))
                for j in range(i + 1, len(out))
                if out[i].entry.id in out[j].entry.supersedes
            ),
            None,
        )
        if pair is None:
            break
        out.insert(pair[0], out.pop(pair[1]))
    return out


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
        found.sort(key=_preference)
        return superseding_first(found)

    def unwrap(self, match: Match) -> list[Match]:
        """The chain from `match` inwards, outermost first, following each wrapper's inner message."""
        chain = [match]
        current = match
        while current.inner is not None and len(chain) <= MAX_UNWRAP_DEPTH:
            inner = self.match_line(current.inner, line_no=current.line, depth=current.depth + 1)
            if not inner:
                break
            current = inner[0]
            chain.append(current)
        return chain

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
