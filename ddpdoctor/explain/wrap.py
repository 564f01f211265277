"""Lines a terminal hard-wrapped: the width they were cut at, and the joining of their pieces.

Copying from tmux, screen, some Windows consoles and notebook outputs breaks every line longer
than the terminal into pieces of exactly its width, each on a line of its own: an exception line,
NCCL's WARN or a watchdog report then spans two or three lines, and its second piece has no rank
label. The width is read from the first lines of an input: pieces of the same length, none longer,
the piece after each one not starting the way records start (a wrapped line goes on mid-record).
Lines that a terminal padded with spaces to its width are not pieces (they end in spaces; a piece
ends in at most the one space of the word break it was cut at).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable

from ddpdoctor.explain.ranks import common_margin
from ddpdoctor.matching import LazyRegex

TYPE_CHECKING = False  # typing's constant, without importing typing (explain's cold start)
if TYPE_CHECKING:
    from ddpdoctor.explain.observations import Observation
    from ddpdoctor.explain.scan import LineSink

MIN_WIDTH = 60  # narrower lines are rarely a terminal's width
MIN_PIECES = 2  # lines of exactly the width, each followed by its continuation
_CONTINUED_SHARE = 0.75
# Many pieces going on settle it at a lower share: in a wrapped paste, lines that were exactly the
# terminal's width and pieces whose rest starts with a bracket (`[127.0.0.1]:2466. This is ...`) do
# not read as going on, and a log that was not wrapped never has this many full-width lines that do.
_MANY_CONTINUED = 6
_MANY_CONTINUED_SHARE = 0.5
_HEAD_LINES = 2000
_SHAPE_CHARS = 8
_SHAPE = str.maketrans(
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "0000000000" + "a" * 26 + "A" * 26,
)
# What starts a record rather than going on with one: a traceback's lines, a timestamp, a label.
_RECORD_START = LazyRegex(
    r"\s*(?:Traceback \(|File \"|During handling|The above exception|\[|\(|\d{4}-\d\d-\d\d|[EWIF]\d{4} "
    r"|(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Warning)\b)"
)


def terminal_width(head: bytes) -> int | None:
    """The width a terminal wrapped the input's lines at, from its first bytes; None if it was not."""
    lines = [line.rstrip("\r") for line in head.decode("utf-8", "replace").split("\n")[:_HEAD_LINES]]
    if len(lines) > 1 and not head.endswith(b"\n"):
        lines.pop()  # the head may end inside a line
    longest = max((len(line) for line in lines), default=0)
    if longest < MIN_WIDTH:
        return None
    pairs = [(line, lines[index + 1]) for index, line in enumerate(lines[:-1]) if _piece(line, longest)]
    pieces = [piece for piece, _ in pairs]
    if len(set(pieces)) < MIN_PIECES:
        return None  # one record printed again and again (by every rank), not a line cut into pieces
    continued = sum(_continues(piece, after) for piece, after in pairs)
    share = _MANY_CONTINUED_SHARE if continued >= _MANY_CONTINUED else _CONTINUED_SHARE
    return longest if continued >= share * len(pieces) else None


def _piece(line: str, width: int) -> bool:
    """A line that fills the terminal's width with text: it may end in the one space a wrap at a
    word's end leaves, not in the run of spaces that pads a line (nor be a separator)."""
    return len(line) == width and not line.endswith("  ") and any(ch.isalnum() for ch in line)


def _continues(piece: str, after: str) -> bool:
    """Whether `after` reads as the rest of `piece` cut at the terminal's edge: not blank, and not
    starting like a record of its own (or like the record `piece` starts)."""
    if not after.strip() or _RECORD_START.match(after):
        return False
    if piece.lstrip().startswith('File "') and _indent(after) > _indent(piece):
        return False  # a traceback's frame line, then its code line indented under it
    if after[:1] == piece[:1] and not after[:1].isalnum() and not after[:1].isspace():
        return False  # both start with the same mark (a box's side, a quote marker, a list's bullet)
    return not _starts_alike(after, piece)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _starts_alike(line: str, other: str) -> bool:
    """Whether two lines start the same way, letters and digits aside (`[rank0]:` and `[rank1]:`)."""
    return line[:_SHAPE_CHARS].translate(_SHAPE) == other[:_SHAPE_CHARS].translate(_SHAPE)


def _labelled_alike(record: bytes, after: bytes) -> bool:
    """Whether `after` starts the way `record` does (`[rank0]:`, a glog header): a record of its own,
    since a terminal never repeats a line's label on the rest of it; `record` just filled the width."""
    head = after[:_SHAPE_CHARS].decode("utf-8", "replace")
    if not head[:1] or head[:1].isspace():
        return False
    return _starts_alike(head, record[:_SHAPE_CHARS].decode("utf-8", "replace"))


_MAX_PIECES = 64  # pieces joined into one line at most
_MAX_JOINED = 100_000  # joined lines per input at most: past that, lines are passed on as they are


class WrapJoiner:
    """A line sink in front of the reader that joins the pieces of hard-wrapped lines.

    The reader sees one line per wrapped line, numbered consecutively (so "the line before" still
    means the one printed before); `physical` turns those numbers back into the input's own.
    """

    def __init__(
        self,
        sink: LineSink,
        head: Callable[[], bytes],
        candidates: Callable[[bytes], frozenset[int]],
    ) -> None:
        self._sink = sink
        self._head = head
        self._candidates = candidates
        self.width: int | None = None
        self._checked = False
        self._margin = b""  # a paste indented as a whole: each piece carries the indent (common_margin)
        self._held: tuple[int, int, bytes] | None = None  # first and last line of a line still going on
        self._absorbed = 0  # lines joined into the ones before them so far
        self._starts: list[int] = []  # from each of these (reader's) numbers on ...
        self._offsets: list[int] = []  # ... the input's number is this much higher

    def detect_width(self) -> int | None:
        """The width the input was hard-wrapped at (read once, from its head); None if it was not."""
        if not self._checked:
            self._checked = True
            head = self._head()
            self.width = terminal_width(head)
            self._margin = common_margin(head) if self.width is not None else b""
        return self.width

    def line(self, number: int, data: bytes, candidates: frozenset[int]) -> None:
        """See :class:`~ddpdoctor.explain.scan.LineSink`."""
        if self.detect_width() is None:
            self._sink.line(number, data, candidates)
            return
        if self._held is not None:
            first, last, text = self._held
            self._held = None
            if number == last + 1 and not _labelled_alike(text, data):
                self._absorbed += 1
                text += data.rstrip(b"\r").removeprefix(self._margin)
                if self._is_piece(data) and number - first < _MAX_PIECES:
                    self._held = (first, number, text)
                else:
                    self._pass_joined(first, number, text)
                return
            self._pass_joined(first, last, text)
        if self._is_piece(data) and len(self._starts) < _MAX_JOINED:
            self._held = (number, number, data.rstrip(b"\r"))
            return
        self._sink.line(number - self._absorbed, data, candidates)

    def gap(self) -> None:
        """See :class:`~ddpdoctor.explain.scan.LineSink`."""
        self._release()
        self._sink.gap()

    def more(self) -> int:
        """See :class:`~ddpdoctor.explain.scan.LineSink`: a line still going on wants its next piece."""
        return max(self._sink.more(), 1 if self._held is not None else 0)

    def finish(self, lines: int) -> int:
        """Pass on a line still held at the input's end; the reader's number of the input's line `lines`."""
        self._release()
        return lines - self._absorbed

    def physical(self, number: int) -> int:
        """The input's number of the reader's line `number`."""
        at = bisect_right(self._starts, number)
        return number + (self._offsets[at - 1] if at else 0)

    def _release(self) -> None:
        if self._held is not None:
            first, last, text = self._held
            self._held = None
            self._pass_joined(first, last, text)

    def _pass_joined(self, first: int, last: int, text: bytes) -> None:
        before = self._absorbed - (last - first)
        self._sink.line(first - before, text, self._candidates(text))
        if last > first:
            self._starts.append(first - before + 1)
            self._offsets.append(self._absorbed)

    def _is_piece(self, data: bytes) -> bool:
        return self.width is not None and _piece(data.rstrip(b"\r").decode("utf-8", "replace"), self.width)

    def renumber(self, observations: list[Observation]) -> None:
        """Give the observations the input's own line numbers (where lines were joined)."""
        if not self._starts:
            return
        for obs in observations:
            obs.line = self.physical(obs.line)
            obs.evidence = [(label, self.physical(number), text) for label, number, text in obs.evidence]
