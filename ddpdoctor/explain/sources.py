"""Inputs: files, folders of logs, standard input; gzip is read transparently.

Nothing is modified: files are opened read-only and read in chunks. A folder is searched
recursively for `*.log`, `*.txt`, `*.out`, `*.err` and torchelastic `error.json` files (also
gzipped, e.g. `rank3.log.gz`), skipping hidden folders; that covers torchrun's `--log-dir`
layout `<dir>/<run>/attempt_0/<local_rank>/{stdout.log,stderr.log,error.json}`. Special files
met in a folder (FIFOs, sockets, devices) are listed as skipped, never opened: a FIFO without a
writer would block the scan. Named explicitly, a FIFO is read.

Hostile input is bounded: gzip data may expand to at most GZIP_MAX_BYTES and, past its first
GZIP_RATIO_FLOOR bytes, to at most GZIP_MAX_RATIO times the compressed bytes read (a gzip bomb
stops with an input error naming the file and the limit; DDPDOCTOR_GZIP_MAX_BYTES and
DDPDOCTOR_GZIP_MAX_RATIO raise them). UTF-16 logs (a byte-order mark, or ASCII interleaved with
NUL bytes, as PowerShell's `>` writes them) are transcoded to UTF-8 as they are read.
"""

from __future__ import annotations

import codecs
import io
import os
import stat
import sys
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from ddpdoctor.errors import InputError
from ddpdoctor.explain.ranks import rank_from_path
from ddpdoctor.explain.scan import ReadInto

TYPE_CHECKING = False  # typing's constant, without importing typing (explain's cold start)
if TYPE_CHECKING:
    import gzip
    from typing import IO

LOG_SUFFIXES = (".log", ".txt", ".out", ".err")
ERROR_FILE = "error.json"
STDIN = "-"
MAX_ERROR_FILE_BYTES = 16 * 1024 * 1024
ENV_GZIP_MAX_BYTES = "DDPDOCTOR_GZIP_MAX_BYTES"
ENV_GZIP_MAX_RATIO = "DDPDOCTOR_GZIP_MAX_RATIO"
GZIP_MAX_BYTES = 4 * 1024**3
GZIP_MAX_RATIO = 100
GZIP_RATIO_FLOOR = 64 * 1024 * 1024
_GZIP_MAGIC = b"\x1f\x8b"
_SNIFF_BYTES = 64


class Source:
    """One input to read: a path, or standard input."""

    __slots__ = (
        "compressed",
        "display",
        "encoding",
        "error_file",
        "path",
        "rank",
        "rank_source",
        "size",
        "skipped",
    )

    def __init__(self, path: str, display: str, size: int | None, skipped: str | None = None) -> None:
        self.path = path
        self.display = display
        self.size = size
        self.skipped = skipped  # why a file found in a folder is not read (a FIFO, a device)
        self.compressed = False  # set when opened: the bytes are gzip
        self.encoding: str | None = None  # set when opened and transcoded: "utf-16-le" or "utf-16-be"
        # Any .json (or .json.gz) is tried as a torchelastic error file first.
        self.error_file = path != STDIN and _strip_gz(path).endswith(".json")
        self.rank, self.rank_source = rank_from_path(display) if path != STDIN else (None, None)


def _strip_gz(name: str) -> str:
    return name[:-3] if name.endswith(".gz") else name


def _is_log_name(name: str) -> bool:
    base = _strip_gz(name)
    return base == ERROR_FILE or base.endswith(LOG_SUFFIXES)


def _walk(folder: str) -> Iterator[tuple[str, str | None]]:
    """(path, why it is skipped or None) for every log-named file under a folder."""
    for root, dirs, files in os.walk(folder, onerror=_walk_error):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if _is_log_name(name):
                path = os.path.join(root, name)
                yield path, _special_kind(path)


def _special_kind(path: str) -> str | None:
    """Why a file found in a folder is not read: "FIFO", "socket", "device"...; None for a regular file."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _walk_error(exc: OSError) -> None:
    raise InputError(f"cannot read folder {exc.filename}: {exc.strerror}", hint="check the permissions")


def discover(paths: Sequence[str]) -> list[Source]:
    """Expand the user's arguments into sources; raise InputError for anything missing or unusable."""
    if not paths:
        raise InputError("no log given", hint="pass log files, folders of logs, or - for standard input")
    sources: list[Source] = []
    for path in paths:
        if path == STDIN:
            sources.append(Source(STDIN, "<stdin>", None))
            continue
        try:
            st = os.stat(path)
        except FileNotFoundError:
            raise InputError(f"no such file or folder: {path}", hint="check the path") from None
        except OSError as exc:
            raise InputError(
                f"cannot read {path}: {exc.strerror}", hint="check the path and permissions"
            ) from None
        if stat.S_ISDIR(st.st_mode):
            found = list(_walk(path))
            if all(skipped for _, skipped in found):
                raise InputError(
                    f"no log files in folder {path}",
                    hint="looked for regular files *.log, *.txt, *.out, *.err and error.json (also .gz), "
                    "recursively",
                )
            for inner, skipped in found:
                sources.append(Source(inner, inner, None if skipped else _size(inner), skipped))
            continue
        if not (stat.S_ISREG(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
            raise InputError(f"not a regular file: {path}", hint="pass a log file, a folder or -")
        if not os.access(path, os.R_OK):
            raise InputError(f"cannot read {path}: permission denied", hint="check the permissions")
        sources.append(Source(path, path, st.st_size if stat.S_ISREG(st.st_mode) else None))
    return sources


def _size(path: str) -> int | None:
    try:
        return os.stat(path).st_size
    except OSError:
        return None


class _Peeked(io.RawIOBase):
    """A binary stream whose first bytes were already read (the gzip magic, an error file's candidate bytes)."""

    def __init__(self, head: bytes, rest: IO[bytes]) -> None:
        self._head = memoryview(head)  # sliced as it is consumed, without copying
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview | bytearray) -> int:  # type: ignore[override]
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        return self._rest.readinto(buffer)  # type: ignore[attr-defined,no-any-return]


@contextmanager
def open_source(source: Source) -> Iterator[IO[bytes]]:
    """A binary stream of the source's bytes: decompressed (within the gzip limits), UTF-16 as UTF-8."""
    try:
        raw: IO[bytes] = sys.stdin.buffer if source.path == STDIN else open(source.path, "rb")  # noqa: SIM115
    except OSError as exc:
        raise InputError(
            f"cannot read {source.display}: {exc.strerror}", hint="check the path and permissions"
        ) from None
    try:
        head = raw.read(_SNIFF_BYTES)
        stream: IO[bytes] = io.BufferedReader(_Peeked(head, raw), buffer_size=1 << 16)
        if head.startswith(_GZIP_MAGIC):
            import gzip

            source.compressed = True
            counted = _Counting(stream)
            unpacked = gzip.GzipFile(fileobj=counted, mode="rb")
            stream = io.BufferedReader(_GzipLimit(unpacked, counted, source.display), buffer_size=1 << 16)
            head = stream.peek(_SNIFF_BYTES)[:_SNIFF_BYTES]
        encoding = utf16_encoding(head)
        if encoding is not None:
            source.encoding = encoding
            stream = io.BufferedReader(_Utf16ToUtf8(stream, encoding), buffer_size=1 << 16)
        yield stream
    except OSError as exc:
        raise InputError(
            f"cannot read {source.display}: {exc.strerror or exc}", hint="is the file intact?"
        ) from None
    except EOFError:
        raise InputError(
            f"cannot read {source.display}: the gzip data is truncated", hint="is the file intact?"
        ) from None
    except zlib.error as exc:
        raise InputError(
            f"cannot read {source.display}: the gzip data is corrupt ({exc})", hint="is the file intact?"
        ) from None
    finally:
        if source.path != STDIN:
            raw.close()


class _Counting(io.RawIOBase):
    """Counts the bytes read through it (the compressed side of a gzip stream)."""

    def __init__(self, inner: IO[bytes]) -> None:
        self._inner = inner
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview | bytearray) -> int:  # type: ignore[override]
        n: int = self._inner.readinto(buffer)  # type: ignore[attr-defined]
        self.count += n
        return n


class _GzipLimit(io.RawIOBase):
    """Decompressed bytes, stopped with an InputError at the size and ratio limits (a gzip bomb)."""

    def __init__(self, unpacked: gzip.GzipFile, compressed: _Counting, display: str) -> None:
        self._unpacked = unpacked
        self._compressed = compressed
        self._display = display
        self._total = 0
        self._max_bytes, self._max_ratio = gzip_limits()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview | bytearray) -> int:  # type: ignore[override]
        n: int = self._unpacked.readinto(buffer)
        self._total += n
        if self._total > self._max_bytes:
            raise InputError(
                f"{self._display}: the gzip data expands to more than {self._max_bytes} bytes",
                hint=f"a gzip bomb? to read it anyway raise {ENV_GZIP_MAX_BYTES} (bytes)",
            )
        if self._total > GZIP_RATIO_FLOOR and self._total > self._max_ratio * max(1, self._compressed.count):
            raise InputError(
                f"{self._display}: the gzip data expands more than {self._max_ratio} times "
                f"({self._compressed.count} compressed bytes gave {self._total})",
                hint=f"a gzip bomb? to read it anyway raise {ENV_GZIP_MAX_RATIO}",
            )
        return n


def gzip_limits() -> tuple[int, int]:
    """(most decompressed bytes, highest expansion ratio) for one gzip input, from the environment or the defaults."""
    return (
        _positive_env(ENV_GZIP_MAX_BYTES, GZIP_MAX_BYTES),
        _positive_env(ENV_GZIP_MAX_RATIO, GZIP_MAX_RATIO),
    )


def _positive_env(name: str, default: int) -> int:
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    if not text.isdecimal() or len(text) > 20 or int(text) <= 0:
        raise InputError(
            f"{name}={text[:40]!r} is not a positive whole number", hint=f"unset {name} or fix it"
        )
    return int(text)


def utf16_encoding(head: bytes) -> str | None:
    """ "utf-16-le"/"utf-16-be" when a log's first bytes are UTF-16 (a byte-order mark, or ASCII between NULs)."""
    if head.startswith(codecs.BOM_UTF16_LE) and not head.startswith(codecs.BOM_UTF32_LE):
        return "utf-16-le"
    if head.startswith(codecs.BOM_UTF16_BE):
        return "utf-16-be"
    pairs = len(head) // 2
    if pairs < 4:
        return None
    even, odd = head[0 : 2 * pairs : 2], head[1 : 2 * pairs : 2]
    if odd.count(0) == pairs and even.count(0) == 0:
        return "utf-16-le"
    if even.count(0) == pairs and odd.count(0) == 0:
        return "utf-16-be"
    return None


class _Utf16ToUtf8(io.RawIOBase):
    """UTF-16 bytes read as UTF-8 (the byte-order mark dropped, undecodable units replaced)."""

    def __init__(self, inner: IO[bytes], encoding: str) -> None:
        self._inner = inner
        self._decoder = codecs.getincrementaldecoder(encoding)("replace")
        self._pending = b""
        self._started = False
        self._done = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview | bytearray) -> int:  # type: ignore[override]
        while not self._pending and not self._done:
            data = self._inner.read(1 << 16)
            text = self._decoder.decode(data, final=not data)
            if not self._started and text:
                text = text.removeprefix("\ufeff")
                self._started = True
            self._done = not data
            self._pending = text.encode("utf-8", "replace")
        n = min(len(buffer), len(self._pending))
        buffer[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n


def reader(stream: IO[bytes], head: bytes = b"") -> ReadInto:
    """A `readinto` callable for the scanner: `head` (bytes already read from the stream), then the stream."""
    if head:
        return _Peeked(head, stream).readinto
    readinto = getattr(stream, "readinto", None)
    if readinto is not None:
        return readinto  # type: ignore[no-any-return]

    def fallback(view: memoryview) -> int:
        data = stream.read(len(view))
        view[: len(data)] = data
        return len(data)

    return fallback
