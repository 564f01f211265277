"""Printing for the training-script hooks: `guard` hands its diagnosis here (no typer involved)."""

from __future__ import annotations

import json
from typing import IO, Any

from ddpdoctor.cli.render import OutputFormat, emit


def print_diagnosis(report: Any, *, title: str, stream: IO[str]) -> None:
    """Write an explain report to `stream` (rich on a terminal, plain text otherwise) under a headline."""
    stream.write(f"\nddpdoctor: diagnosis of {title}\n")
    to_document = getattr(report, "to_document", None)
    data = report.to_dict()
    if callable(to_document):
        emit(to_document(), data, OutputFormat.AUTO, stream=stream)
    else:
        stream.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    stream.flush()
