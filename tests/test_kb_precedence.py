"""Schema keys for precedence, consequences and solution stages, and the consistency lint rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_kb_schema import GOOD, load_error, variant, write_entry

from ddpdoctor.errors import KnowledgeError
from ddpdoctor.kb import KnowledgeBase, load_knowledge_base
from ddpdoctor.kb.lint import LOOKAHEAD_MAX, lint_knowledge_base, longest_lookahead
from ddpdoctor.kb.schema import FIELD_ORDER

# A second team entry whose pattern also matches GOOD's sample line, over a longer stretch of it.
BROAD = {
    **GOOD,
    "id": "team-widget-any",
    "title": "ERROR widget {what}",
    "patterns": [r"ERROR widget (?P<what>exploded|imploded).*"],
    "samples": {
        "match": [{"text": "ERROR widget imploded"}],
        "no_match": [{"text": "ERROR gadget exploded"}],
    },
}
SHARED = "ERROR widget exploded: gears"


def _ordered(doc: dict) -> dict:
    return {key: doc[key] for key in FIELD_ORDER if key in doc}


def _findings(tmp_path: Path, *docs: dict) -> list[tuple[str, str]]:
    for doc in docs:
        write_entry(tmp_path, _ordered(doc))
    report = lint_knowledge_base([tmp_path], include_bundled=False, check_speed=False)
    return sorted((f.id, f.title) for f in report.findings)


@pytest.mark.parametrize(
    ("changes", "key", "words"),
    [
        ({"supersedes": ["team-widget-crash"]}, "supersedes", "lists the entry itself"),
        ({"supersedes": []}, "supersedes", "non-empty list of entry ids"),
        ({"supersedes": ["Not An Id"]}, "supersedes[0]", "is not a lower-kebab id"),
        ({"consequence_of": ["bad-luck"]}, "consequence_of[0]", "'bad-luck' is not allowed"),
        ({"consequence_of": ["peer-failure", "peer-failure"]}, "consequence_of", "lists a value twice"),
        ({"solutions": [{"text": "Retry.", "stage": "sometimes"}]}, "solutions[0].stage", "is not allowed"),
        ({"solutions": [{"text": "Retry."}]}, "solutions[0].stage", "is missing"),
        ({"status_note": ""}, "status_note", "non-empty string"),
    ],
)
def test_new_keys_are_validated(tmp_path: Path, changes: dict, key: str, words: str) -> None:
    err = load_error(tmp_path, variant(**changes))
    assert err.key == key
    assert words in f"{err.problem} {err.hint}"


def test_solutions_keep_their_text_and_stage(tmp_path: Path) -> None:
    doc = variant(
        solutions=[
            "Create a new widget per epoch.",
            {"text": "Read the text after `widget exploded:`.", "stage": "runtime"},
            {"text": "Check widgets before launch.", "stage": "preflight"},
        ],
        consequence_of=["earlier-error"],
        status_note="No public log: the widget library is internal.",
    )
    write_entry(tmp_path, doc)
    entry = load_knowledge_base([tmp_path]).get("team-widget-crash")
    assert entry.solutions == (
        "Create a new widget per epoch.",
        "Read the text after `widget exploded:`.",
        "Check widgets before launch.",
    )
    assert entry.solutions_for("preflight") == (entry.solutions[0], entry.solutions[2])
    assert entry.solutions_for("runtime") == entry.solutions[:2]
    data = entry.to_dict()
    assert data["solution_stages"] == ["any", "runtime", "preflight"]
    assert data["consequence_of"] == ["earlier-error"]
    assert data["status_note"].startswith("No public log")
    with pytest.raises(ValueError, match="unknown stage"):
        entry.solutions_for("later")


def _search_order(tmp_path: Path, cli) -> list[str]:
    result = cli("kb", "search", SHARED, "--kb", str(tmp_path), "--format", "json")
    return [f["id"] for f in json.loads(result.stdout)["findings"]]


def test_supersedes_puts_the_declared_entry_first_in_search(tmp_path: Path, cli) -> None:
    samples = {"match": [{"text": SHARED, "also": ["team-widget-any"]}], "no_match": [{"text": "x"}]}
    assert _findings(tmp_path, variant(samples=samples), BROAD) == []
    assert _search_order(tmp_path, cli) == ["team-widget-any", "team-widget-crash"]  # the longer match
    assert _findings(tmp_path, variant(samples=samples, supersedes=["team-widget-any"]), BROAD) == []
    assert _search_order(tmp_path, cli) == ["team-widget-crash", "team-widget-any"]


def test_supersedes_needs_a_shared_sample_and_an_existing_id(tmp_path: Path) -> None:
    specific = variant(supersedes=["team-widget-any", "no-such-entry"])
    found = _findings(tmp_path, specific, BROAD)
    assert ("kb.supersedes", "supersedes unknown entry 'no-such-entry'") in found
    assert ("kb.supersedes", "supersedes 'team-widget-any' but no match sample matches both") in found


def test_supersedes_cycles_are_reported(tmp_path: Path) -> None:
    one = variant(
        supersedes=["team-widget-any"],
        samples={
            "match": [{"text": SHARED, "also": ["team-widget-any"]}],
            "no_match": [{"text": "x"}],
        },
    )
    two = {
        **BROAD,
        "supersedes": ["team-widget-crash"],
        "samples": {
            "match": [{"text": SHARED, "also": ["team-widget-crash"]}],
            "no_match": [{"text": "x"}],
        },
    }
    cycles = [title for rule, title in _findings(tmp_path, one, two) if rule == "kb.supersedes"]
    assert sorted(cycles) == [
        "supersedes forms a cycle: team-widget-any -> team-widget-crash -> team-widget-any",
        "supersedes forms a cycle: team-widget-crash -> team-widget-any -> team-widget-crash",
    ]


def test_twins_must_agree_and_link_back(tmp_path: Path) -> None:
    first = variant(related=[{"id": "team-widget-any", "type": "twin"}], consequence_of=["peer-failure"])
    second = {**BROAD, "category": "other"}
    found = [title for rule, title in _findings(tmp_path, first, second) if rule == "kb.twin"]
    assert len(found) == 2
    assert any(t.startswith("twin team-widget-any differs: category, kind, consequence_of") for t in found)
    assert "twin team-widget-any does not link back" in found


@pytest.mark.parametrize(
    ("pattern", "rule"),
    [
        (r"widget exploded: (?P<what>\w+) at server\.rs:8[23]:63", "kb.line-number"),
        (r"widget exploded: (?P<what>\w+) at \S+ at lib.py:161", "kb.line-number"),
        (r"widget exploded: (?!.{0,500}?safe)(?P<what>\w+)", "kb.lookahead"),
        (r"^(?!.*gadget).*?widget exploded: (?P<what>\w+)", "kb.lookahead"),
    ],
)
def test_position_and_long_lookahead_patterns_are_reported(tmp_path: Path, pattern: str, rule: str) -> None:
    text = "ERROR widget exploded: gears at server.rs:82:63 at lib.py:161"
    doc = variant(patterns=[pattern], samples={"match": [{"text": text}], "no_match": [{"text": "x"}]})
    assert [r for r, _ in _findings(tmp_path, doc)] == [rule]


def test_short_lookaheads_and_generic_positions_are_fine() -> None:
    assert longest_lookahead(r"MemoryError(?=:|$)") <= LOOKAHEAD_MAX
    assert longest_lookahead(r"a(?=b{0,500})") == 500
    assert longest_lookahead(r"(?<![\w.])x") == 0  # a lookbehind is fixed-width and allowed


def test_an_entry_needs_a_public_log_or_a_note_saying_why_not(tmp_path: Path) -> None:
    found = _findings(tmp_path, variant(status_note=None))
    assert found == [
        ("kb.evidence", "no match sample comes from a public log and no status_note says why"),
    ]
    sourced = {"match": [{"text": "ERROR widget exploded: gears", "source": "https://example.org/1"}]}
    assert _findings(tmp_path, variant(status_note=None, samples={**GOOD["samples"], **sourced})) == []


def test_bundled_entries_live_in_their_framework_folder(kb: KnowledgeBase) -> None:
    for entry in kb.entries:
        assert entry.path.split("/")[-2] == entry.framework, entry.path


def test_a_bundled_style_folder_must_match_the_framework(tmp_path: Path) -> None:
    path = write_entry(tmp_path, _ordered(variant(framework="rust")))
    with pytest.raises(KnowledgeError, match="but the file is in python/"):
        load_knowledge_base([tmp_path])
    assert path.exists()


def test_kb_show_prints_precedence_consequences_and_stages(cli, kb: KnowledgeBase) -> None:
    text = cli("kb", "show", "cuda-index-out-of-bounds-assert", "--format", "text").stdout
    assert "supersedes:" in text and "cuda-device-side-assert" in text
    entry = kb.get("nccl-watchdog-timeout")
    page = cli("kb", "show", entry.id, "--format", "markdown").stdout
    assert "look for the rank that died or stalled" in page
    runtime_only = [t for t in entry.solutions if t not in entry.solutions_for("preflight")]
    assert runtime_only and all(f"{t} (after a failure)" in " ".join(page.split()) for t in runtime_only[:1])
    data = json.loads(cli("kb", "show", entry.id, "--format", "json").stdout)
    assert data["consequence_of"] == ["peer-failure"]
    assert data["solution_stages"].count("runtime") == len(runtime_only)
