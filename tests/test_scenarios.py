"""Every scenario really runs, ends the way it should, leaves nothing behind, and is explained right.

Burn-model scenarios run `python -m ddpdoctor.runtime` in a subprocess; torch scenarios are real
torchrun jobs with gloo on CPU (marked `slow`). Each scenario runs once per session; its log is
then checked against the diagnosis the catalog promises (the closing loop with `explain`).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

from ddpdoctor.explain import explain_text
from ddpdoctor.kb import load_knowledge_base
from ddpdoctor.scenarios import (
    SCENARIOS,
    Expect,
    Runtime,
    ScenarioRun,
    diagnosis_mismatches,
    processes_with_token,
    run_scenario,
    scenario_names,
)

REQUIRED = (
    "main-oom",
    "worker-oom",
    "main-dataloader",
    "main-metric",
    "duplicate-devices",
    "worker-hang",
    "torch-unused-parameters",
    "torch-collective-mismatch",
    "torch-rank-killed",
    "torch-port-in-use",
    "torch-main-exception",
)


# torchrun jobs start real processes and take seconds each: they are marked `slow`.
def _param(name: str) -> pytest.param:  # type: ignore[valid-type]
    marks = [pytest.mark.slow] if SCENARIOS[name].runtime is Runtime.TORCH else []
    return pytest.param(name, marks=marks, id=name)


ALL = [_param(n) for n in SCENARIOS]

_runs: dict[str, ScenarioRun] = {}


def scenario_run(name: str) -> ScenarioRun:
    """Run a scenario once per test session."""
    if name not in _runs:
        _runs[name] = run_scenario(SCENARIOS[name])
    return _runs[name]


# --- the catalog ---------------------------------------------------------------------------------


def test_catalog_imports_without_torch() -> None:
    code = (
        "import sys, ddpdoctor.scenarios, ddpdoctor.scenarios.catalog, ddpdoctor.scenarios.reproduce, "
        "ddpdoctor.cli.reproduce, ddpdoctor.runtime; assert 'torch' not in sys.modules, 'torch imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_catalog_has_the_required_scenarios_with_real_entries() -> None:
    assert set(REQUIRED) <= set(scenario_names())
    base = load_knowledge_base()
    categories = set(base.categories)
    for scenario in SCENARIOS.values():
        assert scenario.entry is None or scenario.entry in base.by_id, scenario.name
        assert scenario.category is None or scenario.category in categories, scenario.name
        if scenario.entry is not None:
            assert base.by_id[scenario.entry].category == scenario.category


def test_required_ranks() -> None:
    assert SCENARIOS["worker-oom"].rank == 2
    assert SCENARIOS["worker-hang"].rank == 1
    assert SCENARIOS["torch-rank-killed"].rank == 1
    assert SCENARIOS["torch-main-exception"].rank == 0


def test_reproducers_in_the_knowledge_base_name_scenarios() -> None:
    for entry in load_knowledge_base().entries:
        assert entry.reproducer is None or entry.reproducer in SCENARIOS, entry.id


# --- running them ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL)
def test_scenario_reproduces_within_its_bound_and_leaves_nothing(name: str) -> None:
    run = scenario_run(name)
    scenario = run.scenario
    assert run.reproduced, f"{name}: {run.outcome}\n{run.output}"
    assert run.process.duration < 60
    assert processes_with_token(run.process.token) == []
    assert not [t for t in threading.enumerate() if t.name == "scenario-output"], (
        "the output reader is still running"
    )
    if scenario.expect is not Expect.HANG:
        assert run.process.stragglers == (), "the job itself should stop all its processes"


@pytest.mark.parametrize("name", ALL)
def test_scenario_log_is_diagnosed_as_the_catalog_says(name: str) -> None:
    run = scenario_run(name)
    report = explain_text(run.output, name=f"<{name}>").to_dict()
    assert diagnosis_mismatches(run.scenario, report) == []


def _reproduced_entries() -> list[object]:
    entries = [e for e in load_knowledge_base().entries if e.reproducer]
    return [
        pytest.param(
            e.id,
            e.reproducer,
            marks=[pytest.mark.slow] if SCENARIOS[e.reproducer].runtime is Runtime.TORCH else [],
            id=e.id,
        )
        for e in entries
    ]


@pytest.mark.parametrize(("entry_id", "scenario"), _reproduced_entries())
def test_each_reproducer_really_produces_its_entry(entry_id: str, scenario: str) -> None:
    """An entry that names a scenario appears in the explained log of that scenario: root, chain or victims."""
    report = explain_text(scenario_run(scenario).output, name=f"<{scenario}>").to_dict()
    root = report["root_cause"] or {}
    seen = {root.get("entry")} | {link["entry"] for link in root.get("chain", [])}
    seen |= {victim["entry"] for victim in report["victims"]} | {f["entry"] for f in report["findings"]}
    assert entry_id in seen, f"{scenario} shows {sorted(e for e in seen if e)}"


def test_burn_outputs_carry_the_exact_supervisor_texts() -> None:
    main_oom = scenario_run("main-oom").output
    assert "Distributed data parallel main worker failed: failed to reserve " in main_oom
    assert "=== PANIC ===" in main_oom
    assert (
        "Distributed data parallel worker 1 failed: failed to reserve " in scenario_run("worker-oom").output
    )
    assert "no gradients from worker 0 (devices[1] = cpu:1)" in scenario_run("worker-hang").output
    legacy = scenario_run("legacy-main-oom-hang").output
    assert legacy.count("panicked at") == 1 and "Distributed data parallel" not in legacy
    assert scenario_run("worker-hang-faithful").output == ""


# --- the command -------------------------------------------------------------------------------------


def test_reproduce_list_names_every_scenario_and_entry(cli) -> None:
    result = cli("reproduce", "--list", "--format", "text")
    assert result.exit_code == 0
    for scenario in SCENARIOS.values():
        assert scenario.name in result.stdout
    data = json.loads(cli("reproduce", "--list", "--format", "json").stdout)
    assert data["schema"] == "ddpdoctor.reproduce-list/1"
    listed = [(s["name"], s["entry"], s["category"], s["rank"]) for s in data["scenarios"]]
    assert listed == [(s.name, s.entry, s.category, s.rank) for s in SCENARIOS.values()]
    assert ("worker-oom", "burn-cubecl-out-of-device-memory", "oom_gpu", 2) in listed


def test_reproduce_usage_errors(cli, tmp_path: Path) -> None:
    result = cli("reproduce")
    assert result.exit_code == 2
    assert result.stderr.startswith("ddpdoctor: error: name a scenario to reproduce\n")
    result = cli("reproduce", "no-such-scenario")
    assert result.exit_code == 2
    assert result.stderr.startswith("ddpdoctor: error: no scenario 'no-such-scenario'\n")
    assert "ddpdoctor: hint: use one of: main-oom, " in result.stderr
    result = cli("reproduce", "main-oom", "--log", str(tmp_path))
    assert result.exit_code == 2 and f"--log {tmp_path} is a folder" in result.stderr
    result = cli("reproduce", "main-oom", "--log", str(tmp_path / "absent" / "run.log"))
    assert result.exit_code == 2
    assert f"the folder {tmp_path / 'absent'} does not exist" in result.stderr
    assert "Traceback" not in result.stderr


def test_reproduce_shows_and_writes_the_raw_log(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    log = tmp_path / "main-oom.log"
    result = cli("reproduce", "main-oom", "--log", str(log), "--no-explain", "--format", "text")
    assert result.exit_code == 0, result.stdout
    raw = log.read_text(encoding="utf-8")
    assert "Distributed data parallel main worker failed: " in raw
    assert raw in result.stdout
    assert "outcome:" in result.stdout and "exit status 101" in result.stdout
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("ddpdoctor-main-oom-")]
    assert len(kept) == 1 and (kept[0] / "artifacts" / "experiment.log").is_file()
    assert str(kept[0] / "artifacts" / "experiment.log") in raw, "the banner names the kept experiment log"


def test_reproduce_json_explains_the_run(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    result = cli("reproduce", "worker-oom", "--format", "json")
    data = json.loads(result.stdout)
    assert data["schema"] == "ddpdoctor.reproduce/1"
    assert data["reproduced"] is True and data["exit_status"] == 101
    assert "Distributed data parallel worker 1 failed: " in data["output"]
    root = data["explain"]["root_cause"]
    assert (root["entry"], root["category"], root["rank"]) == (
        "burn-cubecl-out-of-device-memory",
        "oom_gpu",
        2,
    )
    assert data["expected"] == {"entry": "burn-cubecl-out-of-device-memory", "category": "oom_gpu", "rank": 2}
    assert [(f["id"], f["severity"]) for f in data["findings"]] == [
        ("reproduce.reproduced", "ok"),
        ("reproduce.diagnosis", "ok"),
    ]
    assert result.exit_code == 0


def test_kb_lint_rejects_an_unknown_reproducer(cli, tmp_path: Path) -> None:
    source = Path(__file__).resolve().parent.parent / "knowledge" / "burn" / "burn-ddp-worker-stalled.yaml"
    text = source.read_text(encoding="utf-8").replace("id: burn-ddp-worker-stalled", "id: team-stall-copy")
    (tmp_path / "burn").mkdir()
    (tmp_path / "burn" / "team-stall-copy.yaml").write_text(
        text.replace("reproducer: worker-hang", "reproducer: no-such-scenario"), encoding="utf-8"
    )
    result = cli("kb", "lint", str(tmp_path), "--no-speed", "--format", "json")
    rules = {(f["id"], f["title"]) for f in json.loads(result.stdout)["findings"]}
    assert ("kb.reproducer-unknown", "scenario 'no-such-scenario' does not exist") in rules
    assert not any(rule == "kb.reproducer-unknown" and "worker-hang" in title for rule, title in rules)
