"""Sizes in bytes: the one formatter and the one parser every report and option uses; no dependencies.

:func:`format_size` writes bytes as `75.0 GiB`. :func:`parse_size` reads a size from a log
(`2.00 GiB`, `336 MiB`, `1024`, `12 bytes`; None when it is not one); :func:`parse_user_size` reads
what a user types (`80GiB`, `512MiB`, `10GB`, `1.5G`), where a unit is required and anything else
is a :class:`SizeError`. Both share one grammar: a prefix K, M, G, T or P is binary (1024) with or
without `i`, and decimal (1000) when followed by a bare `B` (`10GB`).
"""

from __future__ import annotations

import math
import re

KIB = 1024
MIB = 1024**2
GIB = 1024**3
TIB = 1024**4
# A size a user may write: at most this many bytes (1 EiB), so that no number read from input
# becomes an allocation or an arithmetic overflow later.
MAX_SIZE = 1024**6

_SIZE_RE = re.compile(
    r"^\s*(?P<number>\d{1,20}(?:\.\d{1,12})?)\s*(?:(?P<prefix>[kmgtp])(?P<binary>i?)(?P<byte>b?)|(?P<bytes>b|bytes))?\s*$",
    re.IGNORECASE,
)
_UNIT_POWER = {"k": 1, "m": 2, "g": 3, "t": 4, "p": 5}
_UNITS: tuple[tuple[str, int], ...] = (("TiB", TIB), ("GiB", GIB), ("MiB", MIB), ("KiB", KIB))


class SizeError(ValueError):
    """A size that cannot be read; the message says what was wrong."""


def _bytes(match: re.Match[str]) -> float:
    prefix = match.group("prefix")
    if prefix is None:
        return float(match.group("number"))
    decimal = bool(match.group("byte")) and not match.group("binary")
    scale: int = (1000 if decimal else 1024) ** _UNIT_POWER[prefix.lower()]
    return float(match.group("number")) * scale


def parse_size(text: str | None) -> float | None:
    """Bytes from a size as logs print it (`2.00 GiB`, `336 MiB`, `1024`, `12 bytes`); None when it is not one."""
    if text is None:
        return None
    match = _SIZE_RE.match(text)
    if match is None:
        return None
    value = _bytes(match)
    return value if math.isfinite(value) else None


def parse_user_size(text: str) -> int:
    """Bytes from `80GiB`, `512MiB`, `10GB` (powers of 1000), `1.5G` (binary) or `123B`; a unit is required.

    SizeError for anything else, and for sizes above MAX_SIZE.
    """
    match = _SIZE_RE.match(text)
    if match is None or not (match.group("prefix") or match.group("bytes")):
        raise SizeError(f"cannot read size {text[:60]!r}")
    value = _bytes(match)
    if value > MAX_SIZE:
        raise SizeError(f"size {text[:60]!r} is larger than 1 EiB")
    return int(value)


def format_size(num_bytes: float | None, *, digits: int = 1) -> str:
    """`75.0 GiB`-style text with `digits` decimals (whole bytes stay `512 B`); `unknown` for None or NaN."""
    if num_bytes is None or not math.isfinite(num_bytes):
        return "unknown"
    sign = "-" if num_bytes < 0 else ""
    size = abs(float(num_bytes))
    for unit, scale in _UNITS:
        if size >= scale:
            return f"{sign}{size / scale:.{digits}f} {unit}"
    return f"{sign}{size:.0f} B"


def format_bytes(size: float) -> str:
    """Bytes as `explain` advice writes them: :func:`format_size` with two decimals (`1.50 GiB`)."""
    return format_size(size, digits=2)
