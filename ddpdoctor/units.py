"""Byte sizes, read and written the one way the whole project does it; no dependencies.

:func:`parse_size` reads what a user types (`80GiB`, `512MiB`, `10GB`); :func:`format_size` writes
bytes as `75.0 GiB`. Both stay small on purpose: every command that shows memory uses them.
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

_SIZE_RE = re.compile(r"^\s*(\d{1,20}(?:\.\d{1,12})?)\s*([kmgtp]?)(i?)(b?)\s*$", re.IGNORECASE)
_UNIT_POWER = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4, "p": 5}
_UNITS: tuple[tuple[str, int], ...] = (("TiB", TIB), ("GiB", GIB), ("MiB", MIB), ("KiB", KIB))


class SizeError(ValueError):
    """A size that cannot be read; the message says what was wrong."""


def parse_size(text: str) -> int:
    """Bytes from `80GiB`, `512MiB`, `10GB` (powers of 1000), `1.5G` (binary) or `123B`; a unit is required.

    SizeError for anything else, and for sizes above MAX_SIZE.
    """
    match = _SIZE_RE.match(text)
    if match is None or (not match.group(2) and not match.group(4)):
        raise SizeError(f"cannot read size {text!r}")
    number, prefix, binary, byte = match.groups()
    power = _UNIT_POWER[prefix.lower()]
    base = 1000 if (byte and not binary and prefix) else 1024
    value = float(number) * base**power
    if value > MAX_SIZE:
        raise SizeError(f"size {text!r} is larger than 1 EiB")
    return int(value)


def format_size(num_bytes: float | None, *, digits: int = 1) -> str:
    """`75.0 GiB`-style text with `digits` decimals (whole bytes stay `512 B`); `unknown` for None."""
    if num_bytes is None or not math.isfinite(num_bytes):
        return "unknown"
    sign = "-" if num_bytes < 0 else ""
    size = abs(float(num_bytes))
    for unit, scale in _UNITS:
        if size >= scale:
            return f"{sign}{size / scale:.{digits}f} {unit}"
    return f"{sign}{size:.0f} B"
