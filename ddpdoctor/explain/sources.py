"""Inputs: files, folders of logs, standard input; gzip is read transparently.

Nothing is modified: files are opened read-only and read in chunks. A folder is searched
recursively for `*.log`, `*.txt`, `*.out`, `*.err` and torchelastic `error.json` files (also
gzipped, e.g. `rank3.log.gz`), skipping hidden folders; that covers torchrun's `--log-dir`
layout `<dir>/<run>/attempt_0/<local_rank>/{stdout.log,stderr.log,error.json}`.
"""

from __future__ import annotations

import io
import os
import stat
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import IO, cast

from ddpdoctor.errors import InputError
from ddpdoctor.explain.ranks import rank_from_path
from ddpdoctor.explain.scan import ReadInto

LOG_SUFFIXES = (".log", ".txt", ".out", ".err")
ERROR_FILE = "error.json"
STDIN = "-"
MAX_ERROR_FILE_BYTES = 16 * 1024 * 1024
_GZIP_MAGIC = b"\x1f\x8b"


class Source:
    """One input to read: a path, or standard input."""

    __slots__ = ("compressed", "display", "error_file", "path", "rank", "rank_source", "size")

    def __init__(self, path: str, display: str, size: int | None) -> None:
        self.path = path
        self.display = display
        self.size = size
        self.compressed = False  # set when opened: the bytes are gzip
        # Any .json (or .json.gz) is tried as a torchelastic error file first.
        self.error_file = path != STDIN and _strip_gz(path).endswith(".json")
        self.rank, self.rank_source = rank_from_path(display) if path != STDIN else (None, None)


def _strip_gz(name: str) -> str:
    return name[:-3] if name.endswith(".gz") else name


def _is_log_name(name: str) -> bool:
    base = _strip_gz(name)
    return base == ERROR_FILE or base.endswith(LOG_SUFFIXES)


def _walk(folder: str) -> Iterator[str]:
    for root, dirs, files in os.walk(folder, onerror=_walk_error):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            path = os.path.join(root, name)
            if _is_log_name(name) and os.path.isfile(path):  # no FIFOs or devices from a folder
                yield path


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
            if not found:
                raise InputError(
                    f"no log files in folder {path}",
                    hint="looked for *.log, *.txt, *.out, *.err and error.json (also .gz), recursively",
                )
            for inner in found:
                sources.append(Source(inner, inner, _size(inner)))
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
    """A binary stream of the source's (decompressed) bytes."""
    try:
        raw: IO[bytes] = sys.stdin.buffer if source.path == STDIN else open(source.path, "rb")  # noqa: SIM115
    except OSError as exc:
        raise InputError(
            f"cannot read {source.display}: {exc.strerror}", hint="check the path and permissions"
        ) from None
    try:
        head = raw.read(2)
        stream: IO[bytes] = io.BufferedReader(_Peeked(head, raw), buffer_size=1 << 16)
        if head == _GZIP_MAGIC:
            import gzip

            source.compressed = True
            stream = cast(
                "IO[bytes]", gzip.GzipFile(fileobj=io.BufferedReader(_Peeked(head, raw)), mode="rb")
            )
        yield stream
    except OSError as exc:
        raise InputError(
            f"cannot read {source.display}: {exc.strerror or exc}", hint="is the file intact?"
        ) from None
    except EOFError:
        raise InputError(
            f"cannot read {source.display}: the gzip data is truncated", hint="is the file intact?"
        ) from None
    finally:
        if source.path != STDIN:
            raw.close()


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
