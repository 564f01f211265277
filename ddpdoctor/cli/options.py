"""The command line's option table: each shared option declared once, for typer and the fast path.

Typer commands declare their parameters with :func:`typer_option` from these specs; the fast paths
of explain and run (:mod:`ddpdoctor.cli.explain_fast`, :mod:`ddpdoctor.cli.run_fast`) parse the
same specs by hand. Global options (:data:`GLOBAL_OPTIONS`) may also be written after the
subcommand: :func:`hoist_global_options` moves them before it. This module does not import typer
at module level.
"""

from __future__ import annotations

from collections.abc import Sequence

from ddpdoctor.present.render import OutputFormat
from ddpdoctor.records import Record

TYPE_CHECKING = False  # typing's constant, without importing typing (explain's cold start)
if TYPE_CHECKING:
    from typing import Any


class OptionSpec(Record, frozen=True):
    """One option: its spellings, its help line and, for options that take a value, its metavar.

    A flag with an `off` spelling (`--instrument/--no-instrument`) is true by default.
    """

    names: tuple[str, ...]
    help: str
    metavar: str | None = None  # None: a flag
    off: str | None = None

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
OUT = OptionSpec(("--out", "-o"), "Run folder (default: ./ddpdoctor-runs/<date>-<time>-<program>).", "DIR")
HANG_AFTER = OptionSpec(
    ("--hang-after",), "A hang: no output and no CPU use this long (0: never).", "SECONDS"
)
ON_HANG = OptionSpec(
    ("--on-hang",), "After the hang report: keep the job (report) or stop it (kill).", "ON_HANG"
)
NATIVE = OptionSpec(("--native",), "Add C/C++ frames to the stacks (py-spy --native).")
INSTRUMENT = OptionSpec(
    ("--instrument",),
    "Set fault handler, Flight Recorder, NCCL_DEBUG and the startup hook.",
    off="--no-instrument",
)

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
# `ddpdoctor run`'s own options, by destination; the typer command declares exactly these.
RUN_OPTIONS: dict[str, OptionSpec] = {
    "out": OUT,
    "hang_after": HANG_AFTER,
    "on_hang": ON_HANG,
    "native": NATIVE,
    "instrument": INSTRUMENT,
    "fmt": FORMAT,
    "kb": KB,
}


def by_name(specs: dict[str, OptionSpec]) -> dict[str, tuple[str, OptionSpec]]:
    """Every spelling of every option (a flag's `off` spelling too) -> (destination, spec)."""
    return {
        name: (dest, spec)
        for dest, spec in specs.items()
        for name in (*spec.names, *([spec.off] if spec.off else []))
    }


def read_option(
    arg: str, args: Sequence[str], at: int, spellings: dict[str, tuple[str, OptionSpec]]
) -> tuple[str, str | bool, int] | None:
    """One option of a hand-parsed fast path: (destination, value, index of the next argument).

    A flag's value is a bool. None means typer must handle the argument list: an unknown option,
    `--debug`, a flag given a value, or a value missing at the end. `at` indexes the argument after
    `arg`, where a value written apart (`--format json`) stands."""
    name, eq, inline = arg.partition("=")
    found = spellings.get(name)
    if found is None or found[0] == "debug":
        return None
    dest, option = found
    if not option.takes_value:
        return None if eq else (dest, name != option.off, at)
    if eq:
        return dest, inline, at
    return (dest, args[at], at + 1) if at < len(args) else None


def typer_option(spec: OptionSpec, **extra: Any) -> Any:
    """The `typer.Option` that declares `spec` (defaults are not shown unless `show_default=True`)."""
    import typer

    names = (f"{spec.names[0]}/{spec.off}", *spec.names[1:]) if spec.off else spec.names
    return typer.Option(*names, help=spec.help, metavar=spec.metavar, **{"show_default": False, **extra})


def hoist_global_options(args: Sequence[str]) -> list[str]:
    """`args` with global options written after the subcommand moved before it (`explain x --color never`).

    Nothing after `--` moves, nor anything of the command that `run` starts
    (`run -o DIR python train.py -q` keeps `-q` for train.py).
    """
    names = by_name(GLOBAL_OPTIONS)
    run_values = {name for name, (_, spec) in by_name(RUN_OPTIONS).items() if spec.takes_value}
    subcommand: str | None = None
    hoisted: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        positional = arg == "-" or not arg.startswith("-")
        if arg == "--" or (subcommand == "run" and positional):
            rest += args[i:]
            break
        name, eq, _ = arg.partition("=")
        spec = names.get(name, (None, None))[1]
        takes_next = (
            not eq
            and i + 1 < len(args)
            and ((spec is not None and spec.takes_value) or (subcommand == "run" and name in run_values))
        )
        taken = list(args[i : i + 2] if takes_next else [arg])
        if spec is not None and subcommand is not None:
            hoisted += taken
        else:
            rest += taken
            if subcommand is None and spec is None and positional:
                subcommand = arg
        i += len(taken)
    return [*hoisted, *rest]
