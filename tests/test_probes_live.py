"""Probe jobs under torchrun: one failure, one diagnosis, however its output was captured.

The slow tests run each probe of tests/probes/ twice under torchrun (capture.py) and explain its
plain console, its `--tee 3` console and its `--log-dir` folder: each must name the probe's
culprit rank and category. The fast tests check the committed captures of these probes and of the
probes captured only into fixtures (tests/fixtures/logs/probe-*): the job that made them still exists, each probe has all its
captures with the probe's diagnosis, and each sidecar's root line occurs in its log.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from probes.capture import ALL_PROBES, PROBES, Probe, capture_probe

from ddpdoctor.explain import explain_paths

REPO = Path(__file__).resolve().parent.parent
LOGS = REPO / "tests" / "fixtures" / "logs"
SIDECARS = sorted(LOGS.glob("probe-*.yaml"))
# How each capture is called in sidecars, and the suffix of its fixture's name.
CAPTURES = {"console": "console", "tee": "tee", "log-dir": "logdir"}
SCRIPT = re.compile(r" from (?P<script>tests/probes/\w+\.py)$")
MIN_ROOT_LINE = 15


def _sidecar(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict), path.name
    return data


def _log_text(sidecar: Path) -> str:
    """The capture a sidecar describes: `<name>.log`, or every file of the folder `<name>/`."""
    folder = sidecar.with_suffix("")
    if folder.is_dir():
        files = sorted(path for path in folder.rglob("*") if path.is_file())
        return "\n".join(path.read_text(encoding="utf-8", errors="replace") for path in files)
    return sidecar.with_suffix(".log").read_text(encoding="utf-8", errors="replace")


def _diagnosis(path: Path) -> tuple[str | None, int | None, str]:
    root = explain_paths([str(path)]).root_cause
    if root is None:
        return None, None, "no failure found"
    return root.category, root.rank, root.text


@pytest.mark.slow
@pytest.mark.parametrize("probe", PROBES, ids=[probe.name for probe in PROBES])
def test_every_capture_of_a_probe_gets_its_diagnosis(probe: Probe, tmp_path: Path) -> None:
    capture = capture_probe(probe, tmp_path)
    assert capture.console_run.returncode == 1, capture.console_run.output[-2000:]
    assert capture.tee_run.returncode == 1, capture.tee_run.output[-2000:]
    paths = {"console": capture.console, "tee": capture.tee, "log-dir": capture.logdir}
    got = {name: _diagnosis(path) for name, path in paths.items()}
    want = {name: (probe.expected_category(name), probe.rank) for name in paths}
    wrong = {name: diagnosis for name, diagnosis in got.items() if diagnosis[:2] != want[name]}
    assert not wrong, f"expected {want}; got {wrong}"


@pytest.mark.parametrize("sidecar", SIDECARS, ids=[path.stem for path in SIDECARS])
def test_probe_fixture_names_an_existing_probe_job(sidecar: Path) -> None:
    found = SCRIPT.search(_sidecar(sidecar)["source"])
    assert found, "source must end with `from tests/probes/<script>.py`"
    assert (REPO / found["script"]).is_file(), f"{found['script']} no longer exists"


@pytest.mark.parametrize("sidecar", SIDECARS, ids=[path.stem for path in SIDECARS])
def test_probe_fixture_root_line_occurs_in_its_log(sidecar: Path) -> None:
    root_line = _sidecar(sidecar)["expected"]["root_line"]
    assert isinstance(root_line, str) and len(root_line) >= MIN_ROOT_LINE, root_line
    assert "\n" not in root_line
    assert root_line in _log_text(sidecar)


@pytest.mark.parametrize("probe", ALL_PROBES, ids=[probe.name for probe in ALL_PROBES])
def test_each_probe_has_a_fixture_per_capture_with_its_diagnosis(probe: Probe) -> None:
    for capture in probe.captures:
        sidecar = LOGS / f"probe-{probe.name}-{CAPTURES[capture]}.yaml"
        assert sidecar.is_file(), f"missing {sidecar.name}"
        data = _sidecar(sidecar)
        assert data["capture"] == capture
        assert probe.script.relative_to(REPO).as_posix() in data["source"]
        expected = data["expected"]
        assert (expected["category"], expected["rank"]) == (probe.expected_category(capture), probe.rank)
