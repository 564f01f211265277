"""Bad knowledge-base files give one clear line naming the file, the key and the fix (exit 2)."""

from __future__ import annotations

import os
import textwrap
import time
from pathlib import Path

import pytest
import yaml

from ddpdoctor.errors import KnowledgeError
from ddpdoctor.kb import load_knowledge_base
from ddpdoctor.kb.lint import lint_knowledge_base
from ddpdoctor.kb.loader import read_yaml

GOOD = {
    "id": "team-widget-crash",
    "title": "widget exploded: {msg}",
    "framework": "python",
    "category": "user_code",
    "kind": "root",
    "status": "experimental",
    "status_note": "Team entry; the widget library's logs are private.",
    "patterns": [r"widget exploded: (?P<what>\w+)"],
    "meaning": "Our widget library raised.",
    "triggers": ["A widget was used after close."],
    "situations": ["Long jobs that reuse widgets."],
    "solutions": ["Create a new widget per epoch."],
    "example_fix": {"language": "python", "before": "w.use()", "after": "Widget().use()"},
    "sources": [{"docs": "https://example.org/widgets"}],
    "false_positives": ["none known"],
    "samples": {
        "match": [{"text": "ERROR widget exploded: gears", "captures": {"what": "gears"}}],
        "no_match": [{"text": "widget exploded? no"}],
    },
}


def write_entry(folder: Path, doc: dict, name: str | None = None) -> Path:
    sub = folder / "python"
    sub.mkdir(parents=True, exist_ok=True)
    path = sub / f"{name or doc['id']}.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def variant(**changes) -> dict:
    doc = dict(GOOD)
    for key, value in changes.items():
        if value is None:
            doc.pop(key)
        else:
            doc[key] = value
    return doc


def load_error(tmp_path: Path, doc: dict, name: str | None = None) -> KnowledgeError:
    write_entry(tmp_path, doc, name)
    with pytest.raises(KnowledgeError) as info:
        load_knowledge_base([tmp_path])
    return info.value


def test_a_valid_team_entry_loads_beside_the_bundled_ones(tmp_path: Path) -> None:
    write_entry(tmp_path, GOOD)
    base = load_knowledge_base([tmp_path])
    assert base.get("team-widget-crash").patterns[0].regex.pattern == GOOD["patterns"][0]
    assert "burn-ddp-main-worker-failed" in base.by_id


@pytest.mark.parametrize(
    ("changes", "key", "words"),
    [
        ({"colour": "red"}, "colour", "unknown key"),
        ({"solutions": None}, "solutions", "add `solutions:` with at least one item"),
        ({"solutions": []}, "solutions", "at least 1 item"),
        ({"patterns": ["widget (exploded"]}, "patterns[0]", "does not compile"),
        ({"patterns": ["(widget)?"]}, "patterns[0]", "matches the empty string"),
        ({"category": "gpu_melted"}, "category", "'gpu_melted' is not allowed"),
        ({"framework": "tensorflow"}, "framework", "is not allowed"),
        ({"kind": "root", "patterns": ["widget exploded: (?P<inner>.*)"]}, "kind", "set `kind: wrapper`"),
        ({"sources": [{"code": "burn/strategy.rs:161"}]}, "sources[0].code", "is not repo@commit:path:line"),
        (
            {"sources": [{"code": "a/b@abcdef1:x.rs:1", "docs": "https://x.org"}]},
            "sources[0]",
            "exactly one of",
        ),
        (
            {"related": [{"id": "team-widget-crash", "type": "similar"}]},
            "related",
            "links to the entry itself",
        ),
        ({"related": [{"id": "x", "type": "cousin"}]}, "related[0].type", "'cousin' is not allowed"),
        ({"rank": {"group": "worker", "offset": 1}}, "rank.group", "no pattern has a group named 'worker'"),
        ({"example_fix": {"language": "python", "before": "x"}}, "example_fix.after", "is missing"),
        (
            {"samples": {"match": [{"text": "widget exploded: a"}], "no_match": []}},
            "samples.no_match",
            "needs at least one sample",
        ),
        (
            {
                "samples": {
                    "match": [{"text": "widget exploded: a", "captures": {"nope": "a"}}],
                    "no_match": [{"text": "x"}],
                }
            },
            "samples.match[0].captures",
            "names groups no pattern has",
        ),
        ({"checks": ["gpu-ok"]}, "checks[0]", "is not a check id"),
        ({"scope": "node"}, "scope", "'node' is not allowed"),
        ({"scope": "machine", "rank": {"fixed": 0}}, "scope", "fixes one rank"),
        ({"title": "two\nlines"}, "title", "single line"),
    ],
)
def test_schema_errors_name_file_key_and_fix(tmp_path: Path, changes: dict, key: str, words: str) -> None:
    err = load_error(tmp_path, variant(**changes))
    assert err.path.endswith("python/team-widget-crash.yaml")
    assert err.key == key
    assert words in f"{err.problem} {err.hint}"
    assert "\n" not in str(err)


def test_file_name_must_equal_id(tmp_path: Path) -> None:
    err = load_error(tmp_path, GOOD, name="widget")
    assert err.key == "id" and "differs from the file name" in err.problem
    assert "rename the file to team-widget-crash.yaml" in (err.hint or "")


def test_bundled_ids_are_never_reused(tmp_path: Path) -> None:
    err = load_error(tmp_path, variant(id="burn-ddp-main-worker-failed"))
    assert (
        err.key == "id" and "already used by <bundled>/burn/burn-ddp-main-worker-failed.yaml" in err.problem
    )


def test_framework_must_match_its_folder(tmp_path: Path) -> None:
    path = write_entry(tmp_path, GOOD)
    target = tmp_path / "cuda"
    target.mkdir()
    path.rename(target / path.name)
    with pytest.raises(KnowledgeError, match="but the file is in cuda/"):
        load_knowledge_base([tmp_path])


def test_duplicate_yaml_keys_and_bad_yaml_are_rejected(tmp_path: Path) -> None:
    folder = tmp_path / "python"
    folder.mkdir()
    (folder / "team-widget-crash.yaml").write_text("id: a\nid: b\n", encoding="utf-8")
    with pytest.raises(KnowledgeError, match="duplicate key 'id'"):
        load_knowledge_base([tmp_path])
    (folder / "team-widget-crash.yaml").write_text("id: [unclosed\n", encoding="utf-8")
    with pytest.raises(KnowledgeError, match="invalid YAML at line"):
        load_knowledge_base([tmp_path])


def test_yaml_tags_that_build_objects_are_refused(tmp_path: Path) -> None:
    folder = tmp_path / "python"
    folder.mkdir()
    (folder / "team-widget-crash.yaml").write_text(
        "id: !!python/object/apply:os.system ['true']\n", encoding="utf-8"
    )
    with pytest.raises(KnowledgeError, match="invalid YAML"):
        load_knowledge_base([tmp_path])


def test_the_bundled_files_read_the_same_with_either_parser() -> None:
    bundled = sorted((Path(__file__).resolve().parent.parent / "knowledge").rglob("*.yaml"))
    assert len(bundled) > 100
    for path in bundled:
        text = path.read_text(encoding="utf-8")
        assert read_yaml(text, path.name, bundled=True) == read_yaml(text, path.name), path.name


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("id: a\nid: b\n", "duplicate key 'id'"),
        ("a: &x 1\nb: *x\n", "aliases (*name) are not allowed"),
        ("id: " + "9" * 50 + "\n", "more than 40 digits"),
        ("id: " + "[" * 60 + "]" * 60 + "\n", "nest"),
        ('id: "\\ud800"\n', "nicode"),
        ("id: !!python/object/apply:os.system ['true']\n", "invalid YAML"),
    ],
)
def test_the_bundled_parser_keeps_the_limits(text: str, words: str) -> None:
    with pytest.raises(KnowledgeError, match=r"invalid YAML at line [12]: ") as raised:
        read_yaml(text, "bundled.yaml", bundled=True)
    assert words in str(raised.value)


def test_cli_reports_a_broken_team_entry_in_one_line_with_exit_2(tmp_path: Path, cli) -> None:
    write_entry(tmp_path, variant(colour="red"))
    result = cli("kb", "list", "--kb", str(tmp_path))
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert (
        lines[0].startswith("ddpdoctor: error: ")
        and "team-widget-crash.yaml: colour: unknown key" in lines[0]
    )
    assert lines[1].startswith("ddpdoctor: hint: remove it")
    assert "Traceback" not in result.stderr + result.stdout


def test_env_var_adds_team_folders(tmp_path: Path, cli) -> None:
    write_entry(tmp_path, GOOD)
    result = cli(
        "kb", "search", "widget exploded: gears", "--format", "json", env={"DDPDOCTOR_KB_PATH": str(tmp_path)}
    )
    assert result.exit_code == 0 and '"team-widget-crash"' in result.stdout


def test_missing_kb_folder_is_a_usage_error(tmp_path: Path, cli) -> None:
    result = cli("kb", "list", "--kb", str(tmp_path / "absent"))
    assert result.exit_code == 2 and "knowledge folder not found" in result.stderr


def test_lint_reports_sample_mismatches_and_unused_patterns(tmp_path: Path) -> None:
    doc = variant(
        patterns=[r"widget exploded: (?P<what>\w+)", r"gizmo imploded"],
        samples={
            "match": [{"text": "widget exploded: gears", "captures": {"what": "cogs"}}],
            "no_match": [{"text": "widget exploded: again"}],
        },
    )
    write_entry(tmp_path, doc)
    report = lint_knowledge_base([tmp_path], check_speed=False)
    assert sorted((f.id, f.title) for f in report.findings) == [
        ("kb.pattern-unused", "patterns[1] 'gizmo imploded' is matched by no sample"),
        ("kb.sample-match", "samples.match[0] captured what='gears', expected 'cogs'"),
        ("kb.sample-no-match", "samples.no_match[0] matches the entry"),
    ]
    assert report.exit_code() == 1


def test_lint_reports_keys_out_of_order_and_bad_python_fix(tmp_path: Path) -> None:
    doc = {"title": GOOD["title"], **{k: v for k, v in GOOD.items() if k != "title"}}
    doc["example_fix"] = {"language": "python", "before": "def broken(:", "after": "ok = 1"}
    write_entry(tmp_path, doc)
    findings = lint_knowledge_base([tmp_path], check_speed=False).findings
    assert sorted(f.id for f in findings) == ["kb.fix-parse", "kb.key-order"]
    (parse,) = [f.title for f in findings if f.id == "kb.fix-parse"]
    assert parse.startswith("example_fix.before does not parse: ") and parse.endswith("(line 1)")


def test_lint_catches_catastrophic_backtracking(tmp_path: Path) -> None:
    slow = r"(a+)+b widget exploded"
    doc = variant(
        patterns=[r"widget exploded: (?P<what>\w+)", slow],
        samples={
            "match": [{"text": "widget exploded: gears"}, {"text": "ab widget exploded"}],
            "no_match": [{"text": "nothing"}],
        },
    )
    write_entry(tmp_path, doc)
    report = lint_knowledge_base([tmp_path], include_bundled=False, check_speed=True)
    # A pattern that hangs the probe is refused when the team folder is loaded, before the lint rules.
    assert [(f.id, f.title) for f in report.findings] == [
        (
            "kb.schema",
            "patterns[1]: backtracks catastrophically: it ran for seconds on a short near-miss line",
        )
    ]


def test_lint_cli_on_a_team_folder(tmp_path: Path, cli) -> None:
    write_entry(tmp_path, variant(related=[{"id": "no-such-entry", "type": "similar"}]))
    result = cli("kb", "lint", str(tmp_path), "--no-speed", "--format", "text")
    assert result.exit_code == 1
    assert "related id 'no-such-entry' does not exist" in result.stdout


def test_textwrap_sample_keeps_multiline_text(tmp_path: Path) -> None:
    text = textwrap.dedent(
        """\
        line one
        ERROR widget exploded: gears
        """
    )
    doc = variant(samples={"match": [{"text": text}], "no_match": [{"text": "x"}]})
    write_entry(tmp_path, doc)
    base = load_knowledge_base([tmp_path])
    assert [m.line for m in base.matcher.match_text(text) if m.entry.id == "team-widget-crash"] == [1]


def test_loading_is_cached_until_a_file_changes(tmp_path: Path) -> None:
    path = write_entry(tmp_path, GOOD)
    first = load_knowledge_base([tmp_path])
    assert load_knowledge_base([tmp_path]) is first
    doc = variant(solutions=["Create a new widget per step."])
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 1_000_000_000))
    second = load_knowledge_base([tmp_path])
    assert second is not first
    assert second.get("team-widget-crash").solutions == ("Create a new widget per step.",)


@pytest.mark.parametrize("kind", ["not-utf8", "dangling-link"])
def test_an_unreadable_team_file_is_a_one_line_kb_error(tmp_path: Path, cli, kind: str) -> None:
    folder = tmp_path / "python"
    folder.mkdir()
    path = folder / "team-widget-crash.yaml"
    if kind == "not-utf8":
        path.write_bytes(b"id: team-widget-crash\ntitle: \xff\xfe\n")
    else:
        path.symlink_to(tmp_path / "gone.yaml")
    with pytest.raises(KnowledgeError) as info:
        load_knowledge_base([tmp_path])
    assert info.value.path.endswith("python/team-widget-crash.yaml")
    assert info.value.problem.startswith("cannot be read: ")
    result = cli("kb", "list", "--kb", str(tmp_path))
    assert result.exit_code == 2
    assert result.stderr.startswith("ddpdoctor: error: ") and "cannot be read: " in result.stderr
    assert "Traceback" not in result.stderr


def test_the_bundled_index_key_changes_with_any_knowledge_file(tmp_path: Path) -> None:
    """The index cache's key for the shipped knowledge base is one stat per file: an edit, a new file
    or a removed file changes it; files of other kinds do not."""
    import os

    from ddpdoctor.folders import tree_stamp

    (tmp_path / "nccl").mkdir()
    entry = tmp_path / "nccl" / "a.yaml"
    entry.write_text("id: a\n")
    (tmp_path / "README.md").write_text("notes")
    first = tree_stamp(str(tmp_path), ".yaml")
    assert [path for path, _, _ in first] == [str(entry)]
    assert tree_stamp(str(tmp_path), ".yaml") == first
    entry.write_text("id: a\ntitle: longer\n")
    edited = tree_stamp(str(tmp_path), ".yaml")
    assert edited != first
    os.utime(entry, ns=(1, 1))
    assert tree_stamp(str(tmp_path), ".yaml") != edited
    (tmp_path / "nccl" / "b.yaml").write_text("id: b\n")
    assert len(tree_stamp(str(tmp_path), ".yaml")) == 2
