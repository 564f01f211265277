"""Rust panics as Burn's users see them: the default panic hook's text, the logger banner, payloads.

A panic in the model is a :class:`RustPanic` raised on the panicking thread right after the hook
has written its block, which is also the order Rust uses (the hook runs before unwinding). The
thread boundary turns it into ``Err(payload)``, the value ``JoinHandle::join`` returns in Rust.

Formats (burn_ddp.md section 4): since Rust 1.73 the location comes first and the message on its
own lines, since 1.91 the OS thread id follows the thread name, and every header is preceded by a
blank line. Before 1.73 the message was quoted inside the header. The backtrace hint is printed
after the first panic of the process only.
"""

from __future__ import annotations

import enum
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

# `panic_message` falls back to this text when a payload is neither `&str` nor `String`.
UNKNOWN_PANIC = "unknown panic in distributed data parallel worker"
# What the default hook prints as the message of a payload that is not a string.
NON_STRING_PAYLOAD = "Box<dyn Any>"
BACKTRACE_NOTE = "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace"
BANNER_TOP = "=== PANIC ==="
BANNER_BOTTOM = "============="

# Where crates.io sources unpack; every location in the model's output lies under it.
CARGO_REGISTRY = "/home/user/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f"
# cubecl is a git dependency of Burn 0.22.0-pre.2 (rev 48348968); cargo checks it out here.
CARGO_GIT_CUBECL = "/home/user/.cargo/git/checkouts/cubecl-3b0f7bd5d0b6a5c1/4834896"


class RustStyle(str, enum.Enum):
    """Which default-hook format the simulated binary was built with."""

    MODERN_TID = "1.95"  # Rust >= 1.91: thread '<name>' (<tid>) panicked at <file>:<line>:<col>:
    MODERN = "1.90"  # Rust 1.73 to 1.90: no thread id
    LEGACY = "1.72"  # Rust < 1.73: thread '<name>' panicked at '<message>', <file>:<line>:<col>


@dataclass(frozen=True)
class Location:
    """Where a panic was raised, as the hook prints it."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


def here() -> Location:
    """The Python file and line of the caller, for panics raised by ddpdoctor's own additions."""
    frame = sys._getframe(1)
    path = Path(frame.f_code.co_filename)
    parts = path.parts
    relative = "/".join(parts[parts.index("ddpdoctor") :]) if "ddpdoctor" in parts else path.name
    return Location(relative, frame.f_lineno, 1)


def crate_location(crate: str, path: str, line: int, column: int) -> Location:
    """A location inside a crates.io dependency, e.g. ``crate_location("burn-train-0.22.0-pre.2", ...)``."""
    return Location(f"{CARGO_REGISTRY}/{crate}/{path}", line, column)


class RustPanic(Exception):
    """A panic unwinding through a simulated Rust thread; ``payload`` is what ``join`` hands back."""

    def __init__(self, payload: object) -> None:
        super().__init__(hook_message(payload))
        self.payload = payload


def panic_message(payload: object) -> str:
    """Burn's `panic_message`: a string payload as-is, anything else the fixed fallback text."""
    return payload if isinstance(payload, str) else UNKNOWN_PANIC


def hook_message(payload: object) -> str:
    """The message the default hook prints for a payload."""
    return payload if isinstance(payload, str) else NON_STRING_PAYLOAD


class PanicHook:
    """The process's panic hook: writes one block per panic, atomically, in the chosen format.

    With ``experiment_log`` set it behaves like Burn's application logger: the three-line banner
    on the terminal and ``PANIC => ...`` in the experiment log before the default hook's block.
    """

    def __init__(
        self,
        stream: TextIO,
        *,
        style: RustStyle = RustStyle.MODERN_TID,
        experiment_log: Path | None = None,
    ) -> None:
        self._stream = stream
        self._style = style
        self._experiment_log = experiment_log
        self._lock = threading.Lock()
        self._first = True

    def format_block(self, thread: str, tid: int, location: Location, payload: object) -> str:
        """The text of one panic block, without the banner and the backtrace note."""
        message = hook_message(payload)
        if self._style is RustStyle.LEGACY:
            return f"thread '{thread}' panicked at '{message}', {location}\n"
        ident = f"'{thread}' ({tid})" if self._style is RustStyle.MODERN_TID else f"'{thread}'"
        return f"\nthread {ident} panicked at {location}:\n{message}\n"

    def emit(self, thread: str, tid: int, location: Location, payload: object) -> None:
        """Write the block for a panic happening now on `thread`."""
        with self._lock:
            parts: list[str] = []
            if self._experiment_log is not None:
                parts.append(
                    f"{BANNER_TOP}\nA fatal error happened, you can check the experiment logs here => "
                    f"'{self._experiment_log}'\n{BANNER_BOTTOM}\n"
                )
                with self._experiment_log.open("a", encoding="utf-8") as log:
                    log.write(f"PANIC => panicked at {location}:\n{hook_message(payload)}\n")
            parts.append(self.format_block(thread, tid, location, payload))
            if self._first:
                parts.append(BACKTRACE_NOTE + "\n")
                self._first = False
            self._stream.write("".join(parts))
            self._stream.flush()


def current_rust_thread() -> tuple[str, int]:
    """The hook's name and id for the calling thread: `main`, its Rust name, or `<unnamed>`."""
    thread = threading.current_thread()
    if thread is threading.main_thread():
        return "main", threading.get_native_id()
    return getattr(thread, "rust_name", None) or "<unnamed>", threading.get_native_id()


def panic(hook: PanicHook, location: Location, payload: object) -> RustPanic:
    """Run the hook for a panic on the calling thread; return the exception to raise (`raise panic(...)`)."""
    name, tid = current_rust_thread()
    hook.emit(name, tid, location, payload)
    return RustPanic(payload)
