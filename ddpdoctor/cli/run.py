"""`ddpdoctor run -- COMMAND...`: run a job supervised; explain its failure or its hang.

The body is shared with the fast path that starts the job without typer
(:mod:`ddpdoctor.cli.run_fast`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ddpdoctor.cli.common import SETTINGS, FormatOption, KbOption, handle_errors
from ddpdoctor.cli.options import HANG_AFTER, INSTRUMENT, NATIVE, ON_HANG, OUT, typer_option
from ddpdoctor.cli.run_fast import OnHang, build_run_options, run_job
from ddpdoctor.present.render import OutputFormat
from ddpdoctor.supervise.supervisor import DEFAULT_HANG_AFTER_S


@handle_errors
def run(
    command: Annotated[
        list[str],
        typer.Argument(
            metavar="-- COMMAND...", help="The launch command, e.g. torchrun --nproc-per-node 8 train.py."
        ),
    ],
    out: Annotated[Path | None, typer_option(OUT)] = None,
    hang_after: Annotated[float, typer_option(HANG_AFTER, min=0, show_default=True)] = DEFAULT_HANG_AFTER_S,
    on_hang: Annotated[OnHang, typer_option(ON_HANG, show_default=True)] = OnHang.REPORT,
    native: Annotated[bool, typer_option(NATIVE)] = False,
    instrument: Annotated[bool, typer_option(INSTRUMENT, show_default=True)] = True,
    fmt: FormatOption = OutputFormat.AUTO,
    kb: KbOption = None,
) -> int:
    """Run a training job supervised: live output, per-rank logs, and a diagnosis of a failure or a hang.

    ddpdoctor's own lines go to standard error; the job's output passes through unchanged. Exit
    status: the job's own; 124 when a hang was stopped (--on-hang kill); 2 when the command cannot
    start.
    """
    options = build_run_options(
        command,
        out=out,
        hang_after=hang_after,
        on_hang=on_hang,
        native=native,
        instrument=instrument,
        kb=kb or [],
    )
    return run_job(options, fmt, SETTINGS.color)
