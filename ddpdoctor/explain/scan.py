"""Streaming scan: find the few lines of a big log that deserve a full match, with their context.

A log is read in fixed-size chunks (memory does not grow with the file). Each chunk is searched
at once for every knowledge-base pattern and every structural anchor by a prefilter engine:

- :class:`HyperscanEngine` runs the compiled hyperscan database (all patterns, one pass);
- :class:`LiteralEngine` is the pure-Python fallback: a substring search (`bytes.find`) for each
  literal some pattern requires, then a per-line check of which patterns those literals belong to.

Both are supersets of the Python patterns (see :mod:`ddpdoctor.explain.prefilter`), so the exact
match later loses nothing. A hit line is handed to the sink together with a few lines before it
(for timestamps) and as many after it as its anchor needs (a traceback's frames, a panic's
message, torchrun's failure table). Lines longer than a few MiB are cut into carriage-return
segments around the hits, which bounds memory on a 200 MB progress-bar line, and the time on
a line full of hits: each byte of it is searched a bounded number of times.
"""

from __future__ import annotations

import _thread
import re
import sys
from collections import deque
from collections.abc import Callable, Sequence

from ddpdoctor.explain.index import KbIndex
from ddpdoctor.matching import ANSI_BYTES_RE

CHUNK_BYTES = 8 * 1024 * 1024
LONG_LINE_BYTES = 4 * 1024 * 1024
TAIL_BYTES = 64 * 1024
SEGMENT_CAP = 256 * 1024
LONG_LINE_SEGMENTS = 64  # segments handed over from each end of an overlong line's piece
_MIN_READ = 64 * 1024
SMALL_INPUT_BYTES = 32 * 1024
BEFORE_LINES = 8
MATCH_AFTER_LINES = 5
END_LINES = 16  # an input's last lines, always handed over (see Scanner._feed_last_lines)
WHOLE_INPUT_BYTES = 256 * 1024  # an input at most this large is handed over whole

_SAME_LINE_PROBE = 4096  # a repeated hit this close to the last one is checked for a newline between
NO_CANDIDATES: frozenset[int] = frozenset()
_PIECE = -2  # the "hit" of a line as long as a hard wrap's pieces: handed over whatever it holds
Hits = list[tuple[int, int]]


TYPE_CHECKING = False  # typing's constant, without importing typing (explain's cold start)
if TYPE_CHECKING:
    from typing import Any, Protocol

    class Engine(Protocol):
        """A multi-pattern prefilter over bytes."""

        name: str

        def scan(self, data: bytes | bytearray, lo: int, hi: int) -> Hits:
            """(end offset in data, pattern id) for every prefilter hit in data[lo:hi]; id -1 = unknown."""
            ...

        def candidates(self, line: bytes) -> frozenset[int]:
            """Pattern ids (knowledge base and anchors) whose prefilter flags this one line."""
            ...

    class LineSink(Protocol):
        """Receives the selected lines of one input in order."""

        def line(self, number: int, data: bytes, candidates: frozenset[int]) -> None:
            """One selected line (1-based number), its raw bytes and its prefilter hits."""
            ...

        def gap(self) -> None:
            """Lines were skipped since the previous call."""
            ...

        def more(self) -> int:
            """How many lines after the last one the sink wants to see (an open block's lines)."""
            ...


class HyperscanEngine:
    """All prefilters in one hyperscan database; one scratch space per thread."""

    name = "hyperscan"

    def __init__(self, index: KbIndex) -> None:
        import hyperscan

        if index.hs_blob is None:
            raise RuntimeError("the knowledge index was built without hyperscan")
        self._hs = hyperscan
        self._db = hyperscan.loadb(index.hs_blob, hyperscan.HS_MODE_BLOCK)
        self._scratches: dict[int, Any] = {}
        self._slow = _SlowPatterns(index, index.unfiltered)

    def _scratch(self) -> Any:
        thread = _thread.get_ident()
        scratch = self._scratches.get(thread)
        if scratch is None:
            scratch = self._scratches[thread] = self._hs.Scratch(self._db)
        return scratch

    def scan(self, data: bytes | bytearray, lo: int, hi: int) -> Hits:
        """See :class:`Engine`."""
        hits: Hits = []
        append = hits.append
        last: dict[int, int] = {}  # pattern id -> offset of its last kept hit
        find = data.find

        def on_match(pid: int, _start: int, end: int, _flags: int, _ctx: object) -> None:
            # A prefilter such as `failed: .*` reports every offset of a long line; one hit per
            # pattern and line (or carriage-return segment) is all the scanner needs, so memory
            # stays bounded on such a line.
            at = lo + end
            previous = last.get(pid)
            if (
                previous is not None
                and at - previous <= _SAME_LINE_PROBE
                and find(b"\n", previous, at) < 0
                and find(b"\r", previous, at) < 0  # segments of a progress-bar line count on their own
            ):
                return
            last[pid] = at
            append((at, pid))

        view: Any = memoryview(data)[lo:hi]
        try:
            self._db.scan(view, match_event_handler=on_match, scratch=self._scratch())
        finally:
            view.release()
        if self._slow.active:
            hits += self._slow.scan(data, lo, hi)
            hits.sort()
        return hits

    def candidates(self, line: bytes) -> frozenset[int]:
        """See :class:`Engine`."""
        found: set[int] = set()
        if line:
            self._db.scan(line, match_event_handler=lambda pid, *_: found.add(pid), scratch=self._scratch())
        return frozenset(found | self._slow.candidates(line))


class _SlowPatterns:
    """Patterns the engine has no prefilter for: searched with Python `re`, or flag every line (rare)."""

    def __init__(self, index: KbIndex, ids: tuple[int, ...]) -> None:
        self.active = bool(ids)
        self._each: list[tuple[int, re.Pattern[bytes] | None]] = []
        for pid in ids:
            body = index.supersets[pid]
            if body is None and pid < index.anchor_base:
                try:
                    body = index.pattern_sources[pid].encode("utf-8")
                    re.compile(body)
                except (re.error, UnicodeEncodeError):
                    body = None
            self._each.append((pid, re.compile(body) if body is not None else None))
        self._every_line = any(regex is None for _, regex in self._each)

    def scan(self, data: bytes | bytearray, lo: int, hi: int) -> Hits:
        hits: Hits = []
        for pid, regex in self._each:
            if regex is None:
                continue
            hits += [(m.end(), pid) for m in regex.finditer(data, lo, hi)]
        if self._every_line:
            pos = lo
            while pos < hi:
                end = data.find(b"\n", pos, hi)
                end = hi if end < 0 else end
                hits.append((end, -1))
                pos = end + 1
        return hits

    def candidates(self, line: bytes) -> set[int]:
        return {pid for pid, regex in self._each if regex is None or regex.search(line)}


class LiteralEngine:
    """The pure-Python fallback: substring searches for the literals every pattern requires.

    A line can only match a pattern if it contains one of the pattern's required literals, so the
    candidate lines are the lines holding any literal. Literals that contain a shorter literal add
    nothing to that search, so only the minimal ones are searched for, each with `bytes.find`
    (CPython's fast substring search). On the few lines found, the minimal literals a line holds
    name the patterns worth the full per-pattern check (each pattern is listed under the minimal
    literals its own literals contain).
    """

    name = "python"

    def __init__(self, index: KbIndex) -> None:
        self._checks: dict[int, Sequence[tuple[bytes, bool]]] = {}
        slow: list[int] = []
        for pid, lits in enumerate(index.literals):
            if lits:
                self._checks[pid] = lits
            else:
                slow.append(pid)
        self._search = index.literal_search
        self._owned = list(zip(index.literal_search, index.literal_owners, strict=True))
        self._slow = _SlowPatterns(index, tuple(slow))

    def scan(self, data: bytes | bytearray, lo: int, hi: int) -> Hits:
        """See :class:`Engine`."""
        lowered: bytes | None = None
        hits: Hits = []
        for text, caseless in self._search:
            if caseless and lowered is None:
                lowered = bytes(data[:hi]).lower()
            hay = lowered if caseless and lowered is not None else data
            at = hay.find(text, lo, hi)
            while at >= 0:
                hits.append((at + len(text), -1))
                stop = hay.find(b"\n", at, hi)
                if stop < 0:
                    break
                at = hay.find(text, stop, hi)
        if self._slow.active:
            hits += self._slow.scan(data, lo, hi)
        hits.sort()
        return hits

    def candidates(self, line: bytes) -> frozenset[int]:
        """See :class:`Engine`."""
        lower = line.lower()
        maybe: set[int] = set()
        for (short, caseless), owners in self._owned:
            if short in (lower if caseless else line):
                maybe.update(owners)
        found = {
            pid
            for pid in maybe
            if any(
                text.lower() in lower if caseless else text in line for text, caseless in self._checks[pid]
            )
        }
        return frozenset(found | self._slow.candidates(line))


def make_engine(index: KbIndex, name: str, input_bytes: int | None = None) -> HyperscanEngine | LiteralEngine:
    """The engine for `--engine`.

    `auto` is hyperscan when the index has a database, except for inputs known to be tiny
    (`input_bytes` at most SMALL_INPUT_BYTES), where a few substring searches cost less than
    loading hyperscan.
    """
    small = input_bytes is not None and input_bytes <= SMALL_INPUT_BYTES
    if name == "python" or (name == "auto" and (index.hs_blob is None or small)):
        return LiteralEngine(index)
    return HyperscanEngine(index)


class ScanStats:
    """What one scan read."""

    __slots__ = ("bytes", "hit_lines", "last_text_line", "lines", "text")

    def __init__(self) -> None:
        self.bytes = 0
        self.lines = 0
        self.last_text_line = 0  # the number of the last line that is not blank
        self.hit_lines = 0
        self.text = False  # anything but whitespace was read


ReadInto = Callable[[memoryview], int]


def _drop(buf: bytearray, start: int, stop: int, filled: int) -> int:
    """Remove buf[start:stop] by moving the filled bytes after it down; return the new fill level."""
    rest = filled - stop
    buf[start : start + rest] = buf[stop:filled]
    return start + rest


class Scanner:
    """Scans one stream chunk by chunk and feeds the selected lines to a sink."""

    def __init__(
        self,
        engine: Engine,
        index: KbIndex,
        sink: LineSink,
        progress: Callable[[int], None] | None = None,
        chunk_bytes: int = CHUNK_BYTES,
        wrap_width: Callable[[], int | None] | None = None,
    ) -> None:
        """`wrap_width`: the width the sink found the input hard-wrapped at (asked once the first
        chunk is read). A line cut at that width may hold only part of a message or an anchor, so
        every line that long is handed over, for the sink to join with the pieces after it."""
        self.engine = engine
        self.sink = sink
        self.progress = progress
        self.chunk = chunk_bytes
        self.stats = ScanStats()
        self._anchor_base = index.anchor_base
        self._after = [a.after for a in index.anchors]
        self._fed_line = 0  # number of the last line handed to the sink
        self._owed_until = 0  # lines up to this number are context the sink still wants
        self._long_line = False  # inside a line longer than LONG_LINE_BYTES
        self._wrap_width = wrap_width
        self._pieces: re.Pattern[bytes] | None = None  # lines at least the wrap's width long

    # --- reading ------------------------------------------------------------------------------

    def run(self, read_into: ReadInto, size_hint: int | None = None) -> ScanStats:
        """Read the stream to its end (`size_hint`: its size, when known, to size the buffer)."""
        capacity = TAIL_BYTES + LONG_LINE_BYTES + self.chunk + 1
        buf = bytearray(min(capacity, (size_hint if size_hint is not None else capacity) + _MIN_READ))
        tail = 0  # buf[:tail] holds already scanned lines kept for context
        filled = 0
        line_base = 1  # number of the line starting at buf[tail]
        eof = False
        if size_hint is not None and size_hint <= WHOLE_INPUT_BYTES:
            # A small input is read whole: every line is context (a straggler's first round, the lines
            # every rank printed once at start-up), at little cost.
            self._owed_until = sys.maxsize
        while not eof:
            step = self.chunk
            if size_hint is not None:  # a small file needs a small buffer
                step = min(step, max(size_hint - self.stats.bytes, 0) + _MIN_READ)
            target = min(capacity, filled + step)
            if target > len(buf):
                buf.extend(bytes(target - len(buf)))
            while filled < target:
                with memoryview(buf) as whole, whole[filled:target] as view:
                    n = read_into(view)
                if not n:
                    eof = True
                    break
                filled += n
                self.stats.bytes += n
                if not self.stats.text and buf[filled - n : filled].strip():
                    self.stats.text = True
                if self.progress is not None:
                    self.progress(n)
            while True:
                if self._long_line:
                    stop = buf.find(b"\n", tail, filled)
                    if stop < 0 and not eof:
                        self._long_segments(buf, tail, filled, line_base)
                        filled = tail
                        break
                    stop = filled if stop < 0 else stop + 1
                    self._long_segments(buf, tail, stop, line_base)
                    self._long_line = False
                    line_base += 1
                    filled = _drop(buf, tail, stop, filled)
                    continue
                end = buf.rfind(b"\n", tail, filled) + 1
                if eof and filled > tail and end < filled:
                    end = filled  # the last line has no newline
                if end <= tail:
                    if filled - tail >= LONG_LINE_BYTES:
                        self._long_line = True
                        continue
                    break
                line_base = self._chunk(buf, tail, end, line_base)
                new_tail = max(0, end - TAIL_BYTES)
                if new_tail:
                    new_tail = buf.find(b"\n", new_tail, end) + 1 or end
                if new_tail and not buf[new_tail:end].strip():
                    # Only blank lines would be kept: keep the line before them too (up to a long
                    # line's size), so that the input's last words are known however long they are.
                    start = buf.rfind(b"\n", max(0, new_tail - 1 - LONG_LINE_BYTES), new_tail - 1)
                    if start >= 0 or new_tail - 1 <= LONG_LINE_BYTES:
                        new_tail = start + 1
                filled = _drop(buf, 0, new_tail, filled)
                tail = end - new_tail
                break
        self.stats.lines = line_base - 1
        if not self._long_line:
            self._feed_last_lines(bytes(buf[:tail]), line_base)
        # The kept tail of the input ends the file: its blank last lines are not the log's end.
        kept = bytes(buf[:tail]).rstrip(b" \t\r\n")
        blank = bytes(buf[len(kept) : tail]).count(b"\n") - (
            1 if tail and buf[tail - 1 : tail] == b"\n" else 0
        )
        self.stats.last_text_line = max(0, self.stats.lines - max(0, blank)) if kept else 0
        return self.stats

    # --- one chunk ----------------------------------------------------------------------------

    def _chunk(self, buf: bytearray, lo: int, hi: int, first_line: int) -> int:
        """Scan complete lines buf[lo:hi] (line `first_line` starts at lo); return the next line number."""
        data: bytes | bytearray = buf
        if buf.find(b"\x1b", lo, hi) >= 0:
            stripped = ANSI_BYTES_RE.sub(b"", bytes(buf[lo:hi]))
            data = bytes(buf[:lo]) + stripped
            hi = lo + len(stripped)
        hits = self.engine.scan(data, lo, hi)
        if self._wrap_width is not None:
            width, self._wrap_width = self._wrap_width(), None
            if width is not None:
                # A piece holds `width` characters: at least as many bytes (one to four each).
                self._pieces = re.compile(rb"^[^\n]{%d,}" % width, re.MULTILINE)
        if self._pieces is not None:
            hits = sorted(hits + [(m.end(), _PIECE) for m in self._pieces.finditer(data, lo, hi)])
        newlines = data.count(b"\n", lo, hi)
        cursor, cursor_line = lo, first_line
        line_start = -1
        line_end = -1  # the newline ending the current hit line
        ids: set[int] = set()
        line_no = first_line
        count_pos = lo
        for end, pid in hits:
            p = max(lo, min(end, hi) - 1)
            if line_start <= p <= line_end:
                ids.add(pid)
                continue
            start = data.rfind(b"\n", lo, p) + 1 or lo
            line_end = data.find(b"\n", p, hi)
            line_end = hi if line_end < 0 else line_end
            if start != line_start:
                if line_start >= 0:
                    cursor, cursor_line = self._hit(
                        data, lo, hi, line_start, line_no, ids, cursor, cursor_line
                    )
                line_no += data.count(b"\n", count_pos, start)
                count_pos = start
                line_start = start
                ids = set()
            ids.add(pid)
        if line_start >= 0:
            cursor, cursor_line = self._hit(data, lo, hi, line_start, line_no, ids, cursor, cursor_line)
        if self._owed_until >= cursor_line and cursor < hi:
            self._feed_forward(data, cursor, cursor_line, hi, None)
        return first_line + newlines + (0 if data[hi - 1 : hi] == b"\n" else 1)

    def _hit(
        self,
        data: bytes | bytearray,
        lo: int,
        hi: int,
        start: int,
        line_no: int,
        ids: set[int],
        cursor: int,
        cursor_line: int,
    ) -> tuple[int, int]:
        if line_no <= self._fed_line:
            return cursor, cursor_line  # already handed over as context of an earlier hit
        if self._owed_until >= cursor_line and cursor_line < line_no:
            cursor, cursor_line = self._feed_forward(
                data, cursor, cursor_line, start, min(self._owed_until, line_no - 1)
            )
        end = data.find(b"\n", start, hi)
        end = hi if end < 0 else end
        line = bytes(data[start:end])
        piece = _PIECE in ids
        ids.discard(_PIECE)
        if -1 in ids:
            ids.discard(-1)
            ids |= self.engine.candidates(line)
        anchors = [pid - self._anchor_base for pid in ids if pid >= self._anchor_base]
        kb_ids = frozenset(pid for pid in ids if pid < self._anchor_base)
        if not anchors and not kb_ids and not piece:
            return cursor, cursor_line
        self._feed_before(data, start, line_no)
        self.stats.hit_lines += bool(anchors or kb_ids)
        self._emit(line_no, line, kb_ids)
        after = max([self._after[a] for a in anchors] + ([MATCH_AFTER_LINES] if kb_ids else []), default=0)
        self._owed_until = max(self._owed_until, line_no + after)
        return end + 1, line_no + 1

    def _feed_before(self, data: bytes | bytearray, start: int, line_no: int) -> None:
        wanted = min(BEFORE_LINES, line_no - 1 - self._fed_line)
        if wanted <= 0:
            return
        lines: list[bytes] = []
        end = start - 1
        while len(lines) < wanted and end >= 0:
            begin = data.rfind(b"\n", 0, end) + 1
            lines.append(bytes(data[begin:end]))
            end = begin - 1
        for offset, text in enumerate(reversed(lines)):
            self._emit(line_no - len(lines) + offset, text, NO_CANDIDATES)

    def _feed_forward(
        self, data: bytes | bytearray, pos: int, line_no: int, hi: int, until: int | None
    ) -> tuple[int, int]:
        """Hand over context lines up to `until` (None: as far as the sink keeps asking)."""
        while pos < hi and line_no <= (self._owed_until if until is None else until):
            end = data.find(b"\n", pos, hi)
            end = hi if end < 0 else end
            if line_no > self._fed_line:
                self._emit(line_no, bytes(data[pos:end]), NO_CANDIDATES)
            pos, line_no = end + 1, line_no + 1
        return pos, line_no

    def _feed_last_lines(self, kept: bytes, next_line: int) -> None:
        """Hand over the input's last lines not yet handed over (`kept`: the scanned lines before line
        `next_line`): where its output ended, also when it printed no error to pick its lines by (a
        rank that hung, or went its own way while its peers waited)."""
        lines = kept.split(b"\n")
        if kept.endswith(b"\n"):
            lines.pop()
        first = next_line - len(lines)
        start = max(len(lines) - END_LINES, self._fed_line + 1 - first, 0)
        for offset in range(start, len(lines)):
            text = lines[offset]
            self._emit(
                first + offset, ANSI_BYTES_RE.sub(b"", text) if b"\x1b" in text else text, NO_CANDIDATES
            )

    def _emit(self, line_no: int, text: bytes, candidates: frozenset[int]) -> None:
        if line_no > self._fed_line + 1:
            self.sink.gap()
        self._fed_line = max(self._fed_line, line_no)
        self.sink.line(line_no, text, candidates)
        wanted = self.sink.more()
        if wanted:
            self._owed_until = max(self._owed_until, line_no + wanted)

    # --- lines too long to hold ---------------------------------------------------------------

    def _long_segments(self, buf: bytearray, lo: int, hi: int, line_no: int) -> None:
        """Hand over the carriage-return segments of an overlong line that contain hits.

        Hits are visited in order and a segment swallows every later hit inside it, so each byte
        is searched a bounded number of times however many hits the line holds. At most
        LONG_LINE_SEGMENTS segments from the start of the piece and as many from its end are
        handed over (a progress bar's last segment often carries the error).
        """
        data = bytes(buf[lo:hi])
        if b"\x1b" in data:
            data = ANSI_BYTES_RE.sub(b"", data)
        first: list[bytes] = []
        last: deque[bytes] = deque(maxlen=LONG_LINE_SEGMENTS)
        covered = 0  # data[:covered] belongs to segments already taken
        for end, _pid in self.engine.scan(data, 0, len(data)):
            at = max(0, end - 1)
            if at < covered:
                continue
            start = max(data.rfind(b"\r", covered, at) + 1, covered, at - SEGMENT_CAP // 2)
            stop = data.find(b"\r", at, start + SEGMENT_CAP)
            stop = min(len(data), start + SEGMENT_CAP) if stop < 0 else stop
            covered = max(stop, at + 1)
            segment = data[start:stop].rstrip(b"\n")
            (first if len(first) < LONG_LINE_SEGMENTS else last).append(segment)
        for segment in [*first, *last]:
            ids = self.engine.candidates(segment)
            if ids:
                self.stats.hit_lines += 1
                self._emit(line_no, segment, frozenset(pid for pid in ids if pid < self._anchor_base))
