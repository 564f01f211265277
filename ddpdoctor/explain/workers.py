"""Scan inputs in forked processes that end when ddpdoctor ends.

The scan holds the GIL, so big inputs are read in parallel processes. Each worker is forked (it
inherits the loaded knowledge index), asks the kernel to kill it when ddpdoctor dies, ignores
Ctrl-C (the parent decides), takes the next input number from a shared counter and sends each
result through its own pipe. The parent waits on those pipes only, so Ctrl-C, SIGTERM or SIGHUP
reach it at once: it kills the workers (no queued work is waited for) and then ends the way the
signal asked. A worker that dies (the out-of-memory killer) is reported with the input it was
reading instead of leaving the parent waiting.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from ddpdoctor.children import die_with_parent, usable_cpus
from ddpdoctor.errors import InputError

TYPE_CHECKING = False  # typing's constant, without importing typing (explain's cold start)
if TYPE_CHECKING:
    from typing import Any, TypeVar

    R = TypeVar("R")
_STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def checked_jobs(jobs: int, default_cap: int) -> int:
    """The number of parallel scans for `--jobs`: 0 means one per CPU (at most `default_cap`)."""
    cpus = usable_cpus()
    if jobs < 0:
        raise InputError(f"--jobs {jobs} is negative", hint="use 0 (one per CPU) or a positive number")
    if jobs > cpus:
        raise InputError(
            f"--jobs {jobs} is more than the {cpus} CPU(s) this process may use",
            hint=f"use --jobs {cpus} or fewer (0 picks one per CPU)",
        )
    return jobs or min(default_cap, cpus)


class _Stop(BaseException):
    """SIGTERM or SIGHUP arrived while workers ran."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def run_forked(
    task: Callable[[int], R],
    count: int,
    jobs: int,
    on_result: Callable[[int, R], None],
    describe: Callable[[int], str],
) -> None:
    """Run task(0) ... task(count - 1) in `jobs` forked workers; call on_result(i, result) in the parent.

    An InputError raised by a task is raised again in the parent; any other exception becomes a
    RuntimeError carrying the worker's traceback. `describe(i)` names input i in messages.
    """
    import multiprocessing
    from multiprocessing.connection import Connection, wait

    ctx = multiprocessing.get_context("fork")
    counter = ctx.Value("q", 0)
    parent = os.getpid()
    readers: dict[Any, Any] = {}
    current: dict[Any, int] = {}  # reader -> input its worker is reading

    def work(writer: Connection) -> None:
        die_with_parent(parent)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        for signum in _STOP_SIGNALS:
            signal.signal(signum, signal.SIG_DFL)
        while True:
            with counter.get_lock():
                index = int(counter.value)
                if index >= count:
                    break
                counter.value = index + 1
            writer.send(("start", index, None))
            try:
                writer.send(("done", index, task(index)))
            except InputError as exc:
                writer.send(("input", index, (exc.message, exc.hint)))
            except BaseException:
                import traceback  # only for a bug in a worker: it imports textwrap, linecache, ...

                writer.send(("bug", index, traceback.format_exc()))
        writer.close()

    with _stop_signals_raise():
        try:
            for _ in range(jobs):
                reader, writer = ctx.Pipe(duplex=False)
                proc = ctx.Process(target=work, args=(writer,), daemon=True)
                proc.start()
                writer.close()
                readers[reader] = proc
            while readers:
                for ready in wait(list(readers)):
                    try:
                        kind, index, payload = _receive(ready)
                    except EOFError:
                        _worker_ended(readers.pop(ready), current.pop(ready, None), describe)
                        continue
                    if kind == "start":
                        current[ready] = index
                        continue
                    current.pop(ready, None)
                    if kind == "input":
                        message, hint = payload
                        raise InputError(message, hint=hint)
                    if kind == "bug":
                        raise RuntimeError(f"a scan process failed on {describe(index)}:\n{payload}")
                    on_result(index, payload)
        finally:
            for proc in readers.values():
                proc.kill()
            for proc in readers.values():
                proc.join()
            for reader in readers:
                reader.close()


def _receive(ready: Any) -> tuple[str, int, Any]:
    """One message from a worker's pipe (EOFError once the worker has closed it)."""
    message: tuple[str, int, Any] = ready.recv()
    return message


def _worker_ended(proc: Any, reading: int | None, describe: Callable[[int], str]) -> None:
    proc.join()
    if reading is None and proc.exitcode == 0:
        return
    code = proc.exitcode
    how = f"was killed by signal {-code}" if code is not None and code < 0 else f"exited with code {code}"
    where = f" while reading {describe(reading)}" if reading is not None else ""
    raise InputError(
        f"a scan process {how}{where}",
        hint="out of memory? rerun with --jobs 1, or on fewer files at once",
    )


@contextmanager
def _stop_signals_raise() -> Iterator[None]:
    """While workers run, SIGTERM and SIGHUP unwind the parent (killing the workers), then end it as asked."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set handlers; the workers still die with the process
        return

    def stop(signum: int, _frame: object) -> None:
        raise _Stop(signum)

    previous = {signum: signal.signal(signum, stop) for signum in _STOP_SIGNALS}
    try:
        yield
    except _Stop as stopped:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        signal.raise_signal(stopped.signum)  # the previous handler (by default: end the process)
        raise KeyboardInterrupt from None  # only reached when that handler returns
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
