"""Typed observations: what the recognizers saw in the logs, before any judgement.

Recognizers (:mod:`ddpdoctor.explain.recognize`) turn blocks of log text into observations; the
timeline (:mod:`ddpdoctor.explain.timeline`) merges and orders them across ranks; the analysers
(:mod:`ddpdoctor.explain.analyse`) weigh them. An observation says who printed it (rank, host),
where (input, line), when (a clock reading, if the line had one), the text, and the chain of
messages it carries (outermost first, each matched against the knowledge base or not).
"""

from __future__ import annotations

import itertools

from ddpdoctor.explain.clock import Stamp
from ddpdoctor.explain.index import IndexEntry
from ddpdoctor.frames import collective_name, is_user_frame, posix_path
from ddpdoctor.records import Record, field

SIGNAL_NAMES = {
    1: "SIGHUP",
    2: "SIGINT",
    4: "SIGILL",
    6: "SIGABRT",
    7: "SIGBUS",
    8: "SIGFPE",
    9: "SIGKILL",
    11: "SIGSEGV",
    13: "SIGPIPE",
    15: "SIGTERM",
}


def signal_of(exit_code: int | None) -> int | None:
    """The signal number behind an exit code: -N (Python's convention) or 128+N (a shell's)."""
    if exit_code is None:
        return None
    if exit_code < 0:
        return -exit_code
    if 128 < exit_code < 160:
        return exit_code - 128
    return None


class Link(Record):
    """One message of a failure chain, outermost first; `entry` is None for text the KB does not know."""

    entry: IndexEntry | None
    text: str
    groups: dict[str, str] = field(default_factory=dict)


# The words a shell or Python uses for a process killed by a signal, and the signal's number.
FATAL_WORD_SIGNALS = {
    "Aborted": 6,
    "Segmentation fault": 11,
    "Bus error": 7,
    "Floating point exception": 8,
    "Illegal instruction": 4,
}


class Frame(Record):
    """One stack frame: a Python `File "x", line N, in f` (with its source line) or a Rust location."""

    file: str
    line: int
    function: str = ""
    code: str | None = None

    @property
    def user(self) -> bool:
        """Whether the frame is in the user's code."""
        return is_user_frame(self.file)

    @property
    def posix(self) -> str:
        """The file with `/` separators, for matching library paths."""
        return posix_path(self.file)

    def where(self) -> str:
        """`file:line in function` (no line where the trace gave none)."""
        return (
            self.file
            + (f":{self.line}" if self.line else "")
            + (f" in {self.function}" if self.function else "")
        )


class Observation(Record):
    """Something a recognizer saw: its place, its printer and the messages it carries."""

    file: str
    file_index: int
    line: int
    text: str
    seq: int = 0
    rank: int | None = None
    local_rank: bool = False  # the rank is a node-local rank (a launcher's numbering)
    rank_source: str | None = None
    rank_note: str | None = None
    host: str | None = None
    stamp: Stamp | None = None
    # The stamp is the last one its printer's output showed before it, not its line's own: when it was
    # printed at the earliest.
    stamp_carried: bool = False
    chain: list[Link] = field(default_factory=list)
    evidence: list[tuple[str, int, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warning: bool = False
    # Logged at warning level (`[WARNING]`, glog's `W1231 ...`): the program said it went on after it.
    logged_as_warning: bool = False
    quoted: bool = False  # read from a sentence that quotes it (`I got `KeyError: 'x'``), not from the log
    count: int = 1
    # The chain's link that states the failure when it is not the innermost one: an outer exception
    # whose words name a cause the inner one's do not (see LogReader._flush_chain).
    explained_by: int | None = None
    # The exception line the program raised for this logged error, on a later line with its message
    # (gloo's `[E ProcessGroupGloo.cpp:67] [Rank 0]: Rank 1 failed ...`, then `RuntimeError: [Rank 0]: ...`):
    # the line the report points at.
    raised: Observation | None = None

    # --- what the chain says ----------------------------------------------------------------

    def primary(self) -> Link | None:
        """The link that explains the observation: the innermost root entry (unless another root of
        the chain `supersedes` it), else the link `explained_by` names, else the innermost link."""
        roots = [
            (link, link.entry) for link in self.chain if link.entry is not None and link.entry.kind == "root"
        ]
        if roots:
            superseded = {other for _, entry in roots for other in entry.supersedes}
            kept = [link for link, entry in roots if entry.id not in superseded]
            return kept[-1] if kept else roots[-1][0]
        if self.explained_by is not None and self.explained_by < len(self.chain):
            return self.chain[self.explained_by]
        return self.chain[-1] if self.chain else None

    def known(self) -> IndexEntry | None:
        """The KB entry to report: the primary link's, else the innermost known one."""
        primary = self.primary()
        if primary is not None and primary.entry is not None:
            return primary.entry
        for link in reversed(self.chain):
            if link.entry is not None:
                return link.entry
        return None

    def innermost_text(self) -> str:
        """The message that states the failure."""
        primary = self.primary()
        return primary.text if primary is not None else self.text

    def nccl_detail(self) -> Observation | None:
        """For a generic "NCCL error" message, NCCL's most specific line: the line after `Last error:`
        (the call that failed). Its `ncclXxxError: ...` gloss only names the result code, so the
        generic line stays the root line when there is no `Last error:`."""
        if "nccl error" not in self.text.lower():
            return None  # the message itself says what failed
        lines = [(number, text.strip()) for _, number, text in self.evidence]
        for (number, text), (following, detail) in itertools.pairwise(lines):
            if text == "Last error:" and detail and following == number + 1:
                return Observation(self.file, self.file_index, following, detail)
        return None

    def entries(self) -> list[IndexEntry]:
        """Every known entry of the chain, outermost first."""
        return [link.entry for link in self.chain if link.entry is not None]

    def groups(self) -> dict[str, str]:
        """Named captures of every link, inner links overriding outer ones."""
        merged: dict[str, str] = {}
        for link in self.chain:
            merged.update(link.groups)
        return merged


class ExceptionObs(Observation):
    """A raised error: a Python traceback, a Rust panic, a C++ exception, an error file's message."""

    origin: str = "python"  # python, panic, cpp, error-file, table, fatal
    exc_type: str | None = None
    frames: list[Frame] = field(default_factory=list)
    thread: str | None = None
    cut_off: bool = False  # the report ended before its message (a traceback, a C++ terminate's what())
    worker_frames: list[Frame] = field(default_factory=list)  # a DataLoader worker's original traceback
    worker_text: str | None = None  # ... and its exception line, which the re-raise only carries
    worker_cut: bool = False  # ... cut off before its exception line: where it raised is not shown
    # A crash's native backtrace, innermost first: each frame's function, else its library
    # (`pncclCommDeregister`, `libnccl.so.2`)
    native: list[str] = field(default_factory=list)

    def innermost_text(self) -> str:
        """The message that states the failure: a DataLoader worker's own exception, unless a known root
        of the chain states it (the re-raise, `Caught KeyError in DataLoader worker process 0.`, and the
        type it names only carry it)."""
        primary = self.primary()
        if self.worker_text and (primary is None or primary.entry is None or primary.entry.kind != "root"):
            return self.worker_text
        return super().innermost_text()

    def user_frame(self) -> Frame | None:
        """The innermost frame in the user's code (the DataLoader worker's own traceback first)."""
        for frames in (self.worker_frames, self.frames):
            for frame in reversed(frames):
                if frame.user:
                    return frame
        return None

    def adopt_frames(self, other: ExceptionObs) -> None:
        """Take another sighting's traceback of this failure when it says more: this one has none, or
        only the other reaches the user's code (a library logs the error with its own frames, then
        raises it through the script)."""
        if not self.frames or (self.user_frame() is None and other.user_frame() is not None):
            self.frames = other.frames

    def raise_site(self) -> Frame | None:
        """The innermost frame of the traceback that raised it (a worker's or replica's own first);
        None when that traceback was cut off before its exception line, so where it raised is unknown
        (its last frame shown is where the library called into the user's module or dataset)."""
        frames = self.worker_frames or self.frames
        return frames[-1] if frames and not self.worker_cut else None

    def raised_in_library(self) -> bool:
        """The raise site is library code (the user's code called into it)."""
        site = self.raise_site()
        return site is not None and not site.user


class ExitObs(Observation):
    """A process that ended: a launcher's report of a worker's exit code or signal."""

    code: int | None = None
    pid: int | None = None
    reporter: str = "launcher"  # torchrun-agent, torchrun-table, deepspeed, cargo, shell, error-file
    table_root: bool = False  # torchrun's table listed it under "Root Cause (first observed failure)"
    error_file: str | None = None
    # A signal handler's native backtrace of the crash (glog's `@ 0x... freeRing()`), innermost first: each
    # frame's function
    native: list[str] = field(default_factory=list)

    @property
    def signal(self) -> int | None:
        """The signal that ended the process, if it was one."""
        return signal_of(self.code)


class CollectiveObs(Observation):
    """A collective operation's state as a rank reports it (watchdog, desync report, gloo timeout)."""

    state: str = "timeout"  # timeout, mismatch, desync, missing, aborted
    op: str | None = None
    sequence: int | None = None  # the collective's sequence number (SeqNum)
    numel: int | None = None
    group: str | None = None
    timeout_ms: int | None = None
    last_completed: int | None = None
    named_ranks: list[int] = field(default_factory=list)  # ranks the message names as missing or behind
    named_seq: dict[int, int] = field(default_factory=dict)  # rank -> sequence number it is at
    named_ops: dict[int, str] = field(default_factory=dict)  # rank -> kind of collective it has not joined


def ranks_by_collective(reports: list[CollectiveObs]) -> list[tuple[str | None, int | None, list[int]]]:
    """(op, sequence number, ranks) for each collective the reports name, in the order first named."""
    groups: dict[tuple[str | None, int | None], set[int]] = {}
    for obs in reports:
        ranks = groups.setdefault((obs.op, obs.sequence), set())
        if obs.rank is not None:
            ranks.add(obs.rank)
    return [(op, seq, sorted(ranks)) for (op, seq), ranks in groups.items()]


class MembershipObs(Observation):
    """The process group cannot form: places claimed twice while others never were (Lightning's
    `GLOBAL_RANK: 1, MEMBER: 2/8`), a store-based barrier that counts another number of workers
    than the world size and never completes (`joined`), or one GPU (`device`, its PCI bus id) that
    NCCL's set-up lines show the processes of ranks `duplicated` of one communicator both drive."""

    duplicated: list[int] = field(default_factory=list)
    missing: list[int] = field(default_factory=list)
    world: int = 0
    joined: int | None = None
    device: str | None = None


class StackDumpObs(Observation):
    """One thread's stack as a dump tool printed it (`py-spy dump`, faulthandler's dump of every
    thread): not an error, but where a rank was when it was dumped. Its line is where the thread was: its
    innermost frame above the standard library's; `frames` are outermost first, as in a traceback."""

    tool: str = "py-spy"  # py-spy, faulthandler
    thread: str | None = None
    frames: list[Frame] = field(default_factory=list)
    main: bool = False  # the process's main thread (py-spy's "MainThread", or a stack from `<module>`)
    timeout: bool = False  # faulthandler dumped it because a timeout fired (`Timeout (0:05:00)!`)
    active: bool = False  # py-spy saw the thread running (`active`), not waiting (`idle`)

    def user_frame(self) -> Frame | None:
        """The innermost frame in the user's code."""
        return next((frame for frame in reversed(self.frames) if frame.user), None)

    def collective(self) -> str | None:
        """The collective the thread waits in (`all_reduce`), or None."""
        for frame in self.frames:
            name = collective_name(frame.function, frame.file)
            if name is not None:
                return name
        return None


class InterfaceObs(Observation):
    """NCCL chose a network interface that other hosts cannot reach (the loopback `lo`, a container
    bridge `docker0`) for its connections: not a failure by itself, a cause when connections fail."""

    interface: str = ""
    address: str = ""


class StopObs(Observation):
    """A launcher sending one of its workers a signal to stop it (torchrun's `Sending process N closing
    signal SIGTERM`): not a failure; a worker that died of such a signal it was not sent was stopped
    from outside the job."""

    pid: int | None = None


class AgentSignalObs(Observation):
    """A launcher's agent that was itself sent a signal (torchrun's `Received 15 death signal, shutting
    down workers`): the job was stopped from outside, and the workers it ran ended because of it."""

    signal: str = ""


class LeadObs(Observation):
    """A line that only says something failed (`command not found`, `Failed to ...`) with no error
    level or known message: the verdict's last resort when nothing else in the logs is an error."""


class StallObs(Observation):
    """An input whose output stops where processes wait for one another, with no error after it: in a
    collective it announced (`stage` collective: `Running collective: ...`, NCCL's `Launch mode`), in
    the set-up of NCCL's communicator (`communicator`: `Init COMPLETE`, `Connected all rings`, else NCCL's
    last INFO line), while the process group forms (`membership`: Lightning's `GLOBAL_RANK: 1, MEMBER:
    2/4`), as NCCL tears its communicators down (`teardown`: `Destroy COMPLETE`, the job's way out), or as
    the job starts a phase (`phase`: `Starting training`, a progress bar that never moved), or part-way
    through a count (`progress`: `iter: 40/360000`, a progress bar at 33%).
    Its line says how far the job got before it hung (or before the paste was cut): the collective's first
    announcement (that rank has waited longest), else the last such line."""

    stage: str = "communicator"  # collective, communicator, membership, teardown, phase, progress


class ProgressObs(Observation):
    """The last ordinary (healthy) line a rank printed: where a silent rank stopped."""


RECENT_LINES = 8  # a rank's last lines kept to set beside its peers' (runs of one line counted once)


class RecentLineObs(Observation):
    """One of the last lines a rank printed (warnings and errors too; a run of lines that differ only
    in their numbers is kept as its first): what the rank did last, to set beside its peers' lines."""

    error_record: bool = False  # at an error level (`E1202 ...`, `NCCL WARN`): a report, not what it did
    warning_record: bool = False  # the program's own warning (`WARNING simclr: not converged after ...`)
    labelled: bool = False  # it carried the program's label of its global rank (not a launcher's, a file's)
