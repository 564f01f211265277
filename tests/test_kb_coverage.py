"""`kb coverage` and bench/coverage.py: census files in, weighted shares out, computed from the files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

from ddpdoctor.kb import KnowledgeBase

REPO = Path(__file__).resolve().parent.parent
CENSUS = REPO / "knowledge" / "census"
# A real message the knowledge base knows, and one it cannot know.
KNOWN = "RuntimeError: CUDA error: invalid device ordinal"
UNKNOWN = "widget exploded while polishing gears"


def _write_census(folder: Path, ecosystem: str, rows: list[tuple[str, int]]) -> None:
    folder.mkdir(exist_ok=True)
    templates = [
        {"template": text, "example": text, "threads": threads, "urls": ["https://example.org/thread"]}
        for text, threads in rows
    ]
    doc = {"ecosystem": ecosystem, "templates": templates}
    (folder / f"{ecosystem}.yaml").write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")


def test_bundled_census_shares_are_computed_from_the_files(cli, kb: KnowledgeBase) -> None:
    result = cli("kb", "coverage", "--format", "json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    files = sorted(CENSUS.glob("*.yaml"))
    assert [e["ecosystem"] for e in data["ecosystems"]] == [f.stem for f in files]
    total = covered = 0
    for path, eco in zip(files, data["ecosystems"], strict=True):
        rows = yaml.safe_load(path.read_text(encoding="utf-8")).get("templates") or []
        weight = sum(r["threads"] for r in rows)
        hit = sum(r["threads"] for r in rows if kb.matcher.match_text(r["example"]))
        assert (eco["weight"], eco["covered_weight"], eco["templates"]) == (weight, hit, len(rows))
        total, covered = total + weight, covered + hit
    assert data["weight"] == total and data["share"] == round(covered / total, 4)
    uncovered = [f["title"] for f in data["findings"]]
    assert len(uncovered) == sum(e["templates"] - e["covered_templates"] for e in data["ecosystems"])


def test_coverage_weights_by_threads_and_lists_the_uncovered(tmp_path: Path, cli) -> None:
    census = tmp_path / "census"
    _write_census(census, "nccl", [(KNOWN, 3), (UNKNOWN, 1)])
    result = cli("kb", "coverage", "--census", str(census), "--format", "json")
    data = json.loads(result.stdout)
    assert data["share"] == 0.75 and data["ecosystems"][0]["covered_weight"] == 3
    assert [f["title"] for f in data["findings"]] == [UNKNOWN]
    text = cli("kb", "coverage", "--census", str(census), "--format", "text").stdout
    assert "Overall: 75.0% of 4 thread(s)" in text and UNKNOWN in text
    assert cli("kb", "coverage", "--census", str(census), "--fail-under", "80").exit_code == 1
    assert cli("kb", "coverage", "--census", str(census), "--fail-under", "70").exit_code == 0


def test_a_bad_census_file_is_a_one_line_error(tmp_path: Path, cli) -> None:
    census = tmp_path / "census"
    _write_census(census, "nccl", [(KNOWN, 0)])
    result = cli("kb", "coverage", "--census", str(census))
    assert result.exit_code == 2
    assert "nccl.yaml: templates[0].threads: must be a positive integer" in result.stderr
    assert "Traceback" not in result.stderr


def test_bench_script_checks_the_targets(tmp_path: Path) -> None:
    census = tmp_path / "census"
    _write_census(census, "nccl", [(KNOWN, 9), (UNKNOWN, 1)])
    _write_census(census, "cuda", [(KNOWN, 5)])
    run = [sys.executable, str(REPO / "bench" / "coverage.py"), str(census)]
    passing = subprocess.run(run, capture_output=True, text=True, timeout=120, check=False)
    assert passing.returncode == 0, passing.stdout + passing.stderr
    assert "overall" in passing.stdout and "93.3%" in passing.stdout
    _write_census(census, "cuda", [(UNKNOWN, 5)])
    failing = subprocess.run(run, capture_output=True, text=True, timeout=120, check=False)
    assert failing.returncode == 1 and "under 80%" in failing.stdout
