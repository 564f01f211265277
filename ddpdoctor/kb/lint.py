"""`kb lint`: everything a knowledge-base change must satisfy, as a report of findings.

Rules (finding ids):
  kb.schema        the file validates (keys, types, patterns compile, id = file name, unique ids)
  kb.key-order     keys follow the schema's canonical order
  kb.related       every related id exists
  kb.also          every sample's `also` id exists
  kb.sample-match  each match sample matches exactly this entry plus its `also` ids, with the captures
  kb.sample-no-match  each no_match sample does not match this entry
  kb.pattern-unused   every pattern is exercised by at least one match sample
  kb.fix-parse     python example fixes parse
  kb.check-unknown / kb.reproducer-unknown   referenced checks and scenarios exist (when known)
  kb.pattern-slow  no pattern takes more than a CPU budget on adversarial lines (see kb.probe)
  kb.supersedes    superseded ids exist, form no cycle, and a match sample shows each overlap (`also`)
  kb.twin          entries linked as `twin` link back and share category, kind and consequence_of
  kb.line-number   no pattern depends on a source line number (`server.rs:82:63`)
  kb.lookahead     no lookahead looks further than LOOKAHEAD_MAX characters (declare precedence instead)
  kb.evidence      an entry has a match sample with `source:` or a `status_note` saying why none exists
"""

from __future__ import annotations

import ast
import importlib
import re
import sys
from collections.abc import Collection, Sequence
from pathlib import Path

from ddpdoctor.errors import KnowledgeError
from ddpdoctor.findings import Evidence, Finding, Report, Severity
from ddpdoctor.kb.loader import extra_dirs, load_entries
from ddpdoctor.kb.matching import Matcher
from ddpdoctor.kb.probe import KILL_AFTER_S, seed_lines, timed_patterns
from ddpdoctor.kb.schema import FIELD_ORDER, Entry

LINT_SCHEMA = "ddpdoctor.kb-lint/1"
# The longest text a lookahead may inspect. A longer one is a pattern staying out of another
# entry's way, which `supersedes` declares instead.
LOOKAHEAD_MAX = 100
# A source file and a literal line number inside a pattern, e.g. `server\.rs:8[23]:63` or `lib.py:161`.
LINE_NUMBER_RE = re.compile(r"\.(?:rs|py|pyx|c|cc|cpp|cu|cuh|h|hpp):(?:\d|\[\d)")


class LintReport(Report):
    """Lint problems as error findings, plus how many entries were checked."""

    entries_checked: int = 0

    def to_dict(self) -> dict[str, object]:
        """JSON form with the entry count."""
        return {**super().to_dict(), "entries_checked": self.entries_checked}


def _problem(rule: str, path: str, message: str, fix: str | None = None) -> Finding:
    return Finding(
        id=f"kb.{rule}",
        severity=Severity.ERROR,
        category="other",
        title=message,
        message=f"in {path}",
        evidence=(Evidence(text=path),),
        solutions=(fix,) if fix else (),
    )


def _from_error(exc: KnowledgeError) -> Finding:
    return _problem("schema", exc.path, f"{exc.key}: {exc.problem}" if exc.key else exc.problem, exc.hint)


def lint_entries(
    entries: Sequence[Entry],
    key_orders: dict[str, tuple[str, ...]] | None = None,
    *,
    known_checks: Collection[str] | None = None,
    known_scenarios: Collection[str] | None = None,
    check_speed: bool = True,
) -> list[Finding]:
    """Every rule except schema validation, over already-loaded entries."""
    matcher = Matcher(entries)
    ids = {e.id for e in entries}
    problems: list[Finding] = []
    by_id = {e.id: e for e in entries}
    for entry in entries:
        problems += _lint_links(entry, ids, known_checks, known_scenarios)
        problems += _lint_samples(entry, matcher)
        problems += _lint_fix(entry)
        problems += _lint_precedence(entry, by_id)
        problems += _lint_consistency(entry, by_id)
        problems += _lint_patterns(entry)
        problems += _lint_evidence(entry)
        order = (key_orders or {}).get(entry.id)
        if order is not None:
            expected = [k for k in FIELD_ORDER if k in order]
            if list(order) != expected:
                problems.append(
                    _problem(
                        "key-order", entry.path, "keys are out of order", f"order them: {', '.join(expected)}"
                    )
                )
    if check_speed:
        problems += _lint_speed(entries)
    return problems


def _lint_links(
    entry: Entry, ids: set[str], known_checks: Collection[str] | None, known_scenarios: Collection[str] | None
) -> list[Finding]:
    out = []
    for rel in entry.related:
        if rel.id not in ids:
            out.append(
                _problem(
                    "related",
                    entry.path,
                    f"related id {rel.id!r} does not exist",
                    "link an existing entry or remove the link",
                )
            )
    for sample in entry.samples_match:
        for other in sample.also:
            if other not in ids:
                out.append(
                    _problem(
                        "also",
                        entry.path,
                        f"sample names unknown entry {other!r} in `also`",
                        "name an existing entry",
                    )
                )
    if known_checks is not None:
        for check in entry.checks:
            if check not in known_checks:
                out.append(
                    _problem(
                        "check-unknown",
                        entry.path,
                        f"check {check!r} does not exist",
                        "use an id from `ddpdoctor check --list`",
                    )
                )
    if known_scenarios is not None and entry.reproducer and entry.reproducer not in known_scenarios:
        out.append(
            _problem(
                "reproducer-unknown",
                entry.path,
                f"scenario {entry.reproducer!r} does not exist",
                "use a name from `ddpdoctor reproduce --list`",
            )
        )
    return out


def _lint_samples(entry: Entry, matcher: Matcher) -> list[Finding]:
    out = []
    used_patterns: set[int] = set()
    for i, sample in enumerate(entry.samples_match):
        matches = matcher.match_text(sample.text)
        got = {m.entry.id for m in matches}
        want = {entry.id, *sample.also}
        if got != want:
            extra, missing = sorted(got - want), sorted(want - got)
            detail = "; ".join(
                p
                for p in (
                    f"missing {', '.join(missing)}" if missing else "",
                    f"unexpected {', '.join(extra)}" if extra else "",
                )
                if p
            )
            out.append(
                _problem(
                    "sample-match",
                    entry.path,
                    f"samples.match[{i}] matched the wrong entries: {detail}",
                    "fix the patterns, or list intended overlaps in `also`",
                )
            )
        own = [m for m in matches if m.entry.id == entry.id]
        used_patterns.update(m.pattern for m in own)
        if own and sample.captures:
            groups = own[0].groups
            for name, value in sample.captures.items():
                if groups.get(name, "").strip() != value.strip():
                    out.append(
                        _problem(
                            "sample-match",
                            entry.path,
                            f"samples.match[{i}] captured {name}={groups.get(name)!r}, expected {value!r}",
                            "fix the pattern's group or the expected capture",
                        )
                    )
    for index, pattern in enumerate(entry.patterns):
        if index not in used_patterns:
            out.append(
                _problem(
                    "pattern-unused",
                    entry.path,
                    f"patterns[{index}] {pattern.source!r} is matched by no sample",
                    "add a match sample for it or remove it",
                )
            )
    for i, sample in enumerate(entry.samples_no_match):
        if any(m.entry.id == entry.id for m in matcher.match_text(sample.text)):
            out.append(
                _problem(
                    "sample-no-match",
                    entry.path,
                    f"samples.no_match[{i}] matches the entry",
                    "tighten the patterns",
                )
            )
    return out


def _lint_precedence(entry: Entry, by_id: dict[str, Entry]) -> list[Finding]:
    out = []
    shown = {other for sample in entry.samples_match for other in sample.also}
    for other in entry.supersedes:
        if other not in by_id:
            out.append(
                _problem(
                    "supersedes",
                    entry.path,
                    f"supersedes unknown entry {other!r}",
                    "name an existing entry or remove it",
                )
            )
        elif other not in shown:
            out.append(
                _problem(
                    "supersedes",
                    entry.path,
                    f"supersedes {other!r} but no match sample matches both",
                    f"add a match sample that {other} also matches and list it in that sample's `also`",
                )
            )
    cycle = _supersedes_cycle(entry.id, by_id)
    if cycle:
        out.append(
            _problem(
                "supersedes",
                entry.path,
                f"supersedes forms a cycle: {' -> '.join(cycle)}",
                "keep precedence one-way: remove one of the links",
            )
        )
    return out


def _supersedes_cycle(start: str, by_id: dict[str, Entry]) -> list[str]:
    """A path start -> ... -> start through `supersedes` links, or [] when there is none."""
    stack: list[tuple[str, list[str]]] = [(start, [start])]
    visited: set[str] = set()
    while stack:
        current, path = stack.pop()
        for nxt in by_id[current].supersedes if current in by_id else ():
            if nxt == start:
                return [*path, nxt]
            if nxt not in visited:
                visited.add(nxt)
                stack.append((nxt, [*path, nxt]))
    return []


def _lint_consistency(entry: Entry, by_id: dict[str, Entry]) -> list[Finding]:
    out = []
    for rel in entry.related:
        twin = by_id.get(rel.id)
        if rel.type != "twin" or twin is None:
            continue
        mine = (entry.category, entry.kind, entry.consequence_of)
        theirs = (twin.category, twin.kind, twin.consequence_of)
        if mine != theirs:
            out.append(
                _problem(
                    "twin",
                    entry.path,
                    f"twin {twin.id} differs: category, kind, consequence_of {mine} vs {theirs}",
                    "twins report the same failure: give them the same category, kind and consequence_of",
                )
            )
        if not any(r.id == entry.id and r.type == "twin" for r in twin.related):
            out.append(
                _problem(
                    "twin",
                    entry.path,
                    f"twin {twin.id} does not link back",
                    f"add the twin link to {twin.id}",
                )
            )
    return out


def _lint_evidence(entry: Entry) -> list[Finding]:
    if entry.status_note or any(sample.source for sample in entry.samples_match):
        return []
    return [
        _problem(
            "evidence",
            entry.path,
            "no match sample comes from a public log and no status_note says why",
            "add a real log with `source:`, or a `status_note:` on why no public log exists",
        )
    ]


def _lint_patterns(entry: Entry) -> list[Finding]:
    out = []
    for index, pattern in enumerate(entry.patterns):
        if LINE_NUMBER_RE.search(pattern.source):
            out.append(
                _problem(
                    "line-number",
                    entry.path,
                    f"patterns[{index}] depends on a source line number",
                    "match the file name with `:\\d+:\\d+`; line numbers change with every release",
                )
            )
        width = longest_lookahead(pattern.source)
        if width > LOOKAHEAD_MAX:
            shown = "unbounded" if width >= _UNBOUNDED else f"{width} characters"
            out.append(
                _problem(
                    "lookahead",
                    entry.path,
                    f"patterns[{index}] has a lookahead over {shown} (limit {LOOKAHEAD_MAX})",
                    "match the text in sequence, or declare precedence with `supersedes`",
                )
            )
    return out


_UNBOUNDED = 1 << 16
# The regular-expression parser of the running Python (`re._parser` from 3.11, `sre_parse` before).
_RE_PARSER = importlib.import_module("re._parser" if sys.version_info >= (3, 11) else "sre_parse")


def longest_lookahead(source: str) -> int:
    """The most characters any lookahead (`(?=...)`, `(?!...)`) of a regex can inspect."""
    longest = 0

    def walk(node: object) -> None:
        nonlocal longest
        if isinstance(node, _RE_PARSER.SubPattern):
            for op, arg in node.data:
                if op in (_RE_PARSER.ASSERT, _RE_PARSER.ASSERT_NOT) and arg[0] == 1:
                    longest = max(longest, min(arg[1].getwidth()[1], _UNBOUNDED))
                walk(arg)
        elif isinstance(node, (list, tuple)):
            for item in node:
                walk(item)

    walk(_RE_PARSER.parse(source))
    return longest


def _lint_fix(entry: Entry) -> list[Finding]:
    fix = entry.example_fix
    if fix.language != "python":
        return []
    out = []
    for side, code in (("before", fix.before), ("after", fix.after)):
        try:
            ast.parse(code)
        except SyntaxError as exc:
            out.append(
                _problem(
                    "fix-parse",
                    entry.path,
                    f"example_fix.{side} does not parse: {exc.msg} (line {exc.lineno})",
                    "make the snippet valid Python",
                )
            )
    return out


def _lint_speed(entries: Sequence[Entry]) -> list[Finding]:
    jobs = [(e.path, i, p.source, seed_lines(e)) for e in entries for i, p in enumerate(e.patterns)]
    out: list[Finding] = []
    for path, index, source, seconds in timed_patterns(jobs):
        shown = f"over {KILL_AFTER_S:.1f}s (stopped)" if seconds is None else f"{seconds:.2f}s of CPU"
        out.append(
            _problem(
                "pattern-slow",
                path,
                f"patterns[{index}] {source!r} took {shown} on adversarial lines",
                "avoid nested or overlapping unbounded repeats; anchor on a literal",
            )
        )
    return out


def lint_knowledge_base(
    dirs: Sequence[Path] = (),
    *,
    include_bundled: bool = True,
    known_checks: Collection[str] | None = None,
    known_scenarios: Collection[str] | None = None,
    check_speed: bool = True,
) -> LintReport:
    """Load every entry (collecting problems) and run all lint rules."""
    result = load_entries(extra_dirs(dirs), include_bundled=include_bundled)
    findings = [_from_error(p) for p in result.problems]
    findings += lint_entries(
        result.entries,
        result.key_orders,
        known_checks=known_checks,
        known_scenarios=known_scenarios,
        check_speed=check_speed,
    )
    return LintReport(schema=LINT_SCHEMA, findings=findings, entries_checked=len(result.entries))
