"""The command line. Only this package parses arguments and imports typer.

`main` is the console-script entry point; it imports the typer application lazily. Plain
`explain` and `run` invocations take fast paths that skip typer (see
:mod:`ddpdoctor.cli.explain_fast` and :mod:`ddpdoctor.cli.run_fast`).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return its exit code.

    Without `argv` this process is ddpdoctor itself (the console script, `python -m ddpdoctor`):
    every process it starts then ends with it (:func:`ddpdoctor.children.adopt_descendants`).
    `explain` starts none but its forked scan workers, which end with it by themselves
    (:mod:`ddpdoctor.explain.workers`), so it skips that set-up and starts sooner.
    With `argv` (a caller running a command in its own process) the caller's processes are left alone.
    """
    from ddpdoctor.cli.handler import check_standard_streams, settle_stdout
    from ddpdoctor.cli.options import hoist_global_options

    args = list(sys.argv[1:] if argv is None else argv)
    if argv is None and args[:1] != ["explain"]:
        from ddpdoctor.children import adopt_descendants

        adopt_descendants()
    code = check_standard_streams()
    if code is not None:
        return code
    try:
        if args[:1] == ["explain"]:
            from ddpdoctor.cli.explain_fast import fast_main

            code = fast_main(args)
            if code is not None:
                return code
        hoisted = hoist_global_options(args)
        if "run" in hoisted:
            from ddpdoctor.cli.run_fast import fast_main as fast_run

            code = fast_run(hoisted)
            if code is not None:
                return code
        from ddpdoctor.cli.app import run

        return run(hoisted)
    finally:
        settle_stdout()
