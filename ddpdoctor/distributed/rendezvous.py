"""Bounded coordination through the rendezvous store, so that a missing rank is named, not waited on.

Every rank connects to the job's TCPStore (the torchrun agent's, or one that rank 0 hosts on
MASTER_ADDR:MASTER_PORT, as torch's env:// rendezvous does) and writes `PHASE/RANK` keys. Rank 0
counts arrivals until a deadline and then names the ranks whose keys are missing; the other ranks
wait for rank 0's announcement with a deadline of their own. Nothing here blocks without a bound.
"""

from __future__ import annotations

import importlib
import socket
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from ddpdoctor.distributed.launch import LaunchInfo

POLL_START_S = 0.02
POLL_MAX_S = 0.25


class StoreUnavailable(Exception):
    """The rendezvous store could not be created or reached; the message says what happened."""


@dataclass
class Gathered:
    """What rank 0 collected for one phase: payloads by rank, and the ranks that never arrived."""

    payloads: dict[int, str]
    missing: list[int]


def first_line(exc: BaseException) -> str:
    """The first non-empty line of an exception's text (torch errors carry long C++ traces)."""
    for line in str(exc).splitlines():
        if line.strip():
            return line.strip()
    return type(exc).__name__


def wait_for_listener(host: str, port: int, timeout_s: float) -> str | None:
    """Poll until something accepts TCP connections on host:port; None then, else why not (by the deadline).

    torch's TCPStore client waits up to twice its timeout and logs C++ frames while it retries;
    this plain, bounded poll lets a rank give up on time with one line.
    """
    deadline = time.monotonic() + timeout_s
    pause = POLL_START_S
    problem = "nothing accepted a connection"
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return problem
        try:
            with socket.create_connection((host, port), timeout=min(remaining, 1.0)):
                return None
        except socket.gaierror as exc:
            return f"{host} does not resolve ({exc.strerror or exc})"
        except (OSError, ValueError) as exc:
            problem = f"nothing accepted a connection ({getattr(exc, 'strerror', None) or exc})"
        time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
        pause = min(pause * 2, POLL_MAX_S)


def open_store(launch: LaunchInfo, timeout_s: float, wait_s: float | None = None) -> Any:
    """Connect to (or, on rank 0 without an agent store, host) the TCPStore within `timeout_s`.

    `wait_s` is what is left of `timeout_s` for reaching another rank's store, when this rank's
    start already used part of it.
    """
    dist: Any = importlib.import_module("torch.distributed")
    host_it = launch.rank == 0 and not launch.use_agent_store
    where = f"{launch.master_addr}:{launch.master_port}"
    owner = "the torchrun agent" if launch.use_agent_store else "rank 0"
    start = time.monotonic()
    if not host_it:
        problem = wait_for_listener(launch.master_addr, launch.master_port, wait_s or timeout_s)
        if problem is not None:
            raise StoreUnavailable(
                f"could not reach the rendezvous store at {where} within {timeout_s:g}s of this rank's start "
                f"({owner} hosts it): {problem}"
            )
    remaining = max(1.0, (wait_s or timeout_s) - (time.monotonic() - start))
    try:
        store = dist.TCPStore(
            launch.master_addr,
            launch.master_port,
            None,
            host_it,
            timedelta(seconds=remaining),
            wait_for_workers=False,
            multi_tenant=True,
        )
    except Exception as exc:
        if host_it:
            raise StoreUnavailable(
                f"rank 0 could not open the rendezvous store on {where}: {first_line(exc)}"
            ) from exc
        raise StoreUnavailable(
            f"could not reach the rendezvous store at {where} within {timeout_s:g}s "
            f"({owner} hosts it): {first_line(exc)}"
        ) from exc
    prefix = f"ddpdoctor/{launch.run_id}/{launch.restart_count}"
    return dist.PrefixStore(prefix, store)


class Coordinator:
    """Phase keys in the store: ranks publish, rank 0 gathers with a deadline and announces."""

    def __init__(self, store: Any, rank: int, world_size: int) -> None:
        self.store = store
        self.rank = rank
        self.world_size = world_size

    def publish(self, phase: str, payload: str = "1") -> None:
        """Record this rank's arrival at `phase` with a payload."""
        self.store.set(f"{phase}/{self.rank}", payload)
        self.store.add(f"{phase}/count", 1)

    def gather(self, phase: str, timeout_s: float, *, expect: int | None = None) -> Gathered:
        """Rank 0: wait until every rank (or `expect` ranks) published `phase` or the deadline passes."""
        wanted = self.world_size if expect is None else expect
        deadline = time.monotonic() + timeout_s
        pause = POLL_START_S
        while self.store.add(f"{phase}/count", 0) < wanted and time.monotonic() < deadline:
            time.sleep(pause)
            pause = min(pause * 2, POLL_MAX_S)
        payloads: dict[int, str] = {}
        missing: list[int] = []
        for rank in range(self.world_size):
            key = f"{phase}/{rank}"
            if self.store.check([key]):
                payloads[rank] = self.store.get(key).decode("utf-8")
            else:
                missing.append(rank)
        return Gathered(payloads, missing)

    def announce(self, key: str, value: str) -> None:
        """Rank 0: publish a decision every other rank is waiting for."""
        self.store.set(f"announce/{key}", value)

    def await_announcement(self, key: str, timeout_s: float) -> str:
        """Other ranks: rank 0's decision; StoreUnavailable when it does not come within `timeout_s`."""
        full = f"announce/{key}"
        try:
            self.store.wait([full], timedelta(seconds=timeout_s))
            return str(self.store.get(full).decode("utf-8"))
        except Exception as exc:
            raise StoreUnavailable(
                f"rank 0 did not announce {key!r} within {timeout_s:g}s: {first_line(exc)}"
            ) from exc
