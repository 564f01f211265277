"""The Lightning, Hugging Face Trainer and Accelerate integrations, each in a real 2-process CPU job.

Every job trains a tiny model with gloo until rank 1 opens a shard file that is missing
(`integration_jobs/shards.py`): rank 1 must print the compact diagnosis, rank 0 one victim line,
both must have run preflight first, and `ddpdoctor explain` on the report folder must agree.
"""

from __future__ import annotations

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


@pytest.mark.slow
def test_lightning_callback_under_lightnings_own_launcher(tmp_path: Path) -> None:
    out = run_job(tmp_path, (sys.executable, str(JOBS / "lightning_job.py")))
    assert_diagnosed(out, tmp_path / "run")


@pytest.mark.slow
def test_transformers_trainer_callback_and_guard_under_torchrun(tmp_path: Path) -> None:
    out = run_job(tmp_path, (*TORCHRUN, str(JOBS / "transformers_job.py")))
    assert_diagnosed(out, tmp_path / "run")


@pytest.mark.slow
def test_accelerate_two_lines_under_torchrun(tmp_path: Path) -> None:
    out = run_job(tmp_path, (*TORCHRUN, str(JOBS / "accelerate_job.py")))
    assert_diagnosed(out, tmp_path / "run")
