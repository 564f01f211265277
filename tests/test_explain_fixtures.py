"""Regression suite: every real log under tests/fixtures/logs/ is diagnosed as its sidecar says.

Each `<name>.yaml` sidecar names the log (`<name>.log`, or a folder `<name>/` of per-rank files)
and the expected root cause: category, knowledge-base entry and rank (null when the log does not
say). The parametrisation follows whatever sidecars exist.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from ddpdoctor.explain import explain_paths

LOGS = Path(__file__).resolve().parent / "fixtures" / "logs"
SIDECARS = sorted(LOGS.glob("*.yaml")) if LOGS.is_dir() else []


def _load(sidecar: Path) -> tuple[Path, dict[str, Any]]:
    doc = yaml.safe_load(sidecar.read_text(encoding="utf-8"))
    stem = sidecar.with_suffix("")
    log = stem if stem.is_dir() else sidecar.with_suffix(".log")
    return log, doc["expected"]


@pytest.mark.parametrize("sidecar", SIDECARS, ids=[s.stem for s in SIDECARS])
def test_fixture_root_cause(sidecar: Path) -> None:
    log, expected = _load(sidecar)
    assert log.exists(), f"{sidecar.name} has no log next to it"
    report = explain_paths([str(log)])
    root = report.root_cause
    assert root is not None, f"no failure found in {log.name}"
    got = {"category": root["category"], "entry": root["entry"], "rank": root["rank"]}
    want = {"category": expected["category"], "entry": expected["entry"], "rank": expected["rank"]}
    assert got == want, f"{log.name}: {root['text'][:300]}"


def test_fixtures_are_present() -> None:
    assert SIDECARS, "tests/fixtures/logs/ has no sidecars"
