"""Progress beats for `ddpdoctor run`: a rank tells the supervisor that its training still moves.

A job that keeps printing (a logging thread, a progress bar's refresh) while its training loop is
stuck never goes silent, so `ddpdoctor run` cannot see the hang in its output. Under `run` (which
sets :data:`HEARTBEAT_DIR_VARIABLE`), `guard()`, `preflight()` and :func:`heartbeat` start one
daemon thread in the rank's process. Once a second it asks whether the rank made progress and, if
so, rewrites `<dir>/rank<N>.beat` (`<pid> <count> <source>`, the count going up by one). The
supervisor reads the files; a rank whose count stops for `--hang-after` seconds is stalled.

Progress is a call of :func:`heartbeat` (source `steps`: once the loop calls it, only its calls
count), or else a change in the position of the watched thread (source `stack`: the thread that
last entered `guard()`, called `preflight()` or :func:`heartbeat`, falling back to the main
thread), its stack as (code, line) pairs. A thread waiting in a collective, a data loader or a
sleep keeps one position; a thread that trains moves.

Without the variable (no `ddpdoctor run`, or `run --no-instrument`) nothing is started. Nothing
here raises into the user's process, and a process forked from a beating rank (a data-loader
worker) stays silent.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from dataclasses import dataclass
from types import CodeType, FrameType

from ddpdoctor._placement import placement_from_env

HEARTBEAT_DIR_VARIABLE = "DDPDOCTOR_HEARTBEAT_DIR"
BEAT_SUFFIX = ".beat"
BEAT_INTERVAL_S = 1.0
STEPS = "steps"
STACK = "stack"
_RECORD_WIDTH = 47  # every record has the same length, so a rewrite in place never leaves a tail
_MAX_DEPTH = 256


def beat_record(pid: int, count: int, source: str) -> bytes:
    """The content of a beat file: `<pid> <count> <source>`, padded to a fixed width."""
    return f"{pid} {count} {source}".ljust(_RECORD_WIDTH).encode() + b"\n"


@dataclass(frozen=True)
class Beat:
    """One beat file as the supervisor reads it."""

    pid: int
    count: int
    source: str


def parse_beat(data: bytes) -> Beat | None:
    """A beat file's content, or None when it is not one (half written, or foreign)."""
    parts = data.decode(errors="replace").split()
    if len(parts) != 3 or not parts[0].isdigit() or not parts[1].isdigit() or parts[2] not in (STEPS, STACK):
        return None
    return Beat(int(parts[0]), int(parts[1]), parts[2])


Position = tuple[tuple[CodeType, int], ...]


class _Beater:
    """The beat of one process: the watched thread, the step counter and the thread that writes."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.pid = os.getpid()
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        self.watched = threading.get_ident()
        self.steps = 0
        self.seen_steps = 0
        self.position: Position = ()
        self.count = 0
        self._write()
        threading.Thread(target=self._run, name="ddpdoctor-heartbeat", daemon=True).start()

    def _write(self) -> None:
        os.pwrite(self.fd, beat_record(self.pid, self.count, STEPS if self.steps else STACK), 0)

    def _frame(self) -> FrameType | None:
        frames = sys._current_frames()
        frame = frames.get(self.watched)
        if frame is None:
            main = threading.main_thread().ident
            frame = frames.get(main) if main is not None else None
        return frame

    def _moved(self) -> bool:
        if self.steps:
            moved = self.steps != self.seen_steps
            self.seen_steps = self.steps
            return moved
        positions: list[tuple[CodeType, int]] = []
        frame = self._frame()
        while frame is not None and len(positions) < _MAX_DEPTH:
            positions.append((frame.f_code, frame.f_lineno))
            frame = frame.f_back
        position = tuple(positions)
        moved = position != self.position
        self.position = position
        return moved

    def _run(self) -> None:
        try:
            while True:
                time.sleep(BEAT_INTERVAL_S)
                if self._moved():
                    self.count += 1
                    self._write()
        except Exception:
            # A beat that cannot go on must not look like a stalled rank: take the file away.
            with contextlib.suppress(OSError):
                os.unlink(self.path)


_LOCK = threading.Lock()
_looked_in: int | None = None  # the pid of the process that looked for the heartbeat folder
_beater: _Beater | None = None


def _open_beater() -> _Beater | None:
    folder = os.environ.get(HEARTBEAT_DIR_VARIABLE)
    rank = placement_from_env(os.environ).rank
    if not folder or rank is None or not os.path.isdir(folder):
        return None
    return _Beater(os.path.join(folder, f"rank{rank}{BEAT_SUFFIX}"))


def _current() -> _Beater | None:
    global _looked_in, _beater
    pid = os.getpid()
    if _looked_in == pid:
        return _beater
    with _LOCK:
        # A fork of a process that looked (a data-loader worker of a rank) stays silent: the rank beats.
        if _looked_in != pid:
            first, _looked_in, _beater = _looked_in is None, pid, None
            if first:
                _beater = _open_beater()
    return _beater


def watch_this_thread() -> None:
    """Under `ddpdoctor run`: start beating (once per process) and watch the calling thread's position."""
    try:
        beater = _current()
        if beater is not None:
            beater.watched = threading.get_ident()
    except Exception:
        return


def heartbeat() -> None:
    """Tell `ddpdoctor run` that the training loop made progress: call it once per step.

    From the first call on, a rank whose calls stop for `--hang-after` seconds counts as hung even
    while the job keeps printing (and even while it keeps a CPU busy). It costs well under a
    microsecond; without `ddpdoctor run` it does nothing, and it never raises.
    """
    try:
        beater = _current()
        if beater is not None:
            beater.steps += 1
            beater.watched = threading.get_ident()
    except Exception:
        return
