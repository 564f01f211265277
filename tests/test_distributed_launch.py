"""check --distributed for real: torchrun jobs on gloo, a rank that never starts, two ranks on one GPU.

Every job runs in its own process group with a hard time limit; the test kills the group if it
overruns and asserts that no process of the job is left behind.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Any

import pytest

pytestmark = pytest.mark.slow

LAUNCH_VARS = (
    "RANK",
    "WORLD_SIZE",
    "LOCAL_RANK",
    "LOCAL_WORLD_SIZE",
    "MASTER_ADDR",
    "MASTER_PORT",
    "GROUP_RANK",
    "TORCHELASTIC_RUN_ID",
    "TORCHELASTIC_USE_AGENT_STORE",
    "DDPDOCTOR_INVENTORY",
)
JOB_LIMIT_S = 120


@dataclass
class Job:
    returncode: int
    stdout: str
    stderr: str
    seconds: float

    def report(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.stdout)
        return data

    def finding(self, check_id: str, severity: str) -> dict[str, Any]:
        found = [f for f in self.report()["findings"] if f["id"] == check_id and f["severity"] == severity]
        assert found, f"no {severity} {check_id} finding in {[f['id'] for f in self.report()['findings']]}"
        return found[0]


def ddpdoctor_traceback(stderr: str) -> bool:
    """True when a traceback frame of ddpdoctor itself was printed (torchrun prints its own on failure)."""
    return any(
        line.strip().startswith("File ") and "ddpdoctor" + os.sep in line for line in stderr.splitlines()
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in LAUNCH_VARS}
    env.update({"OMP_NUM_THREADS": "1", "NO_COLOR": "1", "PYTHONUNBUFFERED": "1"}, **extra)
    return env


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def run_job(args: list[str], env: dict[str, str]) -> Job:
    """Run a command in a new session; kill the whole group on overrun; assert nothing is left over."""
    start = time.monotonic()
    proc = subprocess.Popen(
        args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        out, err = proc.communicate(timeout=JOB_LIMIT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"{' '.join(args)} ran past {JOB_LIMIT_S}s")
    seconds = time.monotonic() - start
    deadline = time.monotonic() + 10
    while _group_alive(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    if _group_alive(proc.pid):
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail("processes of the job were left running")
    return Job(proc.returncode, out, err, seconds)


def torchrun(nproc: int, *args: str, env: dict[str, str] | None = None) -> Job:
    command = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        f"--nproc-per-node={nproc}",
        "-m",
        "ddpdoctor",
        "check",
        "--distributed",
        "--format",
        "json",
        *args,
    ]
    return run_job(command, env or clean_env())


@pytest.mark.parametrize("nproc", [2, 4])
def test_gloo_job_on_cpu_passes(nproc: int) -> None:
    job = torchrun(nproc, "--device", "cpu", "--timeout", "30")  # cpu even where a GPU exists
    assert job.returncode == 0, job.stderr[-3000:]
    report = job.report()
    assert report["schema"] == "ddpdoctor.check/1" and report["ok"] is True
    assert report["backend"] == "gloo" and report["world_size"] == nproc
    assert [r["rank"] for r in report["ranks"]] == list(range(nproc))
    assert {r["device"] for r in report["ranks"]} == {"cpu"}
    all_reduce = job.finding("collective.all_reduce", "ok")
    assert all_reduce["data"]["ranks"] == list(range(nproc))
    for check_id in ("dist.rendezvous", "collective.barrier", "collective.broadcast", "dist.versions"):
        job.finding(check_id, "ok")
    rows = report["bandwidth"]
    assert len(rows) >= 2 and all(r["algbw_gbps"] > 0 for r in rows)
    factor = 2 * (nproc - 1) / nproc
    assert all(r["busbw_gbps"] == pytest.approx(r["algbw_gbps"] * factor, rel=1e-3) for r in rows)
    assert not ddpdoctor_traceback(job.stderr) and "ddpdoctor: error" not in job.stderr


def test_rank_that_never_starts_is_named_within_the_timeout() -> None:
    env = clean_env(
        RANK="0", WORLD_SIZE="2", LOCAL_RANK="0", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port())
    )
    job = run_job(
        [sys.executable, "-m", "ddpdoctor", "check", "--distributed", "--timeout", "3", "--format", "json"],
        env,
    )
    assert job.returncode == 1, job.stderr[-3000:]
    missing = job.finding("dist.rendezvous", "error")
    assert missing["rank"] == 1 and missing["data"]["missing"] == [1]
    assert "rank 1 never joined" in missing["title"]
    assert job.report()["ok"] is False and [r["rank"] for r in job.report()["ranks"]] == [0]
    assert job.seconds < 3 + 25  # the wait itself is bounded by --timeout; the rest is start-up
    assert not ddpdoctor_traceback(job.stderr)


def test_rank_whose_rank_0_never_starts_names_rank_0_in_one_line() -> None:
    env = clean_env(
        RANK="1", WORLD_SIZE="2", LOCAL_RANK="1", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port())
    )
    job = run_job([sys.executable, "-m", "ddpdoctor", "check", "--distributed", "--timeout", "10"], env)
    assert job.returncode == 1
    assert job.stdout == ""  # only rank 0 prints a report
    lines = [line for line in job.stderr.splitlines() if line.strip() and "NumPy" not in line]
    assert lines[-1].startswith("ddpdoctor: error: rank 1: rank 0 never answered rank 1"), job.stderr[-2000:]
    assert "frame #" not in job.stderr and len(job.stderr) < 2000
    # The wait counts from the rank's start: torch's import is part of --timeout, not added to it.
    assert job.seconds < 10 + 10
    assert not ddpdoctor_traceback(job.stderr)


def test_a_frozen_rank_is_named_within_the_timeout() -> None:
    port = str(free_port())
    base = {"WORLD_SIZE": "2", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": port}
    command = [
        sys.executable,
        "-m",
        "ddpdoctor",
        "check",
        "--distributed",
        "--device",
        "cpu",
        "--format",
        "json",
    ]
    frozen = subprocess.Popen(
        [*command, "--timeout", "8"],
        env=clean_env(RANK="1", LOCAL_RANK="1", **base),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    frozen.send_signal(signal.SIGSTOP)
    try:
        job = run_job([*command, "--timeout", "8"], clean_env(RANK="0", LOCAL_RANK="0", **base))
    finally:
        os.killpg(frozen.pid, signal.SIGKILL)
        frozen.wait()
    assert job.returncode == 1, job.stderr[-3000:]
    missing = job.finding("dist.rendezvous", "error")
    assert missing["data"]["missing"] == [1]
    assert job.seconds < 8 + 20  # the wait is bounded by --timeout; the rest is start-up


def test_two_ranks_on_one_simulated_gpu_are_a_duplicate_device() -> None:
    job = torchrun(
        2, "--device", "cuda:0", "--timeout", "20", env=clean_env(DDPDOCTOR_INVENTORY="builtin:default")
    )
    assert job.returncode == 1, job.stderr[-3000:]
    duplicate = job.finding("device.duplicate", "error")
    assert duplicate["data"]["ranks"] == [0, 1] and duplicate["data"]["uuid"].startswith("GPU-")
    assert duplicate["category"] == "duplicate_device"
    report = job.report()
    assert [r["gpu"]["uuid"] for r in report["ranks"]] == [duplicate["data"]["uuid"]] * 2
    assert not any(f["id"] == "collective.all_reduce" for f in report["findings"])  # never started NCCL
    assert not ddpdoctor_traceback(job.stderr)
