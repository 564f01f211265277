"""The body of `ddpdoctor run`, and a fast path that starts the job without typer.

The job waits for ddpdoctor's own start, and the typer application imports every command first
(explain, check, the knowledge base, the scenario catalog, rich): half a second on an idle machine,
several seconds on a busy one. For plain invocations (global options, `run`, only the options of
:data:`ddpdoctor.cli.options.RUN_OPTIONS`, then the command) the console entry point calls
:func:`fast_main`, which parses them by hand and calls the same :func:`run_job` as the typer
command in :mod:`ddpdoctor.cli.run`, under the same handler. Only the supervisor is imported before
the job starts; the analysis and the renderers load while it runs or after it ends. Anything else
(help, an unknown or malformed option, `--debug`, no command) returns None and goes through typer.
A test runs both paths over a matrix of arguments.
"""

from __future__ import annotations

import enum
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ddpdoctor.cli.handler import debug_from_env, run_guarded
from ddpdoctor.cli.options import GLOBAL_OPTIONS, RUN_OPTIONS, OptionSpec, by_name, read_option
from ddpdoctor.present.render import ColorMode, OutputFormat, emit, render_markdown
from ddpdoctor.supervise.instrument import Setting
from ddpdoctor.supervise.supervisor import (
    DEFAULT_HANG_AFTER_S,
    RunCallbacks,
    RunOptions,
    supervise,
    write_folder,
)

if TYPE_CHECKING:
    from ddpdoctor.supervise.report import HangReport

GLOBAL_SPELLINGS: dict[str, tuple[str, OptionSpec]] = by_name(GLOBAL_OPTIONS)
RUN_SPELLINGS: dict[str, tuple[str, OptionSpec]] = by_name(RUN_OPTIONS)


class OnHang(str, enum.Enum):
    """`--on-hang` choices."""

    REPORT = "report"
    KILL = "kill"


def build_run_options(
    command: Sequence[str],
    *,
    out: Path | None,
    hang_after: float,
    on_hang: OnHang,
    native: bool,
    instrument: bool,
    kb: Sequence[Path],
) -> RunOptions:
    """The RunOptions both command-line paths build from their arguments."""
    return RunOptions(
        command=tuple(command),
        out=out,
        hang_after=hang_after,
        on_hang=on_hang.value,
        native=native,
        instrument=instrument,
        kb_dirs=tuple(str(p) for p in kb),
    )


def _say(line: str) -> None:
    sys.stderr.write(f"ddpdoctor: {line}\n")
    sys.stderr.flush()


def _started(folder: Path, applied: list[Setting]) -> None:
    _say(f"run folder {folder}")
    for setting in applied:
        _say(f"set {setting.name}={setting.value} ({setting.why})")


def run_job(options: RunOptions, fmt: OutputFormat, color: ColorMode) -> int:
    """Supervise the job, write its folder, print ddpdoctor's lines to stderr; return the job's status."""

    def hang(report: HangReport) -> None:
        from ddpdoctor.present.run import hang_document

        if options.on_hang == OnHang.REPORT.value:
            emit(hang_document(report), report.to_dict(), fmt, color=color, stream=sys.stderr)

    report = supervise(
        options,
        stdout=sys.stdout.buffer,
        stderr=sys.stderr.buffer,
        callbacks=RunCallbacks(started=_started, hang=hang),
    )
    from ddpdoctor.present.run import run_document

    write_folder(report, render_markdown(run_document(report)))
    if report.ok:
        _say(f"the job exited with status 0 after {report.duration_s:.1f} s; logs in {report.folder}")
    else:
        emit(run_document(report), report.to_dict(), fmt, color=color, stream=sys.stderr)
    return report.returncode


@dataclass
class RunArgs:
    """A plain `run` argument list, read by :func:`parse_run`."""

    command: list[str] = field(default_factory=list)
    out: Path | None = None
    hang_after: float = DEFAULT_HANG_AFTER_S
    on_hang: OnHang = OnHang.REPORT
    native: bool = False
    instrument: bool = True
    fmt: OutputFormat = OutputFormat.AUTO
    kb: list[Path] = field(default_factory=list)
    color: ColorMode = ColorMode.AUTO
    quiet: bool = False


def parse_run(args: Sequence[str]) -> RunArgs | None:
    """The options and command of `[GLOBAL OPTIONS] run [OPTIONS] [--] COMMAND...`, or None for typer.

    Global options written after `run` must already stand before it
    (:func:`ddpdoctor.cli.options.hoist_global_options`).
    """
    parsed = RunArgs()
    spellings = GLOBAL_SPELLINGS
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if spellings is RUN_SPELLINGS and (arg in ("--", "-") or not arg.startswith("-")):
            parsed.command = list(args[i:] if arg == "--" else args[i - 1 :])
            return parsed if parsed.command else None
        if spellings is GLOBAL_SPELLINGS and arg == "run":
            spellings = RUN_SPELLINGS
            continue
        read = read_option(arg, args, i, spellings)
        if read is None:
            return None
        dest, value, i = read
        if isinstance(value, bool):
            setattr(parsed, dest, value)
        elif not _store(parsed, dest, value):
            return None
    return None


def _store(parsed: RunArgs, dest: str, value: str) -> bool:
    """Store one option value; False when it is empty or invalid (typer then reports it)."""
    if not value:
        return False
    try:
        if dest == "out":
            parsed.out = Path(value)
        elif dest == "kb":
            parsed.kb.append(Path(value))
        elif dest == "hang_after":
            parsed.hang_after = float(value)
            return parsed.hang_after >= 0
        elif dest == "on_hang":
            parsed.on_hang = OnHang(value)
        elif dest == "fmt":
            parsed.fmt = OutputFormat(value)
        elif dest == "color":
            parsed.color = ColorMode(value)
    except ValueError:
        return False
    return True


def fast_main(argv: Sequence[str]) -> int | None:
    """Run `run` without typer when the (hoisted) arguments allow it; None means "use the typer app"."""
    if debug_from_env():
        return None
    args = parse_run(argv)
    if args is None:
        return None
    options = build_run_options(
        args.command,
        out=args.out,
        hang_after=args.hang_after,
        on_hang=args.on_hang,
        native=args.native,
        instrument=args.instrument,
        kb=args.kb,
    )
    return run_guarded(lambda: run_job(options, args.fmt, args.color), debug=False)
