"""The processes of a job, read from /proc: who is which rank, their children, their CPU time.

torchrun starts every worker in a session of its own, so process groups do not describe a job;
parent links and the launcher's environment variables (`RANK`, `LOCAL_RANK`, `WORLD_SIZE`) do.
Everything here is Linux-only and returns nothing elsewhere.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")
# Variables that give a process's global rank, in the order they are trusted.
RANK_VARIABLES = ("RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID")
WORLD_VARIABLES = ("WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS")


@dataclass(frozen=True)
class ProcessInfo:
    """One line of the process table."""

    pid: int
    ppid: int
    state: str
    cpu_ticks: int
    command: str


@dataclass(frozen=True)
class RankProcess:
    """The process of one rank: the topmost process of a job that carries that rank."""

    pid: int
    rank: int | None
    local_rank: int | None
    world_size: int | None
    command: str
    children: tuple[int, ...] = ()
    local_world_size: int | None = None

    @property
    def label(self) -> str:
        """`rank 3` or, for a process without a rank, `pid 1234`."""
        return f"rank {self.rank}" if self.rank is not None else f"pid {self.pid}"


def read_process(pid: int) -> ProcessInfo | None:
    """The process-table line of `pid`, or None when it is gone or unreadable."""
    try:
        stat = (PROC / str(pid) / "stat").read_text()
        raw = (PROC / str(pid) / "cmdline").read_bytes()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[-1].split()
    command = " ".join(part.decode(errors="replace") for part in raw.split(b"\0") if part)
    # Fields after the command name: state ppid pgrp session ... utime(12) stime(13).
    return ProcessInfo(
        pid=pid,
        ppid=int(fields[1]),
        state=fields[0],
        cpu_ticks=int(fields[11]) + int(fields[12]),
        command=command or stat.split("(", 1)[-1].rsplit(")", 1)[0],
    )


def read_environ(pid: int) -> dict[str, str]:
    """The environment `pid` was started with (empty when unreadable)."""
    try:
        raw = (PROC / str(pid) / "environ").read_bytes()
    except OSError:
        return {}
    env = {}
    for item in raw.split(b"\0"):
        key, sep, value = item.partition(b"=")
        if sep:
            env[key.decode(errors="replace")] = value.decode(errors="replace")
    return env


def process_table() -> dict[int, ProcessInfo]:
    """Every live (not zombie) process that can be read."""
    table = {}
    with contextlib.suppress(OSError):
        for entry in PROC.iterdir():
            if entry.name.isdigit():
                info = read_process(int(entry.name))
                if info is not None and info.state != "Z":
                    table[info.pid] = info
    return table


def descendants(root: int, table: Mapping[int, ProcessInfo] | None = None) -> list[int]:
    """Pids of every live process below `root`, parents before children."""
    table = table if table is not None else process_table()
    children: dict[int, list[int]] = {}
    for info in table.values():
        children.setdefault(info.ppid, []).append(info.pid)
    found: list[int] = []
    queue = sorted(children.get(root, []))
    while queue:
        pid = queue.pop(0)
        found.append(pid)
        queue.extend(sorted(children.get(pid, [])))
    return found


def _int_variable(env: Mapping[str, str], names: Iterable[str]) -> int | None:
    for name in names:
        value = env.get(name, "")
        if value.strip().isdigit():
            return int(value)
    return None


def rank_of(env: Mapping[str, str]) -> int | None:
    """The global rank a launcher gave a process, from its environment."""
    return _int_variable(env, RANK_VARIABLES)


def rank_processes(pids: Iterable[int], table: Mapping[int, ProcessInfo] | None = None) -> list[RankProcess]:
    """The rank processes among `pids`: a process whose parent carries the same rank is a helper
    (a data-loader worker) and is listed as a child of its rank instead."""
    table = table if table is not None else process_table()
    candidates: dict[int, dict[str, str]] = {}
    for pid in pids:
        if pid in table:
            candidates[pid] = read_environ(pid)
    ranks: dict[int, int | None] = {pid: rank_of(env) for pid, env in candidates.items()}
    tops: dict[int, list[int]] = {}
    for pid in candidates:
        if ranks[pid] is None:
            continue
        top = pid
        parent = table[pid].ppid
        while parent in ranks and ranks[parent] == ranks[pid]:
            top, parent = parent, table[parent].ppid
        tops.setdefault(top, [])
        if top != pid:
            tops[top].append(pid)
    result = [
        RankProcess(
            pid=pid,
            rank=ranks[pid],
            local_rank=_int_variable(candidates[pid], ("LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK")),
            world_size=_int_variable(candidates[pid], WORLD_VARIABLES),
            command=table[pid].command,
            children=tuple(sorted(helpers)),
            local_world_size=_int_variable(
                candidates[pid], ("LOCAL_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE")
            ),
        )
        for pid, helpers in tops.items()
    ]
    return sorted(result, key=lambda r: (r.rank if r.rank is not None else -1, r.pid))


def job_ranks(root: int) -> list[RankProcess]:
    """The rank processes of the job started as `root` (a launcher, or a rank itself)."""
    table = process_table()
    return rank_processes([root, *descendants(root, table)], table)


def ranked_processes_of_user() -> list[RankProcess]:
    """`stacks --all`: every process of this user that a launcher gave a rank."""
    uid = os.getuid()
    table = process_table()
    mine = []
    for pid in table:
        with contextlib.suppress(OSError):
            if (PROC / str(pid)).stat().st_uid == uid and pid != os.getpid():
                mine.append(pid)
    return rank_processes(mine, table)


def activity(pids: Iterable[int]) -> tuple[int, bool]:
    """Total user+system CPU ticks of `pids` that still exist, and whether any is running or runnable."""
    total = 0
    running = False
    for pid in pids:
        info = read_process(pid)
        if info is not None:
            total += info.cpu_ticks
            running = running or info.state == "R"
    return total, running


def alive(pids: Iterable[int]) -> list[int]:
    """The pids among `pids` that still exist and are not zombies."""
    result = []
    for pid in pids:
        info = read_process(pid)
        if info is not None and info.state != "Z":
            result.append(pid)
    return result


def terminate(pids: Iterable[int], *, grace_s: float = 3.0) -> list[int]:
    """SIGTERM `pids`, SIGKILL what is left after `grace_s` (at once when 0), and wait until they are gone.
    Killed at once, every process is stopped (SIGSTOP) before any is killed: none sees a peer die and
    prints an error of its own (a rank's `Connection closed by peer`) that a later `explain` would
    take for the cause.

    Returns the pids that survived even SIGKILL (normally none).
    """
    targets = list(pids)
    steps = [(signal.SIGTERM, grace_s)] if grace_s > 0 else [(signal.SIGSTOP, 0.0)]
    for sig, wait_s in [*steps, (signal.SIGKILL, 5.0)]:
        for pid in alive(targets):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
        deadline = time.monotonic() + wait_s
        while alive(targets) and time.monotonic() < deadline:
            time.sleep(0.05)
        if not alive(targets):
            return []
    return alive(targets)


def has_variable(pid: int, name: str, value: str) -> bool:
    """Whether `pid` was started with `name=value` in its environment (without decoding the rest)."""
    try:
        raw = (PROC / str(pid) / "environ").read_bytes()
    except OSError:
        return False
    return f"{name}={value}".encode() in raw.split(b"\0")


def processes_with_variable(name: str, value: str) -> list[int]:
    """Pids of live processes whose environment has `name=value` (a job's token)."""
    return [pid for pid in process_table() if has_variable(pid, name, value)]
