"""Escape control characters from outside text before any formatter writes it.

Log lines, file names, inventories, team knowledge bases and exception messages come from
outside and may carry terminal control sequences (ESC c resets the terminal, CSI >0c makes it
type into its own input, OSC sets titles and links, DCS/APC carry payloads, 8-bit C1 codes do
the same in one byte, BEL and BS rewrite what is shown). Every character of Unicode category Cc
except newline and tab, and the bidirectional overrides that reorder what a reader sees, is
shown as a visible escape such as ``\\x1b`` or ``\\u202e``; nothing is dropped.
"""

from __future__ import annotations

import re

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def escape_controls(text: str) -> str:
    """`text` with every control character (newline and tab excepted) written as a visible escape."""
    return _UNSAFE.sub(_visible, text)


def escape_json_controls(text: str) -> str:
    """JSON text with the control characters `json.dumps` leaves raw written as `\\uXXXX` escapes.

    The result decodes to the same data: only the spelling of those characters changes.
    """
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
