"""`ddpdoctor run` on small real jobs (plain Python, no torch): output, exit status, folder, environment."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tarfile
import uuid
from pathlib import Path

import pytest

from ddpdoctor._heartbeat import HEARTBEAT_DIR_VARIABLE
from ddpdoctor.supervise import procfs
from ddpdoctor.supervise.instrument import HOOK_DIR, RUN_DIR_VARIABLE, SOCKET_VARIABLE, TOKEN_VARIABLE
from ddpdoctor.supervise.stacks import STACK_DIR_VARIABLE

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs Linux /proc")


def _run(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("DDPDOCTOR_RUN")}
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "ddpdoctor", "run", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=full_env,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
    )


def test_output_passes_through_unchanged_and_is_kept(tmp_path: Path) -> None:
    script = "import sys; print('out 1'); print('err 1', file=sys.stderr); print('out 2')"
    done = _run(tmp_path, "--out", "r", "--", sys.executable, "-c", script)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "out 1\nout 2\n", "the job's standard output is exactly what it printed"
    assert "err 1\n" in done.stderr
    assert "ddpdoctor: run folder " in done.stderr and "the job exited with status 0" in done.stderr
    folder = tmp_path / "r"
    launcher = (folder / "launcher.log").read_text(encoding="utf-8")
    assert "out 1\n" in launcher and "err 1\n" in launcher
    report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    assert report["schema"] == "ddpdoctor.run/1" and report["ok"] is True
    assert report["exit_status"] == 0 and report["hang"] is None and report["explain"] is None
    assert "report.md" in report["files"] and "launcher.log" in report["files"]
    with tarfile.open(folder / "bundle.tar.gz") as bundle:
        names = bundle.getnames()
    assert "r/report.json" in names and "r/launcher.log" in names


def test_each_rank_gets_its_own_log(tmp_path: Path) -> None:
    """The startup hook sends a ranked process's output through ddpdoctor into ranks/rank<N>.log."""
    script = "import sys; print('hello from', 3); print('warn', file=sys.stderr)"
    done = _run(tmp_path, "--out", "r", "--", sys.executable, "-c", script, env={"RANK": "3"})
    assert done.returncode == 0, done.stderr
    assert done.stdout == "hello from 3\n"
    rank_log = (tmp_path / "r" / "ranks" / "rank3.log").read_text(encoding="utf-8")
    assert rank_log == "hello from 3\nwarn\n"
    assert "hello from" not in (tmp_path / "r" / "launcher.log").read_text(encoding="utf-8")
    assert (tmp_path / "r" / "errors" / "rank3").is_dir(), "a per-rank torchelastic error file is set up"


def test_exit_status_is_the_jobs_and_a_failure_is_explained(tmp_path: Path) -> None:
    script = "raise RuntimeError('the checkpoint folder /nowhere does not exist')"
    done = _run(tmp_path, "--out", "r", "--format", "json", "--", sys.executable, "-c", script)
    assert done.returncode == 1
    printed = json.loads(done.stderr[done.stderr.index("{\n") :])
    root = printed["explain"]["root_cause"]
    assert "does not exist" in root["text"] and root["category"] in ("user_code", "other")
    assert [f["id"] for f in printed["findings"]] == ["run.failed"]
    done = _run(tmp_path, "--out", "r2", "--", sys.executable, "-c", "raise SystemExit(7)")
    assert done.returncode == 7


def test_instrumentation_never_overrides_the_user_and_can_be_turned_off(tmp_path: Path) -> None:
    script = (
        "import os, sys; print(os.environ.get('NCCL_DEBUG'), os.environ.get('TORCH_FR_BUFFER_SIZE'), "
        "os.environ.get('PYTHONFAULTHANDLER'), 'sitecustomize' in sys.modules and "
        "sys.modules['sitecustomize'].__file__.startswith(os.environ.get('HOOK', '-')))"
    )
    env = {"NCCL_DEBUG": "INFO", "HOOK": str(HOOK_DIR)}
    done = _run(tmp_path, "--out", "r", "--", sys.executable, "-c", script, env=env)
    assert done.stdout == "INFO 2000 1 True\n", done.stderr
    assert "set TORCH_FR_BUFFER_SIZE=2000" in done.stderr and "set NCCL_DEBUG" not in done.stderr
    done = _run(tmp_path, "--out", "r2", "--no-instrument", "--", sys.executable, "-c", script, env=env)
    assert done.stdout == "INFO None None False\n", done.stderr
    assert "ddpdoctor: set " not in done.stderr


def test_the_users_own_sitecustomize_still_runs(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "sitecustomize.py").write_text("import builtins\nbuiltins.USER_HOOK = 'ran'\n", encoding="utf-8")
    done = _run(
        tmp_path,
        "--out",
        "r",
        "--",
        sys.executable,
        "-c",
        "import builtins; print(builtins.USER_HOOK)",
        env={"PYTHONPATH": str(mine), "RANK": "0"},
    )
    assert done.stdout == "ran\n", done.stderr


def test_processes_the_job_leaves_behind_are_stopped(tmp_path: Path) -> None:
    mark = uuid.uuid4().hex
    script = (
        "import subprocess, sys; subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'], "
        "start_new_session=True); print('started')"
    )
    try:
        done = _run(tmp_path, "--out", "r", "--", sys.executable, "-c", script, env={"LEAK_MARK": mark})
        left = procfs.processes_with_variable("LEAK_MARK", mark)
    finally:
        procfs.terminate(procfs.processes_with_variable("LEAK_MARK", mark), grace_s=0)
    assert done.returncode == 0 and done.stdout == "started\n"
    assert left == []
    report = json.loads((tmp_path / "r" / "report.json").read_text(encoding="utf-8"))
    assert len(report["reaped_pids"]) == 1 and report["leftover_pids"] == []


def test_killing_at_once_stops_every_process_before_any_dies(monkeypatch: pytest.MonkeyPatch) -> None:
    # A rank killed while its peer still runs lets the peer print `Connection closed by peer`, which a
    # later `explain` would take for the cause: all are stopped first, then killed.
    children = [subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]) for _ in range(3)]
    sent: list[tuple[int, int]] = []
    real_kill = os.kill

    def record(pid: int, sig: int) -> None:
        sent.append((pid, sig))
        real_kill(pid, sig)

    monkeypatch.setattr(procfs.os, "kill", record)
    try:
        left = procfs.terminate([child.pid for child in children], grace_s=0)
    finally:
        for child in children:
            child.kill()
            child.wait(timeout=10)
    pids = sorted(child.pid for child in children)
    assert left == []
    assert sorted(pid for pid, sig in sent[:3]) == pids and {sig for _, sig in sent[:3]} == {signal.SIGSTOP}
    assert sorted(pid for pid, sig in sent[3:]) == pids and {sig for _, sig in sent[3:]} == {signal.SIGKILL}


def test_usage_errors_are_one_line(tmp_path: Path) -> None:
    done = _run(tmp_path, "--out", "r", "--", "/nonexistent/launcher")
    assert done.returncode == 2
    assert done.stderr.splitlines()[-2:] == [
        "ddpdoctor: error: cannot start /nonexistent/launcher: No such file or directory",
        "ddpdoctor: hint: check the command after --",
    ]
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "report.json").write_text("{}", encoding="utf-8")
    done = _run(tmp_path, "--out", "used", "--", sys.executable, "-c", "pass")
    assert done.returncode == 2 and "already holds a run" in done.stderr
    done = _run(tmp_path, "--on-hang", "wait", "--", sys.executable, "-c", "pass")
    assert done.returncode == 2 and "Traceback" not in done.stderr


def test_default_folder_is_timestamped_under_ddpdoctor_runs(tmp_path: Path) -> None:
    done = _run(tmp_path, "--", sys.executable, "-c", "pass")
    assert done.returncode == 0, done.stderr
    (folder,) = (tmp_path / "ddpdoctor-runs").iterdir()
    assert folder.name.endswith("-" + Path(sys.executable).name)
    assert (folder / "report.json").is_file()


def test_every_variable_run_sets_is_printed_and_an_alias_counts_as_set(tmp_path: Path) -> None:
    """ "Print what was set": each printed line is what the job sees; the job sees nothing else new."""
    script = "import json, os; print(json.dumps(dict(os.environ)))"
    user = {"TORCH_NCCL_TRACE_BUFFER_SIZE": "10", "TORCH_NCCL_DEBUG_INFO_TEMP_FILE": str(tmp_path / "mine_")}
    done = _run(tmp_path, "--out", "r", "--", sys.executable, "-c", script, env=user)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    printed = {}
    for line in done.stderr.splitlines():
        if line.startswith("ddpdoctor: set "):
            name, _, rest = line.removeprefix("ddpdoctor: set ").partition("=")
            printed[name] = rest.rsplit(" (", 1)[0]
    base = {**{k: v for k, v in os.environ.items() if not k.startswith("DDPDOCTOR_RUN")}, **user}
    plumbing = {RUN_DIR_VARIABLE, SOCKET_VARIABLE, TOKEN_VARIABLE, STACK_DIR_VARIABLE, HEARTBEAT_DIR_VARIABLE}
    added = {k for k in seen if k not in base} - plumbing
    assert added | {"PYTHONPATH"} == set(printed) | {"PYTHONPATH"}
    for name, value in printed.items():
        if name != "PYTHONPATH":
            assert seen[name] == value, name
    assert seen["PYTHONPATH"].split(os.pathsep)[0] == str(HOOK_DIR)
    # The user's older spellings of the Flight Recorder variables count as set: nothing added.
    assert "TORCH_FR_BUFFER_SIZE" not in seen and "TORCH_FR_DUMP_TEMP_FILE" not in seen
    assert seen["TORCH_NCCL_TRACE_BUFFER_SIZE"] == "10"
    done = _run(tmp_path, "--out", "r2", "--no-instrument", "--", sys.executable, "-c", script)
    seen = json.loads(done.stdout)
    assert {k for k in seen if k not in base} == {TOKEN_VARIABLE}, "only the job's token"


def test_on_hang_report_keeps_the_job_running_and_its_exit_status(tmp_path: Path) -> None:
    job = tmp_path / "job.py"
    job.write_text(
        "import sys, time\nprint('working', flush=True)\ntime.sleep(14)\nprint('resumed', flush=True)\n"
        "sys.exit(3)\n",
        encoding="utf-8",
    )
    done = _run(
        tmp_path, "--out", "r", "--hang-after", "2", "--", sys.executable, str(job), env={"RANK": "0"}
    )
    assert done.returncode == 3, done.stderr
    assert done.stdout == "working\nresumed\n", "the job went on after the hang report"
    assert "Hang report: where every rank is" in done.stderr and "job.py:3" in done.stderr
    report = json.loads((tmp_path / "r" / "report.json").read_text(encoding="utf-8"))
    assert report["killed"] is False and report["exit_status"] == 3 and report["hang_trigger"] == "silence"
    assert report["hang"]["classes"][0]["user_frame"]["line"] == 3
    assert [f["id"] for f in report["findings"]][:1] == ["run.hang"]


def test_a_job_killed_by_a_signal_exits_as_a_shell_says(tmp_path: Path) -> None:
    script = "import os, signal; os.kill(os.getpid(), signal.SIGTERM)"
    done = _run(tmp_path, "--out", "r", "--", sys.executable, "-c", script)
    assert done.returncode == 128 + 15, done.stderr
    report = json.loads((tmp_path / "r" / "report.json").read_text(encoding="utf-8"))
    assert (report["exit_status"], report["returncode"]) == (-15, 143)


def test_a_ranks_output_written_just_before_it_exits_is_all_kept(tmp_path: Path) -> None:
    """A rank's output reaches ddpdoctor through its socket, not the launcher's pipe: what it wrote
    right before exiting is still read to the end, in the terminal and in its rank log."""
    script = "import os, sys; sys.stdout.write('x' * 60_000 + '\\nend\\n'); sys.stdout.flush(); os._exit(0)"
    done = _run(tmp_path, "--out", "r", "--", sys.executable, "-c", script, env={"RANK": "2"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("x\nend\n") and len(done.stdout) == 60_005
    assert (tmp_path / "r" / "ranks" / "rank2.log").read_text(encoding="utf-8") == done.stdout
