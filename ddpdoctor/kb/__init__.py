"""The knowledge base: validated entries, the category list and the reference matcher."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from pathlib import Path

from ddpdoctor.errors import InputError
from ddpdoctor.folders import stamp, walk_files
from ddpdoctor.kb.loader import bundled_root, extra_dirs, load_entries
from ddpdoctor.kb.matching import Match, Matcher
from ddpdoctor.kb.schema import Entry

__all__ = ["Entry", "KnowledgeBase", "Match", "load_knowledge_base"]


class KnowledgeBase:
    """All entries by id, the closed category list, and a matcher over them."""

    def __init__(self, entries: Sequence[Entry], categories: dict[str, str]) -> None:
        self.entries: tuple[Entry, ...] = tuple(sorted(entries, key=lambda e: e.id))
        self.by_id: dict[str, Entry] = {e.id: e for e in self.entries}
        self.categories = categories
        self.matcher = Matcher(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def get(self, entry_id: str) -> Entry:
        """The entry with this id; an InputError naming the closest ids otherwise."""
        try:
            return self.by_id[entry_id]
        except KeyError:
            close = difflib.get_close_matches(entry_id, list(self.by_id), n=3, cutoff=0.5)
            hint = f"did you mean: {', '.join(close)}?" if close else "list the ids with `ddpdoctor kb list`"
            raise InputError(f"no knowledge-base entry {entry_id!r}", hint=hint) from None

    def select(self, *, category: str | None = None, framework: str | None = None) -> list[Entry]:
        """Entries filtered by category and framework."""
        return [
            e
            for e in self.entries
            if (category is None or e.category == category)
            and (framework is None or e.framework == framework)
        ]


# Loaded knowledge bases by the stat of every file they were read from: a long-lived process (the
# test suite, a guarded training job) parses and compiles the YAML once, and sees any edit at once.
_LOADED: dict[tuple[object, ...], KnowledgeBase] = {}


def _stat_key(folder: object) -> tuple[object, ...] | None:
    """(path, size, mtime, problem) of every entry file under a real folder (links out of it and
    loops are not followed); None (do not cache) when it is not a plain folder."""
    if not isinstance(folder, Path) or not folder.is_dir():
        return None
    return tuple(stamp(walk_files(str(folder), ".yaml")))


def load_knowledge_base(dirs: Sequence[Path] = (), *, include_bundled: bool = True) -> KnowledgeBase:
    """Load the bundled entries plus team folders (`--kb`, DDPDOCTOR_KB_PATH); raise on the first invalid file."""
    folders = extra_dirs(dirs)
    parts = [_stat_key(f) for f in ([bundled_root()] if include_bundled else []) + folders]
    key = None if any(p is None for p in parts) else (include_bundled, *parts)
    if key is not None and key in _LOADED:
        return _LOADED[key]
    result = load_entries(folders, include_bundled=include_bundled)
    if result.problems:
        raise result.problems[0]
    kb = KnowledgeBase(result.entries, result.categories)
    if key is not None:
        _LOADED[key] = kb
    return kb
