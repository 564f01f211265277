"""Every bundled entry, sample by sample: parametrised per entry so a failure names the file."""

from __future__ import annotations

import ast
import io
import json

import pytest

from ddpdoctor.cli.kb import ENTRY_SCHEMA
from ddpdoctor.kb import KnowledgeBase, load_knowledge_base
from ddpdoctor.kb.lint import lint_entries
from ddpdoctor.matching import ANSI_RE
from ddpdoctor.present.kb import entry_document
from ddpdoctor.present.render import OutputFormat, emit

KB = load_knowledge_base()
ENTRIES = KB.entries


def _ids(entries):
    return [e.id for e in entries]


@pytest.mark.parametrize("entry", ENTRIES, ids=_ids(ENTRIES))
def test_match_samples_hit_exactly_the_expected_entries(entry, kb: KnowledgeBase) -> None:
    for i, sample in enumerate(entry.samples_match):
        matches = kb.matcher.match_text(sample.text)
        assert {m.entry.id for m in matches} == {entry.id, *sample.also}, f"samples.match[{i}]"
        own = next(m for m in matches if m.entry.id == entry.id)
        for name, value in sample.captures.items():
            assert own.groups.get(name, "").strip() == value.strip(), f"samples.match[{i}] capture {name}"


@pytest.mark.parametrize("entry", ENTRIES, ids=_ids(ENTRIES))
def test_no_match_samples_do_not_hit_the_entry(entry, kb: KnowledgeBase) -> None:
    for i, sample in enumerate(entry.samples_no_match):
        hit = {m.entry.id for m in kb.matcher.match_text(sample.text)}
        assert entry.id not in hit, f"samples.no_match[{i}]"


@pytest.mark.parametrize("entry", ENTRIES, ids=_ids(ENTRIES))
def test_every_pattern_is_exercised_by_a_sample(entry, kb: KnowledgeBase) -> None:
    used = {
        m.pattern
        for s in entry.samples_match
        for m in kb.matcher.match_text(s.text)
        if m.entry.id == entry.id
    }
    assert used == set(range(len(entry.patterns)))


@pytest.mark.parametrize("entry", ENTRIES, ids=_ids(ENTRIES))
def test_entry_has_every_prose_section(entry) -> None:
    assert entry.meaning.strip() and entry.triggers and entry.situations and entry.solutions
    assert entry.false_positives and entry.sources and entry.example_fix.before and entry.example_fix.after
    if entry.example_fix.language == "python":
        ast.parse(entry.example_fix.before)
        ast.parse(entry.example_fix.after)


@pytest.mark.parametrize("entry", ENTRIES, ids=_ids(ENTRIES))
def test_wrapper_entries_capture_or_locate_their_inner_message(entry, kb: KnowledgeBase) -> None:
    groups = set().union(*(p.regex.groupindex for p in entry.patterns))
    if "inner" not in groups:
        return
    assert entry.kind == "wrapper"
    inners = [
        m.inner for s in entry.samples_match for m in kb.matcher.match_text(s.text) if m.entry.id == entry.id
    ]
    assert any(inners), "no match sample shows the wrapped message the `inner` group captures"


FORMATS = ("text", "markdown", "json", "rich")


def _assert_full_page(entry, fmt: str, out: str) -> None:
    """`out` is entry's `kb show` page in `fmt`: JSON with its schema, or every section non-empty."""
    if fmt == "json":
        data = json.loads(out)
        assert data["schema"] == "ddpdoctor.kb-entry/1" and data["id"] == entry.id
        return
    # Rich wraps and folds long titles at the console width: compare without colour codes and whitespace.
    plain = ANSI_RE.sub("", out)
    assert "".join(entry.title.split()) in "".join(plain.split())
    lines = out.splitlines()
    if fmt == "markdown":
        heads = [i for i, line in enumerate(lines) if line.startswith("## ")]
        for a, b in zip(heads, [*heads[1:], len(lines)], strict=True):
            assert any(line.strip() for line in lines[a + 1 : b]), f"empty section {lines[a]}"
    for section in ("What it means", "When it happens", "Solutions", "Example fix", "Source"):
        assert section in out


@pytest.mark.parametrize("entry", ENTRIES, ids=_ids(ENTRIES))
def test_kb_show_page_has_no_empty_section_in_any_format(entry, kb: KnowledgeBase) -> None:
    # The layout and the writer `kb show` uses; the command itself is run once per format below.
    for fmt in FORMATS:
        out = io.StringIO()
        emit(
            entry_document(entry, kb),
            {"schema": ENTRY_SCHEMA, **entry.to_dict()},
            OutputFormat(fmt),
            stream=out,
        )
        _assert_full_page(entry, fmt, out.getvalue())


@pytest.mark.parametrize("fmt", FORMATS)
def test_kb_show_command_prints_the_page(fmt: str, cli) -> None:
    entry = KB.get("nccl-duplicate-gpu")
    result = cli("kb", "show", entry.id, "--format", fmt)
    assert result.exit_code == 0, result.stderr
    _assert_full_page(entry, fmt, result.stdout)


def test_related_links_are_valid_and_typed(kb: KnowledgeBase) -> None:
    for entry in kb.entries:
        for rel in entry.related:
            assert rel.id in kb.by_id, f"{entry.id} -> {rel.id}"


def test_whole_bundled_base_lints_clean_without_the_speed_probe(kb: KnowledgeBase) -> None:
    assert lint_entries(kb.entries, check_speed=False) == []
