"""ddpdoctor: diagnose multi-device (data-parallel) training failures.

Everything here is imported lazily so that `import ddpdoctor` stays cheap.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's constant, without importing typing (explain's cold start)
if TYPE_CHECKING:
    from typing import Any


__version__ = "0.1.0"

__all__ = ["PreflightError", "__version__", "guard", "heartbeat", "preflight"]

# name -> module that defines it; loaded on first attribute access. (The hooks live in
# ddpdoctor.hooks: a submodule named `preflight` would shadow the function of that name.)
_LAZY = {
    "preflight": "ddpdoctor.hooks",
    "guard": "ddpdoctor.hooks",
    "PreflightError": "ddpdoctor.hooks",
    "heartbeat": "ddpdoctor._heartbeat",
}


def __getattr__(name: str) -> Any:
    """Import the training-script hooks on first use."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'ddpdoctor' has no attribute {name!r}")
