"""`ddpdoctor stacks`: the hang report of a job that is running now, started by anything."""

from __future__ import annotations

from typing import Annotated

import typer

from ddpdoctor.cli.common import SETTINGS, FormatOption, handle_errors
from ddpdoctor.errors import InputError
from ddpdoctor.present.render import OutputFormat, emit
from ddpdoctor.present.run import hang_document
from ddpdoctor.supervise import find_processes, hang_report


@handle_errors
def stacks(
    pids: Annotated[
        list[int] | None,
        typer.Argument(metavar="[PID...]", help="Rank processes to inspect.", show_default=False),
    ] = None,
    job: Annotated[
        int | None,
        typer.Option(
            "--job", metavar="PID", help="A launcher (torchrun agent, srun step) whose ranks to inspect."
        ),
    ] = None,
    everything: Annotated[
        bool, typer.Option("--all", help="Every process of yours with RANK/LOCAL_RANK in its environment.")
    ] = False,
    native: Annotated[bool, typer.Option("--native", help="Add C/C++ frames (py-spy --native).")] = False,
    fmt: FormatOption = OutputFormat.AUTO,
) -> int:
    """Take the stacks of every rank of a running job, merge them, and name the ranks that differ.

    Exit codes: 0 no rank stands out, 1 suspects found, 2 no such process or no stack readable.
    """
    processes = find_processes(pids or [], job=job, everything=everything)
    report = hang_report(processes, native=native)
    if report.analysis is None or not report.analysis.classes:
        reasons = "; ".join(p.error or "no main thread" for p in report.processes) or "no process"
        raise InputError(
            f"no stack could be taken ({reasons})",
            hint="py-spy needs ptrace rights (same user, or root / CAP_SYS_PTRACE); `pip install py-spy`",
        )
    emit(hang_document(report), report.to_dict(), fmt, color=SETTINGS.color)
    return report.exit_code()
