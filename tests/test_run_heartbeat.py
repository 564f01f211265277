"""The progress heartbeat: a rank stuck while the job keeps printing is still a hang under `run`.

Unit tests drive :mod:`ddpdoctor._heartbeat` in a child process; the real jobs are torchrun (gloo,
CPU, two ranks) running `tests/run_jobs/heartbeat.py` under `ddpdoctor run --hang-after 5`, all
at once, each marked so that a test fails when any of their processes outlives the group.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ddpdoctor._heartbeat import BEAT_SUFFIX, HEARTBEAT_DIR_VARIABLE, STACK, STEPS, beat_record, parse_beat
from ddpdoctor.supervise import procfs, supervisor

JOB = Path(__file__).resolve().parent / "run_jobs" / "heartbeat.py"
MARK = "DDPDOCTOR_TEST_MARK"
HANG_AFTER = 5
BOUND_S = 150
STUCK_LINE = next(
    i for i, line in enumerate(JOB.read_text(encoding="utf-8").splitlines(), 1) if "rank 1 stops here" in line
)


def _beats(folder: Path) -> dict[str, Any]:
    return {p.name: parse_beat(p.read_bytes()) for p in folder.glob("*" + BEAT_SUFFIX)}


def _child(script: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in (HEARTBEAT_DIR_VARIABLE, "RANK")}
    return subprocess.run(
        [sys.executable, "-c", script], env={**base, **env}, capture_output=True, text=True, timeout=60
    )


def test_a_moving_thread_beats_and_a_still_one_does_not(tmp_path: Path) -> None:
    script = (
        "import itertools, time, ddpdoctor\n"
        "def descend(depth):\n"
        "    return descend(depth - 1) if depth else time.sleep(0.001)\n"
        "with ddpdoctor.guard():\n"
        "    ends = time.monotonic() + 4.5\n"
        "    for i in itertools.count():\n"  # the thread moves: its stack changes between looks
        "        descend(i % 50)\n"
        "        if time.monotonic() > ends:\n"
        "            break\n"
        "    print(open(PATH).read().split()[1], flush=True)\n"
        "    time.sleep(3.5)\n"  # the thread stands still: no new beat
        "    print(open(PATH).read().split()[1], flush=True)\n"
    ).replace("PATH", repr(str(tmp_path / f"rank2{BEAT_SUFFIX}")))
    done = _child(script, {HEARTBEAT_DIR_VARIABLE: str(tmp_path), "RANK": "2"})
    assert done.returncode == 0, done.stderr
    moving, still = map(int, done.stdout.split())
    assert moving >= 3, "a thread that runs changes its position about once a second"
    assert still <= moving + 1, "a sleeping thread keeps its position (one beat for entering the sleep)"
    beat = _beats(tmp_path)[f"rank2{BEAT_SUFFIX}"]
    assert beat is not None and beat.source == STACK


def test_heartbeat_calls_count_and_forks_stay_silent(tmp_path: Path) -> None:
    script = (
        "import os, time, ddpdoctor\n"
        "for _ in range(3):\n"
        "    ddpdoctor.heartbeat()\n"
        "    time.sleep(1.2)\n"
        "child = os.fork()\n"
        "if child == 0:\n"
        "    ddpdoctor.heartbeat()\n"
        "    os._exit(0)\n"
        "os.waitpid(child, 0)\n"
        "print(os.getpid())\n"
    )
    done = _child(script, {HEARTBEAT_DIR_VARIABLE: str(tmp_path), "RANK": "0"})
    assert done.returncode == 0, done.stderr
    beats = _beats(tmp_path)
    assert list(beats) == [f"rank0{BEAT_SUFFIX}"], "one file for the rank, none for its fork"
    beat = beats[f"rank0{BEAT_SUFFIX}"]
    assert beat is not None and beat.source == STEPS and beat.pid == int(done.stdout)
    assert beat.count >= 2


def test_nothing_happens_without_ddpdoctor_run(tmp_path: Path) -> None:
    script = (
        "import threading, ddpdoctor\n"
        "with ddpdoctor.guard():\n"
        "    ddpdoctor.heartbeat()\n"
        "print(sorted(t.name for t in threading.enumerate()))\n"
    )
    done = _child(script, {"RANK": "0", "DDPDOCTOR_REPORT_DIR": str(tmp_path)})
    assert (done.returncode, done.stdout) == (0, "['MainThread']\n"), done.stderr
    done = _child(script, {HEARTBEAT_DIR_VARIABLE: str(tmp_path / "absent"), "RANK": "0"})
    assert (done.returncode, done.stdout) == (0, "['MainThread']\n"), done.stderr


def test_ranks_that_stopped_beating_together_are_stalled_together(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Beats are written and read once a second each, so ranks stopped in one moment cross the limit
    apart: the hang report names them all, and not a rank that still beats."""
    clock = [0.0]
    monkeypatch.setattr(supervisor.time, "monotonic", lambda: clock[0])
    files = {rank: tmp_path / f"rank{rank}{BEAT_SUFFIX}" for rank in (0, 1, 2)}

    def beat(rank: int, count: int) -> None:
        files[rank].write_bytes(beat_record(os.getpid(), count, STEPS))

    def at(moment: float, *beating: int) -> None:
        clock[0] = moment
        for rank in beating:
            beat(rank, int(moment * 10))

    for rank in files:
        beat(rank, 0)
    beats = supervisor._Heartbeats(tmp_path)
    assert beats.stalled(HANG_AFTER) == []
    at(1.2, 1, 2)  # rank 0 stopped at 0; rank 1's last beat is seen one look later
    assert beats.stalled(HANG_AFTER) == []
    for moment in (2.4, 3.6, 4.8):
        at(moment, 2)  # rank 2 goes on beating
        beats.stalled(HANG_AFTER)
    at(5.0)
    assert [stall.rank for stall in beats.stalled(HANG_AFTER)] == [], "read at most once a second"
    at(6.0, 2)
    assert [stall.rank for stall in beats.stalled(HANG_AFTER)] == [0]
    assert [(stall.rank, stall.since) for stall in beats.stalled_together(HANG_AFTER)] == [(0, 0.0), (1, 1.2)]


# --- real torchrun jobs under `ddpdoctor run` ----------------------------------------------------


def _reap(mark: str) -> list[int]:
    left = procfs.processes_with_variable(MARK, mark)
    procfs.terminate(left, grace_s=0)
    return left


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, dict[str, Any]]]:
    """The job in each mode under `ddpdoctor run --hang-after 5 --on-hang kill`, all at once."""
    base = tmp_path_factory.mktemp("heartbeat")
    marks = {mode: uuid.uuid4().hex for mode in ("stack", "steps", "healthy")}
    started: dict[str, subprocess.Popen[str]] = {}
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DDPDOCTOR_", "TORCH_FR"))}
    env["PYTHONWARNINGS"] = "ignore:Failed to initialize NumPy"
    try:
        for mode, mark in marks.items():
            run = [sys.executable, "-m", "ddpdoctor", "run", "--out", str(base / mode), "--format", "json"]
            watch = ["--hang-after", str(HANG_AFTER), "--on-hang", "kill"]
            torchrun = [
                sys.executable,
                "-m",
                "torch.distributed.run",
                "--standalone",
                "--nproc-per-node",
                "2",
            ]
            started[mode] = subprocess.Popen(
                [*run, *watch, "--", *torchrun, str(JOB), mode],
                env={**env, MARK: mark},
                cwd=base,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        results = {}
        for mode, proc in started.items():
            out, err = proc.communicate(timeout=BOUND_S)
            report = json.loads((base / mode / "report.json").read_text(encoding="utf-8"))
            results[mode] = {
                "returncode": proc.returncode,
                "stdout": out,
                "stderr": err,
                "report": report,
                "leftover": _reap(marks[mode]),
                "folder": base / mode,
            }
        yield results
    finally:
        for mode, proc in started.items():
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            _reap(marks[mode])
        assert all(procfs.processes_with_variable(MARK, m) == [] for m in marks.values())


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["stack", "steps"])
def test_a_rank_stuck_while_the_job_prints_is_a_hang(runs: dict[str, dict[str, Any]], mode: str) -> None:
    done = runs[mode]
    report = done["report"]
    assert done["returncode"] == 124, done["stderr"][-3000:]
    assert done["leftover"] == [] and report["leftover_pids"] == []
    assert report["hang_trigger"] == "heartbeat" and 1 in report["stalled_ranks"]
    assert report["hang_silence_s"] < HANG_AFTER, "the job kept printing: silence did not find this hang"
    assert report["hang_stall_s"] <= HANG_AFTER + 15
    (suspect,) = report["hang"]["suspects"]
    assert suspect["ranks"] == [1] and suspect["reason"] == "not-in-collective"
    assert (Path(suspect["user_frame"]["file"]).name, suspect["user_frame"]["line"]) == (
        "heartbeat.py",
        STUCK_LINE,
    )
    (hang,) = [f for f in report["findings"] if f["id"] == "run.hang"]
    assert "heartbeat" in hang["message"] and "kept printing" in hang["message"]
    beats = _beats(done["folder"] / "heartbeat")
    assert sorted(beats) == [f"rank0{BEAT_SUFFIX}", f"rank1{BEAT_SUFFIX}"]
    assert {b.source for b in beats.values() if b is not None} == {STEPS if mode == "steps" else STACK}
    assert done["stdout"].count("rank 1 still here") > 2 * HANG_AFTER, "output went on during the hang"


@pytest.mark.slow
def test_a_healthy_job_that_beats_is_not_taken_for_hung(runs: dict[str, dict[str, Any]]) -> None:
    done = runs["healthy"]
    report = done["report"]
    assert done["returncode"] == 0, done["stderr"][-3000:]
    assert report["hang"] is None and report["killed"] is False and report["ok"] is True
    assert done["leftover"] == []
    beats = _beats(done["folder"] / "heartbeat")
    assert all(b is not None and b.source == STEPS and b.count >= 3 for b in beats.values()), beats
