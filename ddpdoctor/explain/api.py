"""explain_paths / explain_text: read logs, find the failure events, pick the culprit, build the report."""

from __future__ import annotations

import _thread
import io
import os
from collections.abc import Callable, Sequence
from typing import IO, Any

from ddpdoctor.errors import InputError
from ddpdoctor.explain.diagnose import Diagnosis, diagnose
from ddpdoctor.explain.index import IndexEntry, KbIndex, load_index
from ddpdoctor.explain.match import FastMatcher
from ddpdoctor.explain.model import Event
from ddpdoctor.explain.options import ENGINES, ExplainOptions
from ddpdoctor.explain.parse import FileParser, error_file_events
from ddpdoctor.explain.report import MAX_EVIDENCE, ExplainReport, event_finding
from ddpdoctor.explain.scan import ReadInto, Scanner, make_engine
from ddpdoctor.explain.sources import (
    ERROR_FILE,
    MAX_ERROR_FILE_BYTES,
    STDIN,
    Source,
    discover,
    open_source,
    reader,
)
from ddpdoctor.findings import Finding, Severity

Progress = Callable[[int, "int | None"], None]
HEAD_BYTES = 64 * 1024
MAX_JOBS = 8
# Several inputs of this many bytes in all are scanned in parallel processes (below: threads).
PROCESS_MIN_BYTES = 64 * 1024 * 1024
_GENERIC_SOLUTIONS = (
    "Read the evidence line: it is the first error the logs show; the other ranks' errors are usually "
    "consequences of it.",
    "If it was raised from your code (see 'raised at'), fix it there; reproduce on a single device first.",
    "Run `ddpdoctor explain --format markdown LOG... > report.md` and file it as a ddpdoctor issue so the "
    "message can be added to the knowledge base.",
)


class _Context:
    """What every input of one run shares."""

    def __init__(self, options: ExplainOptions, progress: Progress | None, total: int | None) -> None:
        if options.engine not in ENGINES:
            raise InputError(f"unknown engine {options.engine!r}", hint=f"use one of: {', '.join(ENGINES)}")
        self.index: KbIndex = load_index(options.kb_dirs)
        if options.engine == "hyperscan" and self.index.hs_blob is None:
            raise InputError(
                "the hyperscan engine is not available", hint="pip install hyperscan, or use --engine python"
            )
        self.engine = make_engine(self.index, options.engine, total)
        self.matcher = FastMatcher(self.index, self.engine)
        self._progress = progress
        self._total = total
        self._done = 0
        self._lock = _thread.allocate_lock()

    def silence(self) -> None:
        """Stop reporting progress (in a forked scan process)."""
        self._progress = None

    def advance(self, n: int) -> None:
        """Count `n` more bytes read and report the total."""
        if self._progress is None:
            return
        with self._lock:
            self._done += n
            done = self._done
        self._progress(done, self._total)


class _HeadCapture:
    """Wraps a reader and keeps the first bytes (the srun label check looks at them)."""

    def __init__(self, read_into: ReadInto) -> None:
        self._read_into = read_into
        self.head = bytearray()

    def __call__(self, view: memoryview) -> int:
        n = self._read_into(view)
        if len(self.head) < HEAD_BYTES and n:
            self.head += view[: min(n, HEAD_BYTES - len(self.head))]
        return n

    def get(self) -> bytes:
        return bytes(self.head)


def _scan(
    ctx: _Context,
    label: str,
    index: int,
    read_into: ReadInto,
    rank: int | None,
    rank_source: str | None,
    size_hint: int | None = None,
) -> tuple[list[Event], dict[str, Any]]:
    capture = _HeadCapture(read_into)
    parser = FileParser(
        ctx.matcher, label, index, default_rank=rank, rank_source=rank_source, head=capture.get
    )
    stats = Scanner(ctx.engine, ctx.index, parser, progress=ctx.advance).run(capture, size_hint)
    events = parser.finish()
    info = {"bytes": stats.bytes, "lines": stats.lines, "selected_lines": stats.hit_lines}
    if parser.dropped:
        info["events_dropped"] = parser.dropped
    return events, info


def _read_stream(
    ctx: _Context,
    label: str,
    index: int,
    stream: IO[bytes],
    rank: int | None,
    rank_source: str | None,
    *,
    error_file: bool,
    size: int | None,
) -> tuple[list[Event], dict[str, Any], bool]:
    """(events, read statistics, whether it was read as a torchelastic error file) of one input.

    A candidate error file is read whole (up to MAX_ERROR_FILE_BYTES); when it is not one, those
    bytes are scanned as a log, followed by the rest of the stream.
    """
    head = b""
    if error_file and (size or 0) <= MAX_ERROR_FILE_BYTES:
        head = stream.read(MAX_ERROR_FILE_BYTES + 1)
        if len(head) <= MAX_ERROR_FILE_BYTES:
            events = error_file_events(ctx.matcher, label, index, head, rank, rank_source)
            if events is not None:
                ctx.advance(len(head))
                lines = head.count(b"\n") + (0 if head.endswith(b"\n") else 1)
                return events, {"bytes": len(head), "lines": lines, "selected_lines": 0}, True
    events, stats = _scan(ctx, label, index, reader(stream, head), rank, rank_source, size)
    return events, stats, False


def _read_source(ctx: _Context, source: Source, index: int) -> tuple[list[Event], dict[str, Any]]:
    info: dict[str, Any] = {
        "path": source.display,
        "kind": "stdin" if source.path == STDIN else "file",
        "rank": source.rank,
        "rank_source": source.rank_source,
    }
    with open_source(source) as stream:
        events, stats, as_error_file = _read_stream(
            ctx,
            source.display,
            index,
            stream,
            source.rank,
            source.rank_source,
            error_file=source.error_file,
            size=None if source.compressed else source.size,
        )
    if as_error_file:
        info["kind"] = "error-file"
    else:
        info["gzip"] = source.compressed
    info.update(stats)
    return events, info


def explain_paths(
    paths: Sequence[str], options: ExplainOptions | None = None, *, progress: Progress | None = None
) -> ExplainReport:
    """Explain the failure in log files, folders of logs, or `-` (standard input)."""
    if isinstance(paths, (str, bytes, os.PathLike)):
        raise InputError(
            f"explain_paths takes a list of paths, not one path: {os.fsdecode(os.fspath(paths))!r}",
            hint=f"write explain_paths([{os.fsdecode(os.fspath(paths))!r}])",
        )
    options = options or ExplainOptions()
    sources = discover(paths)
    sizes = [s.size for s in sources]
    total = None if any(s is None for s in sizes) else sum(s or 0 for s in sizes)
    ctx = _Context(options, progress, total)
    jobs = options.jobs or min(MAX_JOBS, os.cpu_count() or 1)
    jobs = max(1, min(jobs, len(sources)))
    if jobs == 1:
        results = [_read_source(ctx, source, i) for i, source in enumerate(sources)]
    elif total is not None and total >= PROCESS_MIN_BYTES and _can_fork():
        results = _read_in_processes(ctx, sources, jobs)
    else:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="ddpdoctor-scan") as pool:
            results = list(pool.map(lambda pair: _read_source(ctx, pair[1], pair[0]), enumerate(sources)))
    events = [e for found, _ in results for e in found]
    return build_report(diagnose(events, ctx.index), [info for _, info in results], ctx.engine.name)


def _can_fork() -> bool:
    import sys

    return sys.platform.startswith("linux")


# The context forked scan processes inherit (set only while a process pool runs).
_WORKER_CONTEXT: _Context | None = None
Result = tuple[list[Event], dict[str, Any]]


def _read_in_worker(item: tuple[int, Source]) -> Result | tuple[str, str | None]:
    """Scan one source in a forked process; expected errors come back as (message, hint).

    Only the parent reports progress (as each result arrives): a child's copy of the progress
    callback would draw its own bar on the same terminal.
    """
    assert _WORKER_CONTEXT is not None
    _WORKER_CONTEXT.silence()
    try:
        return _read_source(_WORKER_CONTEXT, item[1], item[0])
    except InputError as exc:
        return exc.message, exc.hint


def _read_in_processes(ctx: _Context, sources: list[Source], jobs: int) -> list[Result]:
    """Scan big inputs in forked processes: the scan holds the GIL, so threads would not overlap."""
    global _WORKER_CONTEXT
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    results: list[Result] = []
    _WORKER_CONTEXT = ctx
    try:
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            for outcome in pool.map(_read_in_worker, enumerate(sources)):
                if isinstance(outcome[0], str):
                    message, hint = outcome
                    raise InputError(str(message), hint=hint if isinstance(hint, str) else None)
                events, info = outcome
                assert isinstance(events, list) and isinstance(info, dict)
                ctx.advance(int(info.get("bytes") or 0))
                results.append((events, info))
    finally:
        _WORKER_CONTEXT = None
    return results


def explain_text(text: str, *, name: str = "<text>", options: ExplainOptions | None = None) -> ExplainReport:
    """Explain the failure in a log given as a string (one input called `name`)."""
    data = text.encode("utf-8", "surrogateescape")
    ctx = _Context(options or ExplainOptions(), None, len(data))
    info: dict[str, Any] = {"path": name, "kind": "text", "rank": None, "rank_source": None}
    events, stats, _ = _read_stream(
        ctx,
        name,
        0,
        io.BytesIO(data),
        None,
        None,
        error_file=os.path.basename(name) == ERROR_FILE,
        size=len(data),
    )
    info.update(stats)
    return build_report(diagnose(events, ctx.index), [info], ctx.engine.name)


# --- report -------------------------------------------------------------------------------------


def _other_finding(
    event: Event, finding_id: str, severity: Severity, category: str, entry: IndexEntry | None
) -> Finding:
    """The finding for an event that is not the root cause (a victim, another failure, a warning)."""
    return event_finding(
        finding_id,
        severity,
        category=category,
        title=entry.title if entry is not None else event.innermost_text()[:200],
        message=event.text,
        rank=event.rank,
        evidence=event.evidence,
        entry=entry.id if entry is not None else None,
        data={
            "rank": event.rank,
            "file": event.file,
            "line": event.line,
            "text": event.text,
            "source": event.source,
            "exit_code": event.exit_code,
            "count": event.count,
        },
    )


def build_report(diag: Diagnosis, inputs: list[dict[str, Any]], engine: str) -> ExplainReport:
    """Turn a diagnosis into the report (JSON contract plus findings)."""
    report = ExplainReport(inputs=inputs, stats={"engine": engine, "events": len(diag.events)})
    findings: list[Finding] = []
    culprit = diag.culprit
    if culprit is not None:
        event, entry = culprit.event, culprit.entry
        solutions = list(entry.solutions) if entry is not None else list(_GENERIC_SOLUTIONS)
        if entry is not None:
            title = entry.title
        elif event.exc_type:
            title = f"{event.exc_type} (not in the knowledge base)"
        else:
            title = "Unrecognised failure"
        root: dict[str, Any] = {
            "entry": entry.id if entry is not None else None,
            "category": culprit.category,
            "rank": culprit.rank,
            "file": event.file,
            "line": event.line,
            "text": event.text,
            "chain": [link.to_dict() for link in culprit.chain],
            "solutions": solutions,
            "kind": culprit.kind,
            "status": entry.status if entry is not None else None,
            "title": title,
            "rank_note": culprit.rank_note,
            "rank_source": event.rank_source,
            "local_rank": event.local_rank,
            "frame": event.frame,
            "thread": event.thread,
            "exit_code": event.exit_code,
            "suspect_ranks": culprit.suspects,
            "advice": culprit.advice,
            "evidence": [{"file": f, "line": n, "text": t} for f, n, t in event.evidence[:MAX_EVIDENCE]],
            "example_fix": dict(entry.fix) if entry is not None else None,
        }
        report.root_cause = root
        findings.append(
            event_finding(
                "explain.root-cause",
                Severity.ERROR,
                category=culprit.category,
                title=title,
                message=event.text,
                rank=culprit.rank,
                evidence=event.evidence,
                entry=root["entry"],
                solutions=tuple(solutions),
                data={"kind": culprit.kind, "chain": root["chain"], "advice": culprit.advice},
            )
        )
    shown = {id(culprit.event)} if culprit is not None else set()
    for event, category, entry, role in diag.victims:
        shown.add(id(event))
        report.victims.append(
            {
                "rank": event.rank,
                "category": category,
                "entry": entry.id if entry is not None else None,
                "line": event.line,
                "file": event.file,
                "text": event.text,
                "role": role,
                "exit_code": event.exit_code,
            }
        )
        findings.append(_other_finding(event, f"explain.{role}", Severity.WARNING, category, entry))
    for event in [*diag.events, *diag.warnings]:
        if id(event) in shown:
            continue
        findings.append(
            _other_finding(
                event,
                "explain.warning" if event.warning else "explain.event",
                Severity.WARNING if event.warning else Severity.INFO,
                event.category(),
                event.known(),
            )
        )
    report.findings = findings
    return report
