"""The knowledge-base entry schema: one declarative table, strict validation, typed entries.

Each YAML file under `knowledge/<framework>/<id>.yaml` holds one entry. The keys, their order and
what each may contain are described by :data:`FIELDS`; :func:`parse_entry` validates a loaded
mapping against it and returns an :class:`Entry` whose patterns are already compiled. Every error
is a :class:`~ddpdoctor.errors.KnowledgeError` naming the file, the key and the fix.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ddpdoctor.check.registry import CHECK_ID_RE
from ddpdoctor.errors import KnowledgeError

FRAMEWORKS: tuple[str, ...] = (
    "burn",
    "rust",
    "pytorch",
    "torchelastic",
    "nccl",
    "cuda",
    "gloo",
    "dataloader",
    "lightning",
    "accelerate",
    "deepspeed",
    "transformers",
    "megatron",
    "horovod",
    "ray",
    "mmcv",
    "jax",
    "python",
    "system",
)
KINDS: tuple[str, ...] = ("root", "wrapper", "symptom")
STATUSES: tuple[str, ...] = ("experimental", "stable", "deprecated")
RELATION_TYPES: tuple[str, ...] = (
    "twin",
    "similar",
    "causes",
    "caused-by",
    "wraps",
    "wrapped-by",
    "supersedes",
    "superseded-by",
)
# Why a message can be an echo of another failure rather than its cause (see the README's rules).
CONSEQUENCES: tuple[str, ...] = ("peer-failure", "earlier-error", "launcher")
# Whose fault a match is: one rank's (the default), or the machine's, which every rank on it shares.
SCOPES: tuple[str, ...] = ("rank", "machine")
# When a solution applies: before launch (`check`, `preflight()`) or after a failure (`explain`).
# A solution written as plain text applies at both.
STAGES: tuple[str, ...] = ("preflight", "runtime")
SOURCE_KINDS: tuple[str, ...] = ("code", "docs", "issue")
FIX_LANGUAGES: tuple[str, ...] = ("python", "rust", "shell", "yaml", "text")

ID_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# repo@commit:path:line, e.g. tracel-ai/burn@2c06be351006:crates/burn-train/src/lib.rs:161
CODE_REF_RE = re.compile(r"^[\w.-]+/[\w.-]+@[0-9a-f]{7,40}:[^:\s]+:\d+(?:-\d+)?$")
URL_RE = re.compile(r"^https?://\S+$")
# Named groups with a meaning for `explain`; others are allowed and reported as captures.
INNER_GROUP = "inner"


@dataclass(frozen=True)
class Pattern:
    """One message pattern, compiled once at load time."""

    source: str
    regex: re.Pattern[str]


@dataclass(frozen=True)
class RankRule:
    """How a match names the failing rank: a fixed rank, or a named group plus an offset."""

    group: str | None = None
    offset: int = 0
    fixed: int | None = None

    def rank_from(self, groups: Mapping[str, str]) -> int | None:
        """The rank this match points at, or None when the text does not say."""
        if self.fixed is not None:
            return self.fixed
        value = groups.get(self.group or "rank")
        if value is None or not value.strip().lstrip("-").isdigit():
            return None
        return int(value) + self.offset


@dataclass(frozen=True)
class CheckFixture:
    """`ddpdoctor check` arguments that must flag the example's `before` and pass its `after`."""

    before: str
    after: str


@dataclass(frozen=True)
class ExampleFix:
    """A before/after snippet; python snippets must parse."""

    language: str
    before: str
    after: str
    note: str | None = None
    check: CheckFixture | None = None


@dataclass(frozen=True)
class Related:
    """A typed link to another entry."""

    id: str
    type: str


@dataclass(frozen=True)
class Source:
    """Where a message is raised (`code`: repo@commit:path:line) or documented (`docs`, `issue`)."""

    kind: str
    ref: str
    note: str | None = None


@dataclass(frozen=True)
class Sample:
    """A log excerpt that must (or must not) match the entry."""

    text: str
    captures: Mapping[str, str] = field(default_factory=dict)
    also: tuple[str, ...] = ()
    source: str | None = None
    note: str | None = None


@dataclass(frozen=True)
class Entry:
    """One validated knowledge-base entry."""

    id: str
    title: str
    framework: str
    category: str
    kind: str
    status: str
    patterns: tuple[Pattern, ...]
    meaning: str
    triggers: tuple[str, ...]
    situations: tuple[str, ...]
    solutions: tuple[str, ...]
    example_fix: ExampleFix
    sources: tuple[Source, ...]
    false_positives: tuple[str, ...]
    samples_match: tuple[Sample, ...]
    samples_no_match: tuple[Sample, ...]
    path: str
    status_note: str | None = None
    rank: RankRule = RankRule()
    supersedes: tuple[str, ...] = ()
    consequence_of: tuple[str, ...] = ()
    scope: str = "rank"
    # The stage of each solution, aligned with `solutions`: "preflight", "runtime" or None (both).
    solution_stages: tuple[str | None, ...] = ()
    related: tuple[Related, ...] = ()
    checks: tuple[str, ...] = ()
    reproducer: str | None = None

    def solutions_for(self, stage: str) -> tuple[str, ...]:
        """The solutions that apply at `stage` ("preflight" or "runtime"), in the entry's order."""
        if stage not in STAGES:
            raise ValueError(f"unknown stage {stage!r}; use one of: {', '.join(STAGES)}")
        pairs = zip(self.solutions, self.stages(), strict=True)
        return tuple(text for text, where in pairs if where in (None, stage))

    def stages(self) -> tuple[str | None, ...]:
        """`solution_stages`, or one None (both stages) per solution when it was left empty."""
        return self.solution_stages or (None,) * len(self.solutions)

    def summary(self) -> dict[str, str]:
        """The fields `kb list --format json` promises."""
        return {
            "id": self.id,
            "title": self.title,
            "framework": self.framework,
            "category": self.category,
            "kind": self.kind,
            "status": self.status,
        }

    def to_dict(self) -> dict[str, Any]:
        """Full JSON form, in schema key order."""
        fix: dict[str, Any] = {
            "language": self.example_fix.language,
            "before": self.example_fix.before,
            "after": self.example_fix.after,
        }
        if self.example_fix.note:
            fix["note"] = self.example_fix.note
        if self.example_fix.check:
            fix["check"] = {"before": self.example_fix.check.before, "after": self.example_fix.check.after}
        return {
            **self.summary(),
            "status_note": self.status_note,
            "patterns": [p.source for p in self.patterns],
            "rank": {"group": self.rank.group, "offset": self.rank.offset, "fixed": self.rank.fixed},
            "supersedes": list(self.supersedes),
            "consequence_of": list(self.consequence_of),
            "scope": self.scope,
            "meaning": self.meaning,
            "triggers": list(self.triggers),
            "situations": list(self.situations),
            "solutions": list(self.solutions),
            "solution_stages": [stage or "any" for stage in self.stages()],
            "example_fix": fix,
            "related": [{"id": r.id, "type": r.type} for r in self.related],
            "sources": [{s.kind: s.ref, **({"note": s.note} if s.note else {})} for s in self.sources],
            "false_positives": list(self.false_positives),
            "checks": list(self.checks),
            "reproducer": self.reproducer,
            "samples": {
                "match": [_sample_dict(s) for s in self.samples_match],
                "no_match": [_sample_dict(s) for s in self.samples_no_match],
            },
            "path": self.path,
        }


def _sample_dict(sample: Sample) -> dict[str, Any]:
    out: dict[str, Any] = {"text": sample.text}
    if sample.captures:
        out["captures"] = dict(sample.captures)
    if sample.also:
        out["also"] = list(sample.also)
    if sample.source:
        out["source"] = sample.source
    if sample.note:
        out["note"] = sample.note
    return out


class _Ctx:
    """Where validation is: the file, for error messages."""

    def __init__(self, path: str) -> None:
        self.path = path

    def fail(self, key: str | None, problem: str, fix: str) -> KnowledgeError:
        return KnowledgeError(self.path, key, problem, fix=fix)


def _text(ctx: _Ctx, value: Any, key: str, *, one_line: bool = False) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ctx.fail(key, "must be a non-empty string", f"write `{key}:` as text")
    if one_line and "\n" in value.strip():
        raise ctx.fail(key, "must be a single line", f"shorten `{key}:` to one line")
    return value.strip() if one_line else value.rstrip("\n")


def _text_list(ctx: _Ctx, value: Any, key: str, *, min_items: int = 1) -> tuple[str, ...]:
    if not isinstance(value, list) or len(value) < min_items:
        raise ctx.fail(key, f"must be a list with at least {min_items} item(s)", f"add `{key}:` items")
    return tuple(_text(ctx, item, f"{key}[{i}]") for i, item in enumerate(value))


def _choice(ctx: _Ctx, value: Any, key: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ctx.fail(key, f"{value!r} is not allowed", f"use one of: {', '.join(choices)}")
    return str(value)


def _mapping(
    ctx: _Ctx, value: Any, key: str, allowed: tuple[str, ...], required: tuple[str, ...]
) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ctx.fail(key, "must be a mapping", f"write `{key}:` with keys {', '.join(allowed)}")
    for k in value:
        if k not in allowed:
            raise ctx.fail(f"{key}.{k}", "unknown key", f"remove it; allowed keys: {', '.join(allowed)}")
    for k in required:
        if k not in value:
            raise ctx.fail(f"{key}.{k}", "is missing", f"add `{k}:` under `{key}:`")
    return value


def _id(ctx: _Ctx, value: Any, key: str) -> str:
    if not isinstance(value, str) or not ID_RE.match(value):
        raise ctx.fail(key, f"{value!r} is not a lower-kebab id", "use lowercase words joined by '-'")
    return value


def _patterns(ctx: _Ctx, value: Any, key: str) -> tuple[Pattern, ...]:
    if not isinstance(value, list) or not value:
        raise ctx.fail(key, "must be a list with at least one regex", "add `patterns:` with a regex")
    out = []
    for i, src in enumerate(value):
        where = f"{key}[{i}]"
        if not isinstance(src, str) or not src:
            raise ctx.fail(where, "must be a non-empty string", "write the regex as a quoted string")
        try:
            regex = re.compile(src)
        except re.error as exc:
            raise ctx.fail(where, f"does not compile: {exc}", "fix the regular expression") from None
        if regex.search(""):
            raise ctx.fail(where, "matches the empty string", "make the pattern require some text")
        out.append(Pattern(src, regex))
    return tuple(out)


def _rank(ctx: _Ctx, value: Any, key: str) -> RankRule:
    m = _mapping(ctx, value, key, ("group", "offset", "fixed"), ())
    fixed, group, offset = m.get("fixed"), m.get("group"), m.get("offset", 0)
    if (fixed is None) == (group is None):
        raise ctx.fail(
            key,
            "needs exactly one of `group` or `fixed`",
            "write `{group: worker, offset: 1}` or `{fixed: 0}`",
        )
    if fixed is not None and (not isinstance(fixed, int) or fixed < 0):
        raise ctx.fail(f"{key}.fixed", "must be a non-negative integer", "write the rank number")
    if group is not None and not isinstance(group, str):
        raise ctx.fail(f"{key}.group", "must be a group name", "name a named group of the patterns")
    if not isinstance(offset, int):
        raise ctx.fail(f"{key}.offset", "must be an integer", "write e.g. `offset: 1`")
    return RankRule(group=group, offset=offset, fixed=fixed)


def _example_fix(ctx: _Ctx, value: Any, key: str) -> ExampleFix:
    m = _mapping(
        ctx, value, key, ("language", "before", "after", "note", "check"), ("language", "before", "after")
    )
    check = None
    if "check" in m:
        c = _mapping(ctx, m["check"], f"{key}.check", ("before", "after"), ("before", "after"))
        check = CheckFixture(
            _text(ctx, c["before"], f"{key}.check.before"), _text(ctx, c["after"], f"{key}.check.after")
        )
    return ExampleFix(
        language=_choice(ctx, m["language"], f"{key}.language", FIX_LANGUAGES),
        before=_text(ctx, m["before"], f"{key}.before"),
        after=_text(ctx, m["after"], f"{key}.after"),
        note=_text(ctx, m["note"], f"{key}.note") if "note" in m else None,
        check=check,
    )


def _related(ctx: _Ctx, value: Any, key: str) -> tuple[Related, ...]:
    if not isinstance(value, list):
        raise ctx.fail(key, "must be a list", "write `related: [{id: other-entry, type: similar}]`")
    out = []
    for i, item in enumerate(value):
        m = _mapping(ctx, item, f"{key}[{i}]", ("id", "type"), ("id", "type"))
        out.append(
            Related(
                _id(ctx, m["id"], f"{key}[{i}].id"),
                _choice(ctx, m["type"], f"{key}[{i}].type", RELATION_TYPES),
            )
        )
    return tuple(out)


def _sources(ctx: _Ctx, value: Any, key: str) -> tuple[Source, ...]:
    if not isinstance(value, list) or not value:
        raise ctx.fail(
            key, "must list at least one source", "add `- code: owner/repo@commit:path:line` or `- docs: URL`"
        )
    out = []
    for i, item in enumerate(value):
        where = f"{key}[{i}]"
        m = _mapping(ctx, item, where, (*SOURCE_KINDS, "note"), ())
        kinds = [k for k in SOURCE_KINDS if k in m]
        if len(kinds) != 1:
            raise ctx.fail(
                where, "needs exactly one of code, docs, issue", "split it into one item per source"
            )
        kind = kinds[0]
        ref = _text(ctx, m[kind], f"{where}.{kind}", one_line=True)
        if kind == "code" and not CODE_REF_RE.match(ref):
            raise ctx.fail(
                f"{where}.code",
                f"{ref!r} is not repo@commit:path:line",
                "write e.g. tracel-ai/burn@2c06be351006:crates/x/src/lib.rs:161",
            )
        if kind != "code" and not URL_RE.match(ref):
            raise ctx.fail(f"{where}.{kind}", f"{ref!r} is not a URL", "write an https:// address")
        out.append(Source(kind, ref, _text(ctx, m["note"], f"{where}.note") if "note" in m else None))
    return tuple(out)


def _samples(ctx: _Ctx, value: Any, key: str) -> tuple[tuple[Sample, ...], tuple[Sample, ...]]:
    m = _mapping(ctx, value, key, ("match", "no_match"), ("match", "no_match"))
    groups: list[tuple[Sample, ...]] = []
    for part, allowed in (
        ("match", ("text", "captures", "also", "source", "note")),
        ("no_match", ("text", "source", "note")),
    ):
        items = m[part]
        where = f"{key}.{part}"
        if not isinstance(items, list) or not items:
            raise ctx.fail(where, "needs at least one sample", f"add `- text: ...` under `{part}:`")
        samples = []
        for i, item in enumerate(items):
            s = _mapping(ctx, item, f"{where}[{i}]", allowed, ("text",))
            captures = s.get("captures", {})
            if not isinstance(captures, dict) or not all(
                isinstance(k, str) and isinstance(v, (str, int)) for k, v in captures.items()
            ):
                raise ctx.fail(
                    f"{where}[{i}].captures",
                    "must map group names to expected text",
                    "write `captures: {inner: '...'}`",
                )
            also = s.get("also", [])
            if not isinstance(also, list):
                raise ctx.fail(
                    f"{where}[{i}].also", "must be a list of entry ids", "write `also: [other-entry]`"
                )
            samples.append(
                Sample(
                    text=_text(ctx, s["text"], f"{where}[{i}].text"),
                    captures={k: str(v) for k, v in captures.items()},
                    also=tuple(_id(ctx, a, f"{where}[{i}].also") for a in also),
                    source=_text(ctx, s["source"], f"{where}[{i}].source", one_line=True)
                    if "source" in s
                    else None,
                    note=_text(ctx, s["note"], f"{where}[{i}].note") if "note" in s else None,
                )
            )
        groups.append(tuple(samples))
    return groups[0], groups[1]


def _solutions(ctx: _Ctx, value: Any, key: str) -> tuple[tuple[str, str | None], ...]:
    """Plain text (applies before launch and at run time) or `{text: ..., stage: runtime|preflight}`."""
    if not isinstance(value, list) or not value:
        raise ctx.fail(key, "must be a list with at least 1 item(s)", f"add `{key}:` items")
    out: list[tuple[str, str | None]] = []
    for i, item in enumerate(value):
        where = f"{key}[{i}]"
        if isinstance(item, dict):
            m = _mapping(ctx, item, where, ("text", "stage"), ("text", "stage"))
            out.append(
                (_text(ctx, m["text"], f"{where}.text"), _choice(ctx, m["stage"], f"{where}.stage", STAGES))
            )
        else:
            out.append((_text(ctx, item, where), None))
    return tuple(out)


def _id_list(ctx: _Ctx, value: Any, key: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise ctx.fail(key, "must be a non-empty list of entry ids", f"write `{key}: [other-entry]`")
    ids = tuple(_id(ctx, item, f"{key}[{i}]") for i, item in enumerate(value))
    if len(set(ids)) != len(ids):
        raise ctx.fail(key, "lists an id twice", "remove the duplicate")
    return ids


def _consequences(ctx: _Ctx, value: Any, key: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise ctx.fail(key, "must be a non-empty list", f"write `{key}: [peer-failure]`")
    items = tuple(_choice(ctx, item, f"{key}[{i}]", CONSEQUENCES) for i, item in enumerate(value))
    if len(set(items)) != len(items):
        raise ctx.fail(key, "lists a value twice", "remove the duplicate")
    return items


def _check_ids(ctx: _Ctx, value: Any, key: str) -> tuple[str, ...]:
    items = _text_list(ctx, value, key, min_items=0)
    for i, item in enumerate(items):
        if not CHECK_ID_RE.match(item):
            raise ctx.fail(
                f"{key}[{i}]", f"{item!r} is not a check id", "use a namespaced id such as device.duplicate"
            )
    return items


@dataclass(frozen=True)
class FieldSpec:
    """One key of an entry: whether it is required and what to write when it is missing."""

    name: str
    required: bool
    fix: str


# The schema, in canonical key order. `kb lint` also checks that files keep this order.
FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("id", True, "add `id:` equal to the file name without .yaml"),
    FieldSpec(
        "title",
        True,
        "add `title:` with the message template, e.g. `Distributed data parallel worker {id} failed: {msg}`",
    ),
    FieldSpec("framework", True, f"add `framework:` (one of {', '.join(FRAMEWORKS)})"),
    FieldSpec("category", True, "add `category:` (one of the names in knowledge/categories.yaml)"),
    FieldSpec("kind", True, "add `kind:` root, wrapper or symptom"),
    FieldSpec("status", True, "add `status:` experimental, stable or deprecated"),
    FieldSpec("status_note", False, "write `status_note:` with why the status is what it is"),
    FieldSpec("patterns", True, "add `patterns:` with at least one regex"),
    FieldSpec("rank", False, "write `rank: {group: worker, offset: 1}` or `rank: {fixed: 0}`"),
    FieldSpec("supersedes", False, "write `supersedes: [other-entry]`"),
    FieldSpec("consequence_of", False, f"write `consequence_of: [{CONSEQUENCES[0]}]`"),
    FieldSpec("scope", False, "write `scope: machine` (the default is `rank`)"),
    FieldSpec("meaning", True, "add `meaning:` with one paragraph"),
    FieldSpec("triggers", True, "add `triggers:` with at least one item"),
    FieldSpec("situations", True, "add `situations:` with at least one item"),
    FieldSpec("solutions", True, "add `solutions:` with at least one item, most likely first"),
    FieldSpec("example_fix", True, "add `example_fix:` with language, before and after"),
    FieldSpec("related", False, "write `related: [{id: other-entry, type: similar}]`"),
    FieldSpec("sources", True, "add `sources:` with at least one code, docs or issue item"),
    FieldSpec("false_positives", True, "add `false_positives:` (a list; it may say 'none known')"),
    FieldSpec("checks", False, "write `checks: [device.duplicate]`"),
    FieldSpec("reproducer", False, "write `reproducer: <scenario name>`"),
    FieldSpec("samples", True, "add `samples:` with `match:` and `no_match:` lists"),
)
FIELD_ORDER: tuple[str, ...] = tuple(f.name for f in FIELDS)

_Parser = Callable[[_Ctx, Any, str], Any]


def parse_entry(doc: Any, path: str, categories: frozenset[str]) -> Entry:
    """Validate one loaded YAML document and return the entry; raise KnowledgeError on the first problem."""
    ctx = _Ctx(path)
    if not isinstance(doc, dict):
        raise ctx.fail(None, "is not a mapping of keys", "start the file with `id: <name>`")
    for key in doc:
        if key not in FIELD_ORDER:
            raise ctx.fail(
                str(key), "unknown key", f"remove it or rename it to one of: {', '.join(FIELD_ORDER)}"
            )
    for spec in FIELDS:
        if spec.required and spec.name not in doc:
            raise ctx.fail(spec.name, "is missing", spec.fix)

    def category(c: _Ctx, v: Any, k: str) -> str:
        return _choice(c, v, k, tuple(sorted(categories)))

    parsers: dict[str, _Parser] = {
        "id": _id,
        "title": lambda c, v, k: _text(c, v, k, one_line=True),
        "framework": lambda c, v, k: _choice(c, v, k, FRAMEWORKS),
        "category": category,
        "kind": lambda c, v, k: _choice(c, v, k, KINDS),
        "status": lambda c, v, k: _choice(c, v, k, STATUSES),
        "status_note": _text,
        "patterns": _patterns,
        "rank": _rank,
        "supersedes": _id_list,
        "consequence_of": _consequences,
        "scope": lambda c, v, k: _choice(c, v, k, SCOPES),
        "meaning": _text,
        "triggers": _text_list,
        "situations": _text_list,
        "solutions": _solutions,
        "example_fix": _example_fix,
        "related": _related,
        "sources": _sources,
        "false_positives": _text_list,
        "checks": _check_ids,
        "reproducer": lambda c, v, k: _text(c, v, k, one_line=True),
        "samples": _samples,
    }
    values = {key: parsers[key](ctx, doc[key], key) for key in doc}
    samples_match, samples_no_match = values.pop("samples")
    solutions = values.pop("solutions")
    entry = Entry(
        samples_match=samples_match,
        samples_no_match=samples_no_match,
        path=path,
        solutions=tuple(text for text, _ in solutions),
        solution_stages=tuple(stage for _, stage in solutions),
        **values,
    )
    _cross_check(ctx, entry)
    return entry


def _cross_check(ctx: _Ctx, entry: Entry) -> None:
    group_names = set().union(*(p.regex.groupindex for p in entry.patterns))
    if INNER_GROUP in group_names and entry.kind != "wrapper":
        raise ctx.fail(
            "kind",
            f"patterns capture `{INNER_GROUP}` but kind is {entry.kind}",
            "set `kind: wrapper` or drop the `inner` group",
        )
    if entry.rank.group is not None and entry.rank.group not in group_names:
        raise ctx.fail(
            "rank.group",
            f"no pattern has a group named {entry.rank.group!r}",
            "name a group the patterns capture",
        )
    if entry.scope == "machine" and entry.rank.fixed is not None:
        raise ctx.fail("scope", "is the machine's, but `rank` fixes one rank", "drop one of the two")
    if any(r.id == entry.id for r in entry.related):
        raise ctx.fail("related", "links to the entry itself", "remove the self-link")
    if entry.id in entry.supersedes:
        raise ctx.fail("supersedes", "lists the entry itself", "remove the entry's own id")
    for i, sample in enumerate(entry.samples_match):
        unknown = set(sample.captures) - group_names
        if unknown:
            raise ctx.fail(
                f"samples.match[{i}].captures",
                f"names groups no pattern has: {', '.join(sorted(unknown))}",
                "use the patterns' group names",
            )
