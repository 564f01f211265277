"""Printing for the training-script hooks: `guard` hands its diagnosis here (no typer involved)."""

from __future__ import annotations

from typing import IO

from ddpdoctor.cli.render import OutputFormat, emit
from ddpdoctor.findings import Report


def print_diagnosis(report: Report, *, title: str, stream: IO[str]) -> None:
    """Write an explain report to `stream` (rich on a terminal, plain text otherwise) under a headline."""
    stream.write(f"\nddpdoctor: diagnosis of {title}\n")
    emit(report.to_document(), report.to_dict(), OutputFormat.AUTO, stream=stream)
