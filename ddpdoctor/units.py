"""Sizes in bytes: the one formatter and parser every report uses."""

from __future__ import annotations

import math
import re

_UNITS = {"B": 1.0, "BYTES": 1.0, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "PB": 1e15}
_UNITS.update({"KIB": 2.0**10, "MIB": 2.0**20, "GIB": 2.0**30, "TIB": 2.0**40, "PIB": 2.0**50})
_SIZE = re.compile(r"\s*(\d{1,15}(?:\.\d{1,9})?)\s*([KMGTP]?i?B|bytes)?\s*$", re.IGNORECASE)


def format_bytes(size: float) -> str:
    """Bytes as `1.50 GiB`, `512.00 MiB`, `3.00 KiB` or `12 bytes`."""
    for unit, scale in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale:
            return f"{size / scale:.2f} {unit}"
    return f"{size:.0f} bytes"


def parse_size(text: str | None) -> float | None:
    """Bytes from `2.00 GiB`, `336 MiB`, `1024` or `12 bytes`; None when it is not a size."""
    if text is None:
        return None
    m = _SIZE.match(text)
    if m is None:
        return None
    value = float(m.group(1)) * _UNITS[(m.group(2) or "B").upper()]
    return value if math.isfinite(value) else None
