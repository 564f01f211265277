"""Turn the selected lines of one log into failure events.

Lines arrive in order (with gaps where the scanner skipped uninteresting text). Each line is
split into its carriage-return segments, its rank labels are peeled off (:mod:`ranks`), and the
rest goes to a small state machine per rank stream, so interleaved output of eight ranks still
yields eight clean tracebacks. The machine recognises:

- Python tracebacks, their exception line and message continuation, and chained exceptions
  ("The above exception was the direct cause ..." / "During handling of the above exception ...");
- Rust panics in the current form (`thread 'X' (TID) panicked at file:line:col:` + message lines)
  and the pre-1.73 form (`panicked at 'msg', file:line:col`), their backtraces, and Burn's
  `=== PANIC ===` banner;
- torchrun's ChildFailedError table (Failures and Root Cause sections, multi-line tracebacks);
- launcher lines: torchrun's agent (`failed (exitcode: -9) local_rank: 3 (pid: ...)`), DeepSpeed
  (`exits with return code = -9`), cargo (`process didn't exit successfully`), `Killed`;
- C++ `terminate called after throwing ... what():`, fatal signals, and any other line the
  knowledge base matches (NCCL WARN, watchdog messages, store timeouts, ...).

Every message is matched against the knowledge base and unwrapped (wrapper -> inner -> ...) into
a chain of links, outermost first.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import Any

from ddpdoctor.explain.lines import LazyRegex, clean_line, segments
from ddpdoctor.explain.match import INNER_GROUP, FastMatcher, Hit
from ddpdoctor.explain.model import SIGNAL_NAMES, TORCHRUN_ROOT_NOTE, Event, Link
from ddpdoctor.explain.ranks import (
    Stamp,
    epoch_seconds,
    find_timestamp,
    looks_srun_labelled,
    split_prefix,
    torchrun_time,
)

MAX_MESSAGE_LINES = 30
STANDALONE_MESSAGE_LINES = 3
LINE_MESSAGE_LINES = 4
MAX_PANIC_LINES = 60
MAX_EVENTS_PER_FILE = 2000
_CHAIN_TRAILER = 6  # a Python chain's follow-up text must appear within this many lines

TRACEBACK_HEAD = "Traceback (most recent call last):"
CAUSE_MARKER = "The above exception was the direct cause of the following exception:"
CONTEXT_MARKER = "During handling of the above exception, another exception occurred:"

_FRAME = LazyRegex(r'\s*File "(?P<file>[^"]*)", line (?P<line>\d+)(?:, in (?P<func>.*))?')
_EXC_LINE = LazyRegex(r"(?P<type>[A-Za-z_][\w.]*(?:\[\w+\])?)(?::[ \t]?(?P<msg>.*))?$")
_ERROR_NAME = LazyRegex(
    r"(?:[A-Za-z_]\w*\.)*\w*(?:Error|Exception|Exit|Interrupt|Failure|Fault)(?:\[\w+\])?$"
)
_PANIC_NEW = LazyRegex(
    r"thread '(?P<thread>[^']*)'(?: \((?P<tid>\d+)\))? panicked at (?P<loc>\S.*?):(?P<line>\d+):(?P<col>\d+):$"
)
_PANIC_OLD = LazyRegex(r"thread '(?P<thread>[^']*)'(?: \((?P<tid>\d+)\))? panicked at '(?P<msg>.*)$")
_PANIC_OLD_END = LazyRegex(r"(?P<msg>.*)', (?P<loc>\S+?):(?P<line>\d+):(?P<col>\d+)$")
_BANNER_PATH = LazyRegex(
    r"A fatal error happened, you can check the experiment logs here => '(?P<path>[^']*)'"
)
_SEPARATOR = LazyRegex(r"[=\-]{10,}$")
_LOOSE_FIELD = LazyRegex(r"^(?:rank\s*:\s*\d+ \(local_rank: \d+\)|exitcode\s*:\s*-?\d+ \(pid: \d+\))$")
_FATAL_WORDS = ("Fatal Python error", "Segmentation fault", "Bus error")
# Lines that start a new log record: NCCL's `host:pid:tid [dev] `, c10's `[E ProcessGroupNCCL.cpp:...]`.
_NCCL_RECORD = LazyRegex(r"\S+:\d+:\d+ \[\d+\] |\[[IWEF](?:\d{3,4} \d\d:\d\d|\s)")
# The fields of one item of torchrun's failure table.
_FIELD_NAMES = ("time", "host", "rank", "exitcode", "error_file", "traceback")
_TABLE_ITEM = LazyRegex(r"\[(\d+)\]:$")
_TABLE_FIELD = LazyRegex(rf"({'|'.join(_FIELD_NAMES)})\s*:\s?(.*)$")
_TABLE_RANK = LazyRegex(r"(-?\d+)(?: \(local_rank: (\d+)\))?")
_TABLE_EXIT = LazyRegex(r"(-?\d+)(?: \(pid: (\d+)\))?")
_AGENT_FAILED = LazyRegex(r"failed \(exitcode: (-?\d+)\) local_rank: (\d+) \(pid: (\d+)\)")
_DEEPSPEED_EXIT = LazyRegex(r"exits with return code = (-?\d+)")
_DEEPSPEED_LOCAL = LazyRegex(r"--local_rank=(\d+)")
_CARGO_EXIT = LazyRegex(r"process didn't exit successfully: .*\((?:exit status|signal): (\d+)")
_SIGNAL_PID = LazyRegex(r"Signal (\d+) \((SIG\w+)\) received by PID (\d+)")
_KILLED = LazyRegex(r"Killed$|.*\b\d+\s+Killed\s")
_TERMINATE = LazyRegex(r"terminate called after throwing an instance of '(?P<type>[^']*)'")
_WHAT = LazyRegex(r"what\(\):\s+(?P<msg>.*)")
_FATAL = LazyRegex(r"(?:Fatal Python error: (?P<what>.*)|(?P<segv>Segmentation fault|Bus error)\b.*)")
_WARNING_TEXT = LazyRegex(r"\b\w*Warning\b:|\bwarnings\.warn\b")
_SITE = ("site-packages", "dist-packages", "/torch/", "\\torch\\", "<frozen", "/lib/python")


def is_user_frame(path: str) -> bool:
    """A frame from the user's code, not an installed library or the interpreter."""
    return not any(marker in path for marker in _SITE)


class _Exception:
    """One exception of a (possibly chained) traceback."""

    __slots__ = ("cands", "event", "frames", "line", "lines", "max_lines", "seconds", "text", "type")

    def __init__(
        self,
        exc_type: str | None,
        text: str,
        line: int,
        frames: list[tuple[str, int, str]],
        cands: frozenset[int],
    ) -> None:
        self.type = exc_type
        self.text = text
        self.line = line
        self.frames = frames
        self.cands = cands
        self.lines: list[tuple[int, str, frozenset[int]]] = []
        self.seconds: float | None = None
        self.max_lines = MAX_MESSAGE_LINES
        self.event: Event | None = None  # set for a matched log line whose next lines may continue it


class _Failure:
    """One `[i]:` item of torchrun's failure table."""

    __slots__ = ("error_file", "exit", "line", "local", "pid", "rank", "root", "time", "trace")

    def __init__(self, line: int, root: bool) -> None:
        self.line = line
        self.root = root
        self.time: float | None = None
        self.rank: int | None = None
        self.local: int | None = None
        self.exit: int | None = None
        self.pid: int | None = None
        self.error_file = ""
        self.trace: list[tuple[int, str]] = []


class _Stream:
    """Parser state of one rank's output within one file."""

    __slots__ = (
        "banner",
        "chain",
        "chain_marker",
        "cpp",
        "exc",
        "frames",
        "local",
        "mode",
        "panic",
        "rank",
        "seconds",
        "since_exc",
        "table",
    )

    def __init__(self, rank: int | None, local: bool) -> None:
        self.rank = rank
        self.local = local
        self.seconds: float | None = None
        self.mode = "idle"
        self.frames: list[tuple[str, int, str]] = []
        self.exc: _Exception | None = None
        self.chain: list[_Exception] = []
        self.chain_marker: str | None = None
        self.since_exc = 0
        self.panic: dict[str, Any] | None = None
        self.cpp: tuple[str, int] | None = None  # (exception type, line) of `terminate called ...`
        self.banner: str | None = None
        self.table: dict[str, Any] | None = None


class FileParser:
    """Receives the selected lines of one file (see :class:`~ddpdoctor.explain.scan.LineSink`)."""

    def __init__(
        self,
        matcher: FastMatcher,
        label: str,
        file_index: int,
        *,
        default_rank: int | None = None,
        rank_source: str | None = None,
        head: Callable[[], bytes] | None = None,
    ) -> None:
        self.matcher = matcher
        self.label = label
        self.file_index = file_index
        self.default_rank = default_rank
        self.default_rank_source = rank_source
        self._head = head
        self._srun: bool | None = None
        self.streams: dict[tuple[int | None, bool], _Stream] = {}
        self.events: list[Event] = []
        self._seen: dict[tuple[Any, ...], Event] = {}
        self.dropped = 0
        self._seq = 0

    # --- sink interface ---------------------------------------------------------------------

    def line(self, number: int, data: bytes, candidates: frozenset[int]) -> None:
        """One selected line."""
        if self._srun is None:
            self._srun = looks_srun_labelled(self._head()) if self._head is not None else False
        pieces = list(segments(data.decode("utf-8", "replace")))
        if not pieces:
            self._blank(None)
            return
        for piece in pieces:
            self._segment(number, piece, candidates)

    def gap(self) -> None:
        """Lines were skipped: every open block ends here."""
        for stream in self.streams.values():
            self._close(stream)
            stream.seconds = None

    def finish(self) -> list[Event]:
        """Close open blocks and return the events of this file."""
        self.gap()
        return self.events

    # --- dispatch ---------------------------------------------------------------------------

    def _stream(self, rank: int | None, local: bool) -> _Stream:
        key = (rank, local)
        stream = self.streams.get(key)
        if stream is None:
            stream = self.streams[key] = _Stream(rank, local)
        return stream

    def _blank(self, rank: int | None) -> None:
        for key in ((rank, False), (rank, True)):
            stream = self.streams.get(key)
            if stream is not None:
                self._on_blank(stream)

    def _segment(self, number: int, segment: str, candidates: frozenset[int]) -> None:
        prefix = split_prefix(segment, srun=bool(self._srun))
        rank, local = prefix.rank, prefix.local
        if rank is None:
            rank = self.default_rank
        stream = self._stream(rank, local)
        rest = prefix.rest.rstrip()
        if not rest.strip():
            self._on_blank(stream)
            return
        stamp = find_timestamp(rest) or (find_timestamp(segment) if prefix.rank is not None else None)
        if stamp is not None:
            stream.seconds = stamp.seconds
        self._feed(stream, number, rest, segment, candidates, stamp)

    def _feed(
        self,
        stream: _Stream,
        number: int,
        rest: str,
        segment: str,
        cands: frozenset[int],
        stamp: Stamp | None,
    ) -> None:
        mode = stream.mode
        if mode == "traceback":
            if self._traceback_line(stream, number, rest, cands):
                return
        elif mode == "message":
            if self._message_line(stream, number, rest, cands, stamp):
                return
        elif mode == "panic":
            if self._panic_line(stream, number, rest, cands, stamp):
                return
        elif mode == "backtrace":
            if re.match(r"\s+(?:\d+: |at )", rest):
                return
            stream.mode = "idle"
        elif mode == "table":
            if self._table_line(stream, number, rest):
                return
        elif mode == "cpp":
            m = _WHAT.search(rest)
            stream.mode = "idle"
            if m and stream.cpp is not None:
                self._cpp_event(stream, number, m.group("msg"), cands)
                return
        elif mode == "banner":
            m = _BANNER_PATH.search(rest)
            if m:
                stream.banner = m.group("path")
                return
            stream.mode = "idle"
            if set(rest.strip()) == {"="}:
                return
        self._idle(stream, number, rest, segment, cands)

    # --- idle: what starts a block ------------------------------------------------------------

    def _idle(self, stream: _Stream, number: int, rest: str, segment: str, cands: frozenset[int]) -> None:
        stripped = rest.strip()
        at = rest.find(TRACEBACK_HEAD)
        if at >= 0:
            if not stream.chain_marker:
                self._flush_chain(stream)
            stream.mode = "traceback"
            stream.frames = []
            return
        if stripped in (CAUSE_MARKER, CONTEXT_MARKER):
            if stream.chain:
                stream.chain_marker = "cause" if stripped == CAUSE_MARKER else "context"
            return
        if stream.chain:
            stream.since_exc += 1
            if stream.since_exc > _CHAIN_TRAILER or not _is_quiet(stripped):
                self._flush_chain(stream)
        if self._start_panic(stream, number, rest, cands):
            return
        if stripped == "=== PANIC ===":
            stream.mode = "banner"
            return
        if stripped == "Failures:" or stripped.startswith("Root Cause (first observed failure)"):
            self._start_table(stream, number, stripped)
            return
        m = _TERMINATE.search(rest) if "terminate called" in rest else None
        if m:
            stream.mode = "cpp"
            stream.cpp = (m.group("type"), number)
            return
        field = _TABLE_FIELD.match(stripped) if stripped.startswith(_FIELD_NAMES) else None
        if field and _LOOSE_FIELD.search(stripped):
            self._start_loose_table(stream, number, field.group(1), field.group(2))
            return
        if self._launcher_line(stream, number, rest, cands):
            return
        m = _FATAL.search(rest) if any(word in rest for word in _FATAL_WORDS) else None
        if m and not cands:
            what = m.group("what") or m.group("segv")
            event = self._event("fatal", number, rest.strip(), stream)
            event.chain = [Link(None, what.strip() or rest.strip())]
            self._add(event)
            return
        exc = _EXC_LINE.match(stripped) if rest[:1] not in (" ", "\t") else None
        if exc and _ERROR_NAME.match(exc.group("type")) and exc.group("msg") is not None:
            self._start_exception(stream, number, stripped, cands, frames=[], standalone=True)
            return
        if cands:
            self._line_event(stream, number, rest, segment, cands)

    # --- Python tracebacks ---------------------------------------------------------------------

    def _traceback_line(self, stream: _Stream, number: int, rest: str, cands: frozenset[int]) -> bool:
        if rest[:1] in (" ", "\t"):
            m = _FRAME.match(rest)
            if m:
                stream.frames.append((m.group("file"), int(m.group("line")), m.group("func") or ""))
            return True
        stripped = rest.strip()
        if stripped.startswith(TRACEBACK_HEAD):
            stream.frames = []
            return True
        self._start_exception(stream, number, stripped, cands, frames=stream.frames, standalone=False)
        return True

    def _start_exception(
        self,
        stream: _Stream,
        number: int,
        text: str,
        cands: frozenset[int],
        *,
        frames: list[tuple[str, int, str]],
        standalone: bool,
    ) -> None:
        if standalone and not stream.chain_marker:
            self._flush_chain(stream)
        m = _EXC_LINE.match(text)
        exc = _Exception(m.group("type") if m else None, text, number, list(frames), cands)
        exc.seconds = stream.seconds
        if standalone:
            exc.max_lines = STANDALONE_MESSAGE_LINES
        stream.exc = exc
        stream.frames = []
        stream.mode = "message"

    def _message_line(
        self, stream: _Stream, number: int, rest: str, cands: frozenset[int], stamp: Stamp | None
    ) -> bool:
        exc = stream.exc
        stripped = rest.strip()
        ends = (
            stamp is not None
            or stripped in (CAUSE_MARKER, CONTEXT_MARKER)
            or TRACEBACK_HEAD in rest
            or _SEPARATOR.match(stripped) is not None
            or ("panicked at" in rest and _PANIC_NEW.search(rest) is not None)
            or ("exitcode" in rest and _AGENT_FAILED.search(rest) is not None)
            or _NCCL_RECORD.match(rest) is not None
            or (stripped.startswith(_FIELD_NAMES) and _TABLE_FIELD.match(stripped) is not None)
            or exc is None
            or len(exc.lines) >= exc.max_lines
        )
        if ends:
            self._end_exception(stream)
            return False
        assert exc is not None
        exc.lines.append((number, stripped, cands))
        return True

    def _end_exception(self, stream: _Stream) -> None:
        if stream.exc is not None and stream.exc.event is not None:
            self._end_line_message(stream.exc, stream.exc.event)
            stream.exc = None
        elif stream.exc is not None:
            if stream.chain and not stream.chain_marker:
                self._flush_chain(stream)
            stream.chain.append(stream.exc)
            stream.chain_marker = None
            stream.since_exc = 0
            stream.exc = None
        stream.mode = "idle"

    def _flush_chain(self, stream: _Stream) -> None:
        chain, stream.chain = stream.chain, []
        stream.chain_marker = None
        if not chain:
            return
        outer_first = list(reversed(chain))
        inner = chain[0]
        event = self._event("traceback", inner.line, inner.text, stream)
        links: list[Link] = []
        for exc in outer_first:
            links += self._links(exc.text, exc.cands)
            for _number, text, cands in exc.lines:
                if cands:
                    links += _new_links(links, self._links(text, cands, known_only=True))
        event.chain = links
        primary = event.primary()
        owner = inner
        for exc in outer_first:
            texts = [exc.text, *(t for _, t, _ in exc.lines)]
            if primary is not None and any(primary.text in t or t in primary.text for t in texts):
                owner = exc
        event.line = owner.line
        event.text = owner.text
        event.exc_type = owner.type
        event.seconds = owner.seconds if owner.seconds is not None else event.seconds
        frames = owner.frames or inner.frames
        if frames:
            path, line, func = frames[-1]
            event.frame = f"{path}:{line}" + (f" in {func}" if func else "")
            event.in_user_code = is_user_frame(path)
        event.warning = bool(owner.type and owner.type.endswith("Warning"))
        event.evidence = [(self.label, exc.line, exc.text) for exc in chain]
        for exc in chain:
            event.evidence += [(self.label, n, t) for n, t, _ in exc.lines[:5]]
        self._add(event)

    def _end_line_message(self, message: _Exception, event: Event) -> None:
        """A matched line is complete: add what its continuation lines say (`Last error:` ...)."""
        for number, text, cands in message.lines:
            event.evidence.append((self.label, number, text))
            if not cands:
                continue
            links = self._links(text, cands, known_only=True)
            event.chain += _new_links(event.chain, links)
            if event.rank is None:
                self._rank_from_chain(event, links)
        self._add(event)

    def _on_blank(self, stream: _Stream) -> None:
        if stream.mode == "message":
            self._end_exception(stream)
        elif stream.mode in ("panic", "backtrace"):
            self._end_panic(stream)

    def _close(self, stream: _Stream) -> None:
        self._on_blank(stream)
        if stream.mode == "table":
            self._end_table(stream)
        stream.frames = []
        stream.mode = "idle"
        self._flush_chain(stream)

    # --- Rust panics -------------------------------------------------------------------------

    def _start_panic(self, stream: _Stream, number: int, rest: str, cands: frozenset[int]) -> bool:
        if "panicked at" not in rest:
            return False
        m = _PANIC_NEW.search(rest)
        if m:
            self._end_panic(stream)
            stream.panic = {
                "thread": m.group("thread"),
                "loc": f"{m.group('loc')}:{m.group('line')}:{m.group('col')}",
                "line": number,
                "lines": [],
                "open": False,
                "head": (rest, cands),
            }
            stream.mode = "panic"
            return True
        m = _PANIC_OLD.search(rest)
        if not m:
            return False
        self._end_panic(stream)
        stream.panic = {"thread": m.group("thread"), "loc": None, "line": number, "lines": [], "open": True}
        stream.mode = "panic"
        self._panic_line(stream, number, m.group("msg"), frozenset())
        return True

    def _panic_line(
        self, stream: _Stream, number: int, rest: str, cands: frozenset[int], stamp: Stamp | None = None
    ) -> bool:
        panic = stream.panic
        if panic is None:
            stream.mode = "idle"
            return False
        stripped = rest.strip()
        if panic["open"]:
            m = _PANIC_OLD_END.match(rest)
            if m:
                panic["open"] = False
                panic["old"] = True
                panic["loc"] = f"{m.group('loc')}:{m.group('line')}:{m.group('col')}"
                rest = m.group("msg")
            panic["lines"].append((number, rest, cands))
            return True
        if stripped.startswith("note: run with `RUST_BACKTRACE") or stripped.startswith("note: Some details"):
            self._end_panic(stream)
            return True
        if stripped == "stack backtrace:":
            self._end_panic(stream)
            stream.mode = "backtrace"
            return True
        if (
            panic.get("old")
            or stamp is not None
            or stripped == "=== PANIC ==="
            or "panicked at" in rest
            or len(panic["lines"]) >= MAX_PANIC_LINES
        ):
            self._end_panic(stream)
            return False
        panic["lines"].append((number, rest.rstrip(), cands))
        return True

    def _end_panic(self, stream: _Stream) -> None:
        panic, stream.panic = stream.panic, None
        if stream.mode in ("panic", "backtrace"):
            stream.mode = "idle"
        if panic is None:
            return
        lines = [(n, t, c) for n, t, c in panic["lines"] if t.strip()]
        if not lines:
            return
        number, first, cands = lines[0]
        event = self._event("panic", number, first.strip(), stream)
        event.chain = self._links(first.strip(), cands or None)
        for _n, text, extra_cands in lines[1:]:
            if extra_cands:
                event.chain += _new_links(
                    event.chain, self._links(text.strip(), extra_cands, known_only=True)
                )
        head, head_cands = panic.get("head") or ("", frozenset())
        if head_cands and event.role != "root":
            # Some panics are known by where they happen (an unwrap at a known line of the strategy).
            event.chain += _new_links(event.chain, self._links(head, head_cands, known_only=True))
        event.thread = panic["thread"]
        if panic["loc"]:
            event.frame = panic["loc"]
        event.evidence = [
            (self.label, panic["line"], f"thread '{panic['thread']}' panicked at {panic['loc']}")
        ]
        event.evidence += [(self.label, n, t) for n, t, _ in lines[:8]]
        if stream.banner:
            event.notes.append(f"Burn's file logger has the full experiment log: {stream.banner}")
            stream.banner = None
        self._add(event)

    # --- torchrun failure table -------------------------------------------------------------

    def _start_table(self, stream: _Stream, number: int, stripped: str) -> None:
        if stream.table is None:
            stream.table = {"line": number, "failures": [], "current": None, "root": False, "field": None}
        stream.table["root"] = stripped.startswith("Root Cause")
        stream.table["field"] = None
        stream.mode = "table"

    def _start_loose_table(self, stream: _Stream, number: int, name: str, value: str) -> None:
        """Failure-table fields quoted without the table around them (`rank : 1 (local_rank: 1)`)."""
        self._start_table(stream, number, "Failures:")
        assert stream.table is not None
        failure = _Failure(number, False)
        stream.table["failures"].append(failure)
        stream.table["current"] = failure
        stream.table["field"] = name
        self._table_field(failure, name, value, number)

    def _table_line(self, stream: _Stream, number: int, rest: str) -> bool:
        table = stream.table
        if table is None:
            stream.mode = "idle"
            return False
        stripped = rest.strip()
        current: _Failure | None = table["current"]
        if stripped.startswith("Root Cause (first observed failure)"):
            table["root"] = True
            table["current"] = None
            table["field"] = None
            return True
        if stripped.startswith("=" * 10):
            self._end_table(stream)
            return True
        if stripped.startswith("-" * 10):
            table["current"] = None
            table["field"] = None
            return True
        m = _TABLE_ITEM.match(stripped)
        if m:
            current = _Failure(number, table["root"])
            table["failures"].append(current)
            table["current"] = current
            table["field"] = None
            return True
        if stripped == "<NO_OTHER_FAILURES>" or stripped == "Failures:":
            return True
        m = _TABLE_FIELD.match(stripped)
        if m and current is not None and (table["field"] != "traceback" or m.group(1) == "time"):
            self._table_field(current, m.group(1), m.group(2), number)
            table["field"] = m.group(1)
            return True
        if table["field"] == "traceback" and current is not None:
            current.trace.append((number, rest))
            return True
        self._end_table(stream)
        return False

    @staticmethod
    def _table_field(failure: _Failure, name: str, value: str, number: int) -> None:
        value = value.strip()
        if name == "time":
            failure.time = torchrun_time(value)
        elif name == "rank":
            m = _TABLE_RANK.match(value)
            if m:
                failure.rank = int(m.group(1))
                failure.local = int(m.group(2)) if m.group(2) else None
        elif name == "exitcode":
            m = _TABLE_EXIT.match(value)
            if m:
                failure.exit = int(m.group(1))
                failure.pid = int(m.group(2)) if m.group(2) else None
        elif name == "error_file":
            failure.error_file = value
        elif name == "traceback":
            failure.trace = [(number, value)]

    def _end_table(self, stream: _Stream) -> None:
        table, stream.table = stream.table, None
        if stream.mode == "table":
            stream.mode = "idle"
        if table is None:
            return
        for failure in table["failures"]:
            if failure.exit is not None or failure.trace:
                self._table_event(failure, stream)

    def _table_event(self, failure: _Failure, stream: _Stream) -> None:
        head = failure.trace[0][1].strip() if failure.trace else ""
        event = self._event("table", failure.line, head, stream)
        event.rank = failure.rank if failure.rank is not None else failure.local
        event.rank_source = "torchrun failure table"
        event.exit_code = failure.exit
        event.pid = failure.pid
        event.seconds = failure.time
        event.evidence = [
            (
                self.label,
                failure.line,
                f"rank {failure.rank} (local_rank {failure.local}) exitcode {failure.exit}",
            )
        ]
        if failure.root:
            event.notes.append(TORCHRUN_ROOT_NOTE)
        if failure.error_file and failure.error_file != "<N/A>":
            event.notes.append(f"error file: {failure.error_file}")
        if head.startswith("Traceback"):
            exc = self._traceback_from_lines(failure.trace)
            if exc is not None:
                event.chain = self._links(exc.text, None)
                event.text = exc.text
                event.line = exc.line
                event.exc_type = exc.type
                if exc.frames:
                    path, line, func = exc.frames[-1]
                    event.frame = f"{path}:{line}" + (f" in {func}" if func else "")
                    event.in_user_code = is_user_frame(path)
        elif head and not head.startswith("To enable traceback"):
            event.chain = self._links(head, None, known_only=True)
        if not event.chain and failure.exit is not None:
            event.text = _exit_text(failure.exit, failure.pid)
        self._add(event, dedupe=False)

    def _traceback_from_lines(self, lines: list[tuple[int, str]]) -> _Exception | None:
        frames: list[tuple[str, int, str]] = []
        found: _Exception | None = None
        # The table indents the continuation of a multi-line traceback; undo that first.
        rest = [raw for _, raw in lines[1:] if raw.strip()]
        indent = min((len(raw) - len(raw.lstrip(" ")) for raw in rest), default=0)
        for position, (number, raw) in enumerate(lines):
            text = raw if position == 0 else raw[indent:]
            if text.strip().startswith(TRACEBACK_HEAD):
                frames = []
                continue
            if text[:1] in (" ", "\t"):
                m = _FRAME.match(text)
                if m:
                    frames.append((m.group("file"), int(m.group("line")), m.group("func") or ""))
                continue
            if text.strip() and found is None:
                m = _EXC_LINE.match(text.strip())
                found = _Exception(m.group("type") if m else None, text.strip(), number, frames, frozenset())
        return found

    # --- launchers, C++ and plain lines -----------------------------------------------------

    def _launcher_line(self, stream: _Stream, number: int, rest: str, cands: frozenset[int]) -> bool:
        exit_code: int | None = None
        local: int | None = None
        pid: int | None = None
        if "exitcode" in rest and (m := _AGENT_FAILED.search(rest)):
            exit_code, local, pid = int(m.group(1)), int(m.group(2)), int(m.group(3))
        elif "return code" in rest and (m := _DEEPSPEED_EXIT.search(rest)):
            exit_code = int(m.group(1))  # its `--local_rank=N` is read below
        elif "exit successfully" in rest and (m := _CARGO_EXIT.search(rest)):
            exit_code = int(m.group(1))
        elif "received by PID" in rest and (m := _SIGNAL_PID.search(rest)):
            exit_code, pid = -int(m.group(1)), int(m.group(3))
        elif "Killed" in rest and _KILLED.match(rest.strip()):
            exit_code = -9
        else:
            return False
        event = self._event("exit", number, rest.strip(), stream)
        event.exit_code = exit_code
        event.pid = pid
        if local is None and (lm := _DEEPSPEED_LOCAL.search(rest)):
            local = int(lm.group(1))
        if local is not None:
            event.rank = local
            event.local_rank = True
            event.rank_source = "launcher line (local rank)"
        if cands:
            event.chain = self._links(rest.strip(), cands, known_only=True)
            self._rank_from_chain(event)
        self._add(event)
        return True

    def _cpp_event(self, stream: _Stream, number: int, message: str, cands: frozenset[int]) -> None:
        assert stream.cpp is not None
        exc_type, start = stream.cpp
        stream.cpp = None
        event = self._event("cpp", number, message.strip(), stream)
        event.exc_type = exc_type
        event.chain = self._links(message.strip(), cands or None)
        event.evidence.insert(
            0, (self.label, start, f"terminate called after throwing an instance of '{exc_type}'")
        )
        self._add(event)

    def _line_event(
        self,
        stream: _Stream,
        number: int,
        rest: str,
        segment: str,
        cands: frozenset[int],
    ) -> None:
        hits = self.matcher.match(segment, cands)
        if not hits:
            return
        event = self._event("line", number, rest.strip(), stream)
        event.chain = self._chain_from_hits(hits, cands)
        event.warning = bool(
            _WARNING_TEXT.search(rest)
            or all(link.entry is None or link.entry.id.endswith("-warning") for link in event.chain)
        )
        self._rank_from_chain(event)
        if event.warning:
            self._add(event)
            return
        message = _Exception(None, rest.strip(), number, [], cands)
        message.max_lines = LINE_MESSAGE_LINES
        message.event = event
        stream.exc = message
        stream.mode = "message"

    # --- building events ----------------------------------------------------------------------

    def _links(self, text: str, cands: Iterable[int] | None, *, known_only: bool = False) -> list[Link]:
        hits = self.matcher.match(text, cands)
        if not hits:
            return [] if known_only else [Link(None, clean_line(text))]
        links = self._chain_from_hits(hits, cands)
        top = hits[0]
        before = top.text[: top.start].strip()
        if top.entry.kind == "wrapper" and INNER_GROUP not in top.groups and before and len(links) == 1:
            # Two messages ran into one line ("...dense" + "torch...ChildFailedError:"): the text
            # in front of the wrapper is the error it reports.
            m = _EXC_LINE.match(before)
            if m and _ERROR_NAME.match(m.group("type")) and m.group("msg") is not None:
                links.append(Link(None, before))
        return links

    def _chain_from_hits(self, hits: list[Hit], cands: Iterable[int] | None) -> list[Link]:
        chain = self.matcher.unwrap(hits[0], cands)
        links = [Link(h.entry, h.text, h.groups) for h in chain]
        last = chain[-1]
        if last.inner is not None:
            roots = [h for h in hits[1:] if h.entry.kind == "root"]
            if roots:
                links.append(Link(roots[0].entry, roots[0].text, roots[0].groups))
            else:
                links.append(Link(None, last.inner))
        return links

    def _event(self, source: str, number: int, text: str, stream: _Stream) -> Event:
        event = Event(source, self.label, self.file_index, number, text)
        self._seq += 1
        event.seq = self._seq
        event.rank = stream.rank
        event.local_rank = stream.local
        if stream.rank is not None:
            event.rank_source = (
                self.default_rank_source if stream.rank == self.default_rank else "line prefix"
            )
        event.seconds = stream.seconds
        event.evidence = [(self.label, number, text)]
        return event

    @staticmethod
    def _rank_from_chain(event: Event, links: Iterable[Link] | None = None) -> None:
        """The rank a link of the chain (or of `links`) names, unless the printer's own rank (line label, file) is known."""
        if event.rank is not None and not event.local_rank:
            return
        for link in event.chain if links is None else links:
            if link.entry is None:
                continue
            rank = link.entry.rank_from(link.groups)
            if rank is None:
                continue
            event.rank = rank
            event.local_rank = False
            event.rank_source = f"message ({link.entry.id})"
            if link.entry.rank_group == "worker" and link.entry.rank_offset == 1:
                worker = link.groups.get("worker")
                event.rank_note = (
                    f"Burn numbers the secondary workers from 0: worker {worker} runs on "
                    f"devices[{rank}], so its rank is {rank}; the main worker is devices[0], rank 0"
                )
            elif link.entry.framework == "burn" and link.entry.rank_fixed == 0:
                event.rank_note = "the main worker runs on devices[0], rank 0"
            return

    def _add(self, event: Event, *, dedupe: bool = True) -> None:
        if event.source not in ("exit", "table"):
            self._rank_from_chain(event)
        if event.rank is None and (m := _DEEPSPEED_LOCAL.search(event.text)):
            event.rank, event.local_rank = int(m.group(1)), True
            event.rank_source = "--local_rank argument of the launched command"
        key = (event.source, *event.key())
        if dedupe:
            seen = self._seen.get(key)
            if seen is not None:
                seen.count += 1
                return
        if len(self.events) >= MAX_EVENTS_PER_FILE:
            self.dropped += 1
            return
        self._seen[key] = event
        self.events.append(event)


def _new_links(chain: list[Link], extra: list[Link]) -> list[Link]:
    """Links of a continuation line that add an entry the chain does not have yet."""
    present = {link.entry.id for link in chain if link.entry is not None}
    return [link for link in extra if link.entry is not None and link.entry.id not in present]


def _is_quiet(text: str) -> bool:
    """Text that may separate chained exceptions (blank lines, separators)."""
    return not text or _SEPARATOR.match(text) is not None


def _exit_text(code: int, pid: int | None) -> str:
    if code < 0:
        name = SIGNAL_NAMES.get(-code, f"signal {-code}")
        who = f" (pid {pid})" if pid is not None else ""
        return f"process{who} was killed by {name} (exit code {code})"
    return f"process exited with code {code}" + (f" (pid {pid})" if pid is not None else "")


# --- torchelastic error files -------------------------------------------------------------------


def error_file_events(
    matcher: FastMatcher, label: str, file_index: int, data: bytes, rank: int | None, rank_source: str | None
) -> list[Event] | None:
    """Events from a torchelastic `error.json`; None when the bytes are not such a file."""
    try:
        doc = json.loads(data.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    if not isinstance(doc, dict) or "message" not in doc:
        return None
    message = doc["message"]
    callstack = ""
    stamp: Any = doc.get("timestamp")
    code: Any = None
    if isinstance(message, dict):
        extra = message.get("extraInfo")
        extra = extra if isinstance(extra, dict) else {}
        callstack = str(extra.get("py_callstack") or "")
        stamp = extra.get("timestamp", stamp)
        code = message.get("errorCode")
        text = str(message.get("message") or "")
    else:
        text = str(message)
    if text in ("", "<NONE>") and not callstack:
        return []
    parser = FileParser(matcher, label, file_index, default_rank=rank, rank_source=rank_source)
    lines = callstack.splitlines() if callstack.strip() else [text]
    for number, line in enumerate(lines, 1):
        parser.line(number, line.encode("utf-8", "replace"), matcher.candidates(line))
    events = parser.finish()
    if not events:
        event = Event("error-file", label, file_index, 1, text)
        event.chain = [Link(None, clean_line(text))] if text else []
        events = [event]
    try:
        seconds = epoch_seconds(float(stamp)) if stamp is not None else None
    except (TypeError, ValueError):
        seconds = None
    for event in events:
        event.source = "error-file"
        event.rank = rank if event.rank is None else event.rank
        event.rank_source = event.rank_source or rank_source
        if seconds is not None:
            event.seconds = seconds
        if isinstance(code, int) and not isinstance(code, bool):
            event.exit_code = code
    return events
