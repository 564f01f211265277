"""Line cleaning exactly as the reference matcher does it, without importing the knowledge-base loader.

`ddpdoctor.kb.matching` defines how a log line is matched (ANSI stripped, trailing space removed,
cut at 64 Ki characters, carriage-return segments matched on their own). `explain` must agree with
it, but importing `ddpdoctor.kb` loads YAML and the schema, which the cold-start budget of
`explain` cannot afford. The same rules live here; a test keeps the two in step.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

MAX_MATCH_CHARS = 64 * 1024
MAX_UNWRAP_DEPTH = 16
ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?")
# The byte form never crosses a newline, so stripping a whole chunk keeps its line structure.
ANSI_BYTES_RE = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)?")


def clean_line(line: str) -> str:
    """Strip ANSI colour codes and trailing whitespace; cut very long lines."""
    if "\x1b" in line:
        line = ANSI_RE.sub("", line)
    return line[:MAX_MATCH_CHARS].rstrip()


def segments(line: str) -> Iterator[str]:
    """The cleaned, non-empty carriage-return segments of one line (`#015`, syslog's escaped
    carriage return, counts as one)."""
    if "#015" in line:
        line = line.replace("#015", "\r")
    for segment in line.split("\r"):
        cleaned = clean_line(segment)
        if cleaned:
            yield cleaned


class LazyRegex:
    """A regex compiled on first use, so that importing a module full of them stays cheap."""

    __slots__ = ("_compiled", "_flags", "pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern."""
        if self._compiled is None:
            self._compiled = re.compile(self.pattern, self._flags)
        return self._compiled

    def match(self, text: str, pos: int = 0) -> re.Match[str] | None:
        """Like re.Pattern.match."""
        return self.compiled.match(text, pos)

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        """Like re.Pattern.search."""
        return self.compiled.search(text, pos)

    def findall(self, text: str) -> list[Any]:
        """Like re.Pattern.findall."""
        return self.compiled.findall(text)
