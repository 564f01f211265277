"""The gradient all-reduce: a model of Burn's distributed sync server, plus our safer default.

Burn (0.21+) averages gradients inside the autodiff backward pass. Each worker announces which
parameters take part (`register`), hands over every final gradient (`submit`) and then blocks in
`sync` until the server calls it back. The server, a single unnamed thread with an inbox:

- counts registrations and launches the all-reduce of a parameter once every device has
  registered and every expected gradient of that parameter is queued;
- keeps one callback per *device id* in a map and releases the waiting workers once the queue of
  pending all-reduces is empty.

So a devices list that names one device twice makes two workers share a key: the second sync
replaces (drops) the first worker's callback, which then panics with `Can receive callback:
RecvError`, and the server itself later fails to find the key (`Option::unwrap()` on `None`).
Nothing in Burn times out; a peer that never arrives leaves the others blocked forever. That
behaviour is kept when the collective is *faithful*. The default adds what Burn lacks:

- a timeout: a worker that waited `timeout` seconds panics with a report naming the workers
  that never arrived (:func:`stall_report`);
- failure propagation: :meth:`SyncServer.abort` releases every waiter at once when a worker
  failed, so nobody is left hanging;
- interrupter awareness: a waiter gives the step up when training was asked to stop (a peer hit
  a dataset error and left), instead of waiting for a peer that is gone.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ddpdoctor.runtime.panic import PanicHook, RustPanic, crate_location, here, panic
from ddpdoctor.runtime.sync import Disconnected, Halted, Oneshot, Scope

_BACKEND = "burn-backend-0.22.0-pre.2"
_CLIENT = "src/backend/distributed/client.rs"
_SERVER = "src/backend/distributed/server.rs"
RECV_CALLBACK_LOCATION = crate_location(_BACKEND, _CLIENT, 67, 30)
SERVER_UNWRAP_LOCATION = crate_location(_BACKEND, _SERVER, 83, 63)
SEND_LOCATIONS = {
    "register": crate_location(_BACKEND, _CLIENT, 47, 14),
    "submit": crate_location(_BACKEND, _CLIENT, 55, 14),
    "sync": crate_location(_BACKEND, _CLIENT, 65, 14),
}


class Aborted(Halted):
    """Unwinds a waiter quietly when the collective was aborted because another worker failed."""


class StepAbandoned(Exception):
    """Raised in a waiter when training was asked to stop while it waited (default mode only)."""


@dataclass(frozen=True)
class Participant:
    """A worker as the collective knows it: its index in the devices list and its device."""

    index: int
    device: str

    @property
    def label(self) -> str:
        """`the main worker (devices[0] = cpu:0)` or `worker 1 (devices[2] = cpu:2)`, Burn's numbering."""
        who = "the main worker" if self.index == 0 else f"worker {self.index - 1}"
        return f"{who} (devices[{self.index}] = {self.device})"


def stall_report(timeout: float, step: int, missing: Sequence[Participant]) -> str:
    """The panic message of a worker whose all-reduce timed out (the default mode's stall report)."""
    names = ", ".join(p.label for p in missing) or "no worker (all arrived late)"
    return (
        f"all-reduce timed out after {timeout:g} s at step {step}: no gradients from {names}; "
        "it is stalled (deadlock, hung data loader or stuck kernel)"
    )


@dataclass
class _Register:
    who: Participant
    step: int
    params: tuple[int, ...]


@dataclass
class _Submit:
    who: Participant
    step: int
    param: int
    grad: Any


@dataclass
class _Sync:
    who: Participant
    step: int
    callback: Oneshot[Callable[[], None]]


@dataclass
class _Round:
    """What the server knows of one round (one backward pass on every device)."""

    queue: dict[int, list[Any]] = field(default_factory=dict)
    required: dict[int, int] = field(default_factory=dict)
    syncing: list[Participant] = field(default_factory=list)
    synced: int = 0
    callbacks: dict[str, Oneshot[Callable[[], None]]] = field(default_factory=dict)
    arrived: set[int] = field(default_factory=set)  # indices of the workers that registered


class SyncServer:
    """The all-reduce server thread and the client calls workers make on it.

    Burn keeps a single round state and relies on message order to keep rounds apart; the model
    keys its state by step so that a fast worker's next registration can never land in a round
    that is still finishing, a race that Python's scheduling would make far likelier than Rust's.
    """

    def __init__(
        self,
        scope: Scope,
        hook: PanicHook,
        participants: Sequence[Participant],
        *,
        timeout: float | None,
        should_stop: Callable[[], bool] | None,
    ) -> None:
        self._scope = scope
        self._hook = hook
        self._participants = tuple(participants)
        self._timeout = timeout
        self._should_stop = should_stop
        self._inbox: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._rounds: dict[int, _Round] = {}
        self._lock = threading.Lock()
        self._alive = True
        self._aborted: str | None = None
        self._waiters: list[Oneshot[Callable[[], None]]] = []
        self.reduced_rounds = 0
        scope.spawn(self._serve, name="ddp-sync-server")

    @property
    def faithful(self) -> bool:
        """True when the collective behaves like Burn's: no timeout, no propagation."""
        return self._timeout is None

    # --- server thread ----------------------------------------------------------------------

    def _serve(self) -> None:
        try:
            while True:
                msg = self._next_message()
                if msg is None:
                    return
                with self._lock:
                    self._process(msg)
        except RustPanic:
            # The server's state, and with it every stored callback, is dropped: waiters fail.
            with self._lock:
                self._alive = False
                callbacks = [cb for r in self._rounds.values() for cb in r.callbacks.values()]
            for callback in callbacks:
                callback.close()
            raise

    def _next_message(self) -> object | None:
        while True:
            self._scope.check()
            try:
                msg = self._inbox.get(timeout=0.02)
            except queue.Empty:
                continue
            return None if msg == "close" else msg

    def _process(self, msg: object) -> None:
        if isinstance(msg, _Register):
            state = self._rounds.setdefault(msg.step, _Round())
            for param in msg.params:
                state.required[param] = state.required.get(param, 0) + 1
            state.arrived.add(msg.who.index)
        elif isinstance(msg, _Submit):
            state = self._rounds.setdefault(msg.step, _Round())
            state.queue.setdefault(msg.param, []).append(msg.grad)
            self._launch_ready(msg.step)
        elif isinstance(msg, _Sync):
            state = self._rounds.setdefault(msg.step, _Round())
            # Keyed by device: a duplicate device replaces (drops) the other worker's callback.
            replaced = state.callbacks.get(msg.who.device)
            if replaced is not None:
                replaced.close()
            state.callbacks[msg.who.device] = msg.callback
            state.syncing.append(msg.who)
            self._release_syncs(msg.step)

    def _launch_ready(self, step: int) -> None:
        state = self._rounds[step]
        if len(state.arrived) != len(self._participants):
            return
        launched = False
        for param, needed in list(state.required.items()):
            grads = state.queue.setdefault(param, [])
            if needed == len(grads):
                _mean_in_place(grads)
                del state.queue[param]
                del state.required[param]
                launched = True
        if launched:
            self._release_syncs(step)

    def _release_syncs(self, step: int) -> None:
        state = self._rounds[step]
        if not state.queue:
            for who in list(state.syncing):
                callback = state.callbacks.pop(who.device, None)
                if callback is None:
                    raise panic(
                        self._hook, SERVER_UNWRAP_LOCATION, "called `Option::unwrap()` on a `None` value"
                    )
                callback.send(_backend_sync)
                state.synced += 1
            state.syncing.clear()
        if state.synced == len(self._participants):
            self.reduced_rounds += 1
            del self._rounds[step]

    # --- client side (called on worker threads) -----------------------------------------------

    def _send(self, what: str, msg: object) -> None:
        if self._aborted is not None:
            raise Aborted(self._aborted)
        with self._lock:
            alive = self._alive
        if not alive:
            raise panic(
                self._hook,
                SEND_LOCATIONS[what],
                "called `Result::unwrap()` on an `Err` value: SendError { .. }",
            )
        self._inbox.put(msg)

    def register(self, who: Participant, step: int, params: Sequence[int]) -> None:
        """Announce the parameters of this backward pass (`register_sync_parameters`)."""
        self._send("register", _Register(who, step, tuple(params)))

    def submit(self, who: Participant, step: int, param: int, grad: Any) -> None:
        """Hand over one final gradient; it is averaged in place (`submit_gradient_sync`)."""
        self._send("submit", _Submit(who, step, param, grad))

    def sync(self, who: Participant, step: int) -> None:
        """Block until every device's gradients are averaged (`submit_sync_collective`)."""
        callback: Oneshot[Callable[[], None]] = Oneshot()
        with self._lock:
            self._waiters.append(callback)
        self._send("sync", _Sync(who, step, callback))
        closure = self._wait_faithful(callback) if self.faithful else self._wait_default(who, callback, step)
        with self._lock:
            self._waiters.remove(callback)
        closure()

    def _wait_faithful(self, callback: Oneshot[Callable[[], None]]) -> Callable[[], None]:
        try:
            closure = callback.recv(self._scope)
        except Disconnected:
            raise panic(self._hook, RECV_CALLBACK_LOCATION, "Can receive callback: RecvError") from None
        assert closure is not None
        return closure

    def _wait_default(
        self, who: Participant, callback: Oneshot[Callable[[], None]], step: int
    ) -> Callable[[], None]:
        assert self._timeout is not None
        deadline = time.monotonic() + self._timeout
        while True:
            try:
                closure = callback.recv(self._scope, 0.05)
            except Disconnected:
                raise panic(self._hook, RECV_CALLBACK_LOCATION, "Can receive callback: RecvError") from None
            if closure is not None:
                return closure
            if self._should_stop is not None and self._should_stop():
                raise StepAbandoned(f"training stopped while {who.label} waited in the all-reduce")
            if time.monotonic() >= deadline:
                raise panic(self._hook, here(), stall_report(self._timeout, step, self.missing(step)))

    def missing(self, step: int) -> list[Participant]:
        """Participants that have not started the backward pass of `step`."""
        with self._lock:
            state = self._rounds.get(step)
            arrived = set() if state is None else set(state.arrived)
        return [p for p in self._participants if p.index not in arrived]

    def abort(self, reason: str) -> None:
        """Release every waiter with :class:`Aborted` (failure propagation; default mode only)."""
        with self._lock:
            self._aborted = reason
            waiters = list(self._waiters)
        for waiter in waiters:
            waiter.close(Aborted(reason))

    def close(self) -> None:
        """Stop the server thread (the `Close` message sent when the context is dropped)."""
        self._inbox.put("close")


def _backend_sync() -> None:
    """`B::sync_collective(device)`: nothing to fence on a CPU device."""


def _mean_in_place(grads: list[Any]) -> None:
    """`B::all_reduce(.., Mean, ..)` followed by the in-place swap: every replica gets the mean."""
    import torch

    mean = torch.stack([g.detach() for g in grads]).mean(dim=0)
    for grad in grads:
        grad.copy_(mean)
