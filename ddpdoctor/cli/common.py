"""What every command shares: global settings, common options, and the one error handler."""

from __future__ import annotations

import contextlib
import datetime as _dt
import functools
import os
import platform
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from ddpdoctor import __version__
from ddpdoctor.cli.handler import run_guarded
from ddpdoctor.cli.options import FORMAT, KB, typer_option
from ddpdoctor.errors import ExitCode
from ddpdoctor.optional import require_torch
from ddpdoctor.present.render import ColorMode, OutputFormat, error_line

# A flood of internal errors must not fill a disk: the newest reports are kept, each one bounded.
KEEP_CRASH_REPORTS = 20
MAX_CRASH_REPORT_CHARS = 256 * 1024
MAX_ERROR_LINE_CHARS = 300


@dataclass
class Settings:
    """Global options, set by the app callback before any command runs."""

    debug: bool = False
    color: ColorMode = ColorMode.AUTO
    quiet: bool = False


SETTINGS = Settings()

FormatOption = Annotated[OutputFormat, typer_option(FORMAT)]
KbOption = Annotated[list[Path] | None, typer_option(KB)]

F = TypeVar("F", bound=Callable[..., Any])


def handle_errors(fn: F) -> F:
    """Run a typer command body under :func:`ddpdoctor.cli.handler.run_guarded` and exit with its code."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        code = run_guarded(
            lambda: fn(*args, **kwargs) or 0, debug=SETTINGS.debug, passthrough=(typer.Exit, typer.Abort)
        )
        raise typer.Exit(code)

    return wrapper  # type: ignore[return-value]


def requires_torch(command: str) -> Callable[[F], F]:
    """Make a typer command refuse, in one line with an install hint, to run without torch."""

    def decorate(fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            code = run_guarded(lambda: _torch_present(command), debug=SETTINGS.debug)
            if code:
                raise typer.Exit(code)
            return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate


def _torch_present(command: str) -> int:
    require_torch(f"`{command}`")
    return int(ExitCode.OK)


def crash_dir() -> Path:
    """Where crash reports go: $XDG_STATE_HOME/ddpdoctor, else ~/.local/state/ddpdoctor, else the temp dir."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    for candidate in (Path(base) / "ddpdoctor", Path(tempfile.gettempdir()) / "ddpdoctor"):
        try:
            candidate.mkdir(parents=True, exist_ok=True)
            return candidate
        except OSError:
            continue
    return Path(tempfile.gettempdir())


def environment_lines() -> list[str]:
    """Versions a bug report needs; never imports torch (its CUDA version is read only if it is loaded)."""
    lines = [
        f"ddpdoctor {__version__}",
        f"python {platform.python_version()} ({sys.executable})",
        f"platform {platform.platform()}",
    ]
    try:
        lines.append(f"torch {metadata.version('torch')} (installed)")
    except metadata.PackageNotFoundError:
        lines.append("torch not installed")
    torch = sys.modules.get("torch")
    if torch is not None:
        cuda = getattr(getattr(torch, "version", None), "cuda", None)
        lines.append(f"torch.version.cuda {cuda}")
    return lines


def report_internal_error(exc: BaseException) -> None:
    """The one line (plus hint) for a bug: where its crash report went, or why none was written."""
    try:
        path = write_crash_report(exc)
    except OSError as failure:
        hint = f"no crash report could be written ({failure}); rerun with --debug to see the traceback"
    else:
        hint = f"details were written to {path}; please attach it to a bug report"
    what = f"{type(exc).__name__}: {exc}"
    if len(what) > MAX_ERROR_LINE_CHARS:
        what = what[:MAX_ERROR_LINE_CHARS] + "..."
    error_line(f"internal error ({what}); this is a bug in ddpdoctor", hint)


def write_crash_report(exc: BaseException) -> Path:
    """Write versions, the command line and the traceback to a new file; return its path.

    Only the newest KEEP_CRASH_REPORTS reports are kept, and each is cut at
    MAX_CRASH_REPORT_CHARS, so repeated crashes cannot fill the disk.
    """
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    folder = crash_dir()
    _drop_old_reports(folder, KEEP_CRASH_REPORTS - 1)
    path = folder / f"crash-{stamp}-{os.getpid()}-{time.monotonic_ns() % 10**9:09d}.log"
    body = "\n".join(
        [
            *environment_lines(),
            f"argv {sys.argv!r}"[:4096],
            "",
            "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)),
        ]
    )
    if len(body) > MAX_CRASH_REPORT_CHARS:
        half = MAX_CRASH_REPORT_CHARS // 2
        body = f"{body[:half]}\n[... {len(body) - 2 * half} characters cut ...]\n{body[-half:]}"
    path.write_text(body, encoding="utf-8", errors="backslashreplace")
    return path


def _drop_old_reports(folder: Path, keep: int) -> None:
    """Delete all but the `keep` newest crash reports in the folder."""
    reports = []
    for found in folder.glob("crash-*.log"):
        try:
            reports.append((found.stat().st_mtime_ns, found))
        except OSError:
            continue
    reports.sort(reverse=True)
    for _mtime, old in reports[keep:]:
        with contextlib.suppress(OSError):
            old.unlink()
