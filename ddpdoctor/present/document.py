"""A small format-neutral document model.

Layouts in :mod:`ddpdoctor.present` describe a report as a list of blocks; the formatters in
:mod:`ddpdoctor.present.render` turn the same blocks into rich terminal output, plain text or
Markdown. Only JSON bypasses this model (it is the report's own `to_dict`).
"""

from __future__ import annotations

from ddpdoctor.records import Record

TYPE_CHECKING = False  # typing's constant, without importing typing (explain's cold start)
if TYPE_CHECKING:
    from typing import Literal

    Tone = Literal["plain", "muted", "error", "warning", "info", "ok", "strong"]


class Heading(Record, frozen=True):
    """A section title; level 1 is the page title."""

    text: str
    level: int = 2


class Text(Record, frozen=True):
    """A paragraph; the tone picks its colour in rich output."""

    text: str
    tone: Tone = "plain"


class Bullets(Record, frozen=True):
    """A list, numbered when `ordered`; with `truncate` each item keeps one line on a terminal (cut with an ellipsis)."""

    items: tuple[str, ...]
    ordered: bool = False
    truncate: bool = False


class Code(Record, frozen=True):
    """Verbatim text: a log excerpt or an example fix."""

    text: str
    language: str = "text"
    title: str | None = None


class Fields(Record, frozen=True):
    """Label/value lines such as `rank: 3`."""

    pairs: tuple[tuple[str, str], ...]


class Table(Record, frozen=True):
    """Rows under column names; cells are plain strings.

    On a terminal no cell but the last column's is ever wrapped or cut (ids and names stay whole);
    the last column wraps at spaces, or with `truncate` is cut with an ellipsis to keep one line per
    row. Columns named in `optional` are dropped, first named first, when the terminal is too
    narrow to leave the last column room.
    """

    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    title: str | None = None
    truncate: bool = False
    optional: tuple[str, ...] = ()


Block = Heading | Text | Bullets | Code | Fields | Table
Document = list[Block]
