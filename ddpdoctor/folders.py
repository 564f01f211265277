"""Reading untrusted folders (team knowledge bases): regular files only, nothing outside, no loops.

A folder named with `--kb` or DDPDOCTOR_KB_PATH may hold anything: a link to /dev/zero or
/etc/shadow, a FIFO, a link loop, a huge file. :func:`walk_files` lists its files of one suffix
without opening any of them: links are followed only when they stay inside the folder, each real
folder is entered once, and whatever cannot be read safely comes back as a problem (a short
reason, never the file's content). :func:`read_regular` then reads one listed file, refusing
anything that is not a regular file of at most `limit` bytes, without blocking on a FIFO.

Only the standard library is used: the knowledge index's cache key is computed from this listing
on every `explain` run.
"""

from __future__ import annotations

import os
import stat

from ddpdoctor.records import Record

MAX_DEPTH = 32


class Listed(Record, frozen=True):
    """A file found in a folder: its path relative to the folder, its path, and why it cannot be read (or None)."""

    rel: str
    path: str
    problem: str | None = None


def walk_files(root: str, suffix: str) -> list[Listed]:
    """Every file under `root` whose name ends with `suffix`, sorted, with a problem for those that are unsafe."""
    real_root = os.path.realpath(root)
    out: list[Listed] = []
    _walk(root, "", real_root, {real_root}, suffix, out, 0)
    return out


def _inside(real: str, real_root: str) -> bool:
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def _walk(
    folder: str, prefix: str, real_root: str, entered: set[str], suffix: str, out: list[Listed], depth: int
) -> None:
    try:
        with os.scandir(folder) as found:
            items = sorted(found, key=lambda e: e.name)
    except OSError as exc:
        out.append(Listed(prefix or ".", folder, f"cannot be read: {exc.strerror}"))
        return
    for item in items:
        rel = f"{prefix}{item.name}"
        real = os.path.realpath(item.path)
        try:
            is_link = item.is_symlink()
            is_dir = item.is_dir()  # follows a link
        except OSError:
            is_link, is_dir = True, False
        if is_dir:
            if not _inside(real, real_root) or real in entered or depth >= MAX_DEPTH:
                continue  # a link out of the folder, a link loop, or an absurdly deep tree: not entered
            entered.add(real)
            _walk(item.path, rel + "/", real_root, entered, suffix, out, depth + 1)
            continue
        if not item.name.endswith(suffix):
            continue
        if is_link and not _inside(real, real_root):
            out.append(Listed(rel, item.path, "cannot be read: it links to a file outside the folder"))
            continue
        out.append(Listed(rel, item.path, _kind_problem(real)))


def _kind_problem(real: str) -> str | None:
    try:
        mode = os.stat(real).st_mode
    except OSError as exc:
        return f"cannot be read: {exc.strerror}"
    return None if stat.S_ISREG(mode) else "cannot be read: not a regular file"


def stamp(listed: list[Listed]) -> list[tuple[str, int, int, str | None]]:
    """(path, size, modification time, problem) of listed files: a cache key that changes with any edit."""
    out = []
    for item in listed:
        try:
            st = os.stat(item.path)
            out.append((item.path, st.st_size, st.st_mtime_ns, item.problem))
        except OSError:
            out.append((item.path, -1, -1, item.problem or "gone"))
    return out


def tree_stamp(root: str, suffix: str) -> list[tuple[str, int, int]]:
    """(path, size, modification time) of every file under `root` whose name ends with `suffix`.

    A cheap cache key for a folder the package ships: unlike `walk_files` it makes no link or
    safety checks (no realpath of every entry), so it costs one stat per file."""
    out: list[tuple[str, int, int]] = []
    pending = [root]
    while pending:
        folder = pending.pop()
        try:
            with os.scandir(folder) as found:
                for entry in found:
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(entry.path)
                    elif entry.name.endswith(suffix):
                        st = entry.stat()
                        out.append((entry.path, st.st_size, st.st_mtime_ns))
        except OSError:
            out.append((folder, -1, -1))
    return sorted(out)


class UnsafeFile(Exception):
    """A listed file cannot be read safely; the message is a short reason, never its content."""


def read_regular(path: str, limit: int) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; UnsafeFile for anything else.

    The file is opened without blocking (a FIFO swapped in after the listing does not hang) and
    checked again once open, so a file replaced between listing and reading is caught too.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise UnsafeFile(f"cannot be read: {exc.strerror}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeFile("cannot be read: not a regular file")
        if st.st_size > limit:
            raise UnsafeFile(f"cannot be read: larger than {limit} bytes")
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 16, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise UnsafeFile(f"cannot be read: larger than {limit} bytes")
        return b"".join(chunks)
    except OSError as exc:
        raise UnsafeFile(f"cannot be read: {exc.strerror}") from None
    finally:
        os.close(fd)
