"""The one top-level handler every command runs under, typer or not, and the standard streams it needs.

Expected failures print one `ddpdoctor: error:` line (plus a hint) and exit 2; Ctrl-C exits 130;
anything else is a bug: one line, a crash report, exit 3. Both the typer commands
(:func:`ddpdoctor.cli.common.handle_errors`) and explain's fast path run their bodies through
:func:`run_guarded`. This module does not import typer, so the fast path stays cheap.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Callable

from ddpdoctor.errors import DdpDoctorError, ExitCode, InputError
from ddpdoctor.present.render import OutputError, error_line

ENV_DEBUG = "DDPDOCTOR_DEBUG"


def debug_from_env() -> bool:
    """Whether DDPDOCTOR_DEBUG asks for tracebacks."""
    return os.environ.get(ENV_DEBUG, "") not in ("", "0")


def run_guarded(
    body: Callable[[], int],
    *,
    debug: bool,
    passthrough: tuple[type[BaseException], ...] = (),
) -> int:
    """Run a command body and turn how it ended into an exit code; `passthrough` exceptions propagate."""
    try:
        return int(body())
    except passthrough:
        raise
    except DdpDoctorError as exc:
        if debug:
            import traceback  # only when a traceback is asked for: it imports textwrap, linecache, ...

            traceback.print_exc()
        if not (isinstance(exc, OutputError) and exc.reader_left):
            error_line(exc.message, exc.hint)
        return int(exc.exit_code)
    except KeyboardInterrupt:
        if sys.stderr is not None:
            sys.stderr.write("ddpdoctor: interrupted\n")
        return int(ExitCode.INTERRUPTED)
    except Exception as exc:
        if debug:
            raise
        from ddpdoctor.cli.common import report_internal_error  # imports typer: only on this path

        report_internal_error(exc)
        return int(ExitCode.INTERNAL)


class ClosedInput(io.TextIOBase):
    """Stands in for a closed standard input: reading it is an input error, not a crash."""

    def isatty(self) -> bool:
        """A closed input is no terminal."""
        return False

    def readable(self) -> bool:
        """Reading is refused with an InputError."""
        return True

    def read(self, size: int | None = -1) -> str:
        """Refuse: standard input is closed."""
        raise _closed_input()

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        """Refuse: standard input is closed."""
        raise _closed_input()

    @property
    def buffer(self) -> io.BufferedIOBase:
        """Refuse: standard input is closed."""
        raise _closed_input()


def _closed_input() -> InputError:
    return InputError("standard input is closed", hint="pipe a log in, or name log files instead of -")


def check_standard_streams() -> int | None:
    """Exit code 2 when standard output is closed; a closed standard input becomes :class:`ClosedInput`."""
    if sys.stdin is None:
        sys.stdin = ClosedInput()
    if sys.stdout is None:
        if sys.stderr is not None:
            error_line("standard output is closed", "send the output to a terminal, a file or a pipe")
        return int(ExitCode.USAGE)
    return None


def settle_stdout() -> None:
    """Make the interpreter's last flush of stdout harmless after a write failed (full disk, gone reader)."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        except (OSError, ValueError):
            return
