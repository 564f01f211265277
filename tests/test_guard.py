"""guard() under launchers: the rank it names, culprit and victims, the report folder, the fallback."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from guard_output import ddpdoctor_blocks

import ddpdoctor
from ddpdoctor._guard_folder import process_start_time
from ddpdoctor._placement import MAX_WORLD_SIZE, Placement, placement_from_env
from ddpdoctor.explain import explain_paths

REPO = Path(__file__).resolve().parent.parent
HELPERS = Path(__file__).resolve().parent / "check_helpers"
# Every variable a launcher may set that guard() reads; each test starts without them.
LAUNCH_VARS = (
    "RANK",
    "LOCAL_RANK",
    "WORLD_SIZE",
    "LOCAL_WORLD_SIZE",
    "GROUP_RANK",
    "NODE_RANK",
    "SLURM_PROCID",
    "SLURM_NTASKS",
    "SLURM_JOB_ID",
    "SLURM_STEP_ID",
    "OMPI_COMM_WORLD_RANK",
    "OMPI_COMM_WORLD_SIZE",
    "PMI_RANK",
    "PMI_SIZE",
    "PMIX_RANK",
    "TORCHELASTIC_RUN_ID",
    "TORCHELASTIC_RESTART_COUNT",
    "MASTER_ADDR",
    "MASTER_PORT",
    "DDPDOCTOR_REPORT_DIR",
)
OOM = (
    "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which "
    "1.20 GiB is free."
)
# What gloo raised on rank 1 of a 2-rank torchrun job (torch 2.13.0) when rank 0 had exited.
GLOO_CLOSED = (
    "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer "
    "[127.0.0.1]:36045. This is typically caused by a remote worker crashing. Check the logs of the "
    "remote worker before reporting an error. GLHF!"
)


def clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in LAUNCH_VARS}


@pytest.fixture
def launch(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """Set the launcher variables of one rank (the others are removed), in an empty working folder."""
    monkeypatch.chdir(tmp_path)
    for name in LAUNCH_VARS:
        monkeypatch.delenv(name, raising=False)

    def set_vars(**env: str) -> None:
        for name in LAUNCH_VARS:
            monkeypatch.delenv(name, raising=False)
        for name, value in env.items():
            monkeypatch.setenv(name, value)

    return set_vars


def torchrun_rank(rank: int, run: str = "run-1") -> dict[str, str]:
    return {
        "RANK": str(rank),
        "LOCAL_RANK": str(rank),
        "WORLD_SIZE": "2",
        "TORCHELASTIC_RUN_ID": run,
        "TORCHELASTIC_RESTART_COUNT": "0",
    }


def fail(message: str, folder: Path | None, **options: object) -> str:
    """Raise RuntimeError(message) inside a guard; return what the guard printed."""
    stream = io.StringIO()
    with pytest.raises(RuntimeError), ddpdoctor.guard(report_dir=folder, stream=stream, **options):
        raise RuntimeError(message)
    return stream.getvalue()


# --- the rank, read defensively ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "rank", "world", "launcher"),
    [
        ({}, 0, None, None),
        (torchrun_rank(1), 1, 2, "torchrun"),
        ({"SLURM_PROCID": "3", "SLURM_NTASKS": "4", "SLURM_JOB_ID": "77"}, 3, 4, "slurm"),
        ({"OMPI_COMM_WORLD_RANK": "2", "OMPI_COMM_WORLD_SIZE": "8"}, 2, 8, "mpi"),
        ({"LOCAL_RANK": "1", "NODE_RANK": "0", "WORLD_SIZE": "2"}, 1, 2, "env"),
        ({"LOCAL_RANK": "1", "NODE_RANK": "2", "WORLD_SIZE": "8"}, None, 8, "env"),
        ({"RANK": "5", "WORLD_SIZE": "4"}, None, 4, "env"),
    ],
)
def test_placement_reads_each_launcher(
    env: dict[str, str], rank: int | None, world: int | None, launcher: str | None
) -> None:
    placement = placement_from_env(env)
    assert (placement.rank, placement.world_size, placement.launcher) == (rank, world, launcher)
    assert bool(placement.notes) == (rank is None)


@pytest.mark.parametrize(
    "raw", ["²", "٣", "9" * 5000, "-1", "1e3", "0x1", str(MAX_WORLD_SIZE + 1), "3\x1b[2J"]
)
def test_a_rank_that_is_not_a_number_is_unknown_and_said_so(raw: str, launch, tmp_path: Path) -> None:
    launch(RANK=raw, WORLD_SIZE="2", TORCHELASTIC_RUN_ID="run-1")
    printed = fail(OOM, tmp_path)
    first = printed.splitlines()[0]
    assert first.startswith("ddpdoctor: rank unknown (RANK=") and "is not a rank number)" in first
    assert len(first) < 400 and "\x1b" not in printed
    (report,) = tmp_path.glob("ddpdoctor-pid*.json")
    record = json.loads(report.read_text())
    assert record["rank"] is None and "is not a rank number" in record["rank_notes"][0]


def test_a_huge_world_size_leaves_the_rank_known() -> None:
    placement = placement_from_env({"RANK": "1", "WORLD_SIZE": "9" * 5000})
    assert placement == Placement(
        1, None, "env", ("WORLD_SIZE='999999999999'... (5000 characters) is not a world-size number",)
    )


# --- the failing rank: a compact diagnosis -------------------------------------------------------


def test_the_failing_rank_prints_a_compact_diagnosis_and_a_report_explain_reads(
    launch, tmp_path: Path
) -> None:
    launch(**torchrun_rank(1))
    printed = fail(OOM, tmp_path)
    lines = printed.splitlines()
    assert lines[0] == f"ddpdoctor: rank 1: RuntimeError: {OOM}"
    assert lines[1].startswith("  known failure: cuda-out-of-memory (oom_gpu)")
    assert [line.split(":")[0] for line in lines[2:]] == ["  your code", "  fix 1", "  fix 2", "  report"]
    assert lines[-1] == (
        f"  report: {tmp_path / 'ddpdoctor-rank1.json'}; every rank: ddpdoctor explain {tmp_path}"
    )
    record = json.loads((tmp_path / "ddpdoctor-rank1.json").read_text())
    assert (record["schema"], record["rank"], record["role"], record["entry"]) == (
        "ddpdoctor.guard/1",
        1,
        "culprit",
        "cuda-out-of-memory",
    )
    assert record["diagnosis"]["root_cause"]["rank"] == 1 and record["run"] == "torchrun:run-1:0"
    root = explain_paths([str(tmp_path)]).to_dict()["root_cause"]
    assert (root["entry"], root["rank"]) == ("cuda-out-of-memory", 1)


def test_an_ordinary_error_outside_a_launcher_gets_one_line(
    launch, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    launch()
    monkeypatch.chdir(tmp_path)
    stream = io.StringIO()
    with pytest.raises(KeyError), ddpdoctor.guard(stream=stream):
        batch = {"inputs": 1}
        print(batch["labels"])
    (line,) = stream.getvalue().splitlines()
    assert line.startswith("ddpdoctor: KeyError: 'labels' (your code: ")
    assert line.endswith("is not a known multi-device failure")
    assert "issue" not in line and not (tmp_path / "ddpdoctor-reports").exists()


def test_control_characters_of_a_message_are_escaped(launch, tmp_path: Path) -> None:
    launch(**torchrun_rank(0))
    printed = fail(OOM + " \x1b]0;owned\x07 \x9b2J", None)
    assert (tmp_path / "ddpdoctor-reports" / "ddpdoctor-rank0.log").is_file()  # the default under a launcher
    assert "\x1b" not in printed and "\x07" not in printed and "\x9b" not in printed
    assert printed.splitlines()[0].endswith("is free. \\x9b2J")


def test_nested_guards_report_a_failure_once(launch, tmp_path: Path) -> None:
    launch(**torchrun_rank(0))
    stream = io.StringIO()
    with pytest.raises(RuntimeError), ddpdoctor.guard(stream=stream), ddpdoctor.guard(stream=stream) as inner:
        raise RuntimeError(OOM)
    assert inner.diagnosis is not None
    assert stream.getvalue().count("ddpdoctor: rank 0: RuntimeError: CUDA out of memory") == 1


def test_an_explicit_rank_is_named_without_a_launcher(launch) -> None:
    launch()
    assert fail(OOM, None, rank=0).startswith(f"ddpdoctor: rank 0: RuntimeError: {OOM}")
    assert fail(OOM, None).startswith(f"ddpdoctor: RuntimeError: {OOM}")


# --- victims -------------------------------------------------------------------------------------


def test_a_victim_prints_one_line_naming_the_culprit(launch, tmp_path: Path) -> None:
    launch(**torchrun_rank(0))
    fail(OOM, tmp_path)
    launch(**torchrun_rank(1))
    (line,) = fail(GLOO_CLOSED, tmp_path).splitlines()
    assert line == (
        "ddpdoctor: rank 1: victim of rank 0's failure (RuntimeError: CUDA out of memory. Tried to allocate "
        f"2.00 GiB. GPU 0 has a total capacity of 79.15 ...), see {tmp_path / 'ddpdoctor-rank0.json'}"
    )
    record = json.loads((tmp_path / "ddpdoctor-rank1.json").read_text())
    assert record["role"] == "victim" and record["culprit"]["rank"] == 0
    report = explain_paths([str(tmp_path)]).to_dict()
    assert (report["root_cause"]["entry"], report["root_cause"]["rank"]) == ("cuda-out-of-memory", 0)
    assert [(v["rank"], v["entry"]) for v in report["victims"]] == [(1, "gloo-connection-closed-by-peer")]


def test_a_victim_without_a_culprit_report_says_where_it_looked(launch, tmp_path: Path) -> None:
    launch(**torchrun_rank(1))
    (line,) = fail(GLOO_CLOSED, tmp_path, peer_wait=0.2).splitlines()
    assert line.startswith("ddpdoctor: rank 1: RuntimeError: [/__w/pytorch/")
    assert line.endswith(
        f"a consequence of another rank's failure; no rank reported a cause in {tmp_path} within 0.2s "
        "(the culprit may have hung or been killed: read the launcher's summary)"
    )


@pytest.mark.parametrize("wait", [float("nan"), -5.0])
def test_a_peer_wait_that_is_not_a_duration_waits_not_at_all(wait: float, launch, tmp_path: Path) -> None:
    launch(**torchrun_rank(1))
    assert "within 0s" in fail(GLOO_CLOSED, tmp_path, peer_wait=wait)


def test_the_launcher_variables_are_read_when_the_failure_happens(launch, tmp_path: Path) -> None:
    launch()
    hook = ddpdoctor.guard(report_dir=tmp_path, stream=io.StringIO())
    launch(LOCAL_RANK="1", NODE_RANK="0", WORLD_SIZE="2")  # as Lightning's launcher does inside fit()
    with pytest.raises(RuntimeError), hook:
        raise RuntimeError(OOM)
    assert hook.rank == 1 and (tmp_path / "ddpdoctor-rank1.json").is_file()


def test_reports_of_another_attempt_or_from_before_this_process_are_not_culprits(
    launch, tmp_path: Path
) -> None:
    launch(**torchrun_rank(0, run="earlier-run"))
    fail(OOM, tmp_path)
    launch(**torchrun_rank(1))
    assert "no rank reported a cause" in fail(GLOO_CLOSED, tmp_path, peer_wait=0.1)

    launch(**torchrun_rank(0))
    fail(OOM, tmp_path)
    report = tmp_path / "ddpdoctor-rank0.json"
    record = json.loads(report.read_text())
    record["failed_at"] = process_start_time() - 3600
    report.write_text(json.dumps(record))
    launch(**torchrun_rank(1))
    assert "no rank reported a cause" in fail(GLOO_CLOSED, tmp_path, peer_wait=0.1)


# --- exception groups ----------------------------------------------------------------------------


@pytest.mark.skipif(sys.version_info < (3, 11), reason="ExceptionGroup is new in Python 3.11")
def test_an_exception_group_is_diagnosed_by_its_known_member(launch, tmp_path: Path) -> None:
    launch(**torchrun_rank(0))
    stream = io.StringIO()
    inner = [KeyError("labels"), RuntimeError(OOM)]
    with pytest.raises(BaseException) as info, ddpdoctor.guard(report_dir=tmp_path, stream=stream) as hook:
        raise ExceptionGroup("steps failed", [ValueError("x"), ExceptionGroup("inner", inner)])  # noqa: F821
    assert type(info.value).__name__ == "ExceptionGroup"
    assert hook.diagnosis is not None
    assert stream.getvalue().splitlines()[0] == f"ddpdoctor: rank 0: RuntimeError: {OOM}"
    assert explain_paths([str(tmp_path)]).to_dict()["root_cause"]["entry"] == "cuda-out-of-memory"


# --- the fallback under a launcher ---------------------------------------------------------------


def test_the_fallback_is_refused_under_a_multi_process_launcher(launch, tmp_path: Path) -> None:
    launch(**torchrun_rank(0))
    ran: list[bool] = []
    printed = fail(OOM, tmp_path, fallback=lambda: ran.append(True))
    assert ran == []
    assert printed.splitlines()[-1] == (
        "ddpdoctor: rank 0: fallback not run: torchrun started 2 processes and stops all of them once one "
        "fails; run the single-device training without the launcher"
    )
    assert json.loads((tmp_path / "ddpdoctor-rank0.json").read_text())["fallback"] is False


# --- SIGTERM from the launcher while the guard reports ---------------------------------------------

SIGTERM_SCRIPT = """
import os, signal, sys, threading, time
from ddpdoctor import guard

def terminate_once_held():
    while signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        time.sleep(0.01)
    os.kill(os.getpid(), signal.SIGTERM)  # as torchrun does when a peer has exited

threading.Thread(target=terminate_once_held, daemon=True).start()
with guard(report_dir=sys.argv[1], peer_wait=1.0):
    raise RuntimeError(sys.argv[2])
"""


@pytest.mark.slow
def test_sigterm_waits_until_the_victim_has_reported(tmp_path: Path) -> None:
    env = clean_env() | torchrun_rank(1) | {"PYTHONPATH": str(REPO)}
    out = subprocess.run(
        [sys.executable, "-c", SIGTERM_SCRIPT, str(tmp_path), GLOO_CLOSED],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert out.returncode == -signal.SIGTERM
    (line,) = out.stderr.splitlines()
    assert "a consequence of another rank's failure" in line
    assert json.loads((tmp_path / "ddpdoctor-rank1.json").read_text())["role"] == "victim"


# --- a real 2-rank torchrun job ------------------------------------------------------------------


@pytest.mark.slow
def test_guard_under_torchrun_culprit_diagnosis_victim_line_no_fallback(tmp_path: Path) -> None:
    env = clean_env() | {"PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1", "NO_COLOR": "1"}
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--standalone",
            "--nproc-per-node",
            "2",
            str(HELPERS / "ddpd_guard_job.py"),
            "fallback",
        ],
        capture_output=True,
        text=True,
        timeout=240,
        env=env,
        cwd=tmp_path,
    )
    assert out.returncode == 1, out.stderr
    blocks = ddpdoctor_blocks(out.stderr)
    culprit, victim = blocks["rank 1"], blocks["rank 0"]
    assert len(culprit) <= 10, culprit
    assert culprit[0].startswith("ddpdoctor: rank 1: RuntimeError: Expected to have finished reduction")
    assert culprit[1].startswith("  known failure: ddp-unused-parameters (unused_parameters)")
    folder = Path("ddpdoctor-reports")
    assert f"  report: {folder / 'ddpdoctor-rank1.json'}; every rank: ddpdoctor explain {folder}" in culprit
    assert culprit[-1].startswith("ddpdoctor: rank 1: fallback not run: torchrun started 2 processes")
    assert victim == [
        "ddpdoctor: rank 0: victim of rank 1's failure (RuntimeError: Expected to have finished reduction in "
        "the prior iteration before starting a new one. ...), see ddpdoctor-reports/ddpdoctor-rank1.json"
    ]
    assert "FALLBACK RAN" not in out.stdout
    report = explain_paths([str(tmp_path / folder)]).to_dict()
    assert (report["root_cause"]["entry"], report["root_cause"]["rank"]) == ("ddp-unused-parameters", 1)
    assert [v["rank"] for v in report["victims"]] == [0]


@pytest.mark.slow
def test_an_ordinary_error_in_a_plain_script_is_one_line_before_the_traceback(tmp_path: Path) -> None:
    env = clean_env() | {"PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    out = subprocess.run(
        [sys.executable, str(HELPERS / "ddpd_guard_job.py"), "keyerror"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=tmp_path,
    )
    assert out.returncode == 1
    first, second = out.stderr.splitlines()[:2]
    assert first.startswith("ddpdoctor: KeyError: 'labels' (your code: ")
    assert second == "Traceback (most recent call last):"
    assert out.stderr.rstrip().endswith("KeyError: 'labels'")
