"""What every command shares: global settings, common options, and the one error handler."""

from __future__ import annotations

import datetime as _dt
import functools
import os
import platform
import sys
import tempfile
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from ddpdoctor import __version__
from ddpdoctor.errors import DdpDoctorError, ExitCode
from ddpdoctor.present.render import ColorMode, OutputFormat, error_line

ENV_DEBUG = "DDPDOCTOR_DEBUG"


@dataclass
class Settings:
    """Global options, set by the app callback before any command runs."""

    debug: bool = False
    color: ColorMode = ColorMode.AUTO


SETTINGS = Settings()

FormatOption = Annotated[
    OutputFormat,
    typer.Option(
        "--format",
        "-f",
        help="Output format: auto (rich on a terminal, text otherwise), rich, text, json, markdown.",
    ),
]
KbOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--kb", help="Extra knowledge-base folder (repeatable); also DDPDOCTOR_KB_PATH.", show_default=False
    ),
]

F = TypeVar("F", bound=Callable[..., Any])


def handle_errors(fn: F) -> F:
    """Run a command body: expected errors become one line and exit 2, bugs a crash report and exit 3."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            code = fn(*args, **kwargs)
        except (typer.Exit, typer.Abort):
            raise
        except DdpDoctorError as exc:
            if SETTINGS.debug:
                traceback.print_exc()
            error_line(exc.message, exc.hint)
            raise typer.Exit(int(exc.exit_code)) from None
        except KeyboardInterrupt:
            sys.stderr.write("ddpdoctor: interrupted\n")
            raise typer.Exit(int(ExitCode.INTERRUPTED)) from None
        except Exception as exc:
            if SETTINGS.debug:
                raise
            report_internal_error(exc)
            raise typer.Exit(int(ExitCode.INTERNAL)) from None
        raise typer.Exit(int(code) if code is not None else 0)

    return wrapper  # type: ignore[return-value]


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
    error_line(f"internal error ({type(exc).__name__}: {exc}); this is a bug in ddpdoctor", hint)


def write_crash_report(exc: BaseException) -> Path:
    """Write versions, the command line and the traceback to a new file; return its path."""
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    path = crash_dir() / f"crash-{stamp}-{os.getpid()}.log"
    body = [
        *environment_lines(),
        f"argv {sys.argv!r}",
        "",
        "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)),
    ]
    path.write_text("\n".join(body), encoding="utf-8")
    return path
