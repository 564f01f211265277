"""Regression suite: every development-split log under tests/fixtures/logs/ is diagnosed as its sidecar says.

Each `<name>.yaml` sidecar names the log (`<name>.log`, or a folder `<name>/` of per-rank files)
and the expected root cause: category, rank (null when the log does not say), the root line (a
substring of the line that states the failure) and, when a knowledge-base entry clearly applies,
the entry. The parametrisation follows whatever sidecars exist. The blind split
(tests/fixtures/blind/) is not asserted here: bench/accuracy.py scores it only in aggregate.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from ddpdoctor.explain.report import ExplainReport

LOGS = Path(__file__).resolve().parent / "fixtures" / "logs"
SIDECARS = sorted(LOGS.glob("*.yaml")) if LOGS.is_dir() else []


def _load(sidecar: Path) -> tuple[Path, dict[str, Any]]:
    doc = yaml.safe_load(sidecar.read_text(encoding="utf-8"))
    stem = sidecar.with_suffix("")
    log = stem if stem.is_dir() else sidecar.with_suffix(".log")
    return log, doc["expected"]


def _line_at(path: str, number: int) -> str:
    with open(path, "rb") as fh:
        for index, raw in enumerate(fh, 1):
            if index == number:
                return raw.decode("utf-8", "replace")
    return ""


@pytest.mark.parametrize("sidecar", SIDECARS, ids=[s.stem for s in SIDECARS])
def test_fixture_root_cause(sidecar: Path, explained_log: Callable[[Path], ExplainReport]) -> None:
    log, expected = _load(sidecar)
    assert log.exists(), f"{sidecar.name} has no log next to it"
    root = explained_log(log).root_cause
    if expected.get("known_miss"):
        # A log moved from the blind split whose weakness class is not fixed yet: it must keep
        # failing until it is, so that a fix is noticed and the mark removed.
        right = root is not None and (root.category, root.rank) == (expected["category"], expected["rank"])
        if right and expected.get("root_line"):
            right = expected["root_line"].strip() in root.text + "\n" + _line_at(root.file, root.line)
        assert not right, f"{log.name} is now diagnosed right: remove its known_miss"
        pytest.xfail(f"known miss: {expected['known_miss']}")
    assert root is not None, f"no failure found in {log.name}"
    got: dict[str, Any] = {"category": root.category, "rank": root.rank}
    want: dict[str, Any] = {"category": expected["category"], "rank": expected["rank"]}
    if "entry" in expected:
        got["entry"], want["entry"] = root.entry, expected["entry"]
    assert got == want, f"{log.name}: {root.text[:300]}"
    if expected.get("root_line"):
        shown = root.text + "\n" + _line_at(root.file, root.line)
        # (a label may keep a code line's indent, which the report's text does not)
        assert expected["root_line"].strip() in shown, f"{log.name}: reported line {root.file}:{root.line}"


def test_fixtures_are_present() -> None:
    assert SIDECARS, "tests/fixtures/logs/ has no sidecars"
