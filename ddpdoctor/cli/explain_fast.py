"""The shared body of `ddpdoctor explain`, and a fast path that runs it without typer.

`ddpdoctor explain LOG` is often run on a small log right after a crash, and the typer/rich
import chain alone costs several times the interpreter's start-up. For plain invocations
(`explain` first, only the options of :data:`OPTIONS`, output that is not rich) the console
entry point calls :func:`fast_main`, which parses those options by hand and calls the same
:func:`run_explain` as the typer command in :mod:`ddpdoctor.cli.explain`, under the same
handler (:func:`ddpdoctor.cli.handler.run_guarded`). Both paths declare their options from one
table (:mod:`ddpdoctor.cli.options`). Anything else (help, an unknown or malformed option, rich
output, `--debug`) returns None and goes through typer. A test runs both paths over a matrix of
arguments.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence

from ddpdoctor.cli.handler import debug_from_env, run_guarded
from ddpdoctor.cli.options import EXPLAIN_OPTIONS, GLOBAL_OPTIONS, OptionSpec, by_name, read_option
from ddpdoctor.explain.options import ENGINES, ExplainOptions
from ddpdoctor.present.render import ColorMode, OutputFormat, resolve_format
from ddpdoctor.records import Record, field

TYPE_CHECKING = False  # typing's constant, without importing typing (explain's cold start)
if TYPE_CHECKING:
    from typing import IO

# Every spelling the fast path reads: explain's own options and the global ones.
OPTIONS: dict[str, tuple[str, OptionSpec]] = by_name({**EXPLAIN_OPTIONS, **GLOBAL_OPTIONS})
PROGRESS_AFTER_S = 1.0


def build_options(kb: Sequence[str | os.PathLike[str]], engine: str, jobs: int) -> ExplainOptions:
    """The ExplainOptions both command-line paths build from their arguments."""
    return ExplainOptions(kb_dirs=tuple(os.fspath(k) for k in kb), engine=engine, jobs=jobs)


class ProgressBar:
    """A one-line progress bar on stderr, shown only when a scan runs longer than a second on a terminal."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        self.stream = stream or sys.stderr
        self.start = time.monotonic()
        self.enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self.last = 0.0
        self.shown = False

    def __call__(self, done: int, total: int | None) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.start < PROGRESS_AFTER_S or now - self.last < 0.1:
            return
        self.last = now
        self.shown = True
        mib = done / 2**20
        if total:
            share = min(1.0, done / total)
            bar = "#" * int(share * 30)
            text = (
                f"\rddpdoctor: scanning [{bar:<30}] {share * 100:5.1f}% {mib:,.0f}/{total / 2**20:,.0f} MiB"
            )
        else:
            text = f"\rddpdoctor: scanning {mib:,.0f} MiB"
        self.stream.write(text)
        self.stream.flush()

    def close(self) -> None:
        """Erase the bar."""
        if self.shown:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()


def run_explain(
    logs: Sequence[str],
    options: ExplainOptions,
    fmt: OutputFormat,
    *,
    verbose: bool,
    full: bool = False,
    redact: bool = False,
    color: ColorMode = ColorMode.AUTO,
    quiet: bool = False,
) -> int:
    """Explain the logs, print the report in the chosen format, return the exit code."""
    from ddpdoctor.explain.api import attach_excerpt, explain_paths
    from ddpdoctor.present.explain import explain_document
    from ddpdoctor.present.findings import emit_report

    if "-" in logs and sys.stdin.isatty():
        _read_terminal_input()
    bar = ProgressBar()
    try:
        report = explain_paths(list(logs), options, progress=bar)
    finally:
        bar.close()
    filing = resolve_format(fmt, color, sys.stdout) is OutputFormat.MARKDOWN
    if filing:
        attach_excerpt(report)
    if redact:
        report = report.redacted()
    emit_report(
        report,
        lambda r: explain_document(r, verbose=verbose, full=full or filing, filing=filing),
        fmt,
        color=color,
        quiet=quiet,
    )
    return int(report.exit_code())


def _read_terminal_input() -> None:
    """Say that a log is awaited on the terminal, and take it whole at the first Ctrl-D.

    A terminal's end of input is one empty read; the log reader reads again after it, which on a
    terminal would wait for a second Ctrl-D. What was typed or pasted is kept in memory instead.
    """
    import io

    sys.stderr.write("ddpdoctor: reading the log from standard input (end it with Ctrl-D)\n")
    sys.stderr.flush()
    typed = sys.stdin.buffer.read()
    sys.stdin = io.TextIOWrapper(io.BytesIO(typed), encoding="utf-8", errors="surrogateescape")


class FastArgs(Record):
    """A plain `explain` argument list, read by :func:`parse_fast`."""

    logs: list[str] = field(default_factory=list)
    fmt: OutputFormat = OutputFormat.AUTO
    verbose: bool = False
    color: ColorMode = ColorMode.AUTO
    quiet: bool = False
    full: bool = False
    redact: bool = False
    kb: list[str] = field(default_factory=list)
    engine: str = "auto"
    jobs: int = 0


def parse_fast(args: Sequence[str]) -> FastArgs | None:
    """The logs and options of a plain `explain` argument list, or None when typer must handle it."""
    parsed = FastArgs()
    i = 0
    only_paths = False
    while i < len(args):
        arg = args[i]
        i += 1
        if only_paths or arg == "-" or not arg.startswith("-"):
            parsed.logs.append(arg)
            continue
        if arg == "--":
            only_paths = True
            continue
        read = read_option(arg, args, i, OPTIONS)
        if read is None:
            return None
        dest, value, i = read
        if isinstance(value, bool):
            setattr(parsed, dest, value)
            continue
        if not _store(parsed, dest, value):
            return None
    return parsed if parsed.logs else None


def _store(parsed: FastArgs, dest: str, value: str) -> bool:
    """Store one option value; False when it is invalid (typer then reports it)."""
    if dest in ("fmt", "color"):
        choice = OutputFormat if dest == "fmt" else ColorMode
        try:
            setattr(parsed, dest, choice(value))
        except ValueError:
            return False
    elif dest == "kb":
        parsed.kb.append(value)
    elif dest == "engine":
        if value not in ENGINES:
            return False
        parsed.engine = value
    elif dest == "jobs":
        if not (value.isascii() and value.isdigit()):  # int() rejects some Unicode digits, e.g. "²"
            return False
        parsed.jobs = int(value)
    return True


def fast_main(argv: Sequence[str]) -> int | None:
    """Run `explain` without typer when the arguments allow it; None means "use the typer app"."""
    if not argv or argv[0] != "explain" or debug_from_env():
        return None
    args = parse_fast(argv[1:])
    if args is None or resolve_format(args.fmt, args.color, sys.stdout) is OutputFormat.RICH:
        return None
    options = build_options(args.kb, args.engine, args.jobs)
    return run_guarded(
        lambda: run_explain(
            args.logs,
            options,
            args.fmt,
            verbose=args.verbose,
            full=args.full,
            redact=args.redact,
            color=args.color,
            quiet=args.quiet,
        ),
        debug=False,
    )
