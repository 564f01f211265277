"""The command line's option table: each shared option declared once, for typer and the fast path.

Typer commands declare their parameters with :func:`typer_option` from these specs; explain's fast
path (:mod:`ddpdoctor.cli.explain_fast`) parses the same specs by hand. Global options
(:data:`GLOBAL_OPTIONS`) may also be written after the subcommand: :func:`hoist_global_options`
moves them before it. This module does not import typer at module level.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ddpdoctor.present.render import OutputFormat


@dataclass(frozen=True)
class OptionSpec:
    """One option: its spellings, its help line and, for options that take a value, its metavar."""

    names: tuple[str, ...]
    help: str
    metavar: str | None = None  # None: a flag

    @property
    def takes_value(self) -> bool:
        """Whether the option reads a value."""
        return self.metavar is not None


_FORMATS = [f.value for f in OutputFormat if f is not OutputFormat.AUTO]
FORMAT = OptionSpec(
    ("--format", "-f"),
    f"Output format: auto (rich on a terminal, text otherwise), {', '.join(_FORMATS[:-1])} or {_FORMATS[-1]}.",
    "FORMAT",
)
COLOR = OptionSpec(("--color",), "Colour: auto (on a terminal only), always or never.", "WHEN")
QUIET = OptionSpec(("--quiet", "-q"), "Print problems only: nothing when all is well.")
DEBUG = OptionSpec(("--debug",), "Show tracebacks instead of one-line errors (also DDPDOCTOR_DEBUG=1).")
KB = OptionSpec(("--kb",), "Extra knowledge-base folder (repeatable; also DDPDOCTOR_KB_PATH).", "DIR")
VERBOSE = OptionSpec(("--verbose", "-v"), "Also list every finding and every input.")
FULL = OptionSpec(("--full",), "The whole page: chain, every reason and solution, the example fix.")
REDACT = OptionSpec(
    ("--redact",), "Hide host names, IP addresses and paths under home folders in the output."
)
ENGINE = OptionSpec(
    ("--engine",), "Prefilter engine: auto (hyperscan when installed), hyperscan or python.", "NAME"
)
JOBS = OptionSpec(("--jobs", "-j"), "Files scanned in parallel (0: one per CPU, at most 8).", "N")

GLOBAL_OPTIONS: dict[str, OptionSpec] = {"color": COLOR, "quiet": QUIET, "debug": DEBUG}
# `ddpdoctor explain`'s own options, by destination; the typer command declares exactly these.
EXPLAIN_OPTIONS: dict[str, OptionSpec] = {
    "fmt": FORMAT,
    "verbose": VERBOSE,
    "full": FULL,
    "redact": REDACT,
    "kb": KB,
    "engine": ENGINE,
    "jobs": JOBS,
}


def by_name(specs: dict[str, OptionSpec]) -> dict[str, tuple[str, OptionSpec]]:
    """Every spelling of every option -> (destination, spec)."""
    return {name: (dest, spec) for dest, spec in specs.items() for name in spec.names}


def typer_option(spec: OptionSpec, **extra: Any) -> Any:
    """The `typer.Option` that declares `spec`."""
    import typer

    return typer.Option(*spec.names, help=spec.help, metavar=spec.metavar, show_default=False, **extra)


def hoist_global_options(args: Sequence[str]) -> list[str]:
    """`args` with global options written after the subcommand moved before it (`explain x --color never`)."""
    names = by_name(GLOBAL_OPTIONS)
    hoisted: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            rest += args[i:]
            break
        name, eq, _ = arg.partition("=")
        spec = names.get(name, (None, None))[1] if rest else None
        if spec is None:
            rest.append(arg)
        elif spec.takes_value and not eq and i + 1 < len(args):
            hoisted += [arg, args[i + 1]]
            i += 1
        else:
            hoisted.append(arg)
        i += 1
    return [*hoisted, *rest]
