"""Data-loader checks: the first batches, a hang, worker processes, /dev/shm, open files, per-rank batch counts.

They read the probe's run (:mod:`ddpdoctor.check.loader_probe`, which loads the first batches in a
child process or a thread) and run only when `--dataloader` (or `preflight(dataloader=...)`) is given.
"""

from __future__ import annotations

import re

from ddpdoctor.check.base import (
    CheckContext,
    env_number,
    finding,
    frames_of,
    is_internal,
    passed,
    user_frames,
)
from ddpdoctor.check.loader_probe import STAGES, LoaderError, LoaderFacts, LoaderRun, stage_timeout
from ddpdoctor.check.registry import Need, check
from ddpdoctor.findings import Evidence, Finding, Severity
from ddpdoctor.units import GIB, format_size

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


_SIGNAL_TEXTS = {
    "Segmentation fault": "SIGSEGV",
    "Bus error": "SIGBUS",
    "Killed": "SIGKILL",
    "Aborted": "SIGABRT",
    "Floating point exception": "SIGFPE",
    "Illegal instruction": "SIGILL",
}
_KILLED_WORKER_RE = re.compile(
    r"DataLoader worker \(pid(?:\(s\))? [^)]*\) (?:is killed by signal: (?P<text>[A-Za-z ]+)|exited unexpectedly)"
)
_FATAL_RE = re.compile(
    r"(?:Fatal Python error|Unexpected) (?P<text>[A-Za-z -]+?)(?: encountered in worker)?[.:\n]",
    re.IGNORECASE,
)
_OUT_OF_MEMORY_RE = re.compile(r"can't allocate memory|Cannot allocate memory|out of memory", re.IGNORECASE)


def _fault_frames(stderr: str) -> list[Evidence]:
    """The user's frames of the last faulthandler report in `stderr` (innermost last), at most three."""
    marker = stderr.rfind("Fatal Python error")
    text = stderr[marker:] if marker >= 0 else stderr
    return [e for e in reversed(frames_of(text)) if not is_internal(e)][-3:]


def _killed_worker(run: LoaderRun) -> str | None:
    """The signal (`SIGSEGV`) of a DataLoader worker that torch reports as killed, else None."""
    if run.error is None:
        return None
    match = _KILLED_WORKER_RE.search(run.error.message)
    if match is None:
        return None
    if match.group("text"):
        text = match.group("text").strip()
        return _SIGNAL_TEXTS.get(text, text)
    fatal = _FATAL_RE.search(run.stderr_tail)
    if fatal is None:
        return "an unknown signal or exit"
    text = fatal.group("text").strip()
    return next((name for words, name in _SIGNAL_TEXTS.items() if words.lower() == text.lower()), text)


def _memory_note(run: LoaderRun) -> str:
    """A sentence about the probe's memory cap, when one was set."""
    if run.memory_limit is None:
        return ""
    return (
        f" The probe ran the loader with a memory cap of {format_size(run.memory_limit)} (--loader-memory);"
        " a loader that needs more fails like this."
    )


def _error_finding(run: LoaderRun, error: LoaderError) -> Finding:
    """dataloader.first-batch for an exception of the loader's own."""
    killed = _killed_worker(run)
    if killed is not None:
        return _crash_finding(run, killed, worker=True)
    headline, where, frames, worker = _readable(error)
    out_of_memory = error.type == "MemoryError" or bool(_OUT_OF_MEMORY_RE.search(error.message[:2000]))
    return finding(
        "dataloader.first-batch",
        Severity.ERROR,
        f"the data loader failed: {headline}"[:400],
        f"{headline[:400]} was raised {where} while {STAGES.get(error.stage, error.stage)}."
        + (f" Raised at {frames[-1].location}." if frames and frames[-1].location else "")
        + (_memory_note(run) if out_of_memory else ""),
        evidence=[*frames, Evidence(headline[:400])],
        entry="dataloader-worker-exception" if worker is not None else None,
        category="oom_host" if out_of_memory else None,
        solutions=(
            "Fix the dataset code or data at the location shown; this is the dataset's own error, "
            "not a DDP problem.",
            "Reproduce it quickly with num_workers=0: the traceback then points straight at the failing item.",
        ),
        data={
            "stage": error.stage,
            "exception": error.type,
            "worker": worker,
            "memory_limit": run.memory_limit,
        },
    )


def _crash_finding(run: LoaderRun, crash: str, *, worker: bool = False) -> Finding:
    """dataloader.first-batch for a process that died (a signal or an exit) without reporting."""
    frames = _fault_frames(run.stderr_tail)
    tail = frames or [Evidence(line) for line in run.stderr_tail.strip().splitlines()[-5:] if line.strip()]
    who = "A DataLoader worker process" if worker else "The process loading the data"
    if crash == "SIGKILL":
        why = " (SIGKILL usually means the kernel's out-of-memory killer)."
    elif crash.startswith("exit code"):
        why = ": the loader (or a library it uses) ended the process, e.g. with sys.exit() or os._exit()."
    else:
        why = "."
    where = f" It was at {frames[-1].location}: {frames[-1].text}." if frames and frames[-1].location else ""
    return finding(
        "dataloader.first-batch",
        Severity.ERROR,
        f"the data loader {'worker ' if worker else ''}crashed ({crash})"
        if not crash.startswith("exit code")
        else f"the data loader ended its process ({crash}) before the first batches",
        f"{who} died with {crash} before the first batches arrived{why}{where}"
        + (_memory_note(run) if crash in ("SIGKILL", "SIGSEGV", "SIGABRT") else ""),
        evidence=tail,
        entry=_CRASH_ENTRIES.get(crash),
        solutions=(
            "Run the loader with num_workers=0 under a debugger or faulthandler to find the crashing call.",
            "Native crashes in workers often come from libraries that are not fork-safe (OpenCV threads, CUDA in workers).",
        ),
        data={"crash": crash, "worker": worker, "memory_limit": run.memory_limit},
    )


@check(
    "dataloader.first-batch",
    category="dataloader",
    title="the data loader produces its first batches without an error",
    needs=(Need.DATALOADER,),
    entries=("dataloader-worker-exception",),
)
def check_first_batch(ctx: CheckContext) -> list[Finding]:
    """dataloader.first-batch: an exception, a crash, an early exit or an empty loader."""
    run = _run(ctx)
    if run.error is not None:
        return [_error_finding(run, run.error)]
    if run.timed_out is not None:
        return []
    if run.crash is not None:
        return [_crash_finding(run, run.crash)]
    count = len(run.batch_seconds)
    if count == 0:
        return [
            finding(
                "dataloader.first-batch",
                Severity.ERROR,
                "the data loader is empty",
                "Iterating the loader produced no batch at all: the dataset is empty, or drop_last dropped the only, partial batch.",
                solutions=("Check the dataset path and size, and batch_size against the number of items.",),
            )
        ]
    return [
        passed(
            "dataloader.first-batch",
            f"{count} batch(es) loaded, the first in {run.batch_seconds[0]:.2f} s",
            batch_seconds=run.batch_seconds,
            batch_bytes=run.batch_bytes,
        )
    ]


@check(
    "dataloader.timeout",
    category="dataloader",
    title="the first batches arrive within --timeout",
    needs=(Need.DATALOADER,),
    entries=("dataloader-timeout",),
)
def check_timeout(ctx: CheckContext) -> list[Finding]:
    """dataloader.timeout: a stage that did not finish in time, with the line it was stuck on."""
    run = _run(ctx)
    if run.timed_out is None:
        if run.error is None and run.crash is None and run.batch_seconds:
            return [passed("dataloader.timeout", f"the first batches arrived within {run.timeout:g} s")]
        return []
    stack = frames_of(run.stack)
    if "Thread 0x" in run.stack or "Current thread" in run.stack:
        stack = list(reversed(stack))  # faulthandler lists the innermost frame first
    waiting = bool(stack) and any("_get_data" in e.text for e in stack) and is_internal(stack[-1])
    shown = [e for e in stack if not is_internal(e)][-3:]
    where = f" It was at {shown[-1].location}: {shown[-1].text}." if shown and shown[-1].location else ""
    if waiting:
        where += " The main process was waiting for DataLoader workers, so the stuck line is in a worker: rerun with num_workers=0 to see it."
    limit = stage_timeout(run.timed_out, run.timeout)
    doing = STAGES.get(run.timed_out, run.timed_out)
    return [
        finding(
            "dataloader.timeout",
            Severity.ERROR,
            f"the data loader hangs: no result within {limit:g} s while {doing}",
            f"After {limit:g} s the loader was still {doing}; it was stopped." + where,
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


def ranks_on_node(ctx: CheckContext) -> int:
    """Processes that will load data on this node: LOCAL_WORLD_SIZE under a launcher, else one per device."""
    local = env_number(ctx.environ, "LOCAL_WORLD_SIZE")
    return max(1, len(ctx.devices), local if isinstance(local, int) else 0)


def _run(ctx: CheckContext) -> LoaderRun:
    """The probe's run; the registry runs these checks only when there is one (Need.DATALOADER)."""
    assert ctx.loader is not None
    return ctx.loader


def _facts(ctx: CheckContext) -> LoaderFacts | None:
    return _run(ctx).facts


@check(
    "dataloader.num-workers",
    category="dataloader",
    title="num_workers across all ranks against the CPU count",
    needs=(Need.DATALOADER,),
    entries=("dataloader-num-workers-warning",),
)
def check_num_workers(ctx: CheckContext) -> list[Finding]:
    """dataloader.num-workers: worker processes of all ranks on this node against its CPUs."""
    facts = _facts(ctx)
    workers = None if facts is None else facts.num_workers
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


@check(
    "dataloader.shm",
    category="dataloader",
    title="/dev/shm is large enough for the workers' batches",
    needs=(Need.DATALOADER,),
    entries=("dataloader-bus-error-shm",),
)
def check_shm(ctx: CheckContext) -> list[Finding]:
    """dataloader.shm: /dev/shm against what the workers of every rank keep in flight."""
    run = _run(ctx)
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


# Descriptors each batch in flight may hold before the open-files limit is too tight (one per shared tensor).
MIN_DESCRIPTORS_PER_BATCH = 256


@check(
    "dataloader.open-files",
    category="dataloader",
    title="the open-files limit (ulimit -n) leaves room for the workers' shared tensors",
    needs=(Need.DATALOADER,),
    entries=("dataloader-too-many-open-files",),
)
def check_open_files(ctx: CheckContext) -> list[Finding]:
    """dataloader.open-files: this process's open-files limit against the batches the workers keep in flight.

    Under torch's default `file_descriptor` sharing strategy every tensor a worker sends stays an
    open descriptor of the receiving process while it lives; the loader's processes inherit this
    process's limit.
    """
    facts = _facts(ctx)
    if facts is None or not facts.num_workers:
        return []
    try:
        import resource
    except ImportError:  # not a Unix: there is no such limit to read
        return []
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return [passed("dataloader.open-files", "the open-files limit is unlimited")]
    prefetch = facts.prefetch_factor or DEFAULT_PREFETCH
    in_flight = facts.num_workers * prefetch
    per_batch = soft // in_flight
    data = {"soft_limit": soft, "hard_limit": hard, "batches_in_flight": in_flight}
    if per_batch >= MIN_DESCRIPTORS_PER_BATCH:
        return [
            finding(
                "dataloader.open-files", Severity.OK, f"the open-files limit {soft} leaves room", data=data
            )
        ]
    if hard == resource.RLIM_INFINITY or hard > soft:
        target = 65536 if hard == resource.RLIM_INFINITY else hard
        raise_now = (
            f"Raise the limit before launching: `ulimit -n {target}` (no root needed up to the hard limit)."
        )
    else:
        raise_now = (
            f"The hard limit is also {hard}: ask for a higher one "
            "(`docker run --ulimit nofile=65536:65536`, limits.conf on a cluster)."
        )
    return [
        finding(
            "dataloader.open-files",
            Severity.WARNING,
            f"the open-files limit {soft} leaves ~{per_batch} descriptors per batch in flight",
            f"{facts.num_workers} worker(s) x prefetch {prefetch} keep {in_flight} batches in "
            "flight, and with torch's default sharing strategy every tensor of them holds an open file descriptor "
            "until it is freed. Batches of many small tensors, or tensors kept across steps, then fail with "
            "`Too many open files` or `received 0 items of ancdata`.",
            entry="dataloader-too-many-open-files",
            solutions=(raise_now,),
            data=data,
        )
    ]


def _split_counts(items: int, ranks: int, batch_size: int, drop_last: bool) -> list[int]:
    """Batches per rank when items are cut into contiguous slices, the last taking the remainder."""
    share = items // ranks
    sizes = [share] * (ranks - 1) + [items - share * (ranks - 1)]
    return [s // batch_size if drop_last else -(-s // batch_size) for s in sizes]


@check(
    "dataloader.uneven-batches",
    category="collective_timeout",
    title="every rank gets the same number of batches",
    needs=(Need.DATALOADER,),
    entries=("burn-ddp-worker-stalled", "nccl-watchdog-timeout"),
)
def check_uneven_batches(ctx: CheckContext) -> list[Finding]:
    """dataloader.uneven-batches: per-rank batch counts when the data is split across the devices."""
    facts = _facts(ctx)
    ranks = len(ctx.devices)
    if ranks < 2 or facts is None:
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
