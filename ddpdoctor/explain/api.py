"""explain_paths / explain_text: read logs, find the failure events, pick the culprit, build the report."""

from __future__ import annotations

import _thread
import io
import os
from collections.abc import Callable, Sequence

from ddpdoctor.errors import InputError
from ddpdoctor.explain.diagnose import build_report, diagnose
from ddpdoctor.explain.index import KbIndex, load_index
from ddpdoctor.explain.match import FastMatcher
from ddpdoctor.explain.observations import Observation
from ddpdoctor.explain.options import ENGINES, ExplainOptions
from ddpdoctor.explain.ranks import TORCHRUN_FOLDER
from ddpdoctor.explain.recognize import LogReader, error_file_observations
from ddpdoctor.explain.report import ExplainReport
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
from ddpdoctor.explain.workers import checked_jobs
from ddpdoctor.explain.wrap import WrapJoiner

TYPE_CHECKING = False  # typing's constant, without importing typing (explain's cold start)
if TYPE_CHECKING:
    from typing import IO, Any

    Result = tuple[list[Observation], dict[str, Any]]

Progress = Callable[[int, "int | None"], None]
HEAD_BYTES = 64 * 1024
MAX_JOBS = 8
# Several inputs of this many bytes in all are scanned in parallel processes (below: threads).
PROCESS_MIN_BYTES = 64 * 1024 * 1024


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
) -> tuple[list[Observation], dict[str, Any]]:
    capture = _HeadCapture(read_into)
    reader = LogReader(
        ctx.matcher, label, index, default_rank=rank, rank_source=rank_source, head=capture.get
    )
    anchor_base = ctx.index.anchor_base
    joiner = WrapJoiner(
        reader,
        capture.get,
        lambda text: frozenset(pid for pid in ctx.engine.candidates(text) if pid < anchor_base),
    )
    scanner = Scanner(ctx.engine, ctx.index, joiner, progress=ctx.advance, wrap_width=joiner.detect_width)
    stats = scanner.run(capture, size_hint)
    observations = reader.finish(joiner.finish(stats.last_text_line))
    joiner.renumber(observations)
    info: dict[str, Any] = {
        "bytes": stats.bytes,
        "lines": stats.lines,
        "selected_lines": stats.hit_lines,
        "text": stats.text,
    }
    if reader.world_sizes:
        info["world_size_hints"] = sorted(reader.world_sizes)
    if reader.dropped:
        info["events_dropped"] = reader.dropped
    return observations, info


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
) -> tuple[list[Observation], dict[str, Any], bool]:
    """(events, read statistics, whether it was read as a torchelastic error file) of one input.

    A candidate error file is read whole (up to MAX_ERROR_FILE_BYTES); when it is not one, those
    bytes are scanned as a log, followed by the rest of the stream.
    """
    head = b""
    if error_file and (size or 0) <= MAX_ERROR_FILE_BYTES:
        head = stream.read(MAX_ERROR_FILE_BYTES + 1)
        if len(head) <= MAX_ERROR_FILE_BYTES:
            events = error_file_observations(ctx.matcher, label, index, head, rank, rank_source)
            if events is not None:
                ctx.advance(len(head))
                lines = head.count(b"\n") + (0 if head.endswith(b"\n") else 1)
                read = {"bytes": len(head), "lines": lines, "selected_lines": 0, "text": bool(head.strip())}
                return events, read, True
    events, stats = _scan(ctx, label, index, reader(stream, head), rank, rank_source, size)
    return events, stats, False


def _read_source(ctx: _Context, source: Source, index: int) -> tuple[list[Observation], dict[str, Any]]:
    info: dict[str, Any] = {
        "path": source.display,
        "kind": "stdin" if source.path == STDIN else "file",
        "rank": source.rank,
        "rank_source": source.rank_source,
    }
    if source.skipped is not None:
        info["skipped"] = f"not read: {source.skipped}"
        return [], info
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
    if source.encoding is not None:
        info["encoding"] = source.encoding
    info.update(stats)
    _note_budget(ctx, info)
    return events, info


def _note_budget(ctx: _Context, info: dict[str, Any]) -> None:
    """Say in an input's statistics that it was read (in part) without the team patterns."""
    if ctx.matcher.budget.notes:
        info["notes"] = list(ctx.matcher.budget.notes)


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
    jobs = max(1, min(checked_jobs(options.jobs, MAX_JOBS), len(sources)))
    if total is not None and total >= PROCESS_MIN_BYTES and _can_fork() and jobs > 1:
        results = _read_in_processes(ctx, sources, jobs)
    elif jobs == 1 or ctx.index.team_patterns:  # team patterns are timed, on the main thread only
        results = [_read_source(ctx, source, i) for i, source in enumerate(sources)]
    else:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="ddpdoctor-scan") as pool:
            results = list(pool.map(lambda pair: _read_source(ctx, pair[1], pair[0]), enumerate(sources)))
    if not any(info.pop("text", False) for _, info in results):
        names = ", ".join(str(info["path"]) for _, info in results)
        empty = not any(info.get("bytes") for _, info in results)
        raise InputError(
            f"nothing to read: {names} {'is empty' if empty else 'holds only blank lines'}",
            hint="pass the log the job wrote, or - for standard input",
        )
    return _report(ctx, results)


def _report(ctx: _Context, results: list[Result]) -> ExplainReport:
    observations = [obs for found, _ in results for obs in found]
    hints = [w for _, info in results for w in info.pop("world_size_hints", ())]
    ranks = [info["rank"] for _, info in results if isinstance(info.get("rank"), int)]
    launcher_folder = bool(ranks) and all(info.get("rank_source") == TORCHRUN_FOLDER for _, info in results)
    timeline, verdict = diagnose(observations, hints, ctx.index, ranks, launcher_folder)
    return build_report(timeline, verdict, [info for _, info in results], ctx.engine.name)


def _can_fork() -> bool:
    import sys

    return sys.platform.startswith("linux")


def _read_in_processes(ctx: _Context, sources: list[Source], jobs: int) -> list[Result]:
    """Scan big inputs in forked processes: the scan holds the GIL, so threads would not overlap.

    Only the parent reports progress (as each result arrives): a child's copy of the progress
    callback would draw its own bar on the same terminal.
    """
    from ddpdoctor.explain.workers import run_forked

    results: list[Result | None] = [None] * len(sources)

    def task(index: int) -> Result:
        ctx.silence()
        return _read_source(ctx, sources[index], index)

    def collect(index: int, result: Result) -> None:
        ctx.advance(int(result[1].get("bytes") or 0))
        results[index] = result

    run_forked(task, len(sources), jobs, collect, lambda index: sources[index].display)
    return [result for result in results if result is not None]


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
    _note_budget(ctx, info)
    return _report(ctx, [(events, info)])


EXCERPT_CONTEXT = 6
_EXCERPT_LINE_CHARS = 400


def attach_excerpt(report: ExplainReport, context: int = EXCERPT_CONTEXT) -> None:
    """Add the log lines around the root line to the report (for `--format markdown`, an issue to file).

    The log is read again through the same reader as the scan (gzip, UTF-16), one bounded line at a
    time, so a huge line or a compressed log costs no more than the lines shown.
    """
    root = report.root_cause
    if root is None or root.line < 1 or not os.path.isfile(root.file):
        return
    first, last = max(1, root.line - context), root.line + context
    lines: list[tuple[int, str]] = []
    try:
        (source,) = discover([root.file])
        with open_source(source) as stream:
            for number in range(1, last + 1):
                raw = stream.readline(_EXCERPT_LINE_CHARS * 4)
                if not raw:
                    break
                rest = raw
                while rest and not rest.endswith(b"\n"):  # skip the rest of an overlong line, in pieces
                    rest = stream.readline(1 << 16)
                if number >= first:
                    text = raw.decode("utf-8", "replace").rstrip("\r\n")
                    lines.append((number, text[:_EXCERPT_LINE_CHARS]))
    except (OSError, InputError, ValueError):
        return
    report.excerpt = lines
