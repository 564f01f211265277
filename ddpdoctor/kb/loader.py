"""Find, read and validate knowledge-base files.

The bundled entries ship inside the package (`ddpdoctor/_knowledge`, a link to the repository's
top-level `knowledge/` folder that the wheel turns into real files) and are read through
:mod:`importlib.resources`. Teams add their own folders with `--kb DIR` or `DDPDOCTOR_KB_PATH`;
those are validated exactly like the bundled ones, and may not reuse a bundled id.
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


class _StrictLoader(yaml.SafeLoader):
    """Safe YAML that rejects a key written twice in one mapping."""


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def read_yaml(text: str, path: str) -> Any:
    """Parse YAML safely, turning syntax errors into a one-line KnowledgeError."""
    try:
        return yaml.load(text, Loader=_StrictLoader)  # _StrictLoader is a SafeLoader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else "the file"
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise KnowledgeError(
            path, None, f"invalid YAML at {where}: {problem}", fix="fix the YAML syntax"
        ) from None


@dataclass(frozen=True)
class EntryFile:
    """A YAML file found in a knowledge folder, with the label used in messages."""

    label: str
    folder: str
    stem: str
    node: Traversable

    def read(self) -> str:
        """The file's text; a KnowledgeError when it cannot be read as UTF-8."""
        try:
            return self.node.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise KnowledgeError(
                self.label, None, f"cannot be read: {reason}", fix="make it a readable UTF-8 text file"
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
        if not rel.endswith(".yaml") or rel == CATEGORIES_FILE or rel.startswith(f"{CENSUS_FOLDER}/"):
            continue
        folder, _, name = rel.rpartition("/")
        yield EntryFile(
            label=f"{label}/{rel}",
            folder=folder.rsplit("/", 1)[-1],
            stem=name[: -len(".yaml")],
            node=node,
        )


def load_categories() -> dict[str, str]:
    """The closed category list of the bundled knowledge base: name -> description."""
    node = bundled_root().joinpath(CATEGORIES_FILE)
    label = f"{BUNDLED_LABEL}/{CATEGORIES_FILE}"
    doc = read_yaml(node.read_text(encoding="utf-8"), label)
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
    sources += [_entry_files(Path(d), str(d)) for d in dirs]
    entries: list[Entry] = []
    problems: list[KnowledgeError] = []
    seen: dict[str, str] = {}
    key_orders: dict[str, tuple[str, ...]] = {}
    for files in sources:
        for f in files:
            try:
                doc = read_yaml(f.read(), f.label)
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
    entries.sort(key=lambda e: e.id)
    return LoadResult(entries, problems, categories, key_orders)
