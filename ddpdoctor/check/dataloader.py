"""Data loaders: the first batches (in a child process that can be killed), workers, /dev/shm, rank splits.

`--dataloader module:factory` names a zero-argument function returning an iterable loader,
typically a ``torch.utils.data.DataLoader``. :func:`run_in_child` imports and iterates it in a
separate process so that a hang or a crash is killed and reported instead of taking `check` down;
:func:`run_in_thread` does the same for a loader object inside a training script (`preflight`).
The child speaks one JSON object per line over a dedicated pipe, so the user's own prints on
stdout/stderr never disturb it; `faulthandler` dumps the child's stack just before a stage times
out, which names the line a hanging loader is stuck on.
"""

from __future__ import annotations

import contextlib
import faulthandler
import json
import os
import re
import selectors
import signal
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from ddpdoctor.check.base import (
    CheckContext,
    finding,
    frames_of,
    is_internal,
    load_factory,
    passed,
    user_frames,
)
from ddpdoctor.devices import GIB, format_size
from ddpdoctor.errors import InputError
from ddpdoctor.findings import Evidence, Finding, Severity

STAGES = {
    "import": "importing the module",
    "build": "building the loader",
    "batches": "loading the first batches",
}
# Extra seconds the parent waits past a stage's timeout, so the child's stack dump arrives first.
GRACE_S = 1.0
TAIL_CHARS = 16_000
# Importing the module and building the loader (torch itself takes seconds on a busy machine)
# get at least this long; --timeout is for the batches.
SETUP_MIN_S = 60.0


def stage_timeout(stage: str, timeout: float) -> float:
    """Seconds a stage may take: `timeout` for the batches, at least SETUP_MIN_S for import and build."""
    return timeout if stage == "batches" else max(timeout, SETUP_MIN_S)


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


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _safe_len(obj: Any) -> int | None:
    try:
        return len(obj)
    except Exception:
        return None


def loader_facts(loader: Any) -> LoaderFacts:
    """Read a DataLoader's settings without iterating it (duck-typed: any iterable works)."""
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


def _batch_bytes(batch: Any) -> int:
    if hasattr(batch, "element_size") and hasattr(batch, "numel"):
        try:
            return int(batch.numel() * batch.element_size())
        except Exception:
            return 0
    if isinstance(batch, Mapping):
        return sum(_batch_bytes(v) for v in batch.values())
    if isinstance(batch, (list, tuple)):
        return sum(_batch_bytes(v) for v in batch)
    return 0


@dataclass(frozen=True)
class LoaderError:
    """An exception raised while importing, building or iterating the loader."""

    stage: str
    type: str
    message: str
    traceback: str


@dataclass
class LoaderRun:
    """What happened when the loader was asked for its first batches."""

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


def _error_of(exc: BaseException, stage: str) -> LoaderError:
    return LoaderError(
        stage,
        type(exc).__name__,
        str(exc),
        "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)),
    )


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


def _child(fd: int, spec: str, batches: int, timeout: float) -> None:
    """Child side: import, build and iterate, reporting each step as a JSON line on `fd`."""
    out = os.fdopen(fd, "w", buffering=1, encoding="utf-8")

    def send(**event: Any) -> None:
        out.write(json.dumps(event) + "\n")
        out.flush()

    def stage(name: str) -> None:
        faulthandler.cancel_dump_traceback_later()
        faulthandler.dump_traceback_later(stage_timeout(name, timeout), exit=False)
        send(event="stage", stage=name)

    run = LoaderRun()
    faulthandler.enable()
    stage("import")
    try:
        factory = load_factory(spec, "dataloader")
    except InputError as exc:
        send(event="input-error", message=exc.message, hint=exc.hint)
        return
    except BaseException as exc:
        send(event="error", error=asdict(_error_of(exc, "import")))
        return
    stage("build")
    try:
        loader = factory()
    except BaseException as exc:
        send(event="error", error=asdict(_error_of(exc, "build")))
        return
    send(event="facts", facts=loader_facts(loader).to_dict())
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


def _signal_name(returncode: int) -> str:
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def _apply(event: dict[str, Any], run: LoaderRun) -> None:
    kind = event.get("event")
    if kind == "facts":
        run.facts = LoaderFacts(**event["facts"])
    elif kind == "batch":
        run.batch_seconds.append(float(event["seconds"]))
        run.batch_bytes.append(int(event["bytes"]))
    elif kind == "error":
        run.error = LoaderError(**event["error"])
    elif kind == "done":
        run.exhausted_after = event.get("exhausted_after")
    elif kind == "input-error":
        raise InputError(str(event["message"]), hint=event.get("hint"))


def run_in_child(spec: str, *, batches: int = 2, timeout: float = 60.0) -> LoaderRun:
    """Import `module:factory` and iterate its loader in a child process.

    Each stage gets :func:`stage_timeout` seconds (`timeout` for the batches, at least
    SETUP_MIN_S for import and build). InputError when the spec names no factory (malformed,
    module missing, no such attribute).
    """
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen(
        [sys.executable, "-m", "ddpdoctor.check.dataloader", str(write_fd), spec, str(batches), str(timeout)],
        pass_fds=(write_fd,),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    os.close(write_fd)
    run = LoaderRun(timeout=timeout)
    stderr = _Tail()
    stage, finished = "import", False
    buffer = b""
    sel = selectors.DefaultSelector()
    assert proc.stdout is not None and proc.stderr is not None
    channels = {read_fd: "events", proc.stdout.fileno(): "stdout", proc.stderr.fileno(): "stderr"}
    for fd in channels:
        os.set_blocking(fd, False)
        sel.register(fd, selectors.EVENT_READ)
    deadline = time.monotonic() + stage_timeout(stage, timeout) + GRACE_S
    try:
        while sel.get_map() and not finished:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                run.timed_out = stage
                break
            for key, _ in sel.select(timeout=min(remaining, 0.5)):
                fd = int(key.fd)
                chunk = os.read(fd, 65536)
                if not chunk:
                    sel.unregister(fd)
                    continue
                if channels[fd] == "stderr":
                    stderr.add(chunk)
                elif channels[fd] == "events":
                    buffer += chunk
                    *lines, buffer = buffer.split(b"\n")
                    for line in lines:
                        event = json.loads(line)
                        _apply(event, run)
                        if event.get("event") == "stage":
                            stage = str(event["stage"])
                            deadline = time.monotonic() + stage_timeout(stage, timeout) + GRACE_S
                        finished = finished or event.get("event") in ("done", "error")
            if read_fd not in sel.get_map():
                break
        if run.timed_out:
            _drain(proc, stderr)
    finally:
        sel.close()
        os.close(read_fd)
        _kill_group(proc)
    if not finished and not run.timed_out and proc.returncode is not None and proc.returncode != 0:
        run.crash = _signal_name(proc.returncode) if proc.returncode < 0 else f"exit code {proc.returncode}"
    run.stderr_tail = stderr.text
    run.stack = _dump_of(stderr.text) if run.timed_out else ""
    return run


def _drain(proc: subprocess.Popen[bytes], tail: _Tail) -> None:
    """Read what stderr already holds (the stack dump) without waiting for more."""
    assert proc.stderr is not None
    try:
        while chunk := os.read(proc.stderr.fileno(), 65536):
            tail.add(chunk)
    except (BlockingIOError, OSError):
        return


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill the child and every DataLoader worker it started (they share its session)."""
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


def run_loader(source: Any, *, batches: int, timeout: float) -> LoaderRun:
    """A `module:factory` string runs in a child process; a loader object or factory runs in a thread."""
    if isinstance(source, str):
        return run_in_child(source, batches=batches, timeout=timeout)
    if callable(source) and not hasattr(source, "__iter__"):
        try:
            source = source()
        except Exception as exc:
            return LoaderRun(error=_error_of(exc, "build"), timeout=timeout)
    return run_in_thread(source, batches=batches, timeout=timeout)


# --- findings ---------------------------------------------------------------------------------


_WORKER_RE = re.compile(r"Caught (?P<type>\w+) in DataLoader worker process (?P<worker>\d+)")


def _readable(error: LoaderError) -> tuple[str, str, list[Evidence], int | None]:
    """(headline, where, evidence, worker) for an exception, unwrapping torch's worker re-raise."""
    worker_match = _WORKER_RE.search(error.message)
    marker = "Original Traceback (most recent call last):"
    if worker_match and marker in error.message:
        original = error.message.split(marker, 1)[1]
        last = [line for line in original.strip().splitlines() if line.strip()][-1].strip()
        frames = user_frames(frames_of(original))
        worker = int(worker_match.group("worker"))
        return last, f"in DataLoader worker process {worker}", frames, worker
    first_line = error.message.strip().splitlines()[0] if error.message.strip() else ""
    headline = f"{error.type}: {first_line}" if first_line else error.type
    return headline, "in the main process", user_frames(frames_of(error.traceback)), None


_CRASH_ENTRIES = {
    "SIGSEGV": "dataloader-worker-segfault",
    "SIGKILL": "linux-oom-killer",
    "SIGBUS": "dataloader-bus-error-shm",
}


def first_batch_findings(run: LoaderRun) -> list[Finding]:
    """dataloader.first-batch and dataloader.timeout from one run."""
    if run.error is not None:
        headline, where, frames, worker = _readable(run.error)
        return [
            finding(
                "dataloader.first-batch",
                Severity.ERROR,
                f"the data loader failed: {headline}"[:400],
                f"{headline} was raised {where} while {STAGES.get(run.error.stage, run.error.stage)}."
                + (f" Raised at {frames[-1].location}." if frames and frames[-1].location else ""),
                evidence=[*frames, Evidence(headline)],
                entry="dataloader-worker-exception" if worker is not None else None,
                solutions=(
                    "Fix the dataset code or data at the location shown; this is the dataset's own error, "
                    "not a DDP problem.",
                    "Reproduce it quickly with num_workers=0: the traceback then points straight at the failing item.",
                ),
                data={"stage": run.error.stage, "exception": run.error.type, "worker": worker},
            )
        ]
    if run.timed_out is not None:
        stack = frames_of(run.stack)
        if "Thread 0x" in run.stack or "Current thread" in run.stack:
            stack = list(reversed(stack))  # faulthandler lists the innermost frame first
        waiting = any("_get_data" in e.text for e in stack) and is_internal(stack[-1])
        shown = [e for e in stack if not is_internal(e)][-3:]
        where = f" It was at {shown[-1].location}: {shown[-1].text}." if shown and shown[-1].location else ""
        if waiting:
            where += " The main process was waiting for DataLoader workers, so the stuck line is in a worker: rerun with num_workers=0 to see it."
        return [
            finding(
                "dataloader.timeout",
                Severity.ERROR,
                f"the data loader hangs: no result within {stage_timeout(run.timed_out, run.timeout):g} s while {STAGES.get(run.timed_out, run.timed_out)}",
                f"After {stage_timeout(run.timed_out, run.timeout):g} s the loader was still {STAGES.get(run.timed_out, run.timed_out)}; it was stopped."
                + where,
                evidence=shown,
                entry="dataloader-timeout",
                solutions=(
                    "Look at the line shown: a lock, a network or file-system read, or a worker that never returns.",
                    "Run the loader with num_workers=0 to see where it blocks; set DataLoader(timeout=...) so a stuck worker raises.",
                    "If it is only slow, raise --timeout.",
                ),
                data={"stage": run.timed_out, "timeout": run.timeout},
            )
        ]
    if run.crash is not None:
        frames = [e for e in reversed(frames_of(run.stderr_tail)) if not is_internal(e)][-3:]
        tail = frames or [
            Evidence(line) for line in run.stderr_tail.strip().splitlines()[-5:] if line.strip()
        ]
        return [
            finding(
                "dataloader.first-batch",
                Severity.ERROR,
                f"the data loader crashed the process ({run.crash})",
                f"The process loading the data died with {run.crash} before the first batches arrived"
                + (
                    " (SIGKILL usually means the kernel's out-of-memory killer)."
                    if run.crash == "SIGKILL"
                    else "."
                ),
                evidence=tail,
                entry=_CRASH_ENTRIES.get(run.crash),
                solutions=(
                    "Run the loader with num_workers=0 under a debugger or faulthandler to find the crashing call.",
                    "Native crashes in workers often come from libraries that are not fork-safe (OpenCV threads, CUDA in workers).",
                ),
                data={"crash": run.crash},
            )
        ]
    count = len(run.batch_seconds)
    if count == 0 and run.exhausted_after == 0:
        return [
            finding(
                "dataloader.first-batch",
                Severity.ERROR,
                "the data loader is empty",
                "Iterating the loader produced no batch at all: the dataset is empty, or drop_last dropped the only, partial batch.",
                solutions=("Check the dataset path and size, and batch_size against the number of items.",),
            )
        ]
    first = run.batch_seconds[0] if run.batch_seconds else 0.0
    return [
        passed(
            "dataloader.first-batch",
            f"{count} batch(es) loaded, the first in {first:.2f} s",
            batch_seconds=run.batch_seconds,
            batch_bytes=run.batch_bytes,
        ),
        passed("dataloader.timeout", f"the first batches arrived within {run.timeout:g} s"),
    ]


def ranks_on_node(ctx: CheckContext) -> int:
    """Processes that will load data on this node: LOCAL_WORLD_SIZE under a launcher, else one per device."""
    local = ctx.environ.get("LOCAL_WORLD_SIZE", "").strip()
    return max(1, len(ctx.devices), int(local) if local.isdigit() else 0)


def num_workers_findings(ctx: CheckContext, facts: LoaderFacts) -> list[Finding]:
    """dataloader.num-workers: worker processes of all ranks on this node against its CPUs."""
    workers = facts.num_workers
    if workers is None:
        return []
    ranks = ranks_on_node(ctx)
    cpus = ctx.inventory.cpu_count
    if workers == 0:
        return [
            finding(
                "dataloader.num-workers",
                Severity.INFO,
                "num_workers=0: batches are loaded in the training process",
                "Loading in the training process is simplest but can starve the GPU; "
                f"this node has {cpus} CPU(s) for {ranks} rank(s).",
                solutions=(f"Try num_workers={max(1, min(8, cpus // ranks))} if the GPU waits for data.",),
            )
        ]
    total = workers * ranks
    if total <= cpus:
        return [passed("dataloader.num-workers", f"{total} worker process(es) for {cpus} CPU(s)")]
    fit = max(1, cpus // ranks)
    return [
        finding(
            "dataloader.num-workers",
            Severity.WARNING,
            f"{total} DataLoader worker processes on {cpus} CPU(s)",
            f"num_workers={workers} on each of {ranks} rank(s) starts {total} worker processes, more than the "
            f"{cpus} CPU(s) of this node; they compete for CPU and memory, and loading slows down or freezes.",
            entry="dataloader-num-workers-warning",
            solutions=(f"Use num_workers={fit} or fewer per rank (CPUs / ranks on this node).",),
            data={"num_workers": workers, "ranks": ranks, "cpus": cpus},
        )
    ]


DEFAULT_PREFETCH = 2
SMALL_SHM = 1 * GIB


def shm_findings(ctx: CheckContext, run: LoaderRun) -> list[Finding]:
    """dataloader.shm: /dev/shm against what the workers of every rank keep in flight."""
    facts = run.facts
    inv = ctx.inventory
    if facts is None or not facts.num_workers or inv.shm_free is None or inv.shm_total is None:
        return []
    ranks = ranks_on_node(ctx)
    batch = max(run.batch_bytes, default=0)
    prefetch = facts.prefetch_factor or DEFAULT_PREFETCH
    need = batch * facts.num_workers * prefetch * ranks
    if batch and need > inv.shm_free:
        return [
            finding(
                "dataloader.shm",
                Severity.ERROR,
                f"/dev/shm is too small: ~{format_size(need)} needed, {format_size(inv.shm_free)} free",
                f"Workers pass batches through shared memory: {format_size(batch)} per batch x {facts.num_workers} "
                f"workers x prefetch {prefetch} x {ranks} rank(s). When /dev/shm fills up, workers die with "
                "`Bus error` or `No space left on device`.",
                entry="dataloader-bus-error-shm",
                solutions=(
                    "Give the container more shared memory (docker run --shm-size=16g, or a Kubernetes emptyDir with medium: Memory).",
                    "Lower num_workers or prefetch_factor, or the batch size.",
                ),
                data={"need": need, "shm_free": inv.shm_free, "batch_bytes": batch},
            )
        ]
    if inv.shm_total < SMALL_SHM:
        return [
            finding(
                "dataloader.shm",
                Severity.WARNING,
                f"/dev/shm is only {format_size(inv.shm_total)}",
                "DataLoader workers pass every batch through /dev/shm; container defaults such as Docker's 64 MiB "
                "are too small for most image or video batches.",
                entry="dataloader-bus-error-shm",
                solutions=("Start the container with a larger --shm-size (e.g. 8g or more).",),
                data={"shm_total": inv.shm_total, "need": need},
            )
        ]
    return [passed("dataloader.shm", f"/dev/shm has {format_size(inv.shm_free)} free", need=need)]


def _split_counts(items: int, ranks: int, batch_size: int, drop_last: bool) -> list[int]:
    """Batches per rank when items are cut into contiguous slices, the last taking the remainder."""
    share = items // ranks
    sizes = [share] * (ranks - 1) + [items - share * (ranks - 1)]
    return [s // batch_size if drop_last else -(-s // batch_size) for s in sizes]


def uneven_findings(ctx: CheckContext, facts: LoaderFacts) -> list[Finding]:
    """dataloader.uneven-batches: per-rank batch counts when the data is split across the devices."""
    ranks = len(ctx.devices)
    if ranks < 2:
        return []
    if facts.sampler == "DistributedSampler":
        if facts.sampler_replicas is not None and facts.sampler_replicas != ranks:
            return [
                finding(
                    "dataloader.uneven-batches",
                    Severity.WARNING,
                    f"DistributedSampler has num_replicas={facts.sampler_replicas} for {ranks} devices",
                    "Each rank must build its sampler with the job's world size and its own rank.",
                    solutions=(
                        "Pass num_replicas=world_size and rank=rank, or let it read them from the process group.",
                    ),
                )
            ]
        return [
            passed(
                "dataloader.uneven-batches", "DistributedSampler gives every rank the same number of batches"
            )
        ]
    if facts.dataset_len is None or not facts.batch_size:
        return [
            finding(
                "dataloader.uneven-batches",
                Severity.INFO,
                "per-rank batch counts unknown",
                "The dataset has no length (an iterable dataset), so the split across ranks cannot be computed; "
                "make sure every rank yields the same number of batches.",
            )
        ]
    counts = _split_counts(facts.dataset_len, ranks, facts.batch_size, bool(facts.drop_last))
    if len(set(counts)) == 1:
        return [passed("dataloader.uneven-batches", f"every rank gets {counts[0]} batch(es)", counts=counts)]
    return [
        finding(
            "dataloader.uneven-batches",
            Severity.WARNING,
            f"ranks get different numbers of batches: {', '.join(map(str, counts))}",
            f"{facts.dataset_len} items split over {ranks} devices (the last slice takes the remainder) with "
            f"batch_size={facts.batch_size} and drop_last={bool(facts.drop_last)} give {counts} batches. The rank with "
            "more batches runs a step whose gradient all-reduce the others never join: the job hangs at the end of the "
            "epoch until a collective times out.",
            solutions=(
                "Use drop_last=True, or trim the dataset to a multiple of ranks x batch_size.",
                "In PyTorch, use DistributedSampler (it pads or drops so every rank gets the same count).",
            ),
            data={"counts": counts, "items": facts.dataset_len, "batch_size": facts.batch_size},
        )
    ]


def dataloader_findings(ctx: CheckContext, run: LoaderRun) -> list[Finding]:
    """Every dataloader.* finding for one run."""
    out = first_batch_findings(run)
    if run.facts is not None:
        out += num_workers_findings(ctx, run.facts)
        out += shm_findings(ctx, run)
        out += uneven_findings(ctx, run.facts)
    return out


if __name__ == "__main__":
    _child(int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
