"""The typer application: global options and the registration of every command group."""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from typing import Annotated

import typer

from ddpdoctor import __version__
from ddpdoctor.cli import check as check_commands
from ddpdoctor.cli import env as env_commands
from ddpdoctor.cli import explain as explain_commands
from ddpdoctor.cli import kb as kb_commands
from ddpdoctor.cli import reproduce as reproduce_commands
from ddpdoctor.cli import run as run_commands
from ddpdoctor.cli import stacks as stacks_commands
from ddpdoctor.cli.common import ENV_DEBUG, SETTINGS
from ddpdoctor.cli.render import ColorMode
from ddpdoctor.errors import ExitCode

# A CPU-only torch without numpy warns about it on import; it says nothing about the user's job.
warnings.filterwarnings("ignore", message="Failed to initialize NumPy", category=UserWarning)

app = typer.Typer(
    name="ddpdoctor",
    help="Diagnose multi-device (data-parallel) training failures: explain logs, check setups, look up errors.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    pretty_exceptions_show_locals=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
# Command registration: one line per command or group.
app.add_typer(kb_commands.app, name="kb")
app.command("explain")(explain_commands.explain)
app.command("reproduce")(reproduce_commands.reproduce)
app.command("check")(check_commands.check)
app.command("env")(env_commands.env)
app.command("run", context_settings={"allow_interspersed_args": False})(run_commands.run)
app.command("stacks")(stacks_commands.stacks)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"ddpdoctor {__version__}")
        raise typer.Exit(0)


@app.callback()
def _global_options(
    debug: Annotated[
        bool, typer.Option("--debug", help="Show tracebacks instead of one-line errors.")
    ] = False,
    color: Annotated[
        ColorMode, typer.Option("--color", help="Colour: auto (terminal only), always, never.")
    ] = ColorMode.AUTO,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Diagnose multi-device (data-parallel) training failures.

    Exit codes: 0 healthy, 1 problem found, 2 usage/input/knowledge-base error, 3 internal bug,
    130 interrupted.
    """
    SETTINGS.debug = debug or os.environ.get(ENV_DEBUG, "") not in ("", "0")
    SETTINGS.color = color


def run(argv: Sequence[str] | None = None) -> int:
    """Invoke the app with `argv` (default: sys.argv) and return the exit code instead of exiting."""
    try:
        app(args=list(argv) if argv is not None else None, prog_name="ddpdoctor")
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            return int(exc.code or 0)
        return int(ExitCode.PROBLEM)
    return int(ExitCode.OK)
