"""memory.*: --min-free, the main device's headroom, and one model step per device."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import torch
from torch import nn

from ddpdoctor.check.memory import StepMeasure, _estimated_step, model_pair
from ddpdoctor.check.runner import CheckOptions, CheckReport, run_checks
from ddpdoctor.errors import InputError
from ddpdoctor.findings import Severity
from ddpdoctor.hardware.inventory import Inventory, SimulatedProbe, default_simulated_inventory
from ddpdoctor.units import GIB

HELPERS = Path(__file__).resolve().parent / "check_helpers"
MIB = 1024**2


@pytest.fixture
def in_helpers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(HELPERS)
    monkeypatch.syspath_prepend(str(HELPERS))


def run(devices: str, inventory: Inventory | None = None, **options) -> CheckReport:
    probe = SimulatedProbe(inventory or default_simulated_inventory())
    return run_checks(CheckOptions(devices=devices, environ={}, link_kb=False, **options), probe)


def of(report: CheckReport, check_id: str) -> list:
    return [f for f in report.findings if f.id == check_id]


def with_free(*frees: int) -> Inventory:
    inv = default_simulated_inventory()
    gpus = tuple(replace(g, memory_free=f) for g, f in zip(inv.gpus, frees, strict=False))
    return replace(inv, gpus=gpus)


def test_min_free_flags_each_short_gpu() -> None:
    report = run("cuda:0,cuda:1", min_free=100 * GIB)
    errors = [f for f in of(report, "memory.free-below-minimum") if f.severity is Severity.ERROR]
    assert [f.device for f in errors] == ["cuda:0", "cuda:1"]
    assert "75.0 GiB free" in errors[0].title and "100.0 GiB" in errors[0].title


def test_min_free_passes_when_there_is_room() -> None:
    report = run("cuda:0,cuda:1", min_free=10 * GIB)
    assert report.ok
    assert of(report, "memory.free-below-minimum")[0].severity is Severity.OK


def test_main_device_with_less_headroom_is_flagged_with_a_reordering() -> None:
    report = run("cuda:0,cuda:1,cuda:2", with_free(40 * GIB, 75 * GIB, 70 * GIB))
    found = of(report, "memory.main-device-headroom")[0]
    assert found.severity is Severity.WARNING and found.rank == 0
    assert "--devices cuda:1,cuda:0,cuda:2" in found.solutions[0]


def test_small_differences_in_headroom_pass() -> None:
    report = run("cuda:0,cuda:1", with_free(74 * GIB, 75 * GIB))
    assert of(report, "memory.main-device-headroom")[0].severity is Severity.OK


def test_headroom_needs_two_gpus() -> None:
    assert not of(run("cuda:0", with_free(1 * GIB)), "memory.main-device-headroom")


# --- model step ---------------------------------------------------------------------------------


def tiny_gpus(free: int) -> Inventory:
    inv = default_simulated_inventory()
    return replace(inv, gpus=tuple(replace(g, memory_total=free * 2, memory_free=free) for g in inv.gpus[:2]))


def test_estimate_grows_with_the_batch_and_counts_parameters() -> None:
    model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 4))
    make = lambda b: torch.randn(b, 64)  # noqa: E731
    small, large = _estimated_step(model, make, 8, "meta"), _estimated_step(model, make, 64, "meta")
    params = sum(p.numel() * 4 for p in model.parameters())
    assert small > 2 * params and large > small
    assert _estimated_step(model, make, 8, "cpu") == small


def test_step_that_fits_reports_the_largest_batch(in_helpers) -> None:
    report = run("0,1", tiny_gpus(256 * MIB), model="ddpd_models:mlp", batch_size=64)
    step = of(report, "memory.model-step")
    assert len(step) == 1 and step[0].severity is Severity.OK
    largest = step[0].data["largest_batch_size"]
    assert largest is not None and largest > 64


def test_step_that_does_not_fit_is_an_error_per_device_with_a_batch_size_that_fits(in_helpers) -> None:
    report = run("0,1", tiny_gpus(48 * MIB), model="ddpd_models:mlp", batch_size=8192)
    errors = [f for f in of(report, "memory.model-step") if f.severity is Severity.ERROR]
    assert [f.device for f in errors] == ["cuda:0", "cuda:1"]
    fits = errors[0].data["largest_batch_size"]
    assert 0 < fits < 8192 and f"at most {fits}" in errors[0].solutions[0]
    again = run("0,1", tiny_gpus(48 * MIB), model="ddpd_models:mlp", batch_size=fits)
    assert again.ok


def test_keyword_inputs_and_a_loss_key(in_helpers) -> None:
    report = run("0", tiny_gpus(GIB), model="ddpd_models:keyword_inputs", batch_size=4)
    assert of(report, "memory.model-step")[0].severity is Severity.OK


def test_model_code_error_is_one_finding_not_a_crash(in_helpers) -> None:
    report = run("0,1", tiny_gpus(GIB), model="ddpd_models:shape_bug", batch_size=4)
    errors = [f for f in of(report, "memory.model-step") if f.severity is Severity.ERROR]
    assert len(errors) == 1
    assert "mat1 and mat2 shapes cannot be multiplied" in errors[0].title
    assert errors[0].category == "user_code"


def test_model_factory_exception_is_a_finding_not_a_crash(in_helpers) -> None:
    report = run("0,1", tiny_gpus(GIB), model="ddpd_models:factory_raises", batch_size=4)
    (error,) = of(report, "memory.model-step")
    assert error.severity is Severity.ERROR and error.category == "user_code"
    assert error.title == "the model factory failed: FileNotFoundError: checkpoint /models/base.pt is missing"
    assert error.evidence and error.evidence[-1].file and error.evidence[-1].file.endswith("ddpd_models.py")


def test_a_missing_dependency_of_the_model_module_is_not_a_usage_error(in_helpers) -> None:
    """`ddpd_needs_extra` exists but imports `ddpd`, which does not: the user's error, not a bad --model."""
    report = run("0", tiny_gpus(GIB), model="ddpd_needs_extra:mlp", batch_size=4)
    (error,) = of(report, "memory.model-step")
    assert error.title == "the model factory failed: ModuleNotFoundError: No module named 'ddpd'"


def test_cpu_only_list_runs_the_step_without_a_memory_verdict(in_helpers) -> None:
    report = run("cpu", Inventory(source="cpu", simulated=True), model="ddpd_models:mlp", batch_size=4)
    assert of(report, "memory.model-step")[0].severity is Severity.OK


def test_model_factory_errors_are_usage_errors(in_helpers) -> None:
    with pytest.raises(InputError, match=r"return \(model, make_batch\)"):
        model_pair("ddpd_models:not_a_pair")
    with pytest.raises(InputError, match="cannot import model module"):
        model_pair("no_such_module_xyz:factory")
    with pytest.raises(InputError, match="has no attribute"):
        model_pair("ddpd_models:nope")
    with pytest.raises(InputError, match="cannot read model 'ddpd_models'") as info:
        model_pair("ddpd_models")
    assert "module:factory" in (info.value.hint or "")
    with pytest.raises(InputError, match="--batch-size"):
        run("0", model="ddpd_models:mlp")


def test_step_measure_arithmetic() -> None:
    m = StepMeasure(batch_size=10, peak=1100, fixed=100, per_sample=100.0, method="test")
    assert m.need(10) == 1100 and m.largest_batch(2100) == 20 and m.largest_batch(50) == 0
    assert StepMeasure(1, 10, 10, 0.0, "flat").largest_batch(100) is None
