"""The data-loader probe: ask a loader for its first batches where a hang or a crash cannot hurt.

`--dataloader module:factory` names a zero-argument function returning an iterable loader,
typically a ``torch.utils.data.DataLoader``. :func:`run_in_child` imports and iterates it in a
separate process, so that a hang or a crash is killed and reported instead of taking `check` down;
:func:`run_in_thread` does the same for a loader object inside a training script (`preflight`).

The child speaks one JSON object per line over a dedicated pipe, so the user's own prints on
stdout/stderr never disturb it, and every message it sends is cut to a bounded size. It runs with
a cap on its data memory (RLIMIT_DATA, :data:`DEFAULT_MEMORY_FRACTION` of this machine's memory
unless told otherwise), dies with its parent (a parent-death signal, and its process group is
killed when ddpdoctor is stopped by SIGTERM, SIGHUP or SIGINT), and `faulthandler` dumps its
stack just before a stage times out, which names the line a hanging loader is stuck on.
"""

from __future__ import annotations

import contextlib
import faulthandler
import importlib
import json
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from ddpdoctor.check.base import load_factory
from ddpdoctor.children import become_subreaper, die_with_parent, kill_tree
from ddpdoctor.errors import InputError

STAGES = {
    "import": "importing the module",
    "build": "building the loader",
    "batches": "loading the first batches",
}
# Extra seconds the parent waits past a stage's timeout, so the child's stack dump arrives first.
GRACE_S = 1.0
# How long a child whose event pipe closed may take to exit on its own before it is killed.
EXIT_WAIT_S = 5.0
TAIL_CHARS = 16_000
# The longest exception message or traceback the child sends, and the longest event line the
# parent accepts: a loader that raises with a 50 MB message is reported, not read in full.
MAX_TEXT_CHARS = 16_000
MAX_EVENT_BYTES = 256 * 1024
# Importing the module and building the loader (torch itself takes seconds on a busy machine)
# get at least this long; --timeout is for the batches.
SETUP_MIN_S = 60.0
# The child's data memory cap, as a share of this machine's physical memory, unless told otherwise.
DEFAULT_MEMORY_FRACTION = 0.5
_STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


def stage_timeout(stage: str, timeout: float) -> float:
    """Seconds a stage may take: `timeout` for the batches, at least SETUP_MIN_S for import and build."""
    return timeout if stage == "batches" else max(timeout, SETUP_MIN_S)


def default_memory_limit() -> int | None:
    """DEFAULT_MEMORY_FRACTION of this machine's physical memory in bytes, or None when unknown."""
    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None
    return int(total * DEFAULT_MEMORY_FRACTION) if total > 0 else None


@dataclass(frozen=True)
class LoaderFacts:
    """What the loader object says about itself (None where it does not say)."""

    type: str
    num_workers: int | None = None
    batch_size: int | None = None
    drop_last: bool | None = None
    dataset_len: int | None = None
    loader_len: int | None = None
    sampler: str | None = None
    sampler_replicas: int | None = None
    prefetch_factor: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LoaderFacts:
        """Read the JSON form; fields of the wrong type become None."""
        return cls(
            type=str(data.get("type", "")),
            **{
                name: data.get(name) if isinstance(data.get(name), (int, str)) else None
                for name in (
                    "num_workers",
                    "batch_size",
                    "drop_last",
                    "dataset_len",
                    "loader_len",
                    "sampler",
                    "sampler_replicas",
                    "prefetch_factor",
                )
            },
        )


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _safe_len(obj: Any) -> int | None:
    try:
        return _int_or_none(len(obj))
    except Exception:
        return None


def loader_facts(loader: Any) -> LoaderFacts:
    """Read a DataLoader's settings without iterating it (duck-typed: any iterable works).

    A property that raises propagates: the loader is broken, and the exception says how.
    """
    sampler = getattr(loader, "sampler", None)
    batch_sampler = getattr(loader, "batch_sampler", None)
    inner = getattr(batch_sampler, "sampler", None)
    if (
        sampler is not None
        and type(sampler).__name__ in ("SequentialSampler", "RandomSampler")
        and inner is not None
    ):
        sampler = inner
    drop_last = getattr(loader, "drop_last", None)
    if drop_last is None:
        drop_last = getattr(batch_sampler, "drop_last", None)
    return LoaderFacts(
        type=f"{type(loader).__module__}.{type(loader).__qualname__}",
        num_workers=_int_or_none(getattr(loader, "num_workers", None)),
        batch_size=_int_or_none(getattr(loader, "batch_size", None))
        or _int_or_none(getattr(batch_sampler, "batch_size", None)),
        drop_last=drop_last if isinstance(drop_last, bool) else None,
        dataset_len=_safe_len(getattr(loader, "dataset", None)),
        loader_len=_safe_len(loader),
        sampler=type(sampler).__name__ if sampler is not None else None,
        sampler_replicas=_int_or_none(getattr(sampler, "num_replicas", None)),
        prefetch_factor=_int_or_none(getattr(loader, "prefetch_factor", None)),
    )


def _batch_bytes(batch: Any, depth: int = 0) -> int:
    if depth > 8:
        return 0
    if hasattr(batch, "element_size") and hasattr(batch, "numel"):
        try:
            return int(batch.numel() * batch.element_size())
        except Exception:
            return 0
    if isinstance(batch, Mapping):
        return sum(_batch_bytes(v, depth + 1) for v in batch.values())
    if isinstance(batch, (list, tuple)):
        return sum(_batch_bytes(v, depth + 1) for v in batch)
    return 0


@dataclass(frozen=True)
class LoaderError:
    """An exception raised while importing, building or iterating the loader (texts cut to a bound)."""

    stage: str
    type: str
    message: str
    traceback: str

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LoaderError:
        """Read the wire form."""
        return cls(*(_clip(str(data.get(k, ""))) for k in ("stage", "type", "message", "traceback")))


@dataclass
class LoaderRun:
    """What happened when the loader was asked for its first batches.

    `crash` is set when the process loading the data ended without reporting (a signal, or an
    exit code, 0 included); `memory_limit` is the cap the child ran under (None: none).
    """

    facts: LoaderFacts | None = None
    batch_seconds: list[float] = field(default_factory=list)
    batch_bytes: list[int] = field(default_factory=list)
    exhausted_after: int | None = None
    error: LoaderError | None = None
    timed_out: str | None = None
    timeout: float = 0.0
    stack: str = ""
    crash: str | None = None
    stderr_tail: str = ""
    memory_limit: int | None = None


def _clip(text: str) -> str:
    """`text` cut to MAX_TEXT_CHARS, keeping its start and end (a traceback's last line matters)."""
    if len(text) <= MAX_TEXT_CHARS:
        return text
    half = MAX_TEXT_CHARS // 2
    return f"{text[:half]}\n[... {len(text) - MAX_TEXT_CHARS} characters left out ...]\n{text[-half:]}"


def _error_of(exc: BaseException, stage: str) -> LoaderError:
    try:
        message = str(exc)
    except Exception:
        message = f"<{type(exc).__name__} whose message cannot be shown>"
    try:
        trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    except Exception:
        trace = ""
    return LoaderError(stage, type(exc).__name__, _clip(message), _clip(trace))


def _iterate(
    loader: Iterable[Any], batches: int, run: LoaderRun, on_batch: Callable[[], None] | None = None
) -> None:
    iterator = iter(loader)
    for index in range(batches):
        start = time.monotonic()
        try:
            batch = next(iterator)
        except StopIteration:
            run.exhausted_after = index
            return
        run.batch_seconds.append(time.monotonic() - start)
        run.batch_bytes.append(_batch_bytes(batch))
        if on_batch is not None:
            on_batch()


# --- the child process ------------------------------------------------------------------------


def _cap_memory(limit: int | None) -> None:
    """Cap the data segment (heap and private writable mappings) at `limit` bytes."""
    if limit is None:
        return
    with contextlib.suppress(Exception):
        import resource

        resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))


def _trace_worker_faults() -> None:
    """Make DataLoader workers dump their stack on a fatal signal, as the main process does.

    torch's workers install their own handlers for SIGSEGV, SIGBUS and SIGFPE; faulthandler is
    enabled again after them (it must be disabled first, or enabling is a no-op), so a crashing
    worker prints the dataset's file:line, then torch's own message (faulthandler chains to the
    handler it replaced), and dies of the signal.
    """
    if "torch.utils.data" not in sys.modules:
        return
    signal_handling: Any = importlib.import_module("torch.utils.data._utils.signal_handling")
    install = signal_handling._set_worker_signal_handlers

    def install_then_trace(*args: Any) -> None:
        faulthandler.disable()
        install(*args)
        faulthandler.enable()

    signal_handling._set_worker_signal_handlers = install_then_trace


def _child(
    fd: int, spec: str, batches: int, timeout: float, memory_limit: int | None, parent_pid: int
) -> None:
    """Child side: import, build and iterate, reporting each step as a JSON line on `fd`."""
    out = os.fdopen(fd, "w", buffering=1, encoding="utf-8", errors="replace")

    def send(**event: Any) -> None:
        out.write(json.dumps(event) + "\n")
        out.flush()

    def stage(name: str) -> None:
        faulthandler.cancel_dump_traceback_later()
        faulthandler.dump_traceback_later(stage_timeout(name, timeout), exit=False)
        send(event="stage", stage=name)

    die_with_parent(parent_pid)
    become_subreaper()  # a worker's orphans (a setsid grandchild) stay in the tree the parent kills
    _cap_memory(memory_limit)
    run = LoaderRun()
    faulthandler.enable()
    stage("import")
    try:
        factory = load_factory(spec, "dataloader")
    except InputError as exc:
        send(event="input-error", message=_clip(exc.message), hint=exc.hint)
        return
    except BaseException as exc:
        send(event="error", error=asdict(_error_of(exc, "import")))
        return
    _trace_worker_faults()
    stage("build")
    try:
        loader = factory()
        facts = loader_facts(loader)
    except BaseException as exc:
        send(event="error", error=asdict(_error_of(exc, "build")))
        return
    send(event="facts", facts=facts.to_dict())
    stage("batches")

    def report_batch() -> None:
        send(event="batch", seconds=run.batch_seconds[-1], bytes=run.batch_bytes[-1])

    try:
        _iterate(loader, batches, run, report_batch)
    except BaseException as exc:
        send(event="error", error=asdict(_error_of(exc, "batches")))
        return
    finally:
        faulthandler.cancel_dump_traceback_later()
    send(event="done", exhausted_after=run.exhausted_after)


class _Tail:
    """The last characters of a stream."""

    def __init__(self) -> None:
        self.text = ""

    def add(self, chunk: bytes) -> None:
        self.text = (self.text + chunk.decode("utf-8", "replace"))[-TAIL_CHARS:]


class _Events:
    """Event lines from the child's pipe, each at most MAX_EVENT_BYTES (longer ones are dropped)."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.overflow = False

    def feed(self, chunk: bytes) -> Iterator[dict[str, Any]]:
        """The complete events in `chunk` plus what came before it."""
        self.buffer += chunk
        while (end := self.buffer.find(b"\n")) >= 0:
            line, overflow = bytes(self.buffer[:end]), self.overflow
            del self.buffer[: end + 1]
            self.overflow = False
            event = None if overflow else _decode(line)
            if event is not None:
                yield event
        if len(self.buffer) > MAX_EVENT_BYTES:
            self.buffer.clear()
            self.overflow = True


def _decode(line: bytes) -> dict[str, Any] | None:
    try:
        event = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return event if isinstance(event, dict) else None


def signal_name(returncode: int) -> str:
    """`SIGSEGV` for a return code of -11; `signal N` for numbers Python does not name."""
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def _apply(event: dict[str, Any], run: LoaderRun) -> None:
    kind = event.get("event")
    if kind == "facts" and isinstance(event.get("facts"), dict):
        run.facts = LoaderFacts.from_dict(event["facts"])
    elif kind == "batch":
        run.batch_seconds.append(float(event.get("seconds", 0.0)))
        run.batch_bytes.append(int(event.get("bytes", 0)))
    elif kind == "error" and isinstance(event.get("error"), dict):
        run.error = LoaderError.from_dict(event["error"])
    elif kind == "done":
        run.exhausted_after = _int_or_none(event.get("exhausted_after"))
    elif kind == "input-error":
        raise InputError(str(event.get("message", "")), hint=event.get("hint"))


@contextlib.contextmanager
def _dies_with_us(proc: subprocess.Popen[bytes]) -> Iterator[None]:
    """While the child runs, SIGTERM, SIGHUP or SIGINT to this process first kills the child's group.

    The previous handler then runs as before (the default one ends this process). Handlers can
    only be set from the main thread; elsewhere the parent-death signal alone covers the child.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous: dict[int, Any] = {}

    def stop(signum: int, frame: Any) -> None:
        _kill_group(proc)
        handler = previous.get(signum)
        if callable(handler):
            handler(signum, frame)
        elif handler != signal.SIG_IGN:
            signal.signal(signum, signal.SIG_DFL)
            signal.raise_signal(signum)

    for stop_signal in _STOP_SIGNALS:
        with contextlib.suppress(ValueError, OSError):
            previous[stop_signal] = signal.signal(stop_signal, stop)
    try:
        yield
    finally:
        for number, handler in previous.items():
            with contextlib.suppress(ValueError, OSError, TypeError):
                signal.signal(number, handler)


def run_in_child(
    spec: str, *, batches: int = 2, timeout: float = 60.0, memory_limit: int | None = None
) -> LoaderRun:
    """Import `module:factory` and iterate its loader in a child process capped at `memory_limit` bytes.

    Each stage gets :func:`stage_timeout` seconds (`timeout` for the batches, at least
    SETUP_MIN_S for import and build). InputError when the spec names no factory (malformed,
    module missing, no such attribute).
    """
    read_fd, write_fd = os.pipe()
    command = [
        sys.executable,
        "-m",
        "ddpdoctor.check.loader_probe",
        str(write_fd),
        spec,
        str(batches),
        repr(timeout),
        str(memory_limit or 0),
        str(os.getpid()),
    ]
    proc = subprocess.Popen(
        command,
        pass_fds=(write_fd,),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    os.close(write_fd)
    run = LoaderRun(timeout=timeout, memory_limit=memory_limit)
    stderr = _Tail()
    try:
        with _dies_with_us(proc):
            finished = _follow(proc, read_fd, run, stderr)
            _drain(proc, stderr)
            if not finished and not run.timed_out:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=EXIT_WAIT_S)
                _drain(proc, stderr)
                code = proc.returncode
                run.crash = (
                    "no exit (it closed its channel)"
                    if code is None
                    else signal_name(code)
                    if code < 0
                    else f"exit code {code}"
                )
    finally:
        os.close(read_fd)
        _kill_group(proc)
    run.stderr_tail = stderr.text
    run.stack = _dump_of(stderr.text) if run.timed_out else ""
    return run


def _follow(proc: subprocess.Popen[bytes], read_fd: int, run: LoaderRun, stderr: _Tail) -> bool:
    """Read events and output until the child reports its end, closes its pipe or a stage times out.

    Returns True when the child reported its end (`done` or `error`).
    """
    assert proc.stdout is not None and proc.stderr is not None
    timeout = run.timeout
    events = _Events()
    channels = {read_fd: "events", proc.stdout.fileno(): "stdout", proc.stderr.fileno(): "stderr"}
    stage = "import"
    deadline = time.monotonic() + stage_timeout(stage, timeout) + GRACE_S
    with selectors.DefaultSelector() as sel:
        for fd in channels:
            os.set_blocking(fd, False)
            sel.register(fd, selectors.EVENT_READ)
        while read_fd in sel.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                run.timed_out = stage
                return False
            for key, _ in sel.select(timeout=min(remaining, 0.5)):
                fd = int(key.fd)
                chunk = os.read(fd, 65536)
                if not chunk:
                    sel.unregister(fd)
                    continue
                if channels[fd] == "stderr":
                    stderr.add(chunk)
                elif channels[fd] == "events":
                    for event in events.feed(chunk):
                        _apply(event, run)
                        if event.get("event") == "stage" and event.get("stage") in STAGES:
                            stage = str(event["stage"])
                            deadline = time.monotonic() + stage_timeout(stage, timeout) + GRACE_S
                        if event.get("event") in ("done", "error"):
                            return True
    return False


def _drain(proc: subprocess.Popen[bytes], tail: _Tail) -> None:
    """Read what stderr already holds (a stack dump, a worker's fault report) without waiting for more."""
    assert proc.stderr is not None
    try:
        while chunk := os.read(proc.stderr.fileno(), 65536):
            tail.add(chunk)
    except (BlockingIOError, OSError, ValueError):
        return


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill the child and every process it started: its group (the DataLoader workers) and, on
    Linux, every descendant, also one that left the group with setsid."""
    if proc.poll() is None:
        kill_tree(proc.pid)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


def _dump_of(stderr: str) -> str:
    """The last faulthandler dump in the child's stderr (its stack when the timeout hit)."""
    marker = stderr.rfind("Thread 0x")
    if marker < 0:
        marker = stderr.rfind("Stack (most recent call first)")
    return stderr[marker:].strip() if marker >= 0 else ""


# --- in-process, for preflight ----------------------------------------------------------------


def run_in_thread(loader: Any, *, batches: int = 2, timeout: float = 60.0) -> LoaderRun:
    """Iterate a loader object in a daemon thread; a hang is reported with the thread's stack (and left behind)."""
    run = LoaderRun(timeout=timeout)
    try:
        run.facts = loader_facts(loader)
    except Exception as exc:
        run.error = _error_of(exc, "build")
        return run

    def work() -> None:
        try:
            _iterate(loader, batches, run)
        except BaseException as exc:
            run.error = _error_of(exc, "batches")

    thread = threading.Thread(target=work, name="ddpdoctor-preflight-loader", daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        run.timed_out = "batches"
        frame = sys._current_frames().get(thread.ident or -1)
        run.stack = "".join(traceback.format_stack(frame)) if frame is not None else ""
    return run


def run_loader(source: Any, *, batches: int, timeout: float, memory_limit: int | None = None) -> LoaderRun:
    """A `module:factory` string runs in a child process; a loader object or factory runs in a thread."""
    if isinstance(source, str):
        return run_in_child(source, batches=batches, timeout=timeout, memory_limit=memory_limit)
    if callable(source) and not hasattr(source, "__iter__"):
        try:
            source = source()
        except Exception as exc:
            return LoaderRun(error=_error_of(exc, "build"), timeout=timeout)
    return run_in_thread(source, batches=batches, timeout=timeout)


if __name__ == "__main__":
    _child(
        int(sys.argv[1]),
        sys.argv[2],
        int(sys.argv[3]),
        float(sys.argv[4]),
        int(sys.argv[5]) or None,
        int(sys.argv[6]),
    )
    kill_tree(os.getpid(), include_root=False)  # what the loader started ends with the probe
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
