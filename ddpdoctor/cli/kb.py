"""`ddpdoctor kb ...`: list, show, search and lint the knowledge base."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ddpdoctor.check.registry import check_ids
from ddpdoctor.cli.common import SETTINGS, FormatOption, KbOption, handle_errors
from ddpdoctor.cli.render import OutputFormat, emit
from ddpdoctor.errors import ExitCode, InputError
from ddpdoctor.kb import load_knowledge_base
from ddpdoctor.kb.census import load_census, measure_coverage
from ddpdoctor.kb.lint import lint_knowledge_base
from ddpdoctor.kb.schema import FRAMEWORKS
from ddpdoctor.kb.views import entry_document, list_dict, list_document, search
from ddpdoctor.scenarios.catalog import scenario_names

app = typer.Typer(help="Browse, search and validate the error knowledge base.", no_args_is_help=True)

ENTRY_SCHEMA = "ddpdoctor.kb-entry/1"


@app.command("list")
@handle_errors
def list_entries(
    category: Annotated[str | None, typer.Option(help="Only entries of this category.")] = None,
    framework: Annotated[str | None, typer.Option(help="Only entries of this framework.")] = None,
    fmt: FormatOption = OutputFormat.AUTO,
    kb: KbOption = None,
) -> int:
    """List entries (id, framework, category, kind, status, message)."""
    base = load_knowledge_base(kb or [])
    if category is not None and category not in base.categories:
        raise InputError(f"unknown category {category!r}", hint=f"use one of: {', '.join(base.categories)}")
    if framework is not None and framework not in FRAMEWORKS:
        raise InputError(f"unknown framework {framework!r}", hint=f"use one of: {', '.join(FRAMEWORKS)}")
    entries = base.select(category=category, framework=framework)
    emit(list_document(entries), list_dict(entries), fmt, color=SETTINGS.color)
    return ExitCode.OK


@app.command("show")
@handle_errors
def show(
    entry_id: Annotated[
        str, typer.Argument(metavar="ID", help="Entry id, e.g. burn-ddp-main-worker-failed.")
    ],
    fmt: FormatOption = OutputFormat.AUTO,
    kb: KbOption = None,
) -> int:
    """Show one entry: what the message means, when it happens, how to fix it, where it comes from."""
    base = load_knowledge_base(kb or [])
    entry = base.get(entry_id)
    emit(entry_document(entry, base), {"schema": ENTRY_SCHEMA, **entry.to_dict()}, fmt, color=SETTINGS.color)
    return ExitCode.OK


@app.command("search")
@handle_errors
def search_command(
    text: Annotated[
        str, typer.Argument(help="A pasted error message or log excerpt; '-' reads standard input.")
    ],
    fmt: FormatOption = OutputFormat.AUTO,
    kb: KbOption = None,
) -> int:
    """Which entries match a message. Exit 0 when at least one matches, 1 when none does."""
    query = sys.stdin.read() if text == "-" else text
    base = load_knowledge_base(kb or [])
    report = search(base, query)
    emit(report.to_document(), report.to_dict(), fmt, color=SETTINGS.color)
    return ExitCode.OK if report.findings else ExitCode.PROBLEM


@app.command("lint")
@handle_errors
def lint(
    dirs: Annotated[
        list[Path] | None,
        typer.Argument(metavar="[DIR]...", help="Team knowledge folders to lint with the bundled entries."),
    ] = None,
    speed: Annotated[
        bool, typer.Option("--speed/--no-speed", help="Time every pattern on adversarial lines.")
    ] = True,
    fmt: FormatOption = OutputFormat.AUTO,
    kb: KbOption = None,
) -> int:
    """Validate entries: schema, ids, links, samples, example fixes and pattern speed. Exit 1 on any problem."""
    report = lint_knowledge_base(
        [*(dirs or []), *(kb or [])],
        check_speed=speed,
        known_scenarios=scenario_names(),
        known_checks=check_ids(),
    )
    emit(report.to_document(), report.to_dict(), fmt, color=SETTINGS.color)
    return report.exit_code()


@app.command("coverage")
@handle_errors
def coverage(
    census: Annotated[
        Path | None,
        typer.Option(help="A census folder of <ecosystem>.yaml files (default: the bundled one)."),
    ] = None,
    fail_under: Annotated[
        float | None, typer.Option(help="Exit 1 when the overall weighted share is below this percentage.")
    ] = None,
    fmt: FormatOption = OutputFormat.AUTO,
    kb: KbOption = None,
) -> int:
    """How much of the message census the knowledge base recognises, weighted by thread count."""
    report = measure_coverage(load_knowledge_base(kb or []), load_census(census))
    emit(report.to_document(), report.to_dict(), fmt, color=SETTINGS.color)
    below = fail_under is not None and 100 * report.share < fail_under
    return ExitCode.PROBLEM if below else ExitCode.OK
