"""Find, read and validate knowledge-base files.

The bundled entries ship inside the package (`ddpdoctor/_knowledge`, a link to the repository's
top-level `knowledge/` folder that the wheel turns into real files) and are read through
:mod:`importlib.resources`. Teams add their own folders with `--kb DIR` or `DDPDOCTOR_KB_PATH`;
those are validated exactly like the bundled ones, and may not reuse a bundled id.

Team folders are untrusted input and are read with limits (see :mod:`ddpdoctor.folders`): only
regular files inside the folder, at most MAX_FILE_BYTES each, YAML nested at most MAX_YAML_DEPTH
deep with at most MAX_YAML_NODES values, no anchors or aliases, no lone surrogates and no numbers
of more than MAX_INT_DIGITS digits. Each of their patterns must pass the backtracking probe of
:mod:`ddpdoctor.kb.probe` before it is used.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from ddpdoctor.errors import InputError, KnowledgeError
from ddpdoctor.folders import UnsafeFile, read_regular, walk_files
from ddpdoctor.kb.schema import FRAMEWORKS, Entry, parse_entry

if sys.version_info >= (3, 11):
    from importlib.resources.abc import Traversable
else:
    from importlib.abc import Traversable

ENV_KB_PATH = "DDPDOCTOR_KB_PATH"
CATEGORIES_FILE = "categories.yaml"
# Data about the messages users hit (`kb coverage`), not entries.
CENSUS_FOLDER = "census"
BUNDLED_LABEL = "<bundled>"
MAX_FILE_BYTES = 1024 * 1024
MAX_YAML_DEPTH = 40
MAX_YAML_NODES = 50_000
MAX_INT_DIGITS = 40


class _Limits(yaml.composer.Composer):
    """Safe YAML with limits: no duplicate keys, bounded depth and size, no aliases, no lone surrogates.

    Depth, size and aliases are checked here while composing; the rest by the constructors below.
    """

    _depth = 0
    _nodes = 0

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        """Compose one value, counting values and nesting (a deep document would exhaust the stack)."""
        event: Any = self.peek_event()  # type: ignore[attr-defined]  # the parser it is mixed with has it
        mark: Any = event.start_mark
        if isinstance(event, yaml.AliasEvent):
            raise yaml.composer.ComposerError(
                None, None, "aliases (*name) are not allowed in knowledge files", mark
            )
        self._nodes += 1
        if self._nodes > MAX_YAML_NODES:
            raise yaml.composer.ComposerError(
                None, None, f"more than {MAX_YAML_NODES} values in one file", mark
            )
        if self._depth >= MAX_YAML_DEPTH:
            raise yaml.composer.ComposerError(
                None, None, f"nested more than {MAX_YAML_DEPTH} levels deep", mark
            )
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _construct_mapping(
    loader: yaml.constructor.SafeConstructor, node: yaml.MappingNode, deep: bool = False
) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


def _construct_str(loader: yaml.constructor.SafeConstructor, node: yaml.ScalarNode) -> str:
    value = loader.construct_scalar(node)
    assert isinstance(value, str)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise yaml.constructor.ConstructorError(
            None, None, "a string holds a lone surrogate (a \\uD800-\\uDFFF escape)", node.start_mark
        ) from None
    return value


def _construct_int(loader: yaml.constructor.SafeConstructor, node: yaml.ScalarNode) -> int:
    text = loader.construct_scalar(node)
    if isinstance(text, str) and sum(ch.isdigit() for ch in text) > MAX_INT_DIGITS:
        raise yaml.constructor.ConstructorError(
            None, None, f"a number has more than {MAX_INT_DIGITS} digits", node.start_mark
        )
    value: int = loader.construct_yaml_int(node)
    return value


class _StrictLoader(_Limits, yaml.SafeLoader):
    """The limits over PyYAML's own parser, whose errors name each limit: for untrusted team files."""


try:
    from yaml._yaml import CParser
except ImportError:  # pragma: no cover - a PyYAML built without libyaml
    _BundledLoader: type[_StrictLoader | _FastLoader] = _StrictLoader
else:

    class _FastLoader(_Limits, CParser, yaml.constructor.SafeConstructor, yaml.resolver.Resolver):
        """The same limits over libyaml's parser, ten times faster: for the bundled knowledge base.

        libyaml rejects a few inputs itself, in its own words (its nesting limit, a surrogate escape).
        """

        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            yaml.composer.Composer.__init__(self)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)

    _BundledLoader = _FastLoader

for _loader in {_StrictLoader, _BundledLoader}:
    _loader.yaml_constructors = {
        **yaml.constructor.SafeConstructor.yaml_constructors,
        yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG: _construct_mapping,
        "tag:yaml.org,2002:str": _construct_str,
        "tag:yaml.org,2002:int": _construct_int,
    }


def read_yaml(text: str, path: str, *, bundled: bool = False) -> Any:
    """Parse YAML safely, turning syntax errors into a one-line KnowledgeError.

    `bundled`: the text is a file of the bundled knowledge base (read with libyaml's faster parser).
    """
    loader = (_BundledLoader if bundled else _StrictLoader)(text)
    try:
        return loader.get_single_data()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else "the file"
        problem = getattr(exc, "problem", None) or type(exc).__name__  # never the text around the error
        raise KnowledgeError(
            path, None, f"invalid YAML at {where}: {problem}", fix="fix the YAML syntax"
        ) from None
    finally:
        loader.dispose()


@dataclass(frozen=True)
class EntryFile:
    """A YAML file found in a knowledge folder, with the label used in messages."""

    label: str
    folder: str
    stem: str
    node: Traversable
    problem: str | None = None  # why a team file may not be read (a device, a link out of its folder)
    team: bool = False

    def read(self) -> str:
        """The file's text; a KnowledgeError (naming the file, never quoting it) when it cannot be read."""
        fix = "make it a regular UTF-8 text file inside the knowledge folder, under 1 MiB"
        if self.problem is not None:
            raise KnowledgeError(self.label, None, self.problem, fix=fix)
        try:
            data = read_regular(str(self.node), MAX_FILE_BYTES) if self.team else self.node.read_bytes()
        except UnsafeFile as exc:
            raise KnowledgeError(self.label, None, str(exc), fix=fix) from None
        except OSError as exc:
            raise KnowledgeError(self.label, None, f"cannot be read: {exc.strerror}", fix=fix) from None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise KnowledgeError(
                self.label, None, f"cannot be read: not UTF-8 text (byte {exc.start})", fix=fix
            ) from None


def bundled_root() -> Traversable:
    """The knowledge folder inside the installed package."""
    return resources.files("ddpdoctor").joinpath("_knowledge")


def _walk(node: Traversable, prefix: str) -> Iterator[tuple[str, Traversable]]:
    for child in sorted(node.iterdir(), key=lambda c: c.name):
        rel = f"{prefix}{child.name}"
        if child.is_dir():
            yield from _walk(child, rel + "/")
        else:
            yield rel, child


def _entry_files(root: Traversable, label: str) -> Iterator[EntryFile]:
    for rel, node in _walk(root, ""):
        if _is_entry_file(rel):
            yield _entry_file(rel, label, node)


def _is_entry_file(rel: str) -> bool:
    return rel.endswith(".yaml") and rel != CATEGORIES_FILE and not rel.startswith(f"{CENSUS_FOLDER}/")


def _team_files(root: Path) -> Iterator[EntryFile]:
    """A team folder's entries, listed without following links out of it (see :mod:`ddpdoctor.folders`)."""
    for found in walk_files(str(root), ".yaml"):
        if _is_entry_file(found.rel):
            yield _entry_file(found.rel, str(root), Path(found.path), problem=found.problem, team=True)


def _entry_file(
    rel: str, label: str, node: Traversable, *, problem: str | None = None, team: bool = False
) -> EntryFile:
    folder, _, name = rel.rpartition("/")
    return EntryFile(
        label=f"{label}/{rel}",
        folder=folder.rsplit("/", 1)[-1],
        stem=name[: -len(".yaml")],
        node=node,
        problem=problem,
        team=team,
    )


def load_categories() -> dict[str, str]:
    """The closed category list of the bundled knowledge base: name -> description."""
    node = bundled_root().joinpath(CATEGORIES_FILE)
    label = f"{BUNDLED_LABEL}/{CATEGORIES_FILE}"
    doc = read_yaml(node.read_text(encoding="utf-8"), label, bundled=True)
    items = doc.get("categories") if isinstance(doc, dict) else None
    if not isinstance(items, list) or not items:
        raise KnowledgeError(label, "categories", "must be a non-empty list", fix="list `- name: ...` items")
    out: dict[str, str] = {}
    for i, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise KnowledgeError(label, f"categories[{i}]", "needs a `name`", fix="write `- name: oom_gpu`")
        out[item["name"]] = str(item.get("description", ""))
    return out


def extra_dirs(cli_dirs: Sequence[Path] = ()) -> list[Path]:
    """Folders of team entries: `--kb DIR` options first, then `DDPDOCTOR_KB_PATH`."""
    dirs = list(cli_dirs)
    env = os.environ.get(ENV_KB_PATH, "")
    dirs += [Path(p) for p in env.split(os.pathsep) if p]
    for d in dirs:
        if not d.is_dir():
            raise InputError(
                f"knowledge folder not found: {d}", hint=f"pass an existing folder to --kb or {ENV_KB_PATH}"
            )
    return dirs


@dataclass
class LoadResult:
    """Entries that validated, and one error per file (or id clash) that did not."""

    entries: list[Entry]
    problems: list[KnowledgeError]
    categories: dict[str, str]
    key_orders: dict[str, tuple[str, ...]]


def load_entries(dirs: Sequence[Path] = (), *, include_bundled: bool = True) -> LoadResult:
    """Read and validate every entry, collecting problems instead of stopping at the first."""
    categories = load_categories()
    names = frozenset(categories)
    sources: list[Iterator[EntryFile]] = []
    if include_bundled:
        sources.append(_entry_files(bundled_root(), BUNDLED_LABEL))
    sources += [_team_files(Path(d)) for d in dirs]
    entries: list[Entry] = []
    problems: list[KnowledgeError] = []
    seen: dict[str, str] = {}
    key_orders: dict[str, tuple[str, ...]] = {}
    for files in sources:
        for f in files:
            try:
                doc = read_yaml(f.read(), f.label, bundled=not f.team)
                entry = parse_entry(doc, f.label, names)
            except KnowledgeError as exc:
                problems.append(exc)
                continue
            if entry.id != f.stem:
                problems.append(
                    KnowledgeError(
                        f.label,
                        "id",
                        f"{entry.id!r} differs from the file name",
                        fix=f"rename the file to {entry.id}.yaml or set `id: {f.stem}`",
                    )
                )
                continue
            # Bundled entries live in their framework's folder; a team folder may use any layout,
            # but a folder named after a framework holds only that framework's entries.
            if (f.label.startswith(BUNDLED_LABEL) or f.folder in FRAMEWORKS) and f.folder != entry.framework:
                problems.append(
                    KnowledgeError(
                        f.label,
                        "framework",
                        f"{entry.framework!r} but the file is in {f.folder}/",
                        fix=f"move the file to {entry.framework}/ or fix `framework:`",
                    )
                )
                continue
            if entry.id in seen:
                problems.append(
                    KnowledgeError(
                        f.label,
                        "id",
                        f"{entry.id!r} is already used by {seen[entry.id]}",
                        fix="ids are never reused: pick a new id",
                    )
                )
                continue
            seen[entry.id] = f.label
            key_orders[entry.id] = tuple(doc)
            entries.append(entry)
    if dirs:
        entries, problems = _without_backtracking(entries, problems)
    entries.sort(key=lambda e: e.id)
    return LoadResult(entries, problems, categories, key_orders)


def _without_backtracking(
    entries: list[Entry], problems: list[KnowledgeError]
) -> tuple[list[Entry], list[KnowledgeError]]:
    """Team entries lose their place when a pattern hangs the backtracking probe (bundled ones are linted)."""
    from ddpdoctor.kb.probe import hanging_patterns, seed_lines

    team = [e for e in entries if not e.path.startswith(BUNDLED_LABEL + "/")]
    jobs = [(e.path, i, p.source, seed_lines(e)) for e in team for i, p in enumerate(e.patterns)]
    hanging = hanging_patterns(jobs) if jobs else set()
    if not hanging:
        return entries, problems
    for path, index in sorted(hanging):
        problems.append(
            KnowledgeError(
                path,
                f"patterns[{index}]",
                "backtracks catastrophically: it ran for seconds on a short near-miss line",
                fix="avoid nested or overlapping repeats such as (a+)+ or (\\w+\\s?)+; anchor on a literal",
            )
        )
    bad = {path for path, _ in hanging}
    return [e for e in entries if e.path not in bad], problems
