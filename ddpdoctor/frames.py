"""Which frame of a stack is the user's own code: the one rule explain, guard and the hang report share."""

from __future__ import annotations

# Path fragments of installed libraries, the interpreter and Rust's toolchain and registry (matched
# with `/` separators: Windows paths are turned around first).
_LIBRARY_MARKERS = (
    "site-packages",
    "dist-packages",
    "/torch/",
    "<frozen",
    "/lib/python",
    "<string>",
    "/.cargo/registry/",
    "/rustc/",
    "/library/std/",
    "/library/core/",
    # Rust framework crates met as relative paths (a Burn checkout, a vendored workspace).
    "crates/burn-",
    "cubecl",
)


def is_user_frame(path: str) -> bool:
    """A frame from the user's code, not from an installed library, the interpreter or the toolchain.

    An installed console script (`.../bin/torchrun`, `.../bin/accelerate`: no `.py`, in a `bin`
    folder) is a launcher, not the user's code.
    """
    path = path.replace("\\", "/")
    if not path or any(marker in path for marker in _LIBRARY_MARKERS):
        return False
    folder, _, name = path.rpartition("/")
    return not (folder.endswith("/bin") and "." not in name)
