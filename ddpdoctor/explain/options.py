"""Options of `explain`, shared by the API, the typer command and the fast command-line path."""

from __future__ import annotations

from ddpdoctor.records import Record

ENGINES: tuple[str, ...] = ("auto", "hyperscan", "python")


class ExplainOptions(Record, frozen=True):
    """How to read the logs.

    kb_dirs: team knowledge folders added to the bundled entries (like `--kb`).
    engine: the prefilter: `auto` (hyperscan when installed), `hyperscan`, or `python`.
    jobs: files scanned in parallel; 0 picks one per CPU (at most 8).
    """

    kb_dirs: tuple[str, ...] = ()
    engine: str = "auto"
    jobs: int = 0
