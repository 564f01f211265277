"""`ddpdoctor run -- COMMAND...`: run a job supervised; explain its failure or its hang."""

from __future__ import annotations

import enum
import sys
from pathlib import Path
from typing import Annotated

import typer

from ddpdoctor.cli.common import SETTINGS, FormatOption, KbOption, handle_errors
from ddpdoctor.present.render import OutputFormat, emit, render_markdown
from ddpdoctor.present.run import hang_document, run_document
from ddpdoctor.supervise import HangReport, RunCallbacks, RunOptions, supervise, write_folder
from ddpdoctor.supervise.instrument import Setting
from ddpdoctor.supervise.supervisor import DEFAULT_HANG_AFTER_S


class OnHang(str, enum.Enum):
    """`--on-hang` choices."""

    REPORT = "report"
    KILL = "kill"


def _say(line: str) -> None:
    sys.stderr.write(f"ddpdoctor: {line}\n")
    sys.stderr.flush()


def _started(folder: Path, applied: list[Setting]) -> None:
    _say(f"run folder {folder}")
    for setting in applied:
        _say(f"set {setting.name}={setting.value} ({setting.why})")


@handle_errors
def run(
    command: Annotated[
        list[str],
        typer.Argument(
            metavar="-- COMMAND...", help="The launch command, e.g. torchrun --nproc-per-node 8 train.py."
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            metavar="DIR",
            help="Run folder (default: ./ddpdoctor-runs/<date>-<time>-<program>).",
        ),
    ] = None,
    hang_after: Annotated[
        float,
        typer.Option(
            "--hang-after",
            min=0,
            metavar="SECONDS",
            help="A hang: no output and no CPU use this long (0: never).",
        ),
    ] = DEFAULT_HANG_AFTER_S,
    on_hang: Annotated[
        OnHang,
        typer.Option("--on-hang", help="After the hang report: keep the job (report) or stop it (kill)."),
    ] = OnHang.REPORT,
    native: Annotated[
        bool, typer.Option("--native", help="Add C/C++ frames to the stacks (py-spy --native).")
    ] = False,
    instrument: Annotated[
        bool,
        typer.Option(
            "--instrument/--no-instrument",
            help="Set fault handler, Flight Recorder, NCCL_DEBUG and the startup hook.",
        ),
    ] = True,
    fmt: FormatOption = OutputFormat.AUTO,
    kb: KbOption = None,
) -> int:
    """Run a training job supervised: live output, per-rank logs, and a diagnosis of a failure or a hang.

    ddpdoctor's own lines go to standard error; the job's output passes through unchanged. Exit
    status: the job's own; 124 when a hang was stopped (--on-hang kill); 2 when the command cannot
    start.
    """
    options = RunOptions(
        command=tuple(command),
        out=out,
        hang_after=hang_after,
        on_hang=on_hang.value,
        native=native,
        instrument=instrument,
        kb_dirs=tuple(str(p) for p in kb or []),
    )

    def hang(report: HangReport) -> None:
        if options.on_hang == OnHang.REPORT.value:
            emit(hang_document(report), report.to_dict(), fmt, color=SETTINGS.color, stream=sys.stderr)

    report = supervise(
        options,
        stdout=sys.stdout.buffer,
        stderr=sys.stderr.buffer,
        callbacks=RunCallbacks(started=_started, hang=hang),
    )
    write_folder(report, render_markdown(run_document(report)))
    if report.ok:
        _say(f"the job exited with status 0 after {report.duration_s:.1f} s; logs in {report.folder}")
    else:
        emit(run_document(report), report.to_dict(), fmt, color=SETTINGS.color, stream=sys.stderr)
    return report.returncode
