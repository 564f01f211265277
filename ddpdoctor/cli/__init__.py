"""The command line. Only this package parses arguments, imports typer and prints.

`main` is the console-script entry point; it imports the typer application lazily.
"""

from __future__ import annotations

from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return its exit code."""
    from ddpdoctor.cli.app import run

    return run(argv)
