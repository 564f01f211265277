"""Translate knowledge-base regexes into byte-level prefilters.

`explain` searches gigabytes for a few hundred patterns. It does not run Python's `re` on every
line: a multi-pattern engine (hyperscan, or a literal scan when hyperscan is missing) first picks
the candidate lines, and only those get the exact Python match. That is correct only if every
prefilter is a *superset* of its pattern: whatever line the Python pattern matches, the prefilter
must flag too. This module builds such supersets from the parsed pattern:

- :func:`superset_regex` emits a byte regex (for hyperscan, or POSIX ERE for the `grep`
  baseline of the benchmark). Anchors and lookarounds are dropped, back-references become `.*`,
  case-insensitive letters become classes, and a character class that may match a non-ASCII
  character also accepts a run of high bytes (one UTF-8 character is one to four bytes).
- :func:`required_literals` finds strings one of which every match must contain; the pure-Python
  engine searches for those with `bytes.find`.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

_parser: Any = importlib.import_module("re._parser" if sys.version_info >= (3, 11) else "sre_parse")
_consts: Any = importlib.import_module("re._constants" if sys.version_info >= (3, 11) else "sre_constants")

Dialect = Literal["pcre", "ere"]

_IGNORECASE = int(_consts.SRE_FLAG_IGNORECASE)
_MAXREPEAT = _consts.MAXREPEAT
# Bounded repeats above this are emitted as unbounded, which keeps the automata small.
_MAX_BOUND = 255
# Shortest literal worth a substring search; shorter ones would flag almost every line.
MIN_LITERAL = 3
_HIGH = frozenset(range(0x80, 0x100))
_LINE_BYTES = frozenset(range(0x100)) - {0x0A}
# ASCII letters that Python's case-insensitive matching also pairs with a non-ASCII character
# (K and the Kelvin sign, S and the long s, I and the dotless i).
_FOLDS_TO_NON_ASCII = frozenset("iks")
_CATEGORY_ASCII: dict[str, frozenset[int]] = {
    "CATEGORY_DIGIT": frozenset(range(0x30, 0x3A)),
    "CATEGORY_SPACE": frozenset(b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"),
    "CATEGORY_WORD": frozenset([*range(0x30, 0x3A), *range(0x41, 0x5B), *range(0x61, 0x7B), 0x5F]),
}


class PrefilterError(ValueError):
    """The pattern cannot be parsed into a prefilter (it will be checked on every line instead)."""


def parse(source: str) -> tuple[list[Any], bool]:
    """The parsed items of a pattern and whether it is case-insensitive as a whole."""
    try:
        tree = _parser.parse(source, 0)
    except (re.error, RecursionError) as exc:
        raise PrefilterError(str(exc)) from None
    return list(tree.data), bool(tree.state.flags & _IGNORECASE)


# --- superset regex -----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Atom:
    """One character position: the ASCII bytes it may match, and whether it may match a non-ASCII character."""

    ascii: frozenset[int]
    non_ascii: bool


def _op(item: Any) -> str:
    return str(item[0].name)


def _letter_cases(code: int) -> set[int]:
    ch = chr(code)
    return {ord(ch.lower()), ord(ch.upper())} if ch.isalpha() and code < 0x80 else {code}


def _class_atom(items: Sequence[Any], icase: bool) -> _Atom:
    members: set[int] = set()
    non_ascii = False
    negate = False
    for op, av in items:
        name = str(op.name)
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL":
            if av < 0x80:
                members |= _letter_cases(av) if icase else {av}
                non_ascii |= icase and chr(av).lower() in _FOLDS_TO_NON_ASCII
            else:
                non_ascii = True
        elif name == "RANGE":
            lo, hi = av
            for code in range(lo, min(hi, 0x7F) + 1):
                members |= _letter_cases(code) if icase else {code}
            non_ascii |= hi >= 0x80 or icase
        elif name == "CATEGORY":
            cat = str(av.name)
            positive = cat.replace("CATEGORY_NOT_", "CATEGORY_")
            base = _CATEGORY_ASCII.get(positive, frozenset())
            members |= set(base) if positive == cat else set(range(0x80)) - base
            non_ascii = True
        else:
            raise PrefilterError(f"unsupported class item {name}")
    if negate:
        return _Atom(frozenset(range(0x80)) - members, True)
    return _Atom(frozenset(members), non_ascii)


def _literal_atom(code: int, icase: bool) -> _Atom | None:
    """An atom for a literal that is not matched byte-for-byte; None when its bytes can be emitted as is."""
    if code >= 0x80:
        return _Atom(frozenset(), True) if icase else None
    if icase and chr(code).isalpha():
        return _Atom(frozenset(_letter_cases(code)), chr(code).lower() in _FOLDS_TO_NON_ASCII)
    return None


class _Emitter:
    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect

    # Bytes that are special outside brackets.
    _PCRE_SPECIAL = frozenset(b"\\^$.|?*+()[]{}/-#")
    _ERE_SPECIAL = frozenset(b"\\^$.|?*+()[]{}")

    def byte(self, code: int) -> bytes:
        if self.dialect == "pcre":
            if code < 0x20 or code >= 0x7F or code in self._PCRE_SPECIAL or code == 0x20:
                return b"\\x%02x" % code
            return bytes([code])
        if code in self._ERE_SPECIAL:
            return b"\\" + bytes([code])
        return bytes([code])

    def group(self, body: bytes) -> bytes:
        return (b"(?:" if self.dialect == "pcre" else b"(") + body + b")"

    def bracket(self, codes: Iterable[int]) -> bytes:
        allowed = sorted(set(codes) & _LINE_BYTES - ({0} if self.dialect == "ere" else set()))
        if not allowed:
            raise PrefilterError("empty character class")
        if len(allowed) == 1:
            return self.byte(allowed[0])
        runs: list[tuple[int, int]] = []
        for code in allowed:
            if runs and runs[-1][1] == code - 1:
                runs[-1] = (runs[-1][0], code)
            else:
                runs.append((code, code))
        if self.dialect == "pcre":
            parts = [b"\\x%02x" % lo if lo == hi else b"\\x%02x-\\x%02x" % (lo, hi) for lo, hi in runs]
            return b"[" + b"".join(parts) + b"]"
        return self._ere_bracket(runs)

    @staticmethod
    def _ere_bracket(runs: list[tuple[int, int]]) -> bytes:
        # POSIX brackets have no escapes: `]` goes first, `-` last, `^` anywhere but first.
        codes = {c for lo, hi in runs for c in range(lo, hi + 1)}
        head = b"]" if 0x5D in codes else b""
        tail = b"-" if 0x2D in codes else b""
        rest = sorted(codes - {0x5D, 0x2D, 0x5E})
        body = bytearray()
        i = 0
        while i < len(rest):
            j = i
            while j + 1 < len(rest) and rest[j + 1] == rest[j] + 1:
                j += 1
            body += bytes([rest[i]]) if j - i < 2 else bytes([rest[i], 0x2D, rest[j]])
            if j - i == 1:
                body += bytes([rest[j]])
            i = j + 1
        if 0x5E in codes:
            body += b"^"
        text = head + bytes(body) + tail
        if text == b"^":
            return b"\\^"
        return b"[" + text + b"]"

    def repeat(self, body: bytes, lo: int, hi: int | None) -> bytes:
        if hi is None:
            if lo == 0:
                return body + b"*"
            if lo == 1:
                return body + b"+"
            return body + b"{%d,}" % lo
        if lo == hi == 1:
            return body
        if lo == 0 and hi == 1:
            return body + b"?"
        return body + (b"{%d}" % lo if lo == hi else b"{%d,%d}" % (lo, hi))

    def atom(self, atom: _Atom, lo: int, hi: int | None) -> bytes:
        """A run of lo..hi characters of this atom, as bytes (a character is up to 4 bytes)."""
        codes = set(atom.ascii) | (_HIGH if atom.non_ascii else set())
        body = self.bracket(codes)
        lo = min(lo, _MAX_BOUND)
        if not atom.non_ascii:
            return self.repeat(body, lo, hi)
        top = None if hi is None or hi * 4 > _MAX_BOUND else hi * 4
        return self.repeat(body, lo, top)

    def sequence(self, items: Sequence[Any], icase: bool) -> bytes:
        out = bytearray()
        for item in items:
            out += self.item(item, icase)
        return bytes(out)

    def item(self, item: Any, icase: bool) -> bytes:
        name, av = _op(item), item[1]
        if name == "LITERAL":
            special = _literal_atom(av, icase)
            if special is not None:
                return self.atom(special, 1, 1)
            if av < 0x80:
                return self.byte(av)
            return b"".join(self.byte(b) for b in chr(av).encode("utf-8"))
        if name in ("NOT_LITERAL", "ANY", "IN"):
            return self.atom(self.single(item, icase), 1, 1)
        if name == "BRANCH":
            return self.group(b"|".join(self.sequence(alt, icase) for alt in av[1]))
        if name == "SUBPATTERN":
            _group, add, remove, sub = av
            inner = (icase or bool(add & _IGNORECASE)) and not remove & _IGNORECASE
            return self.group(self.sequence(list(sub), inner))
        if name in ("ATOMIC_GROUP",):
            return self.group(self.sequence(list(av), icase))
        if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            lo, hi, sub = av
            top = None if hi is _MAXREPEAT or hi > _MAX_BOUND else int(hi)
            sub_items = list(sub)
            if len(sub_items) == 1 and _op(sub_items[0]) in ("NOT_LITERAL", "ANY", "IN", "LITERAL"):
                atom = self.single(sub_items[0], icase)
                return self.atom(atom, int(lo), top)
            return self.repeat(self.group(self.sequence(sub_items, icase)), min(int(lo), _MAX_BOUND), top)
        if name in ("AT", "ASSERT", "ASSERT_NOT"):
            return b""
        if name == "GROUPREF":
            return self.atom(_Atom(frozenset(range(0x80)), True), 0, None)
        if name == "GROUPREF_EXISTS":
            _group, yes, no = av
            alts = [self.sequence(list(yes), icase), self.sequence(list(no), icase) if no else b""]
            return self.group(b"|".join(alts))
        raise PrefilterError(f"unsupported regex construct {name}")

    def single(self, item: Any, icase: bool) -> _Atom:
        name, av = _op(item), item[1]
        if name == "ANY":
            return _Atom(frozenset(range(0x80)) - {0x0A}, True)
        if name == "NOT_LITERAL":
            excluded = _letter_cases(av) if icase else {av}
            return _Atom(frozenset(range(0x80)) - excluded, True)
        if name == "IN":
            return _class_atom(av, icase)
        if name == "LITERAL":
            special = _literal_atom(av, icase)
            if special is not None:
                return special
            if av < 0x80:
                return _Atom(frozenset({av}), False)
            return _Atom(frozenset(), True)
        raise PrefilterError(f"unsupported atom {name}")


_REPEATS = ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")


def _trim(items: list[Any]) -> list[Any]:
    """Drop what cannot change whether a line matches: leading and trailing parts that may be empty.

    `A.*` matches a line exactly when `A` does, and a trailing `x{2,9}` when `x{2}` does; trimming
    them keeps the prefilter a superset and stops the engine from reporting a match at every byte
    up to the end of the line.
    """
    out = list(items)
    while out and _may_be_empty(out[-1]):
        out.pop()
    while out and _may_be_empty(out[0]):
        out.pop(0)
    if out and _op(out[-1]) in _REPEATS:
        lo, _hi, sub = out[-1][1]
        out[-1] = (out[-1][0], (lo, lo, sub))
    if out and _op(out[0]) in _REPEATS:
        lo, _hi, sub = out[0][1]
        out[0] = (out[0][0], (lo, lo, sub))
    return out


def _may_be_empty(item: Any) -> bool:
    name = _op(item)
    if name in ("AT", "ASSERT", "ASSERT_NOT"):
        return True
    return name in _REPEATS and item[1][0] == 0


def superset_regex(source: str, dialect: Dialect = "pcre") -> bytes:
    """A byte regex that matches every line the Python pattern matches (and possibly more)."""
    items, icase = parse(source)
    try:
        body = _Emitter(dialect).sequence(_trim(items), icase)
    except RecursionError:
        raise PrefilterError("pattern nests too deeply") from None
    if not body:
        raise PrefilterError("nothing left to search for")
    return body


# --- required literals --------------------------------------------------------------------------


@dataclass(frozen=True)
class Literals:
    """Strings one of which every match contains; `caseless` ones are compared in lower case."""

    options: tuple[tuple[str, bool], ...]

    @property
    def weakest(self) -> int:
        """Length of the shortest option (how selective the set is)."""
        return min(len(text) for text, _ in self.options)


def _best(candidates: list[Literals]) -> Literals | None:
    if not candidates:
        return None
    return max(candidates, key=lambda lit: (lit.weakest, -len(lit.options)))


def _required(items: Sequence[Any], icase: bool) -> Literals | None:
    candidates: list[Literals] = []
    run: list[str] = []

    def flush() -> None:
        text = "".join(run)
        run.clear()
        # Under IGNORECASE a few letters also match non-ASCII characters; a lower-cased byte
        # search would miss those, so only the pieces between them are required literally.
        pieces = re.split(r"[iksIKS\x80-\U0010ffff]", text) if icase else [text]
        for piece in pieces:
            if piece:
                candidates.append(Literals(((piece.lower() if icase else piece, icase),)))

    for item in items:
        name, av = _op(item), item[1]
        if name == "LITERAL":
            run.append(chr(av))
            continue
        if name in ("AT", "ASSERT", "ASSERT_NOT"):
            continue  # zero-width: the literals around it stay adjacent
        flush()
        sub = _required_item(name, av, icase)
        if sub is not None:
            candidates.append(sub)
    flush()
    return _best(candidates)


def _required_item(name: str, av: Any, icase: bool) -> Literals | None:
    if name == "SUBPATTERN":
        _group, add, remove, sub = av
        return _required(list(sub), (icase or bool(add & _IGNORECASE)) and not remove & _IGNORECASE)
    if name == "ATOMIC_GROUP":
        return _required(list(av), icase)
    if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        lo, _hi, sub = av
        return _required(list(sub), icase) if lo >= 1 else None
    if name == "BRANCH":
        options: list[tuple[str, bool]] = []
        for alt in av[1]:
            found = _required(alt, icase)
            if found is None:
                return None
            options.extend(found.options)
        return Literals(tuple(dict.fromkeys(options)))
    return None


def required_literals(source: str) -> Literals | None:
    """Literals one of which every match of the pattern contains, or None when there are no useful ones."""
    items, icase = parse(source)
    try:
        found = _required(items, icase)
    except RecursionError:
        return None
    if found is None or found.weakest < MIN_LITERAL:
        return None
    return found
