"""preflight() and guard(): in-process, and in a real training script run as a subprocess."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import ddpdoctor
from ddpdoctor.findings import Severity
from ddpdoctor.hardware.inventory import default_simulated_inventory
from ddpdoctor.hooks import Guard

HELPERS = Path(__file__).resolve().parent / "check_helpers"
REPO = Path(__file__).resolve().parent.parent


def test_import_ddpdoctor_stays_cheap_and_exports_the_hooks() -> None:
    code = (
        "import sys, ddpdoctor; assert 'ddpdoctor.hooks' not in sys.modules and 'torch' not in sys.modules; "
        "from ddpdoctor import preflight, guard, PreflightError; assert callable(preflight) and callable(guard); "
        "assert 'torch' not in sys.modules; print('ok')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_preflight_returns_the_report_when_healthy() -> None:
    import torch  # noqa: F401  (the promise is about scripts that already imported torch)

    report = ddpdoctor.preflight(devices=["cuda:0", "cuda:1"], inventory="builtin:default", min_free="10GiB")
    assert report.ok and report.to_dict()["schema"] == "ddpdoctor.check/1"


def test_preflight_on_the_real_probe() -> None:
    import torch  # noqa: F401

    report = ddpdoctor.preflight(devices="cpu", raise_on_error=False)
    assert report.ok


def test_preflight_raises_with_the_report() -> None:
    with pytest.raises(ddpdoctor.PreflightError) as info:
        ddpdoctor.preflight(devices="cuda:0,cuda:0", inventory=default_simulated_inventory())
    err = info.value
    assert "device.duplicate" in str(err) and err.report.ok is False
    assert err.hint and "cuda:0,cuda:1" in err.hint
    duplicate = next(f for f in err.report.findings if f.id == "device.duplicate")
    assert duplicate.entry is not None and duplicate.solutions


def test_preflight_can_return_instead_of_raising() -> None:
    report = ddpdoctor.preflight(devices="cuda:0,cuda:4", inventory="builtin:default", raise_on_error=False)
    assert [f.id for f in report.findings if f.severity is Severity.ERROR] == ["device.out-of-range"]


def test_preflight_with_a_loader_object_and_a_model_pair(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(HELPERS))
    import ddpd_loaders
    import ddpd_models

    report = ddpdoctor.preflight(
        devices="cuda:0,cuda:1",
        inventory="builtin:default",
        dataloader=ddpd_loaders.fine(),
        model=ddpd_models.mlp(),
        batch_size=8,
        timeout=20,
    )
    ids = {f.id for f in report.findings}
    assert {"dataloader.first-batch", "memory.model-step", "dataloader.uneven-batches"} <= ids
    with pytest.raises(ddpdoctor.PreflightError, match=r"dataloader\.first-batch"):
        ddpdoctor.preflight(devices="cpu", dataloader=ddpd_loaders.missing_shard_in_main, timeout=20)


# --- guard in-process ---------------------------------------------------------------------------


def failing() -> None:
    raise RuntimeError("Distributed data parallel worker 2 failed: boom")


def test_guard_context_manager_explains_and_reraises(tmp_path: Path) -> None:
    stream = io.StringIO()
    with (
        pytest.raises(RuntimeError, match="worker 2 failed"),
        ddpdoctor.guard(report_dir=tmp_path, rank=3, stream=stream) as hook,
    ):
        failing()
    assert isinstance(hook, Guard) and hook.diagnosis is not None
    assert stream.getvalue().startswith(
        "ddpdoctor: rank 3: RuntimeError: Distributed data parallel worker 2 failed"
    )
    record = json.loads((tmp_path / "ddpdoctor-rank3.json").read_text())
    assert record["schema"] == "ddpdoctor.guard/1" and record["rank"] == 3
    assert (
        record["exception"]["type"] == "RuntimeError" and "worker 2 failed" in record["exception"]["message"]
    )
    assert record["diagnosis"]["schema"] == "ddpdoctor.explain/1"
    assert record["diagnosis"]["root_cause"]["entry"] == "burn-ddp-worker-failed"


def test_bare_decorator_returns_the_value_and_explains_a_failure(capsys: pytest.CaptureFixture[str]) -> None:
    @ddpdoctor.guard
    def fine(x: int) -> int:
        return x + 1

    @ddpdoctor.guard
    def broken() -> None:
        failing()

    assert fine(1) == 2
    assert capsys.readouterr().err == ""
    with pytest.raises(RuntimeError, match="worker 2 failed"):
        broken()
    assert capsys.readouterr().err.startswith(
        "ddpdoctor: RuntimeError: Distributed data parallel worker 2 failed"
    )


def test_guard_own_failure_never_masks_the_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import ddpdoctor.explain

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError("index cache unreadable")

    monkeypatch.setattr(ddpdoctor.explain, "explain_text", broken)
    stream = io.StringIO()
    with pytest.raises(KeyError), ddpdoctor.guard(stream=stream, report_dir=tmp_path / "x" / "y"):
        raise KeyError("labels")
    assert "could not diagnose the failure (OSError: index cache unreadable)" in stream.getvalue()
    record = json.loads((tmp_path / "x" / "y" / "ddpdoctor-rank0.json").read_text())
    assert record["diagnosis"] is None and "OSError" in record["diagnosis_error"]


def test_a_reused_guard_reports_only_the_latest_failure(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import ddpdoctor.explain

    hook = ddpdoctor.guard(stream=io.StringIO(), report_dir=tmp_path)
    with pytest.raises(RuntimeError), hook:
        failing()
    assert hook.diagnosis is not None and hook.report_path == tmp_path / "ddpdoctor-rank0.json"

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError("index cache unreadable")

    monkeypatch.setattr(ddpdoctor.explain, "explain_text", broken)
    with pytest.raises(KeyError), hook:
        raise KeyError("labels")
    assert hook.diagnosis is None
    record = json.loads((tmp_path / "ddpdoctor-rank0.json").read_text())
    assert record["exception"]["type"] == "KeyError" and record["diagnosis"] is None


def test_unwritable_report_dir_is_a_note_not_an_exception(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    stream = io.StringIO()
    with pytest.raises(ValueError), ddpdoctor.guard(stream=stream, report_dir=blocker):
        raise ValueError("boom")
    assert "could not write the report" in stream.getvalue()


def test_keyboard_interrupt_passes_untouched() -> None:
    stream = io.StringIO()
    with pytest.raises(KeyboardInterrupt), ddpdoctor.guard(stream=stream):
        raise KeyboardInterrupt
    assert stream.getvalue() == ""


# --- a real script --------------------------------------------------------------------------------


def script(mode: str, tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    launch = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")
    environ = {k: v for k, v in os.environ.items() if k not in launch}
    environ.update({"PYTHONPATH": str(REPO), "NO_COLOR": "1", "DDPDOCTOR_INVENTORY": "", **env})
    return subprocess.run(
        [sys.executable, str(HELPERS / "ddpd_train.py"), mode, str(tmp_path / "reports")],
        capture_output=True,
        text=True,
        timeout=120,
        env=environ,
        cwd=tmp_path,
    )


@pytest.mark.slow
def test_script_burn_failure_is_explained_written_and_reraised(tmp_path: Path) -> None:
    launch = {
        "RANK": "1",
        "LOCAL_RANK": "1",
        "WORLD_SIZE": "2",
        "MASTER_ADDR": "127.0.0.1",
        "MASTER_PORT": "29555",
    }
    out = script("burn", tmp_path, **launch)
    assert out.returncode == 1
    assert "preflight ok: all checks passed on 2 device(s)" in out.stdout
    assert "ddpdoctor: rank 1: RuntimeError: Distributed data parallel main worker failed" in out.stderr
    assert "  known failure: burn-cubecl-out-of-device-memory (oom_gpu)" in out.stderr
    assert out.stderr.rstrip().endswith("out of device memory allocating 1073741824 bytes")
    record = json.loads((tmp_path / "reports" / "ddpdoctor-rank1.json").read_text())
    assert record["diagnosis"]["root_cause"]["category"] == "oom_gpu"


@pytest.mark.slow
def test_script_torch_distributed_error_is_explained(tmp_path: Path) -> None:
    out = script("torch-dist", tmp_path)
    assert out.returncode == 1
    assert "ddpdoctor: ValueError: Default process group has not been initialized" in out.stderr
    assert (tmp_path / "reports" / "ddpdoctor-rank0.json").exists()


@pytest.mark.slow
def test_script_fallback_retries_on_one_device(tmp_path: Path) -> None:
    out = script("fallback", tmp_path)
    assert out.returncode == 0, out.stderr
    assert "fallback result: trained on cuda:0" in out.stdout
    assert "running the single-device fallback" in out.stderr


@pytest.mark.slow
def test_script_fallback_does_not_recurse(tmp_path: Path) -> None:
    out = script("always-fails", tmp_path)
    assert out.returncode == 1
    assert out.stderr.count("ddpdoctor: RuntimeError: Distributed data parallel worker 0 failed") == 2
    assert out.stderr.count("running the single-device fallback") == 1


@pytest.mark.slow
def test_script_preflight_error_stops_before_training(tmp_path: Path) -> None:
    out = script("bad-devices", tmp_path)
    assert out.returncode == 3
    assert "PREFLIGHT: preflight found 1 error(s): device.duplicate: cuda:0 is listed twice" in out.stderr
    assert "errors: ['device.duplicate']" in out.stderr
