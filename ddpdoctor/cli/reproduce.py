"""`ddpdoctor reproduce`: make a documented failure really happen, show it, and explain it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ddpdoctor.cli.common import SETTINGS, FormatOption, handle_errors
from ddpdoctor.errors import ExitCode, InputError
from ddpdoctor.optional import require_torch
from ddpdoctor.present.findings import emit_report
from ddpdoctor.present.render import OutputFormat, emit, resolve_format
from ddpdoctor.present.reproduce import catalog_document, reproduce_document
from ddpdoctor.scenarios.catalog import get_scenario
from ddpdoctor.scenarios.reproduce import ReproduceOptions, all_scenarios, catalog_dict
from ddpdoctor.scenarios.reproduce import (
    reproduce as reproduce_scenario,
)


def _echo_raw(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


@handle_errors
def reproduce(
    name: Annotated[
        str | None, typer.Argument(metavar="NAME", help="Scenario to run, e.g. main-oom (see --list).")
    ] = None,
    list_scenarios: Annotated[
        bool,
        typer.Option("--list", help="Describe every scenario and the knowledge-base entry it demonstrates."),
    ] = False,
    log: Annotated[
        Path | None, typer.Option("--log", metavar="FILE", help="Also write the raw output to FILE.")
    ] = None,
    explain: Annotated[
        bool, typer.Option("--explain/--no-explain", help="Diagnose the output with `ddpdoctor explain`.")
    ] = True,
    fmt: FormatOption = OutputFormat.AUTO,
) -> int:
    """Run a failing multi-device job for real, show its raw output, then the diagnosis.

    Exit 0 when the scenario reproduced its failure and (unless --no-explain) was diagnosed as
    expected; 1 when it did not reproduce or the diagnosis differs.
    """
    if list_scenarios:
        scenarios = all_scenarios()
        emit(catalog_document(scenarios), catalog_dict(scenarios), fmt, color=SETTINGS.color)
        return ExitCode.OK
    if name is None:
        raise InputError("name a scenario to reproduce", hint="see `ddpdoctor reproduce --list`")
    require_torch("`ddpdoctor reproduce`")
    machine = resolve_format(fmt, SETTINGS.color, sys.stdout) is OutputFormat.JSON
    options = ReproduceOptions(name=name, log=log, explain=explain)
    scenario = get_scenario(name)
    sys.stderr.write(
        f"ddpdoctor: reproducing {scenario.name} (stopped after {scenario.bound_s:g} s if it hangs). "
        f"{scenario.summary} Raw output follows.\n"
    )
    sys.stderr.flush()
    report = reproduce_scenario(options, on_output=None if machine else _echo_raw)
    if not machine:
        sys.stdout.write("\n")
    emit_report(report, reproduce_document, fmt, color=SETTINGS.color, quiet=SETTINGS.quiet)
    return report.exit_code()
