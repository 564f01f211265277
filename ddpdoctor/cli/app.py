"""The typer application: global options and the registration of every command group."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Annotated, Any

import typer

from ddpdoctor import __version__
from ddpdoctor.cli import check as check_commands
from ddpdoctor.cli import env as env_commands
from ddpdoctor.cli import explain as explain_commands
from ddpdoctor.cli import kb as kb_commands
from ddpdoctor.cli import reproduce as reproduce_commands
from ddpdoctor.cli import run as run_commands
from ddpdoctor.cli import stacks as stacks_commands
from ddpdoctor.cli.common import SETTINGS, requires_torch
from ddpdoctor.cli.handler import debug_from_env
from ddpdoctor.cli.help import PlainHelpCommand, PlainHelpGroup, example
from ddpdoctor.cli.options import COLOR, DEBUG, QUIET, typer_option
from ddpdoctor.errors import ExitCode
from ddpdoctor.present.render import ColorMode, error_line

# A CPU-only torch without numpy warns about it on import; it says nothing about the user's job.
warnings.filterwarnings("ignore", message="Failed to initialize NumPy", category=UserWarning)

# typer re-exports click's BadParameter only; its bases are click's UsageError and ClickException.
_USAGE_ERROR: type[Exception] = typer.BadParameter.__mro__[1]
_CLICK_ERROR: type[Exception] = typer.BadParameter.__mro__[2]

app = typer.Typer(
    name="ddpdoctor",
    help="Diagnose multi-device (data-parallel) training failures: explain logs, check setups, look up errors.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    pretty_exceptions_show_locals=False,
    rich_markup_mode=None,
    cls=PlainHelpGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)


def register(
    name: str,
    command: Callable[..., Any],
    summary: str,
    usage: str,
    context_settings: dict[str, Any] | None = None,
) -> None:
    """Add a command with its one-line summary (the command list) and one example (its help)."""
    app.command(
        name,
        cls=PlainHelpCommand,
        short_help=summary,
        epilog=example(usage),
        context_settings=context_settings,
    )(command)


# Command registration: one line per command or group.
app.add_typer(kb_commands.app, name="kb", short_help="Browse, search and validate the error knowledge base.")
register(
    "explain",
    explain_commands.explain,
    "Find the root cause of a failure in logs.",
    "ddpdoctor explain rank*.log",
)
register(
    "reproduce",
    reproduce_commands.reproduce,
    "Make a documented failure happen, then explain it.",
    "ddpdoctor reproduce main-oom",
)
register(
    "check",
    requires_torch("ddpdoctor check")(check_commands.check),
    "Check a multi-device setup before training.",
    "ddpdoctor check --devices cuda:0,cuda:1 --min-free 20GiB",
)
register(
    "env", env_commands.env, "Print the versions and devices a bug report needs.", "ddpdoctor env -f markdown"
)
register(
    "run",
    run_commands.run,
    "Run a training job and explain how it fails or hangs.",
    "ddpdoctor run -- torchrun --nproc-per-node 2 train.py",
    context_settings={"allow_interspersed_args": False},
)
register(
    "stacks", stacks_commands.stacks, "Show where the processes of a job are stuck.", "ddpdoctor stacks 4242"
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"ddpdoctor {__version__}")
        raise typer.Exit(0)


@app.callback()
def _global_options(
    debug: Annotated[bool, typer_option(DEBUG)] = False,
    color: Annotated[ColorMode, typer_option(COLOR)] = ColorMode.AUTO,
    quiet: Annotated[bool, typer_option(QUIET)] = False,
    version: Annotated[
        bool,
        typer.Option("--version", "-V", callback=_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    """Diagnose multi-device (data-parallel) training failures.

    Global options may also follow the command: ddpdoctor explain job.log --color never

    Exit codes: 0 healthy, 1 problem found, 2 usage/input/knowledge-base error, 3 internal bug,
    130 interrupted.
    """
    SETTINGS.debug = debug or debug_from_env()
    SETTINGS.color = color
    SETTINGS.quiet = quiet


def run(argv: Sequence[str] | None = None) -> int:
    """Invoke the app with `argv` (default: sys.argv) and return the exit code instead of exiting.

    Usage errors (an unknown option, a bad value, a missing argument) print one
    `ddpdoctor: error:` line and a hint, like every other error, and give exit code 2.
    """
    command = typer.main.get_command(app)
    try:
        result: Any = command.main(
            args=list(argv) if argv is not None else None, prog_name="ddpdoctor", standalone_mode=False
        )
    except _USAGE_ERROR as exc:
        ctx = getattr(exc, "ctx", None)
        if type(exc).__name__ == "NoArgsIsHelpError" and ctx is not None:
            typer.echo(ctx.get_help())
            return int(ExitCode.OK)
        path = ctx.command_path if ctx is not None else "ddpdoctor"
        message = exc.format_message()  # type: ignore[attr-defined]
        error_line(message[:1].lower() + message[1:], f"see `{path} --help`")
        return int(ExitCode.USAGE)
    except _CLICK_ERROR as exc:
        error_line(exc.format_message(), None)  # type: ignore[attr-defined]
        return int(ExitCode.USAGE)
    except typer.Abort:
        error_line("interrupted", None)
        return int(ExitCode.INTERRUPTED)
    return result if isinstance(result, int) else int(ExitCode.OK)
