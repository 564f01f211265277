"""The one matching core: how a log line is cleaned, which of several matching entries wins, and
how a wrapper is peeled down to the message it carries.

Both the knowledge base (`kb search`, `kb lint`, sample checks) and `explain` use it. It imports
nothing beyond the standard library, so `explain`'s cold start pays for no YAML or schema.

- A line is matched after its ANSI colour codes (also those a paste left without their escape
  character) and trailing space are removed, cut at
  MAX_MATCH_CHARS (which bounds the time any pattern can spend on it); carriage-return segments
  (progress bars, `#015`) are matched on their own, and so are records a paste glued together (a
  progress bar's end, a glog-style record's header).
- Each entry counts once per text (its first matching pattern). Matches are ordered: a wrapper
  that carries an inner message first (it is peeled), then roots, other wrappers and symptoms,
  longer matches first; an entry that another matching entry `supersedes` goes after that entry.
- Unwrapping follows a wrapper's `inner` capture at most MAX_UNWRAP_DEPTH levels deep.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence

TYPE_CHECKING = False  # typing's constant, without importing typing (explain's cold start)
if TYPE_CHECKING:
    from typing import Any, Protocol, TypeVar

MAX_MATCH_CHARS = 64 * 1024
MAX_UNWRAP_DEPTH = 16
INNER_GROUP = "inner"
ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?")
# The byte form never crosses a newline, so stripping a whole chunk keeps its line structure.
ANSI_BYTES_RE = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)?")
_KIND_PREFERENCE = {"root": 1, "wrapper": 2, "symptom": 3}


# Colour codes whose escape character a copy and paste lost (`[1;31mValueError[0m: ...`): recognised
# on a line that also holds the reset code, and not when a `]` follows (`[10m]` is ten minutes).
_BARE_SGR = re.compile(r"\[[0-9;]{1,12}m(?!\])")


def clean_line(line: str) -> str:
    """Strip ANSI colour codes (also those that lost their escape character) and trailing
    whitespace; cut very long lines."""
    if "\x1b" in line:
        line = ANSI_RE.sub("", line)
    if "[0m" in line:
        line = _BARE_SGR.sub("", line)
    return line[:MAX_MATCH_CHARS].rstrip()


def segments(line: str) -> Iterator[str]:
    """The cleaned, non-empty carriage-return segments of one line (`#015`, syslog's escaped
    carriage return, counts as one); a line a log collector recorded as JSON stands for its text."""
    start = line.find('{"', 0, _JSON_PREFIX_CHARS)
    if (
        start >= 0
        and (not line[:start].strip() or line[start - 1] in " \t|:")
        and (recorded := _json_record_text(line[start:])) is not None
    ):
        # A collector's own time or label may come before the record (`kubectl logs --timestamps`).
        line = line[:start] + recorded.replace("\n", "\r")
    if "#015" in line:
        line = line.replace("#015", "\r")
    if "it]" in line or "/s]" in line:
        line = _PROGRESS_END.compiled.sub("\\g<0>\r", line)
    if ".py:" in line:
        line = _GLUED_RECORD.compiled.sub("\r", line)
    if line.startswith("[rank") and " [rank" in line:
        line = _GLUED_RANK_LABEL.compiled.sub("\r", line)
    if line.startswith(("[rank", "[RANK", "[Rank")) and line.find("]", 6) + 2 < line.rfind("["):
        line = _GLUED_OWN_LABEL.compiled.sub("\r", line)
    for segment in line.split("\r"):
        cleaned = clean_line(segment)
        if cleaned:
            yield cleaned


# The fields in which log collectors keep a line's text: Docker's json-file (`{"log": "...\n",
# "stream": "stderr"}`), structured loggers (`message`, `msg`), recorders (`{"event": "line", "data": ...}`).
_JSON_PREFIX_CHARS = 80  # a JSON record starts this close to its line's start at most
_JSON_TEXT_KEYS = ("log", "message", "msg", "data", "text", "line")
# ... and the fields in which structured loggers keep a record's rank, level and formatted exception.
_JSON_RANK_KEYS = ("rank", "global_rank")
_JSON_RANK_DIGITS = 7
_JSON_LEVEL_KEYS = ("level", "levelname", "severity")
_JSON_EXCEPTION_KEYS = ("exc_info", "exc_text", "exception", "traceback", "stack_trace", "stacktrace")


def _json_record_text(line: str) -> str | None:
    """The text of a JSON object on one line, or None when the line is not such a record: its text
    field, with a structured logger's level and formatted exception, each line under the record's rank
    (`{"rank": 2, "level": "CRITICAL", "msg": "...", "exc_info": "Traceback ..."}` reads as
    `[rank2]: [CRITICAL] ...` and `[rank2]: Traceback ...`)."""
    stripped = line.strip()
    if not stripped.endswith("}") or '": "' not in stripped or len(stripped) > MAX_MATCH_CHARS:
        return None
    import json  # only for such lines: the cold start of a plain log does not pay for it

    try:
        record = json.loads(stripped)
    except ValueError:
        return None
    if not isinstance(record, dict):
        return None
    text = _first_text(record, _JSON_TEXT_KEYS)
    if text is None:
        return None
    level = _first_text(record, _JSON_LEVEL_KEYS)
    if level is not None and level.isalpha():
        text = f"[{level.upper()}] {text}"
    exception = _first_text(record, _JSON_EXCEPTION_KEYS)
    if exception is not None:
        text = text.rstrip("\n") + "\n" + exception
    rank = next((str(v) for k in _JSON_RANK_KEYS if type(v := record.get(k)) in (int, str)), "")
    if rank.isdigit() and len(rank) <= _JSON_RANK_DIGITS:
        text = "\n".join(f"[rank{rank}]: {piece}" for piece in text.rstrip("\n").split("\n"))
    return text


def _first_text(record: dict[str, object], keys: tuple[str, ...]) -> str | None:
    """The first of these fields of a record that holds non-blank text."""
    return next((v for k in keys if isinstance(v := record.get(k), str) and v.strip()), None)


def split_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line index, cleaned segment) pairs of a multi-line text."""
    for index, raw in enumerate(text.split("\n")):
        for segment in segments(raw):
            yield index, segment


if TYPE_CHECKING:

    class EntryLike(Protocol):
        """What the core needs of an entry: its id, kind and declared precedence."""

        @property
        def id(self) -> str: ...

        @property
        def kind(self) -> str: ...

        @property
        def supersedes(self) -> tuple[str, ...]: ...

    class MatchLike(Protocol):
        """What the core needs of a match: its entry, where it matched, and its captures."""

        @property
        def entry(self) -> EntryLike: ...

        @property
        def start(self) -> int: ...

        @property
        def end(self) -> int: ...

        @property
        def groups(self) -> Mapping[str, str]: ...

    M = TypeVar("M", bound=MatchLike)


def inner_text(groups: Mapping[str, str]) -> str | None:
    """The message a wrapper carries (its `inner` capture), if any."""
    value = groups.get(INNER_GROUP)
    return value.strip() if value and value.strip() else None


def _preference(match: MatchLike) -> tuple[int, int, str]:
    kind = match.entry.kind
    rank = 0 if kind == "wrapper" and inner_text(match.groups) else _KIND_PREFERENCE.get(kind, 4)
    return (rank, -(match.end - match.start), match.entry.id)


def ordered(matches: Sequence[M]) -> list[M]:
    """Matches most specific first; an entry another matching entry `supersedes` comes after it."""
    present = {m.entry.id for m in matches}
    superseded = {other for m in matches for other in m.entry.supersedes if other in present}
    return sorted(matches, key=lambda m: (m.entry.id in superseded, _preference(m)))


def unwrap(match: M, match_inner: Callable[[str, M], list[M]]) -> list[M]:
    """The chain from `match` inwards, outermost first: each wrapper's inner text matched again."""
    chain = [match]
    current = match
    while (inner := inner_text(current.groups)) is not None and len(chain) <= MAX_UNWRAP_DEPTH:
        found = match_inner(inner, current)
        if not found:
            break
        current = found[0]
        chain.append(current)
    return chain


class LazyRegex:
    """A regex compiled on first use, so that importing a module full of them stays cheap.

    Before its first compile a pattern with a known gate (:func:`install_gates`: literals one of
    which every match contains) answers "no match" for a text holding none of them without compiling:
    on a small log most of the structural patterns never need compiling at all."""

    __slots__ = ("_compiled", "_flags", "pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None
        _LAZY_PATTERNS.append(self)

    @property
    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern."""
        if self._compiled is None:
            self._compiled = re.compile(self.pattern, self._flags)
        return self._compiled

    def _cannot_match(self, text: str) -> bool:
        if self._compiled is not None or self._flags:
            return False
        gate = _GATES.get(self.pattern)
        if gate is None:
            return False
        lowered = None
        for literal, caseless in gate:
            if not caseless:
                if literal in text:
                    return False
                continue
            if lowered is None:
                lowered = text.lower()
            if literal in lowered:
                return False
        return True

    def match(self, text: str, pos: int = 0) -> re.Match[str] | None:
        """Like re.Pattern.match."""
        return None if self._cannot_match(text) else self.compiled.match(text, pos)

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        """Like re.Pattern.search."""
        return None if self._cannot_match(text) else self.compiled.search(text, pos)

    def findall(self, text: str) -> list[Any]:
        """Like re.Pattern.findall."""
        return [] if self._cannot_match(text) else self.compiled.findall(text)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        """Like re.Pattern.finditer."""
        return iter(()) if self._cannot_match(text) else self.compiled.finditer(text)

    def sub(self, repl: str | Callable[[re.Match[str]], str], text: str) -> str:
        """Like re.Pattern.sub."""
        return text if self._cannot_match(text) else self.compiled.sub(repl, text)


# Every lazy regex created so far, and the gates known for their sources (see install_gates).
_LAZY_PATTERNS: list[LazyRegex] = []
_GATES: dict[str, tuple[tuple[str, bool], ...]] = {}


def lazy_pattern_sources() -> list[str]:
    """The sources of the lazy regexes created so far (without flags: only those can be gated)."""
    return list(dict.fromkeys(lazy.pattern for lazy in _LAZY_PATTERNS if not lazy._flags))


def install_gates(gates: Mapping[str, Sequence[tuple[str, bool]]]) -> None:
    """Declare, per pattern source, literals one of which every match contains (caseless ones in
    lower case, none of them able to fold from a non-ASCII character). A source's gate must come
    from an analysis of that exact source (:func:`ddpdoctor.explain.prefilter.required_literals`)."""
    for source, literals in gates.items():
        _GATES[source] = tuple((text, bool(caseless)) for text, caseless in literals)


# The end of a tqdm progress bar (`| 16/16 [00:25<00:00, 1.48s/it]`, a unit of its own: `1159.57
# examples/s]`) with a record glued after it: the bar's carriage return, lost in the paste, stood there.
_PROGRESS_END = LazyRegex(
    r"\[[\d:]{1,12}<[\d:?]{1,12}, {0,2}[\d.?]{1,12} ?(?:[a-z]{1,12}/s|s/[a-z]{1,12})\](?=\S)"
)
# A record of Python's glog-style logging (torch's `W0227 23:25:08.126000 227320 .../api.py:897] ...`)
# glued after another's text: a paste that lost its line breaks; the space before it stood for one.
_GLUED_RECORD = LazyRegex(
    r"(?<=\S) (?=[IWEF]\d{4} \d\d:\d\d:\d\d\.\d{6} {1,4}\d{1,10} \S{1,300}\.py:\d{1,6}\] )"
)
# ... or, on a line that starts with torchrun's rank label, the label of the next line
# (`[rank3]:     self._make_launchers() [rank3]:   File "..."`).
_GLUED_RANK_LABEL = LazyRegex(r"(?<=\S) (?=\[rank\d{1,7}\]:)")
# ... or, on a line that starts with a script's own rank label, that label again right after a word or a
# closing bracket, with no space (`... shape (2, 13)[rank 1] risk-set table: ...`): two ranks' prints
# raced, one's text written before the other's line ended (print writes its newline apart).
_GLUED_OWN_LABEL = LazyRegex(r"(?<=[\w.)\]])(?=\[(?:rank|RANK|Rank) ?\d{1,7}\] )")
