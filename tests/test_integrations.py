"""The Lightning, Hugging Face Trainer and Accelerate integrations, each in a real 2-process CPU job.

Every job trains a tiny model with gloo until rank 1 opens a shard file that is missing
(`integration_jobs/shards.py`): rank 1 must print the compact diagnosis, rank 0 one victim line,
both must have run preflight first, and `ddpdoctor explain` on the report folder must agree.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from guard_output import ddpdoctor_blocks

from ddpdoctor.explain import explain_paths

REPO = Path(__file__).resolve().parent.parent
JOBS = Path(__file__).resolve().parent / "integration_jobs"
TORCHRUN = (sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2")
LAUNCH_PREFIXES = ("RANK", "LOCAL_", "WORLD_SIZE", "MASTER_", "NODE_RANK", "GROUP_RANK", "TORCHELASTIC_")


def run_job(tmp_path: Path, command: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
    sys.path.insert(0, str(JOBS))
    try:
        from shards import write_shards
    finally:
        sys.path.remove(str(JOBS))
    folder = tmp_path / "run"
    folder.mkdir()
    write_shards(folder)
    env = {k: v for k, v in os.environ.items() if not k.startswith(LAUNCH_PREFIXES)}
    env.update(
        {
            "PYTHONPATH": os.pathsep.join((str(REPO), str(JOBS))),
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "OMP_NUM_THREADS": "1",
            "NO_COLOR": "1",
        }
    )
    env.pop("DDPDOCTOR_REPORT_DIR", None)
    return subprocess.run(
        [*command, "run"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240
    )


def assert_diagnosed(out: subprocess.CompletedProcess[str], folder: Path) -> None:
    """Preflight ran on both ranks; rank 1 got the diagnosis, rank 0 one line; explain agrees."""
    assert out.returncode == 1, out.stdout + out.stderr
    for rank in (0, 1):
        assert f"rank {rank}: preflight all checks passed on 1 device(s)" in out.stdout
    blocks = ddpdoctor_blocks(out.stderr)
    culprit, victim = blocks["rank 1"], blocks["rank 0"]
    missing = "No such file or directory: 'run/shard1-part2.pt'"
    assert culprit[0] == f"ddpdoctor: rank 1: FileNotFoundError: [Errno 2] {missing}"
    assert culprit[1].startswith("  known failure: python-file-not-found (user_code)")
    assert culprit[-1] == "  report: run/ddpdoctor-rank1.json; every rank: ddpdoctor explain run"
    assert len(culprit) <= 10
    assert victim == [
        f"ddpdoctor: rank 0: victim of rank 1's failure (FileNotFoundError: [Errno 2] {missing}), "
        "see run/ddpdoctor-rank1.json"
    ]
    report = explain_paths([str(folder)]).to_dict()
    assert (report["root_cause"]["entry"], report["root_cause"]["rank"]) == ("python-file-not-found", 1)
    assert [(v["rank"], v["entry"]) for v in report["victims"]] == [(0, "gloo-connection-closed-by-peer")]


def test_importing_ddpdoctor_imports_no_framework() -> None:
    code = (
        "import sys, ddpdoctor; ddpdoctor.guard; ddpdoctor.preflight; import ddpdoctor.integrations; "
        "print(sorted(m for m in ('pytorch_lightning', 'lightning', 'transformers', 'accelerate') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


# Lightning package -> how the job starts: the unified package under torchrun, the standalone one
# with Lightning's own launcher (it starts the second process itself).
LIGHTNING_LAUNCHES = {
    "lightning": TORCHRUN,
    "pytorch_lightning": (sys.executable,),
}


@pytest.mark.slow
@pytest.mark.parametrize("package", list(LIGHTNING_LAUNCHES))
def test_lightning_callback_with_either_lightning_package(package: str, tmp_path: Path) -> None:
    out = run_job(tmp_path, (*LIGHTNING_LAUNCHES[package], str(JOBS / "lightning_job.py"), package))
    assert_diagnosed(out, tmp_path / "run")
    for rank in (0, 1):
        assert f"rank {rank}: callback is a {package}.Callback, loaded [{package!r}]" in out.stdout


@pytest.mark.slow
def test_transformers_trainer_callback_and_guard_under_torchrun(tmp_path: Path) -> None:
    out = run_job(tmp_path, (*TORCHRUN, str(JOBS / "transformers_job.py")))
    assert_diagnosed(out, tmp_path / "run")


@pytest.mark.slow
def test_accelerate_two_lines_under_torchrun(tmp_path: Path) -> None:
    out = run_job(tmp_path, (*TORCHRUN, str(JOBS / "accelerate_job.py")))
    assert_diagnosed(out, tmp_path / "run")


@pytest.mark.slow
@pytest.mark.parametrize("package", list(LIGHTNING_LAUNCHES))
def test_a_preflight_error_stops_lightning_before_the_first_step(package: str, tmp_path: Path) -> None:
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    from ddpdoctor import PreflightError

    pl = importlib.import_module(package)
    DdpDoctorCallback = importlib.import_module(f"ddpdoctor.integrations.{package}").DdpDoctorCallback

    class Steps(pl.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            self.layer = torch.nn.Linear(4, 1)
            self.steps = 0

        def training_step(self, batch: list[torch.Tensor], batch_idx: int) -> torch.Tensor:
            self.steps += 1
            return self.layer(batch[0]).sum()

        def configure_optimizers(self) -> torch.optim.Optimizer:
            return torch.optim.SGD(self.parameters(), lr=0.1)

    doctor = DdpDoctorCallback(devices="cuda:0,cuda:0", inventory="builtin:default")
    trainer = pl.Trainer(
        accelerator="cpu",
        devices=1,
        max_steps=2,
        callbacks=[doctor],
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        default_root_dir=tmp_path,
    )
    model = Steps()
    with pytest.raises(PreflightError, match=r"device\.duplicate"):
        trainer.fit(model, DataLoader(TensorDataset(torch.randn(8, 4)), batch_size=4))
    assert (
        model.steps == 0 and doctor.guard is None
    )  # stopped in setup; a preflight error is not re-explained


@pytest.mark.slow
def test_a_preflight_error_stops_the_hugging_face_trainer_before_the_first_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments

    from ddpdoctor import PreflightError
    from ddpdoctor.integrations.transformers import DdpDoctorTrainerCallback

    config = GPT2Config(
        vocab_size=16, n_positions=4, n_embd=8, n_layer=1, n_head=2, bos_token_id=0, eos_token_id=0
    )
    ids = [{"input_ids": [1, 2, 3, 4], "labels": [1, 2, 3, 4]}] * 4
    doctor = DdpDoctorTrainerCallback(devices="cuda:0,cuda:0", inventory="builtin:default")
    args = TrainingArguments(
        output_dir=str(tmp_path),
        use_cpu=True,
        max_steps=2,
        report_to=[],
        save_strategy="no",
        disable_tqdm=True,
    )
    trainer = Trainer(model=GPT2LMHeadModel(config), args=args, train_dataset=ids, callbacks=[doctor])
    with pytest.raises(PreflightError, match=r"device\.duplicate"):
        trainer.train()
    assert trainer.state.global_step == 0 and doctor.preflight_report is None
