"""What the parser extracts from a log: failure events with their chain of messages."""

from __future__ import annotations

from typing import Any

from ddpdoctor.explain.index import IndexEntry

# Exit codes of processes killed as collateral: by the launcher (SIGTERM, SIGHUP, SIGINT) or by
# PyTorch's NCCL watchdog (SIGABRT, which torchrun may report as 6 or -6).
COLLATERAL_EXIT_CODES = frozenset({-15, -1, -2, -6, 6, 143, 134, 130})
# The note the parser adds to the failure torchrun's table lists under "Root Cause".
TORCHRUN_ROOT_NOTE = "torchrun listed it as the root cause (first observed failure)"
SIGNAL_NAMES = {
    1: "SIGHUP",
    2: "SIGINT",
    6: "SIGABRT",
    7: "SIGBUS",
    9: "SIGKILL",
    11: "SIGSEGV",
    15: "SIGTERM",
}


class Link:
    """One message of a failure chain, outermost first; `entry` is None for unknown text."""

    __slots__ = ("entry", "groups", "text")

    def __init__(self, entry: IndexEntry | None, text: str, groups: dict[str, str] | None = None) -> None:
        self.entry = entry
        self.text = text
        self.groups = groups or {}

    def to_dict(self) -> dict[str, Any]:
        """The contract's `{entry, text}` form."""
        return {"entry": self.entry.id if self.entry else None, "text": self.text}


class Event:
    """One failure (or warning) seen in a log: a traceback, a panic, a matched line, an exit."""

    __slots__ = (
        "chain",
        "count",
        "evidence",
        "exc_type",
        "exit_code",
        "file",
        "file_index",
        "frame",
        "in_user_code",
        "line",
        "local_rank",
        "notes",
        "pid",
        "rank",
        "rank_note",
        "rank_source",
        "seconds",
        "seq",
        "source",
        "text",
        "thread",
        "warning",
    )

    def __init__(self, source: str, file: str, file_index: int, line: int, text: str) -> None:
        self.source = source  # traceback, panic, line, table, error-file, exit, cpp, fatal, killed
        self.file = file
        self.file_index = file_index
        self.line = line
        self.seq = 0
        self.text = text
        self.chain: list[Link] = []
        self.rank: int | None = None
        self.local_rank = False
        self.rank_source: str | None = None
        self.rank_note: str | None = None
        self.seconds: float | None = None
        self.exit_code: int | None = None
        self.pid: int | None = None
        self.exc_type: str | None = None
        self.frame: str | None = None
        self.in_user_code: bool | None = None
        self.thread: str | None = None
        self.evidence: list[tuple[str, int, str]] = []
        self.notes: list[str] = []
        self.warning = False
        self.count = 1

    # --- classification ---------------------------------------------------------------------

    def primary(self) -> Link | None:
        """The link that explains the event: the innermost root, else the innermost message."""
        for link in reversed(self.chain):
            if link.entry is not None and link.entry.kind == "root":
                return link
        return self.chain[-1] if self.chain else None

    def known(self) -> IndexEntry | None:
        """The knowledge-base entry to report: the primary link's, else the innermost known one."""
        link = self.primary()
        if link is not None and link.entry is not None:
            return link.entry
        for other in reversed(self.chain):
            if other.entry is not None:
                return other.entry
        return None

    @property
    def role(self) -> str:
        """root, unknown, symptom, wrapper, exit or warning."""
        if self.warning:
            return "warning"
        primary = self.primary()
        if primary is not None and primary.entry is not None and primary.entry.kind == "root":
            return "root"
        if primary is None or self.source in ("exit", "table"):
            return "exit"  # what a launcher reported about a worker's exit
        if primary.entry is None:
            return "unknown"
        if any(link.entry is not None and link.entry.kind == "symptom" for link in self.chain):
            return "symptom"
        return primary.entry.kind

    def category(self) -> str:
        """The category to report (`user_code` for unknown exceptions raised from user code)."""
        entry = self.known()
        if self.role == "unknown" and self.in_user_code:
            return "user_code"
        if self.role == "unknown" or entry is None:
            return "other"
        return entry.category

    def innermost_text(self) -> str:
        """The message to show as the evidence of the failure."""
        primary = self.primary()
        return primary.text if primary is not None else self.text

    def key(self) -> tuple[Any, ...]:
        """Events with the same key are one failure seen several times."""
        entry = self.known()
        return (self.rank, entry.id if entry else None, self.innermost_text()[:300], self.exit_code)
