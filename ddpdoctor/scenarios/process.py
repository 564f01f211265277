"""Run one scenario process with a time bound and leave nothing behind.

The process starts in a new session (its own process group), dies with ddpdoctor
(:mod:`ddpdoctor.children`) and carries a unique token in its environment. torchrun starts its workers in sessions of their own, so once the launcher is done
every process that still carries the token is found through /proc and killed by pid. Only
processes this module started carry the token.
"""

from __future__ import annotations

import codecs
import contextlib
import functools
import os
import signal
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ddpdoctor.children import die_with_parent
from ddpdoctor.supervise.procfs import processes_with_variable

TOKEN_VARIABLE = "DDPDOCTOR_SCENARIO_TOKEN"
# After the bound, SIGTERM gives torchrun this long to stop its workers before SIGKILL.
TERMINATE_GRACE_S = 3.0


@dataclass(frozen=True)
class ProcessRun:
    """What one bounded run produced."""

    command: tuple[str, ...]
    output: str
    returncode: int | None
    timed_out: bool
    duration: float
    token: str
    stragglers: tuple[int, ...]


def processes_with_token(token: str) -> list[int]:
    """Pids of live processes whose environment carries `token` (Linux /proc; empty elsewhere)."""
    return processes_with_variable(TOKEN_VARIABLE, token)


def _kill_group(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


def _reap_stragglers(token: str) -> tuple[int, ...]:
    stragglers = tuple(processes_with_token(token))
    for pid in stragglers:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            continue
    deadline = time.monotonic() + 5.0
    while processes_with_token(token) and time.monotonic() < deadline:
        time.sleep(0.05)
    return stragglers


def run_bounded(
    command: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: Path,
    bound_s: float,
    on_output: Callable[[str], None] | None = None,
) -> ProcessRun:
    """Run `command` (stdout and stderr together, as a terminal shows them) for at most `bound_s`."""
    token = uuid.uuid4().hex
    started = time.monotonic()
    proc = subprocess.Popen(
        list(command),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        env={**env, TOKEN_VARIABLE: token},
        cwd=cwd,
        start_new_session=True,
        preexec_fn=functools.partial(die_with_parent, os.getpid()),
    )
    assert proc.stdout is not None
    chunks: list[str] = []
    fd = proc.stdout.fileno()

    def pump() -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        while data := os.read(fd, 65536):
            text = decoder.decode(data)
            chunks.append(text)
            if on_output is not None and text:
                on_output(text)
        tail = decoder.decode(b"", final=True)
        if tail:
            chunks.append(tail)
            if on_output is not None:
                on_output(tail)

    reader = threading.Thread(target=pump, name="scenario-output", daemon=True)
    reader.start()
    timed_out = False
    try:
        try:
            proc.wait(timeout=bound_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(proc.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=TERMINATE_GRACE_S)
    finally:
        # Also on Ctrl-C: nothing the run started may outlive it.
        if proc.poll() is None:
            _kill_group(proc.pid, signal.SIGKILL)
            proc.wait()
        stragglers = _reap_stragglers(token)
        reader.join(timeout=5.0)
        proc.stdout.close()
    return ProcessRun(
        command=tuple(command),
        output="".join(chunks),
        returncode=None if timed_out else proc.returncode,
        timed_out=timed_out,
        duration=time.monotonic() - started,
        token=token,
        stragglers=stragglers,
    )
