"""Threads and blocking primitives with Rust semantics, all of which a shutdown can release.

Rust's `JoinHandle`, a oneshot channel, a bounded channel and a poisoning mutex, built on
`threading`. Real Burn leaves hung threads to die with the process; a Python model that runs
inside a test must not leave them behind, so every blocking call here watches the
:class:`Scope`'s halt flag and unwinds with :class:`Halted` when it is set. Halting stands for the
process exiting: it never prints anything.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from ddpdoctor.runtime.panic import Location, PanicHook, RustPanic, panic

T = TypeVar("T")

# How often a blocked call looks at the halt flag; notifications themselves wake waiters at once.
_POLL_S = 0.02


class Halted(BaseException):
    """Unwinds a thread blocked when the runtime shuts down (the model of the process exiting)."""


class Disconnected(Exception):
    """The other end of a channel is gone (Rust's `RecvError` / `SendError`)."""


class RustThread(threading.Thread):
    """A daemon thread that knows the name Rust's panic hook gives it (None: `<unnamed>`)."""

    def __init__(self, target: Callable[[], None], *, name: str, rust_name: str | None) -> None:
        super().__init__(target=target, name=name, daemon=True)
        self.rust_name = rust_name


@dataclass(frozen=True)
class Outcome(Generic[T]):
    """What `JoinHandle::join` returns: `Ok(value)` or `Err(payload)`."""

    ok: bool
    value: T | None = None
    payload: object = None


@dataclass
class Scope:
    """Every thread of one runtime, the halt flag they watch, and a timeline of what happened."""

    halted: threading.Event = field(default_factory=threading.Event)
    threads: list[RustThread] = field(default_factory=list)
    bugs: list[BaseException] = field(default_factory=list)
    timeline: list[tuple[float, str]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, event: str) -> None:
        """Note `event` with the current `perf_counter` time (read back with :meth:`first`)."""
        now = time.perf_counter()
        with self._lock:
            self.timeline.append((now, event))

    def first(self, prefix: str) -> float | None:
        """The time of the first recorded event starting with `prefix`."""
        with self._lock:
            return next((t for t, e in self.timeline if e.startswith(prefix)), None)

    def spawn(self, fn: Callable[[], T], *, name: str, rust_name: str | None = None) -> JoinHandle[T]:
        """Start `fn` on a new thread; a panic in it becomes `Err(payload)` for `join`."""
        handle: JoinHandle[T] = JoinHandle(self)

        def body() -> None:
            try:
                handle._finish(Outcome(ok=True, value=fn()))
            except RustPanic as exc:
                handle._finish(Outcome(ok=False, payload=exc.payload))
            except Halted:
                handle._finish(None)
            except Exception as exc:  # a bug in the model itself: keep it for the caller to see
                with self._lock:
                    self.bugs.append(exc)
                handle._finish(Outcome(ok=False, payload=exc))
            finally:
                self.record(f"ended {name}")

        thread = RustThread(body, name=name, rust_name=rust_name)
        with self._lock:
            self.threads.append(thread)
        thread.start()
        return handle

    def check(self) -> None:
        """Unwind with :class:`Halted` if the runtime is shutting down."""
        if self.halted.is_set():
            raise Halted

    def wait_until(self, cond: threading.Condition, ready: Callable[[], bool], timeout: float | None) -> bool:
        """With `cond` held, wait until `ready()`; False on timeout, :class:`Halted` on shutdown."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not ready():
            self.check()
            if deadline is None:
                cond.wait(_POLL_S)
                continue
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            cond.wait(min(_POLL_S, remaining))
        return True

    def sleep(self, seconds: float) -> None:
        """Sleep, but unwind at once on shutdown."""
        if self.halted.wait(seconds):
            raise Halted

    def block_forever(self) -> None:
        """What a deadlocked or stalled thread does: nothing, until the process ends."""
        while not self.halted.wait(_POLL_S * 10):
            pass
        raise Halted

    def halt(self, join_timeout: float = 5.0) -> list[str]:
        """Release every blocked thread and join them all; return the names of any still alive."""
        self.halted.set()
        deadline = time.monotonic() + join_timeout
        with self._lock:
            threads = list(self.threads)
        for thread in threads:
            if thread is not threading.current_thread():
                thread.join(max(0.0, deadline - time.monotonic()))
        return [t.name for t in threads if t.is_alive() and t is not threading.current_thread()]

    def alive(self) -> list[str]:
        """Names of this scope's threads that are still running."""
        with self._lock:
            return [t.name for t in self.threads if t.is_alive()]


class JoinHandle(Generic[T]):
    """Rust's `JoinHandle`: `join` blocks until the thread ends and returns its outcome."""

    def __init__(self, scope: Scope) -> None:
        self._scope = scope
        self._cond = threading.Condition()
        self._done = False
        self._outcome: Outcome[T] | None = None

    def _finish(self, outcome: Outcome[T] | None) -> None:
        with self._cond:
            self._outcome = outcome
            self._done = True
            self._cond.notify_all()

    @property
    def finished(self) -> bool:
        """True once the thread has ended (`JoinHandle::is_finished`)."""
        with self._cond:
            return self._done

    def join(self, timeout: float | None = None) -> Outcome[T] | None:
        """The thread's outcome; None on timeout or when the thread was halted."""
        with self._cond:
            if not self._scope.wait_until(self._cond, lambda: self._done, timeout):
                return None
            return self._outcome


class Oneshot(Generic[T]):
    """A single-value channel; dropping the sender makes `recv` fail (`RecvError`)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._value: list[T] = []
        self._closed = False
        self._close_reason: BaseException | None = None

    def send(self, value: T) -> bool:
        """Deliver the value; False when the channel was already closed."""
        with self._cond:
            if self._closed:
                return False
            self._value.append(value)
            self._cond.notify_all()
            return True

    def close(self, reason: BaseException | None = None) -> None:
        """Drop the sender; a waiting `recv` raises `reason` or :class:`Disconnected`."""
        with self._cond:
            if not self._value:
                self._closed = True
                self._close_reason = reason
                self._cond.notify_all()

    def recv(self, scope: Scope, timeout: float | None = None) -> T | None:
        """The value; None on timeout; raises when the sender was dropped."""
        with self._cond:
            if not scope.wait_until(self._cond, lambda: bool(self._value) or self._closed, timeout):
                return None
            if self._value:
                return self._value[0]
            raise self._close_reason or Disconnected()


class BoundedChannel(Generic[T]):
    """async-channel's `bounded(n)`: `send` blocks while full and fails once the receiver is gone."""

    def __init__(self, capacity: int) -> None:
        self._cond = threading.Condition()
        self._items: deque[T] = deque()
        self._capacity = capacity
        self._receiver_alive = True
        self._senders_alive = True

    def send(self, scope: Scope, item: T) -> None:
        """Queue `item`; raises :class:`Disconnected` when the receiver has been dropped."""
        with self._cond:
            scope.wait_until(
                self._cond, lambda: not self._receiver_alive or len(self._items) < self._capacity, None
            )
            if not self._receiver_alive:
                raise Disconnected()
            self._items.append(item)
            self._cond.notify_all()

    def recv(self, scope: Scope) -> T:
        """The next item; raises :class:`Disconnected` once the senders are closed and it is empty."""
        with self._cond:
            scope.wait_until(self._cond, lambda: bool(self._items) or not self._senders_alive, None)
            if not self._items:
                raise Disconnected()
            item = self._items.popleft()
            self._cond.notify_all()
            return item

    def drop_receiver(self) -> None:
        """The receiving thread is gone: pending and future sends fail."""
        with self._cond:
            self._receiver_alive = False
            self._items.clear()
            self._cond.notify_all()

    def drop_senders(self) -> None:
        """No more sends: the receiver drains what is queued, then sees the end."""
        with self._cond:
            self._senders_alive = False
            self._cond.notify_all()


class PoisonMutex(Generic[T]):
    """`std::sync::Mutex`: a panic while it is held poisons it for every later `lock().unwrap()`."""

    def __init__(self, value: T) -> None:
        self.value = value
        self._cond = threading.Condition()
        self._held = False
        self.poisoned = False

    @contextmanager
    def lock_unwrap(self, scope: Scope, hook: PanicHook, location: Location) -> Iterator[T]:
        """`mutex.lock().unwrap()` at `location`: panics with `PoisonError { .. }` when poisoned."""
        with self._cond:
            scope.wait_until(self._cond, lambda: not self._held, None)
            self._held = True
        try:
            if self.poisoned:
                raise panic(hook, location, "called `Result::unwrap()` on an `Err` value: PoisonError { .. }")
            yield self.value
        except RustPanic:
            self.poisoned = True
            raise
        finally:
            with self._cond:
                self._held = False
                self._cond.notify_all()
