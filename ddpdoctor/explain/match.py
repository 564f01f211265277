"""Exact matching of candidate text against the indexed knowledge base.

The rules are the matching core's (:mod:`ddpdoctor.matching`, shared with the knowledge base):
each entry's first matching pattern counts, results are ordered by `ordered` there, and a
wrapper's `inner` text is matched again until a depth bound. What this module adds is speed: only
the entries whose prefilter flagged the text are tried, and their patterns are compiled on first
use. Patterns of team entries run under the run's CPU-time limits (:mod:`ddpdoctor.explain.budget`).
"""

from __future__ import annotations

from collections.abc import Iterable

from ddpdoctor.explain.budget import PatternBudget
from ddpdoctor.explain.index import IndexEntry, KbIndex
from ddpdoctor.matching import INNER_GROUP, clean_line, inner_text, ordered, unwrap

TYPE_CHECKING = False  # typing's constant, without importing typing (explain's cold start)
if TYPE_CHECKING:
    from ddpdoctor.explain.scan import Engine

__all__ = ["INNER_GROUP", "FastMatcher", "Hit"]


class Hit:
    """One entry matching one piece of text."""

    __slots__ = ("end", "entry", "groups", "start", "text")

    def __init__(self, entry: IndexEntry, text: str, start: int, end: int, groups: dict[str, str]) -> None:
        self.entry = entry
        self.text = text
        self.start = start
        self.end = end
        self.groups = groups

    @property
    def inner(self) -> str | None:
        """The wrapped message, for wrapper entries that capture it."""
        return inner_text(self.groups)


class FastMatcher:
    """Matches text against the entries its prefilter selects."""

    def __init__(self, index: KbIndex, engine: Engine) -> None:
        self.index = index
        self.engine = engine
        self.budget = PatternBudget()
        self._cache: dict[tuple[str, tuple[int, ...]], list[Hit]] = {}  # (text, entries tried) -> hits

    def candidates(self, text: str) -> frozenset[int]:
        """Prefilter hits for arbitrary text (not read through the scanner)."""
        return self.engine.candidates(text.encode("utf-8", "replace"))

    def match(self, text: str, candidates: Iterable[int] | None = None) -> list[Hit]:
        """Every selected entry that matches this one line, most specific first."""
        text = clean_line(text)
        if not text:
            return []
        if candidates is None:
            candidates = self.candidates(text)
        base = self.index.anchor_base
        owners = tuple(sorted({self.index.pattern_entry[pid] for pid in candidates if 0 <= pid < base}))
        if not owners:
            return []
        key = (text, owners)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        found: list[Hit] = []
        for owner in owners:
            entry = self.index.entry(owner)
            for number, pid in enumerate(entry.pattern_ids):
                if pid in self.index.team_patterns:
                    m = self.budget.search(self.index.regex(pid), text, f"{entry.id} patterns[{number}]")
                else:
                    m = self.index.regex(pid).search(text)
                if m is None:
                    continue
                groups = {k: v for k, v in m.groupdict().items() if v is not None}
                found.append(Hit(entry, text, m.start(), m.end(), groups))
                break
        found = ordered(found)
        if len(self._cache) < 4096:
            self._cache[key] = found
        return found

    def unwrap(self, hit: Hit, candidates: Iterable[int] | None = None) -> list[Hit]:
        """The chain from `hit` inwards, outermost first, following each wrapper's inner message.

        `candidates` may be the prefilter hits of the line `hit` came from: an inner message is
        part of that line, so the same candidates cover it.
        """
        pool = None if candidates is None else frozenset(candidates)
        return unwrap(hit, lambda text, _outer: self.match(text, pool))
