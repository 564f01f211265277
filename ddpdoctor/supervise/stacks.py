"""Take the Python stacks of running rank processes: py-spy where it can attach, else a signal dump.

py-spy (`py-spy dump --json`) reads a process's memory through ptrace and needs nothing from the
target. When it is missing or not allowed to attach, a rank started by `ddpdoctor run` carries the
startup hook (:mod:`ddpdoctor.supervise.hook.sitecustomize`), whose fault handler writes every
thread's stack to a file on a signal; that file is read back here.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ddpdoctor.frames import is_user_frame
from ddpdoctor.supervise.instrument import (
    DEFAULT_STACK_SIGNAL,
    SIGNAL_DUMP_SUFFIX,
    STACK_DIR_VARIABLE,
    STACK_SIGNAL_VARIABLE,
)
from ddpdoctor.supervise.procfs import RankProcess, read_environ

PY_SPY_TIMEOUT_S = 20.0
SIGNAL_DUMP_WAIT_S = 3.0


@dataclass(frozen=True)
class Frame:
    """One stack frame."""

    function: str
    file: str
    line: int | None
    native: bool = False

    @property
    def user(self) -> bool:
        """Whether the frame is in the user's code (see :func:`ddpdoctor.frames.is_user_frame`)."""
        return not self.native and is_user_frame(self.file)

    @property
    def short_file(self) -> str:
        """The file name relative to its package (`torch/utils/data/dataloader.py`) or its base name."""
        for marker in ("site-packages/", "dist-packages/"):
            if marker in self.file:
                return self.file.split(marker, 1)[1]
        match = re.search(r"/lib/python\d+\.\d+/(.*)$", self.file)
        return match.group(1) if match else os.path.basename(self.file)

    @property
    def location(self) -> str:
        """`file:line` with the short file name."""
        return f"{self.short_file}:{self.line}" if self.line is not None else self.short_file

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"function": self.function, "file": self.file, "line": self.line, "native": self.native}


@dataclass(frozen=True)
class ThreadStack:
    """One thread's frames, innermost first."""

    name: str
    thread_id: int | None
    frames: tuple[Frame, ...]
    main: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "name": self.name,
            "thread_id": self.thread_id,
            "main": self.main,
            "frames": [f.to_dict() for f in self.frames],
        }


@dataclass(frozen=True)
class ProcessStacks:
    """The stacks of one process and how they were taken (`py-spy`, `signal`), or why they were not."""

    process: RankProcess
    threads: tuple[ThreadStack, ...]
    method: str | None
    error: str | None = None
    helpers: tuple[ProcessStacks, ...] = field(default=())

    @property
    def main_thread(self) -> ThreadStack | None:
        """The thread that runs the script (MainThread), if it was seen."""
        return next((t for t in self.threads if t.main), None)

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "pid": self.process.pid,
            "rank": self.process.rank,
            "local_rank": self.process.local_rank,
            "command": self.process.command,
            "method": self.method,
            "error": self.error,
            "threads": [t.to_dict() for t in self.threads],
            "helpers": [h.to_dict() for h in self.helpers],
        }


def py_spy_path() -> str | None:
    """The py-spy executable: beside this Python (a virtual environment's bin) or on PATH."""
    beside = Path(sys.executable).parent / "py-spy"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("py-spy")


def _is_thread_entry(frame: Frame) -> bool:
    return frame.function.endswith("_bootstrap") and frame.short_file == "threading.py"


def _py_spy_frame(raw: dict[str, Any]) -> Frame:
    """A py-spy frame; native ones (with `--native`) have a library for a file and no line."""
    file = str(raw.get("filename") or "")
    line = raw.get("line")
    number = line if isinstance(line, int) and line > 0 else None
    return Frame(str(raw.get("name", "?")), file, number, native=number is None and not file.endswith(".py"))


def parse_py_spy_json(text: str, pid: int) -> tuple[ThreadStack, ...]:
    """Threads from `py-spy dump --json` output."""
    threads = []
    for thread in json.loads(text):
        frames = tuple(_py_spy_frame(f) for f in thread.get("frames", []))
        name = str(thread.get("thread_name") or "")
        main = thread.get("os_thread_id") == pid or name == "MainThread"
        threads.append(ThreadStack(name=name, thread_id=thread.get("os_thread_id"), frames=frames, main=main))
    return tuple(threads)


_FH_THREAD = re.compile(
    r"^(Current thread|Thread) (0x[0-9a-f]+)(?: \[(?P<name>[^\]]*)\])? \(most recent call first\):"
)
_FH_FRAME = re.compile(r'^\s+File "(?P<file>[^"]*)", line (?P<line>\d+|\?\?\?) in (?P<func>\S+)')


def parse_faulthandler(text: str) -> tuple[ThreadStack, ...]:
    """Threads from the last dump in a faulthandler file (`Thread 0x... (most recent call first):`)."""
    blocks: list[tuple[str, list[Frame]]] = []
    for line in text.splitlines():
        head = _FH_THREAD.match(line)
        if head:
            if line.startswith("Current thread") and blocks and _dump_complete(blocks):
                blocks = []  # a later dump starts: keep only the newest one
            blocks.append((head.group("name") or head.group(2), []))
            continue
        frame = _FH_FRAME.match(line)
        if frame and blocks:
            number = frame.group("line")
            blocks[-1][1].append(
                Frame(frame.group("func"), frame.group("file"), int(number) if number.isdigit() else None)
            )
    threads = []
    for name, frames in blocks:
        # The main thread is the one whose outermost frame is not a threading bootstrap.
        main = bool(frames) and not _is_thread_entry(frames[-1])
        threads.append(ThreadStack(name=name, thread_id=None, frames=tuple(frames), main=main))
    return tuple(threads)


def _dump_complete(blocks: list[tuple[str, list[Frame]]]) -> bool:
    return any(frames and not _is_thread_entry(frames[-1]) for _, frames in blocks)


def _py_spy_dump(executable: str, pid: int, native: bool) -> tuple[tuple[ThreadStack, ...], str | None]:
    command = [executable, "dump", "--pid", str(pid), "--json"]
    if native:
        command.append("--native")
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=PY_SPY_TIMEOUT_S, stdin=subprocess.DEVNULL
        )
    except subprocess.TimeoutExpired:
        return (), f"py-spy did not answer within {PY_SPY_TIMEOUT_S:g} s"
    if done.returncode != 0:
        first = next((line for line in done.stderr.splitlines() if line.strip()), "no message")
        return (), f"py-spy failed: {first.strip()}"
    try:
        return parse_py_spy_json(done.stdout, pid), None
    except (ValueError, TypeError, AttributeError) as exc:
        return (), f"py-spy output unreadable: {exc}"


def _signal_dump(pid: int) -> tuple[tuple[ThreadStack, ...], str | None]:
    env = read_environ(pid)
    folder = env.get(STACK_DIR_VARIABLE)
    if not folder:
        return (), "no startup hook in this process (not started by `ddpdoctor run`)"
    name = env.get(STACK_SIGNAL_VARIABLE, DEFAULT_STACK_SIGNAL)
    path = Path(folder) / f"pid{pid}{SIGNAL_DUMP_SUFFIX}"
    before = path.stat().st_size if path.exists() else 0
    try:
        os.kill(pid, signal.Signals[name])
    except (ProcessLookupError, PermissionError, KeyError) as exc:
        return (), f"cannot signal the process: {exc}"
    deadline = time.monotonic() + SIGNAL_DUMP_WAIT_S
    while time.monotonic() < deadline:
        time.sleep(0.05)
        size = path.stat().st_size if path.exists() else 0
        if size > before:
            time.sleep(0.1)  # the dump is written frame by frame
            threads = parse_faulthandler(path.read_text(errors="replace")[before:])
            if threads:
                return threads, None
    return (), f"no signal dump appeared in {path}"


def process_stacks(process: RankProcess, *, native: bool = False, py_spy: str | None = None) -> ProcessStacks:
    """The stacks of one process, by py-spy when it is available and can attach, else by signal."""
    errors = []
    if py_spy is not None:
        threads, error = _py_spy_dump(py_spy, process.pid, native)
        if threads:
            return ProcessStacks(process, threads, "py-spy")
        errors.append(error or "py-spy found no thread")
    threads, error = _signal_dump(process.pid)
    if threads:
        return ProcessStacks(process, threads, "signal")
    errors.append(error or "no thread in the signal dump")
    return ProcessStacks(process, (), None, "; ".join(errors))


def collect_stacks(
    processes: Sequence[RankProcess], *, native: bool = False, use_py_spy: bool = True
) -> list[ProcessStacks]:
    """The stacks of every process (and of each rank's helper processes), taken in parallel."""
    executable = py_spy_path() if use_py_spy else None
    helpers = {
        child: RankProcess(child, p.rank, p.local_rank, p.world_size, "")
        for p in processes
        for child in p.children
    }
    everything = [*processes, *helpers.values()]
    if not everything:
        return []
    with ThreadPoolExecutor(max_workers=min(16, len(everything))) as pool:
        taken = list(pool.map(lambda p: process_stacks(p, native=native, py_spy=executable), everything))
    by_pid = {s.process.pid: s for s in taken}
    return [
        ProcessStacks(
            p,
            by_pid[p.pid].threads,
            by_pid[p.pid].method,
            by_pid[p.pid].error,
            tuple(by_pid[c] for c in p.children),
        )
        for p in processes
    ]
