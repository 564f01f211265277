"""Optional dependencies: PyTorch is needed only where devices are touched.

Reading logs (`explain`, `kb`) needs typer, rich and pyyaml only. `check`, `reproduce`, the
reference runtime and the pre-flight hooks need torch; they call :func:`require_torch`, which
says in one line how to install it.
"""

from __future__ import annotations

import importlib.util

from ddpdoctor.errors import DdpDoctorError

TORCH_INSTALL_HINT = (
    "pip install 'ddpdoctor[torch]'; for a CPU-only torch: "
    "pip install torch --index-url https://download.pytorch.org/whl/cpu"
)


def torch_installed() -> bool:
    """Whether torch can be imported (checked without importing it)."""
    try:
        return importlib.util.find_spec("torch") is not None
    except (ImportError, ValueError):
        return False


def require_torch(what: str) -> None:
    """Raise a one-line error naming `what` when torch is not installed."""
    if not torch_installed():
        raise DdpDoctorError(f"{what} needs PyTorch, which is not installed", hint=TORCH_INSTALL_HINT)
