"""Formatters: one per output format, behind one protocol, and the one place output is written.

A :class:`View` is what every formatter receives: a report's document (its layout, for rich, text
and Markdown) and its data (its `to_dict`, for JSON). :func:`emit` picks the formatter for
`--format`/`--color` and the stream, and escapes control characters from outside text on the way
(see :mod:`ddpdoctor.present.sanitize`), so no formatter can forget it. `rich` is imported lazily
so that plain text and JSON output stay cheap to start.
"""

from __future__ import annotations

import enum
import json
import os
import sys
from collections.abc import Mapping

from ddpdoctor.errors import DdpDoctorError
from ddpdoctor.present.document import Block, Bullets, Code, Document, Fields, Heading, Table, Text
from ddpdoctor.present.sanitize import escape_controls, escape_json_controls
from ddpdoctor.records import Record

TYPE_CHECKING = False  # typing's constant, without importing typing (explain's cold start)
if TYPE_CHECKING:
    from typing import IO, Any, Protocol

    from rich.console import Console, RenderableType

    from ddpdoctor.present.document import Tone

    class Formatter(Protocol):
        """Writes a view to a stream in one output format."""

        def write(self, view: View, stream: IO[str]) -> None:
            """Write `view` to `stream`."""


class OutputError(DdpDoctorError):
    """The output could not be written: standard output is closed, full, or its reader went away."""

    def __init__(self, message: str, *, hint: str | None = None, reader_left: bool = False) -> None:
        super().__init__(message, hint=hint)
        self.reader_left = reader_left


class OutputFormat(str, enum.Enum):
    """`--format` choices; `auto` is rich on a colour terminal and plain text otherwise."""

    AUTO = "auto"
    RICH = "rich"
    TEXT = "text"
    JSON = "json"
    MARKDOWN = "markdown"
    GITHUB = "github"


class ColorMode(str, enum.Enum):
    """`--color` choices."""

    AUTO = "auto"
    ALWAYS = "always"
    NEVER = "never"


def color_enabled(mode: ColorMode, stream: IO[str]) -> bool:
    """Whether to colour `stream`: `auto` is off for pipes, NO_COLOR and TERM=dumb."""
    if mode is ColorMode.ALWAYS:
        return True
    if mode is ColorMode.NEVER:
        return False
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


def resolve_format(fmt: OutputFormat, color: ColorMode, stream: IO[str]) -> OutputFormat:
    """Turn `auto` into rich or text for this stream."""
    if fmt is not OutputFormat.AUTO:
        return fmt
    return OutputFormat.RICH if color_enabled(color, stream) else OutputFormat.TEXT


def to_json(data: Mapping[str, Any]) -> str:
    """Stable JSON text for machine output; control characters are written as `\\uXXXX` escapes."""
    return escape_json_controls(json.dumps(data, indent=2, ensure_ascii=False, sort_keys=False))


def escaped_document(doc: Document) -> Document:
    """`doc` with control characters in every piece of text shown as visible escapes."""
    return [_escaped_block(block) for block in doc]


def _escaped_block(block: Block) -> Block:
    esc = escape_controls
    if isinstance(block, Heading):
        return Heading(esc(block.text), block.level)
    if isinstance(block, Text):
        return Text(esc(block.text), block.tone)
    if isinstance(block, Bullets):
        return Bullets(tuple(esc(item) for item in block.items), block.ordered, block.truncate)
    if isinstance(block, Code):
        return Code(esc(block.text), block.language, None if block.title is None else esc(block.title))
    if isinstance(block, Fields):
        return Fields(tuple((esc(k), esc(v)) for k, v in block.pairs))
    return Table(
        tuple(esc(c) for c in block.columns),
        tuple(tuple(esc(c) for c in row) for row in block.rows),
        None if block.title is None else esc(block.title),
        block.truncate,
        block.optional,
    )


# --- plain text -------------------------------------------------------------------------------


def render_text(doc: Document) -> str:
    """Plain text: no colour, no markup, log lines kept verbatim."""
    return "\n\n".join(_text_block(b) for b in doc) + "\n"


def _indent(text: str, prefix: str, first: str | None = None) -> str:
    lines = text.split("\n")
    head = first if first is not None else prefix
    return "\n".join([head + lines[0], *(prefix + line if line else "" for line in lines[1:])])


def _bullets(block: Bullets) -> str:
    """`1. item` or `- item` lines, continuation lines indented under the text (text and Markdown)."""
    marks = [f"{i}. " if block.ordered else "- " for i in range(1, len(block.items) + 1)]
    return "\n".join(_indent(item, " " * len(m), m) for m, item in zip(marks, block.items, strict=True))


def _text_block(block: Block) -> str:
    if isinstance(block, Heading):
        return f"{block.text}\n{('=' if block.level == 1 else '-') * min(len(block.text), 100)}"
    if isinstance(block, Text):
        return block.text
    if isinstance(block, Bullets):
        return _bullets(block)
    if isinstance(block, Code):
        body = _indent(block.text, "    ")
        return f"{block.title}:\n{body}" if block.title else body
    if isinstance(block, Fields):
        width = max(len(k) for k, _ in block.pairs)
        return "\n".join(_indent(v, " " * (width + 2), f"{k + ':':<{width + 2}}") for k, v in block.pairs)
    return _text_table(block)


def _text_table(table: Table) -> str:
    cells = [list(table.columns), *[[c.replace("\n", " ") for c in row] for row in table.rows]]
    widths = [min(max(len(r[i]) for r in cells), 60) for i in range(len(table.columns))]
    widths[-1] = max(len(r[-1]) for r in cells)
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    if table.title:
        lines.insert(0, table.title)
    return "\n".join(lines)


# --- markdown ---------------------------------------------------------------------------------


def render_markdown(doc: Document) -> str:
    """GitHub-flavoured Markdown, ready to paste into an issue."""
    return "\n\n".join(_md_block(b) for b in doc) + "\n"


def _fence(text: str) -> str:
    longest = run = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    return "`" * max(3, longest + 1)


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", "<br>")


def _md_block(block: Block) -> str:
    if isinstance(block, Heading):
        return f"{'#' * min(block.level, 6)} {block.text}"
    if isinstance(block, Text):
        return f"**{block.text}**" if block.tone in ("error", "strong") else block.text
    if isinstance(block, Bullets):
        return _bullets(block)
    if isinstance(block, Code):
        fence = _fence(block.text)
        lang = "" if block.language == "text" else block.language
        body = f"{fence}{lang}\n{block.text}\n{fence}"
        return f"*{block.title}*\n\n{body}" if block.title else body
    if isinstance(block, Fields):
        return "\n".join(f"- **{k}:** {_md_cell(v)}" for k, v in block.pairs)
    head = "| " + " | ".join(block.columns) + " |"
    rule = "|" + "|".join("---" for _ in block.columns) + "|"
    rows = ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in block.rows]
    title = [f"*{block.title}*", ""] if block.title else []
    return "\n".join([*title, head, rule, *rows])


# --- rich -------------------------------------------------------------------------------------

_TONE_STYLE: dict[Tone, str] = {
    "plain": "",
    "muted": "dim",
    "error": "bold red",
    "warning": "bold yellow",
    "info": "cyan",
    "ok": "green",
    "strong": "bold",
}


# Cells that name a severity are coloured in every table.
_SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan", "ok": "green"}
_LAST_COLUMN_MIN = 24  # the room the free-text column keeps before optional columns are dropped
_GAP = 3  # what each column costs besides its text: a space either side and the divider


def rich_renderables(doc: Document, width: int = 80) -> list[RenderableType]:
    """Rich renderables for a terminal `width` columns wide; text is never interpreted as markup."""
    return [_rich_block(b, width) for b in doc]


def _fixed_width(table: Table, columns: list[int]) -> int:
    """Width of `columns` at their longest cell, gaps included."""
    cells = [table.columns, *table.rows]
    return sum(max(len(row[i]) for row in cells) + _GAP for i in columns)


def _kept_columns(table: Table, width: int) -> list[int]:
    """Indexes of the columns shown at `width`: optional ones go until the last column has room."""
    kept = list(range(len(table.columns)))
    for name in table.optional:
        if width - _fixed_width(table, kept[:-1]) >= _LAST_COLUMN_MIN:
            break
        if name in table.columns and table.columns.index(name) in kept[:-1]:
            kept.remove(table.columns.index(name))
    return kept


def _rich_table(block: Table, width: int) -> RenderableType:
    from rich import box
    from rich.table import Table as RichTable
    from rich.text import Text as RichText

    kept = _kept_columns(block, width)
    table = RichTable(
        title=block.title,
        box=box.SIMPLE_HEAD,
        header_style="bold",
        padding=(0, 1),
        pad_edge=False,
        show_edge=False,
    )
    cells = [block.columns, *block.rows]
    for i in kept[:-1]:
        longest = max(len(row[i]) for row in cells)
        table.add_column(block.columns[i], no_wrap=True, min_width=longest, max_width=longest)
    # Whatever the fixed columns leave, down to one cell: the table never grows past the terminal.
    room = max(1, width - _fixed_width(block, kept[:-1]) - 1)
    table.add_column(block.columns[kept[-1]], overflow="ellipsis", no_wrap=block.truncate, max_width=room)
    for row in block.rows:
        *fixed, last = (RichText(row[i], style=_SEVERITY_STYLE.get(row[i], "")) for i in kept)
        last.overflow, last.no_wrap = "ellipsis", block.truncate
        table.add_row(*fixed, last)
    return table


def _rich_block(block: Block, width: int) -> RenderableType:
    from rich.panel import Panel
    from rich.syntax import Syntax
    from rich.table import Table as RichTable
    from rich.text import Text as RichText

    if isinstance(block, Heading):
        style = "bold underline" if block.level == 1 else "bold magenta"
        return RichText("\n" + block.text, style=style)
    if isinstance(block, Text):
        return RichText(block.text, style=_TONE_STYLE[block.tone])
    if isinstance(block, Bullets):
        # A two-column grid: wrapped lines hang under the item's text, not under its mark.
        items = RichTable.grid(padding=(0, 1))
        marks = [f"{i}." if block.ordered else "•" for i in range(1, len(block.items) + 1)]
        mark_width = max(map(len, marks), default=1)
        items.add_column(style="bold", no_wrap=True, min_width=mark_width)
        if block.truncate:
            items.add_column(overflow="ellipsis", no_wrap=True, max_width=max(8, width - mark_width - 1))
        else:
            items.add_column(overflow="fold")
        for mark, item in zip(marks, block.items, strict=True):
            text = RichText(item, overflow="ellipsis" if block.truncate else "fold", no_wrap=block.truncate)
            items.add_row(mark, text)
        return items
    if isinstance(block, Code):
        body: RenderableType
        if block.language in ("python", "rust", "shell", "yaml"):
            body = Syntax(block.text, "bash" if block.language == "shell" else block.language, word_wrap=True)
        else:
            body = RichText(block.text)
        return Panel(body, title=block.title, title_align="left", border_style="dim", expand=False)
    if isinstance(block, Fields):
        grid = RichTable.grid(padding=(0, 2))
        grid.add_column(style="bold", no_wrap=True)
        grid.add_column(overflow="fold")  # a long path is shown whole, over two lines
        for k, v in block.pairs:
            grid.add_row(RichText(k), RichText(v))
        return grid
    return _rich_table(block, width)


def make_console(stream: IO[str] | None = None, *, color: bool = True) -> Console:
    """A rich console writing to `stream` (stdout by default)."""
    from rich.console import Console

    return Console(
        file=stream or sys.stdout,
        force_terminal=color or None,
        no_color=not color,
        highlight=False,
        soft_wrap=False,
    )


# --- the formatter protocol -------------------------------------------------------------------


class View(Record, frozen=True):
    """What a formatter receives: the report's layout (rich, text, Markdown) and its data (JSON)."""

    document: Document
    data: Mapping[str, Any]


class JsonFormatter:
    """The report's data as JSON, no markup."""

    def write(self, view: View, stream: IO[str]) -> None:
        """Write the data as indented JSON."""
        stream.write(to_json(view.data) + "\n")


class TextFormatter:
    """Plain text."""

    def write(self, view: View, stream: IO[str]) -> None:
        """Write the document as plain text."""
        stream.write(render_text(escaped_document(view.document)))


class MarkdownFormatter:
    """GitHub-flavoured Markdown."""

    def write(self, view: View, stream: IO[str]) -> None:
        """Write the document as Markdown."""
        stream.write(render_markdown(escaped_document(view.document)))


# GitHub's annotation level for each severity a finding can have (passes are not annotated).
_ANNOTATION_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def _workflow_data(text: str) -> str:
    """`text` as the message of a GitHub workflow command: one line, `%` and newlines encoded."""
    return escape_controls(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _workflow_property(text: str) -> str:
    """`text` as a property value of a GitHub workflow command (`:` and `,` encoded too)."""
    return _workflow_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotations(data: Mapping[str, Any]) -> list[str]:
    """One `::error file=..,line=..,title=..::message` line per error, warning or info finding of `data`.

    The place is the finding's last evidence that names a file (the root-cause line of `explain`,
    the innermost frame of a check's evidence).
    """
    lines = []
    for found in data.get("findings", []):
        level = _ANNOTATION_LEVEL.get(found["severity"])
        if level is None:
            continue
        props = []
        located = [e for e in found["evidence"] if e.get("file")]
        if located:
            props.append(f"file={_workflow_property(located[-1]['file'])}")
            if located[-1].get("line") is not None:
                props.append(f"line={located[-1]['line']}")
        title = f"ddpdoctor {found['id']}: {found['title']}"
        props.append(f"title={_workflow_property(title)}")
        message = found["message"] or found["title"]
        if found.get("entry"):
            message += f"\nknowledge base: ddpdoctor kb show {found['entry']}"
        lines.append(f"::{level} {','.join(props)}::{_workflow_data(message)}")
    return lines


class GithubFormatter:
    """GitHub Actions: a workflow annotation per problem, then the plain text with workflow commands off."""

    def write(self, view: View, stream: IO[str]) -> None:
        """Write the annotations, then the document as plain text between `stop-commands` and its token.

        The text quotes logs, and a quoted line starting with `::` would otherwise be run as a
        workflow command; the token that turns commands back on is random, so no log can guess it.
        """
        for line in github_annotations(view.data):
            stream.write(line + "\n")
        import secrets  # only here: it imports hashlib, hmac and random

        token = secrets.token_hex(16)
        stream.write(f"::stop-commands::{token}\n")
        stream.write(render_text(escaped_document(view.document)))
        stream.write(f"::{token}::\n")


class RichFormatter(Record, frozen=True):
    """Rich terminal output, coloured unless `color` is off."""

    color: bool

    def write(self, view: View, stream: IO[str]) -> None:
        """Write the document through a rich console."""
        console = make_console(stream, color=self.color)
        for renderable in rich_renderables(escaped_document(view.document), console.width):
            console.print(renderable)


def formatter_for(fmt: OutputFormat, color: ColorMode, stream: IO[str]) -> Formatter:
    """The formatter that `--format fmt --color color` selects for `stream`."""
    resolved = resolve_format(fmt, color, stream)
    if resolved is OutputFormat.JSON:
        return JsonFormatter()
    if resolved is OutputFormat.MARKDOWN:
        return MarkdownFormatter()
    if resolved is OutputFormat.TEXT:
        return TextFormatter()
    if resolved is OutputFormat.GITHUB:
        return GithubFormatter()
    # An explicit `--format rich` colours even a pipe, unless `--color never` says otherwise.
    return RichFormatter(
        color is not ColorMode.NEVER if fmt is OutputFormat.RICH else color_enabled(color, stream)
    )


def emit(
    doc: Document,
    data: Mapping[str, Any],
    fmt: OutputFormat,
    *,
    color: ColorMode = ColorMode.AUTO,
    stream: IO[str] | None = None,
) -> None:
    """Write a document (or, for `json`, the data) to `stream` in the chosen format."""
    out = stream or sys.stdout
    if out is None:
        raise OutputError("standard output is closed", hint="send the output to a terminal, a file or a pipe")
    try:
        formatter_for(fmt, color, out).write(View(doc, data), out)
        out.flush()
    except BrokenPipeError:
        raise OutputError("the reader of the output went away", reader_left=True) from None
    except OSError as exc:
        raise OutputError(f"cannot write the output: {exc.strerror or exc}") from None


def error_line(message: str, hint: str | None, stream: IO[str] | None = None) -> None:
    """The one-line error (plus hint) that expected failures print to stderr."""
    err = stream or sys.stderr
    if err is None:
        return
    err.write(f"ddpdoctor: error: {escape_controls(message)}\n")
    if hint:
        err.write(f"ddpdoctor: hint: {escape_controls(hint)}\n")
    err.flush()
