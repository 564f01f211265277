"""ddpdoctor: diagnose multi-device (data-parallel) training failures.

Everything here is imported lazily so that `import ddpdoctor` stays cheap.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
