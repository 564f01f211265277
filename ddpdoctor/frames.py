"""Which stack frames belong to the user's code: one rule for `explain`, `run` and `stacks`."""

from __future__ import annotations

# Path fragments of frames that are not the user's: installed packages, torch itself, the
# interpreter's standard library and its frozen modules.
_NOT_USER = ("site-packages", "dist-packages", "/torch/", "\\torch\\", "<frozen", "/lib/python")


def is_user_frame(path: str) -> bool:
    """A frame from the user's code, not an installed library or the interpreter."""
    return not any(marker in path for marker in _NOT_USER)
