"""What a bug report needs to know about this machine: `ddpdoctor env`, and the versions every rank compares.

:func:`collect_versions` is the one place versions are gathered (`env`, `check --distributed`);
:func:`collect_environment` adds the system, the devices, the GPU topology and the launch-related
environment variables. Everything read from the machine goes through the probe seam in
:mod:`ddpdoctor.hardware.probes`, so tests replace it.
"""

from __future__ import annotations

import platform
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

from ddpdoctor import __version__
from ddpdoctor.check.base import LAUNCH_VARS
from ddpdoctor.hardware.inventory import DeviceProbe, Inventory
from ddpdoctor.hardware.probes import (
    SystemFacts,
    Topology,
    TorchProbe,
    nvml_driver_version,
    read_system,
    read_topology,
    torch_nccl_version,
)
from ddpdoctor.optional import TORCH_INSTALL_HINT

ENV_SCHEMA = "ddpdoctor.env/2"
# Libraries whose versions matter to a data-parallel bug report, when installed (distribution names).
REPORTED_PACKAGES: dict[str, tuple[str, ...]] = {
    "numpy": ("numpy",),
    "accelerate": ("accelerate",),
    "lightning": ("lightning", "pytorch-lightning"),
    "deepspeed": ("deepspeed",),
    "transformers": ("transformers",),
    "pynvml": ("nvidia-ml-py", "pynvml"),
}
# Variables worth showing in a bug report; values of other variables are never printed.
REPORTED_PREFIXES: tuple[str, ...] = (
    "CUDA_",
    "NCCL_",
    "TORCH_",
    "TORCHELASTIC_",
    "GLOO_",
    "OMP_",
    "PYTORCH_",
    "BURN_",
)
REPORTED_NAMES: tuple[str, ...] = (
    *LAUNCH_VARS,
    "LOCAL_WORLD_SIZE",
    "GROUP_RANK",
    "NODE_RANK",
    "SLURM_PROCID",
    "SLURM_NTASKS",
    "SLURM_LOCALID",
    "RUST_BACKTRACE",
)


def _package(*names: str) -> str | None:
    """The installed version of the first of `names` (distribution names) that is installed."""
    for name in names:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return None


def _torch_versions(torch: Any) -> dict[str, str | None]:
    cudnn = getattr(torch.backends, "cudnn", None)
    try:
        cudnn_version = str(cudnn.version()) if cudnn is not None and cudnn.is_available() else None
    except Exception:
        cudnn_version = None
    dist = getattr(torch, "distributed", None)
    nccl_built = dist is not None and dist.is_available() and dist.is_nccl_available()
    return {
        "torch": str(torch.__version__),
        "cuda": torch.version.cuda,
        "hip": getattr(torch.version, "hip", None),
        "cudnn": cudnn_version,
        "nccl": torch_nccl_version(torch) if nccl_built else None,
    }


def collect_versions(
    *, torch: Any = None, driver: bool = True, packages: bool = True
) -> dict[str, str | None]:
    """ddpdoctor, Python, torch (CUDA, HIP, cuDNN, NCCL of its build), the NVIDIA driver and libraries.

    Keys never contain spaces. `torch` is the imported module (None: torch fields are None);
    `driver` asks NVML for the driver version; `packages` adds the Python executable and numpy,
    accelerate, lightning, deepspeed, transformers and pynvml when installed.
    """
    versions: dict[str, str | None] = {
        "ddpdoctor": __version__,
        "python": platform.python_version(),
        "torch": None,
        "cuda": None,
        "hip": None,
        "cudnn": None,
        "nccl": None,
    }
    if torch is not None:
        versions.update(_torch_versions(torch))
    versions["driver"] = nvml_driver_version() if driver else None
    if packages:
        versions["python_executable"] = sys.executable
        versions.update({key: _package(*names) for key, names in REPORTED_PACKAGES.items()})
    return versions


def filing_facts(system: Callable[[], SystemFacts] = read_system) -> tuple[tuple[str, str], ...]:
    """The `ddpdoctor env` facts an issue needs, read without importing torch: versions, then the system.

    torch's version comes from its installed metadata (its CUDA and NCCL only when it is already
    imported); versions of what is not installed are left out, and so is the Python executable's
    path, which would show a home folder that `--redact` cannot see.
    """
    versions = collect_versions(torch=sys.modules.get("torch"), driver=False)
    versions["torch"] = versions["torch"] or _package("torch")
    versions.pop("python_executable", None)
    facts = {**versions, **system().to_dict()}
    return tuple((key, str(value)) for key, value in facts.items() if value is not None)


@dataclass
class EnvReport:
    """Versions, the system, the machine's inventory and topology, and the relevant environment variables."""

    versions: dict[str, str | None]
    system: SystemFacts
    inventory: Inventory | None
    topology: Topology
    variables: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """`ddpdoctor.env/2`; `inventory` can be passed back to `check --inventory`."""
        return {
            "schema": ENV_SCHEMA,
            "versions": self.versions,
            "system": self.system.to_dict(),
            "inventory": None if self.inventory is None else self.inventory.to_dict(),
            "topology": self.topology.to_dict(),
            "variables": self.variables,
            "problems": self.problems,
        }


def _import_torch() -> Any:
    import torch

    return torch


def collect_environment(
    environ: Mapping[str, str],
    *,
    probe: DeviceProbe | None = None,
    topology: Callable[[], Topology] = read_topology,
    system: Callable[[], SystemFacts] = read_system,
) -> EnvReport:
    """Everything a bug report needs; `probe`, `topology` and `system` replace the real machine's readers."""
    problems: list[str] = []
    inventory: Inventory | None = None
    try:
        torch = _import_torch()
    except ImportError:
        torch = None
        problems.append(
            f"torch is not installed, so CUDA, NCCL and the devices are not shown: {TORCH_INSTALL_HINT}"
        )
    versions = collect_versions(torch=torch)
    if torch is not None or probe is not None:
        try:
            inventory = (probe or TorchProbe()).inventory()
        except Exception as exc:  # a broken driver or CUDA set-up is exactly what `env` is run to show
            problems.append(f"reading the devices failed: {type(exc).__name__}: {exc}")
    variables = {
        k: v for k, v in sorted(environ.items()) if k in REPORTED_NAMES or k.startswith(REPORTED_PREFIXES)
    }
    return EnvReport(versions, system(), inventory, topology(), variables, problems)
