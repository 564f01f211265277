"""Nothing ddpdoctor starts outlives it: not even a grandchild that left its session with setsid.

Each test starts the real command line, whose child starts a daemon the classic way (fork,
`os.setsid()`, fork again, the middle process exits), which writes its pid and then `exec`s `sleep` with an empty environment (so no job token can find it).
After a normal end, or after SIGTERM, SIGHUP or SIGINT to ddpdoctor, the grandchild must be gone
within a bounded time (/proc is polled).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ddpdoctor.supervise.procfs import alive

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="subreapers and /proc are Linux-only"),
]

# Forks a grandchild that leaves the session, then (mode "wait") blocks or (mode "end") returns.
ESCAPER = """
import os, sys, time

def escape(pid_file, mode):
    read, write = os.pipe()
    if os.fork() == 0:
        os.setsid()
        if os.fork() != 0:
            os._exit(0)  # the daemon's classic double fork: the grandchild is an orphan at once
        os.close(read)
        with open(pid_file, "w") as fh:
            fh.write(str(os.getpid()))
        os.close(write)
        os.execve("/bin/sleep", ["sleep", "600"], {})
    os.close(write)
    os.wait()
    os.read(read, 1)  # the pid file is written once the grandchild closed its end
    os.close(read)
    if mode == "wait":
        time.sleep(600)

if __name__ == "__main__":
    escape(sys.argv[1], sys.argv[2])
"""

LOADER = """
import os
from escaper import escape

def leaves_a_grandchild():
    escape(os.environ["DDPD_GRANDCHILD_PID_FILE"], os.environ["DDPD_MODE"])
    return [[0.0], [1.0]]
"""

SETTLE_S = 15.0


def _wait_for_pid(pid_file: Path, proc: subprocess.Popen[str]) -> int:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and proc.poll() is None:
        if pid_file.exists() and pid_file.read_text().strip():
            return int(pid_file.read_text())
        time.sleep(0.05)
    out, err = proc.communicate(timeout=30) if proc.poll() is not None else ("", "")
    pytest.fail(f"the grandchild never started (exit {proc.returncode}):\n{out[-1000:]}\n{err[-2000:]}")


def _assert_gone(pid: int) -> None:
    deadline = time.monotonic() + SETTLE_S
    while alive([pid]) and time.monotonic() < deadline:
        time.sleep(0.05)
    if alive([pid]):
        os.kill(pid, signal.SIGKILL)
        pytest.fail(f"grandchild {pid} outlived ddpdoctor")


def _start(tmp_path: Path, mode: str, command: list[str]) -> tuple[subprocess.Popen[str], Path]:
    (tmp_path / "escaper.py").write_text(ESCAPER)
    (tmp_path / "ddpd_escaping_loader.py").write_text(LOADER)
    pid_file = tmp_path / "grandchild.pid"
    env = {
        **os.environ,
        "DDPD_GRANDCHILD_PID_FILE": str(pid_file),
        "DDPD_MODE": mode,
        "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]),
        "DDPDOCTOR_CACHE_DIR": os.environ.get("DDPDOCTOR_CACHE_DIR", str(tmp_path / "cache")),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "ddpdoctor", *command],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    return proc, pid_file


def _run_command(tmp_path: Path, mode: str) -> list[str]:
    return ["run", "--out", str(tmp_path / "run"), "--", sys.executable, str(tmp_path / "escaper.py"),
            str(tmp_path / "grandchild.pid"), mode]  # fmt: skip


def _check_command() -> list[str]:
    return ["check", "--devices", "cpu", "--dataloader", "ddpd_escaping_loader:leaves_a_grandchild",
            "--timeout", "300"]  # fmt: skip


COMMANDS = {"run": _run_command, "check --dataloader": lambda tmp_path, mode: _check_command()}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_setsid_grandchild_ends_with_a_normal_end(tmp_path: Path, command: str) -> None:
    proc, pid_file = _start(tmp_path, "end", COMMANDS[command](tmp_path, "end"))
    try:
        grandchild = _wait_for_pid(pid_file, proc)
        _out, err = proc.communicate(timeout=120)
        assert proc.returncode in (0, 1), err[-2000:]
        _assert_gone(grandchild)
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=lambda s: s.name)
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_setsid_grandchild_ends_when_a_signal_ends_ddpdoctor(
    tmp_path: Path, command: str, signum: signal.Signals
) -> None:
    proc, pid_file = _start(tmp_path, "wait", COMMANDS[command](tmp_path, "wait"))
    try:
        grandchild = _wait_for_pid(pid_file, proc)
        if command == "run" and signum == signal.SIGINT:
            os.killpg(proc.pid, signum)  # Ctrl-C reaches the job as well; `run` then waits for it
        else:
            proc.send_signal(signum)
        proc.communicate(timeout=60)
        assert proc.returncode != 0
        _assert_gone(grandchild)
    finally:
        with_group = proc.poll() is None
        proc.kill()
        proc.wait()
        assert not with_group, "ddpdoctor did not end after the signal"
