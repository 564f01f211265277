"""Real torchrun jobs (gloo, CPU, two ranks) that hang four ways, under `ddpdoctor run` and `stacks`.

The jobs of each group run at the same time to keep the file short; every process carries a
marker variable, and a test fails when any of them outlives its group.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ddpdoctor.explain import explain_paths
from ddpdoctor.supervise import procfs
from ddpdoctor.supervise.analysis import KB_LINKS

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs Linux /proc")]

JOBS = Path(__file__).resolve().parent.parent / "ddpdoctor" / "scenarios" / "jobs"
HANG_JOB = JOBS / "hang.py"
MARK = "DDPDOCTOR_TEST_MARK"
HANG_AFTER = 5
# A safety net only: the tests assert how fast the hang was named (`hang_silence_s`).
BOUND_S = 300


def _line(text: str) -> int:
    """The line of hang.py that contains `text` (the tests name lines by their comments)."""
    lines = HANG_JOB.read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


@dataclass(frozen=True)
class Expected:
    """What the hang report must say about rank 1."""

    reason: str
    line: int
    helper_line: int | None = None


EXPECTED = {
    "sleep": Expected("not-in-collective", _line("rank 1 never reaches the all_reduce")),
    "dataloader": Expected(
        "dataloader", _line("in enumerate(loader, 1)"), _line("rank 1's worker: a read that never returns")
    ),
    "broadcast": Expected("different-collective", _line("rank 1 broadcasts, rank 0 all-reduces")),
    "early-exit": Expected("left-loop", _line("rank 1 (early-exit) waits here")),
}
RANK0_LINE = _line("rank 0 waits here for rank 1")


def _torchrun(*args: str) -> list[str]:
    return [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2", *args]


def _environment(mark: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DDPDOCTOR_RUN", "TORCH_FR"))}
    env[MARK] = mark
    env["PYTHONWARNINGS"] = "ignore:Failed to initialize NumPy"
    return env


def _reap(mark: str) -> list[int]:
    """Kill whatever still carries `mark`; return what was found."""
    left = procfs.processes_with_variable(MARK, mark)
    procfs.terminate(left, grace_s=0)
    return left


@dataclass
class Finished:
    returncode: int
    stdout: str
    stderr: str
    folder: Path
    leftover: list[int]

    @property
    def report(self) -> dict[str, Any]:
        return json.loads((self.folder / "report.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Finished]]:
    """The four hangs and one crash, each under `ddpdoctor run`, all at once."""
    base = tmp_path_factory.mktemp("runs")
    commands = {
        mode: ["--hang-after", str(HANG_AFTER), "--on-hang", "kill", "--", *_torchrun(str(HANG_JOB), mode)]
        for mode in EXPECTED
    }
    commands["crash"] = ["--", *_torchrun(str(JOBS / "main_exception.py"), str(base / "missing" / "ckpt"))]
    argv = {
        name: [sys.executable, "-m", "ddpdoctor", "run", "--out", str(base / name), "--format", "json", *args]
        for name, args in commands.items()
    }
    marks = {name: uuid.uuid4().hex for name in argv}
    started = {}
    try:
        for name, args in argv.items():
            started[name] = subprocess.Popen(
                args,
                env=_environment(marks[name]),
                cwd=base,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        finished = {}
        for name, proc in started.items():
            out, err = proc.communicate(timeout=BOUND_S)
            finished[name] = Finished(proc.returncode, out, err, base / name, _reap(marks[name]))
        yield finished
    finally:
        for name, proc in started.items():
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            _reap(marks[name])


def _suspect(report: dict[str, Any], rank: int) -> dict[str, Any]:
    found = [s for s in report["suspects"] if rank in s["ranks"]]
    assert found, f"rank {rank} is not a suspect: {report['suspects']}"
    return found[0]


@pytest.mark.parametrize("mode", list(EXPECTED))
def test_run_names_the_stuck_rank_and_its_line_then_stops_the_job(
    runs: dict[str, Finished], mode: str
) -> None:
    done = runs[mode]
    expected = EXPECTED[mode]
    assert done.returncode == 124, done.stderr
    assert done.leftover == [], "ddpdoctor run left processes of the job running"
    report = done.report
    assert report["schema"] == "ddpdoctor.run/1" and report["killed"] is True
    assert report["leftover_pids"] == []
    hang = report["hang"]
    assert hang["schema"] == "ddpdoctor.stacks/1"
    suspect = _suspect(hang, 1)
    assert suspect["reason"] == expected.reason
    assert (Path(suspect["user_frame"]["file"]).name, suspect["user_frame"]["line"]) == (
        "hang.py",
        expected.line,
    )
    # The knowledge-base entries are those of the suspect's situation, also on its finding.
    assert suspect["entries"] == list(KB_LINKS[expected.reason])
    (finding,) = [f for f in report["findings"] if f["id"] == f"stacks.{expected.reason}" and f["rank"] == 1]
    assert finding["entry"] == KB_LINKS[expected.reason][0]
    if mode != "broadcast":  # broadcast vs all_reduce with two ranks: both sides are named
        assert [s["ranks"] for s in hang["suspects"]] == [[1]]
    # Within hang-after + 15 s of the job going silent, the report was complete.
    assert report["hang_silence_s"] <= HANG_AFTER + 15
    classes = {tuple(c["ranks"]): c for c in hang["classes"]}
    assert classes[(0,)]["collective"] == "all_reduce"
    assert classes[(0,)]["user_frame"]["line"] == RANK0_LINE
    if expected.helper_line is not None:
        assert classes[(1,)]["helper_user_frame"]["line"] == expected.helper_line
    # The same report is what was printed (JSON on standard error), and it is in the folder.
    printed = json.loads(done.stderr[done.stderr.index("{\n") :])
    assert printed["hang"]["suspects"] == hang["suspects"]
    assert "rank 1 step 2" in done.stdout, "the job's output passes through"
    assert "rank 1 step 2" in (done.folder / "ranks" / "rank1.log").read_text(encoding="utf-8")
    assert (done.folder / "bundle.tar.gz").is_file() and (done.folder / "report.md").is_file()


def test_flight_recorder_shows_the_first_disagreement(runs: dict[str, Finished]) -> None:
    flight = runs["broadcast"].report["hang"]["flight_recorder"]
    assert flight is not None, "run asks every rank for a Flight Recorder dump"
    ops = flight["first_disagreement"]["ops"]
    assert ops == {"0": "all_reduce", "1": "broadcast"}
    sleeping = runs["sleep"].report["hang"]["flight_recorder"]["first_disagreement"]
    assert sleeping["missing"] == [1]


def test_everything_lands_in_the_run_folder_and_its_bundle(runs: dict[str, Finished]) -> None:
    done = runs["broadcast"]
    report = done.report
    folder = done.folder
    expected = {
        "launcher.log",
        "ranks/rank0.log",
        "ranks/rank1.log",
        "flight-recorder/rank_0",
        "flight-recorder/rank_1",
        "stacks.json",
        "report.md",
        "report.json",
    }
    assert expected <= set(report["files"]), report["files"]
    assert all((folder / name).is_file() for name in report["files"])
    stacks = json.loads((folder / "stacks.json").read_text(encoding="utf-8"))
    assert stacks["schema"] == "ddpdoctor.stacks/1" and stacks["suspects"] == report["hang"]["suspects"]
    markdown = (folder / "report.md").read_text(encoding="utf-8")
    assert markdown.startswith("#") and "rank 1" in markdown and "hang.py" in markdown
    with tarfile.open(report["bundle"]) as bundle:
        names = set(bundle.getnames())
    assert {f"{folder.name}/{name}" for name in report["files"]} <= names
    assert report["instrumentation"], "what run set is recorded"


def test_reproduce_shows_the_rank_hang() -> None:
    """The demo: `ddpdoctor reproduce torch-rank-hang` runs the hang under `run` and shows its report."""
    mark = uuid.uuid4().hex
    try:
        done = subprocess.run(
            [sys.executable, "-m", "ddpdoctor", "reproduce", "torch-rank-hang", "--format", "text"],
            env=_environment(mark),
            capture_output=True,
            text=True,
            timeout=BOUND_S,
            stdin=subprocess.DEVNULL,
        )
    finally:
        leftover = _reap(mark)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert leftover == []
    shown = done.stdout + done.stderr
    assert "Hang report: where every rank is" in shown
    assert f"hang.py:{EXPECTED['sleep'].line}" in shown
    assert "rank 1: not in a collective" in shown


def test_a_crash_under_run_gets_the_same_diagnosis_as_explain_on_its_logs(runs: dict[str, Finished]) -> None:
    done = runs["crash"]
    assert done.returncode == 1, "run exits with the job's own status"
    assert done.leftover == []
    report = done.report
    assert report["hang"] is None and report["exit_status"] == 1
    root = report["explain"]["root_cause"]
    again = explain_paths([str(done.folder)]).to_dict()["root_cause"]
    keys = ("entry", "category", "rank", "text", "kind")
    assert {k: root[k] for k in keys} == {k: again[k] for k in keys}
    assert root["rank"] == 0 and "does not exist" in root["text"]
    assert "does not exist" in (done.folder / "ranks" / "rank0.log").read_text(encoding="utf-8")
    assert (done.folder / "torchelastic").is_dir(), "torchrun's per-rank error files go into the run folder"


# --- ddpdoctor stacks on jobs that ddpdoctor did not start -------------------------------------


@pytest.fixture(scope="module")
def plain_jobs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, dict[str, Any]]]:
    """The four hangs started by torchrun alone; `stacks --job` is run once each is stuck."""
    base = tmp_path_factory.mktemp("plain")
    marks = {mode: uuid.uuid4().hex for mode in EXPECTED}
    jobs: dict[str, subprocess.Popen[bytes]] = {}
    try:
        for mode in EXPECTED:
            with (base / f"{mode}.log").open("wb") as log:
                jobs[mode] = subprocess.Popen(
                    _torchrun(str(HANG_JOB), mode),
                    env=_environment(marks[mode]),
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                )
        deadline = time.monotonic() + 120
        waiting = set(EXPECTED)
        while waiting and time.monotonic() < deadline:
            for mode in list(waiting):
                text = (base / f"{mode}.log").read_text(errors="replace")
                if "rank 0 step 2" in text and "rank 1 step 2" in text:
                    waiting.discard(mode)
            time.sleep(0.5)
        assert not waiting, f"jobs never reached step 2: {waiting}"
        time.sleep(3)  # let rank 1 reach its stuck point
        results = {}
        for mode, job in jobs.items():
            done = subprocess.run(
                [sys.executable, "-m", "ddpdoctor", "stacks", "--job", str(job.pid), "--format", "json"],
                capture_output=True,
                text=True,
                timeout=60,
            )
            results[mode] = {"returncode": done.returncode, "stderr": done.stderr, **json.loads(done.stdout)}
        ranks = {
            mode: {p.pid: p.rank for p in procfs.rank_processes(procfs.processes_with_variable(MARK, mark))}
            for mode, mark in marks.items()
        }
        for name, args in (("--all", ["--all"]), ("pids", [str(p) for p in ranks["sleep"]])):
            done = subprocess.run(
                [sys.executable, "-m", "ddpdoctor", "stacks", *args, "--format", "json"],
                capture_output=True,
                text=True,
                timeout=60,
            )
            results[name] = {"returncode": done.returncode, "stderr": done.stderr, **json.loads(done.stdout)}
        results["ranks"] = ranks
        yield results
    finally:
        for mode, job in jobs.items():
            _reap(marks[mode])
            job.wait(timeout=30)
        assert all(procfs.processes_with_variable(MARK, m) == [] for m in marks.values())


@pytest.mark.parametrize("mode", list(EXPECTED))
def test_stacks_on_a_job_not_started_by_run(plain_jobs: dict[str, dict[str, Any]], mode: str) -> None:
    report = plain_jobs[mode]
    assert report["returncode"] == 1, report["stderr"]
    assert report["schema"] == "ddpdoctor.stacks/1"
    assert sorted(p["rank"] for p in report["processes"]) == [0, 1]
    assert all(p["method"] == "py-spy" for p in report["processes"])
    suspect = _suspect(report, 1)
    assert suspect["reason"] == EXPECTED[mode].reason
    assert suspect["user_frame"]["line"] == EXPECTED[mode].line
    assert report["flight_recorder"] is None, "no dump exists for a job that was not instrumented"


def test_stacks_all_finds_every_rank_of_every_job(plain_jobs: dict[str, Any]) -> None:
    """`--all`: every process of this user with a rank in its environment (other jobs may add theirs)."""
    report = plain_jobs["--all"]
    assert report["returncode"] == 1, report["stderr"]
    found = {p["pid"]: p["rank"] for p in report["processes"]}
    for mode, ranks in plain_jobs["ranks"].items():
        assert sorted(ranks.values()) == [0, 1], mode
        assert {pid: found.get(pid) for pid in ranks} == ranks, mode
    ours = {pid for ranks in plain_jobs["ranks"].values() for pid in ranks}
    assert all(p["method"] == "py-spy" for p in report["processes"] if p["pid"] in ours)


def test_stacks_on_rank_pids(plain_jobs: dict[str, Any]) -> None:
    report = plain_jobs["pids"]
    assert report["returncode"] == 1, report["stderr"]
    assert {p["pid"]: p["rank"] for p in report["processes"]} == plain_jobs["ranks"]["sleep"]
    suspect = _suspect(report, 1)
    assert (suspect["reason"], suspect["user_frame"]["line"]) == ("not-in-collective", EXPECTED["sleep"].line)
