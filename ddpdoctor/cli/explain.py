"""`ddpdoctor explain LOG...`: the root cause of a multi-rank failure, from plain logs."""

from __future__ import annotations

import enum
from typing import Annotated

import typer

from ddpdoctor.cli.common import SETTINGS, FormatOption, KbOption, handle_errors
from ddpdoctor.cli.explain_fast import build_options, run_explain
from ddpdoctor.cli.options import ENGINE, FULL, JOBS, REDACT, VERBOSE, typer_option
from ddpdoctor.present.render import OutputFormat


class EngineChoice(str, enum.Enum):
    """`--engine` choices (see ddpdoctor.explain.options.ENGINES)."""

    AUTO = "auto"
    HYPERSCAN = "hyperscan"
    PYTHON = "python"


@handle_errors
def explain(
    logs: Annotated[
        list[str],
        typer.Argument(
            metavar="LOG...",
            help="Log files, folders of logs (searched recursively; torchrun --log-dir layouts work), "
            "or - for standard input. Gzipped files are read transparently.",
            show_default=False,
        ),
    ],
    fmt: FormatOption = OutputFormat.AUTO,
    verbose: Annotated[bool, typer_option(VERBOSE)] = False,
    full: Annotated[bool, typer_option(FULL)] = False,
    redact: Annotated[bool, typer_option(REDACT)] = False,
    kb: KbOption = None,
    engine: Annotated[EngineChoice, typer_option(ENGINE)] = EngineChoice.AUTO,
    jobs: Annotated[int, typer_option(JOBS, min=0)] = 0,
) -> int:
    """Find the root cause of a multi-rank failure in logs: the culprit rank, its victims and the fix.

    Exit codes: 0 no failure in the logs, 1 a failure was found, 2 usage error or unreadable input,
    3 internal error.
    """
    options = build_options(kb or [], engine.value, jobs)
    return run_explain(
        logs,
        options,
        fmt,
        verbose=verbose,
        full=full,
        redact=redact,
        color=SETTINGS.color,
        quiet=SETTINGS.quiet,
    )
