"""Reading the real machine: torch for what this process can use, NVML (optional) for the rest.

:class:`TorchProbe` imports torch only when asked for an inventory; NVML comes through the
optional ``pynvml`` module (package ``nvidia-ml-py``) and is skipped when either it or the driver
is missing. :func:`probe_from_spec` picks the real probe or a simulated inventory.
"""

from __future__ import annotations

import contextlib
import importlib
import itertools
import os
import platform
import re
import subprocess
import sys
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ddpdoctor.hardware.inventory import (
    KNOWN_BACKENDS,
    DeviceProbe,
    Gpu,
    GpuProcess,
    Inventory,
    SimulatedProbe,
)

ENV_INVENTORY = "DDPDOCTOR_INVENTORY"


def host_cpu_count() -> int:
    """CPUs this process may run on (its affinity mask), else the machine's count."""
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        try:
            return len(affinity(0))
        except OSError:
            pass
    return os.cpu_count() or 1


def _shm() -> tuple[int | None, int | None]:
    try:
        st = os.statvfs("/dev/shm")
    except (OSError, AttributeError):
        return None, None
    return st.f_blocks * st.f_frsize, st.f_bavail * st.f_frsize


_NVML_MODES = {0: "default", 1: "exclusive-thread", 2: "prohibited", 3: "exclusive-process"}


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


@contextlib.contextmanager
def _nvml() -> Iterator[Any]:
    """The initialised pynvml module, or None when the package or the driver library is missing."""
    try:
        pynvml = importlib.import_module("pynvml")
        pynvml.nvmlInit()
    except Exception:
        yield None
        return
    try:
        yield pynvml
    finally:
        with contextlib.suppress(Exception):
            pynvml.nvmlShutdown()


def _nvml_processes(pynvml: Any, handle: Any) -> tuple[GpuProcess, ...]:
    out = []
    for proc in pynvml.nvmlDeviceGetComputeRunningProcesses(handle):
        try:
            name = _text(pynvml.nvmlSystemGetProcessName(proc.pid))
        except Exception:
            name = ""
        used = getattr(proc, "usedGpuMemory", None)
        out.append(GpuProcess(int(proc.pid), name, int(used) if isinstance(used, int) else None))
    return tuple(out)


def _nvml_gpu(pynvml: Any, index: int) -> Gpu:
    handle = pynvml.nvmlDeviceGetHandleByIndex(index)
    memory = pynvml.nvmlDeviceGetMemoryInfo(handle)
    try:
        mode = _NVML_MODES.get(int(pynvml.nvmlDeviceGetComputeMode(handle)), "default")
    except Exception:
        mode = "default"
    try:
        processes = _nvml_processes(pynvml, handle)
    except Exception:
        processes = ()
    return Gpu(
        index=index,
        name=_text(pynvml.nvmlDeviceGetName(handle)),
        uuid=_text(pynvml.nvmlDeviceGetUUID(handle)),
        pci_bus_id=_text(pynvml.nvmlDeviceGetPciInfo(handle).busId),
        memory_total=int(memory.total),
        memory_free=int(memory.free),
        compute_mode=mode,
        processes=processes,
    )


def nvml_gpus() -> tuple[Gpu, ...] | None:
    """Every physical GPU through NVML, or None when pynvml or the driver is missing."""
    with _nvml() as pynvml:
        if pynvml is None:
            return None
        try:
            return tuple(_nvml_gpu(pynvml, i) for i in range(pynvml.nvmlDeviceGetCount()))
        except Exception:
            return None


def nvml_driver_version() -> str | None:
    """The NVIDIA driver version through NVML, or None."""
    with _nvml() as pynvml:
        if pynvml is None:
            return None
        try:
            return _text(pynvml.nvmlSystemGetDriverVersion())
        except Exception:
            return None


def torch_nccl_version(torch: Any) -> str | None:
    """The NCCL version this torch build carries (`2.21.5`), or None without CUDA or NCCL."""
    if torch.version.cuda is None:
        return None
    try:
        nccl: Any = torch.cuda.nccl
        raw = nccl.version()
    except Exception:
        return None
    if isinstance(raw, tuple):
        return ".".join(map(str, raw))
    return str(raw) if raw else None


def _torch_uuid(props: Any) -> str | None:
    uuid = getattr(props, "uuid", None)
    if uuid is None:
        return None
    text = str(uuid)
    return text if text.upper().startswith(("GPU-", "MIG-")) else f"GPU-{text}"


def _torch_pci(props: Any) -> str:
    bus = getattr(props, "pci_bus_id", None)
    if bus is None:
        return ""
    domain = getattr(props, "pci_domain_id", 0) or 0
    device = getattr(props, "pci_device_id", 0) or 0
    return f"{domain:08X}:{bus:02X}:{device:02X}.0"


def _torch_visible_gpus(torch: Any, count: int, measure: Collection[int] | None) -> tuple[Gpu, ...]:
    gpus = []
    for ordinal in range(count):
        props = torch.cuda.get_device_properties(ordinal)
        free: int | None = None
        if measure is None or ordinal in measure:
            try:
                free = int(torch.cuda.mem_get_info(ordinal)[0])
            except Exception:
                free = None
        gpus.append(
            Gpu(
                index=ordinal,
                name=str(props.name),
                uuid=_torch_uuid(props) or f"cuda:{ordinal}",
                pci_bus_id=_torch_pci(props),
                memory_total=int(props.total_memory),
                memory_free=free,
            )
        )
    return tuple(gpus)


@dataclass
class TorchProbe:
    """The real machine: torch for what the process can use, NVML (when present) for the rest."""

    def inventory(self, *, cuda_ordinals: Collection[int] | None = None) -> Inventory:
        """Read the machine; GPU free memory comes from NVML, or from torch for `cuda_ordinals` only."""
        import torch

        cuda_built = torch.version.cuda is not None or getattr(torch.version, "hip", None) is not None
        available = bool(cuda_built and torch.cuda.is_available())
        count = torch.cuda.device_count() if available else 0
        shm_total, shm_free = _shm()
        mps = getattr(torch.backends, "mps", None)
        base = Inventory(
            source="torch",
            cuda=cuda_built,
            cuda_available=available,
            mps=bool(mps is not None and mps.is_available()),
            xpu_count=_xpu_count(torch),
            cpu_count=host_cpu_count(),
            shm_total=shm_total,
            shm_free=shm_free,
            backends=_torch_backends(torch),
            platform=sys.platform,
        )
        physical = nvml_gpus() if cuda_built else None
        if physical is None:
            gpus = _torch_visible_gpus(torch, count, cuda_ordinals)
            return replace(base, gpus=gpus, visible=tuple(range(len(gpus))))
        by_uuid = {g.uuid.upper(): i for i, g in enumerate(physical)}
        uuids = [_torch_uuid(torch.cuda.get_device_properties(i)) for i in range(count)]
        measured = [by_uuid.get((u or "").upper()) for u in uuids]
        visible = tuple(i for i in measured if i is not None) if None not in measured else None
        return replace(base, source="torch+nvml", gpus=physical, process_info=True, visible=visible)


def _xpu_count(torch: Any) -> int:
    xpu = getattr(torch, "xpu", None)
    try:
        return int(xpu.device_count()) if xpu is not None and xpu.is_available() else 0
    except Exception:
        return 0


def _torch_backends(torch: Any) -> tuple[str, ...]:
    dist = getattr(torch, "distributed", None)
    if dist is None or not dist.is_available():
        return ()
    found = []
    for name in KNOWN_BACKENDS:
        probe = getattr(dist, f"is_{name}_available", None)
        try:
            if probe is not None and probe():
                found.append(name)
        except Exception:
            continue
    return tuple(found)


def probe_from_spec(spec: str | Inventory | None, environ: Mapping[str, str] | None = None) -> DeviceProbe:
    """`--inventory` / DDPDOCTOR_INVENTORY: a simulated probe for an Inventory, `builtin:NAME` or a file.

    The real probe when neither `spec` nor DDPDOCTOR_INVENTORY (in `environ`, else os.environ) names one.
    """
    if isinstance(spec, Inventory):
        return SimulatedProbe(spec)
    env = os.environ if environ is None else environ
    chosen = spec or env.get(ENV_INVENTORY) or None
    if chosen:
        from ddpdoctor.hardware.inventory_file import load_inventory

        return SimulatedProbe(load_inventory(chosen))
    return TorchProbe()


# --- the system and the GPU topology (`ddpdoctor env`) ------------------------------------------

TOPOLOGY_TIMEOUT_S = 10.0
MAX_TOPOLOGY_CHARS = 16_000
_NVLINK_RE = re.compile(r"\bNV\d+\b")


@dataclass(frozen=True)
class SystemFacts:
    """The operating system, its distribution, glibc and the CPUs."""

    os: str
    distribution: str | None
    kernel: str
    glibc: str | None
    cpu_model: str | None
    cpu_count: int
    cpu_usable: int

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "os": self.os,
            "distribution": self.distribution,
            "kernel": self.kernel,
            "glibc": self.glibc,
            "cpu_model": self.cpu_model,
            "cpu_count": self.cpu_count,
            "cpu_usable": self.cpu_usable,
        }


@dataclass(frozen=True)
class Topology:
    """How the GPUs connect: `nvidia-smi topo -m`'s matrix, NVLink and InfiniBand presence (None: unknown)."""

    gpu_matrix: str | None = None
    nvlink: bool | None = None
    infiniband: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"gpu_matrix": self.gpu_matrix, "nvlink": self.nvlink, "infiniband": list(self.infiniband)}


def _cpu_model(cpuinfo: Path) -> str | None:
    try:
        with cpuinfo.open(encoding="utf-8", errors="replace") as handle:
            for line in itertools.islice(handle, 200):
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Hardware", "Processor") and value.strip():
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or None


def _distribution() -> str | None:
    try:
        release = platform.freedesktop_os_release()
    except (OSError, AttributeError):
        return None
    return release.get("PRETTY_NAME") or release.get("NAME")


def read_system(cpuinfo: Path = Path("/proc/cpuinfo")) -> SystemFacts:
    """This machine's OS, distribution, kernel, glibc, CPU model and CPU counts."""
    libc, libc_version = platform.libc_ver()
    return SystemFacts(
        os=platform.system(),
        distribution=_distribution(),
        kernel=platform.release(),
        glibc=libc_version if libc == "glibc" and libc_version else None,
        cpu_model=_cpu_model(cpuinfo),
        cpu_count=os.cpu_count() or 1,
        cpu_usable=host_cpu_count(),
    )


def run_tool(command: Sequence[str], timeout: float = TOPOLOGY_TIMEOUT_S) -> str | None:
    """The standard output of a diagnostic tool (cut to MAX_TOPOLOGY_CHARS), or None when it is missing or fails."""
    try:
        done = subprocess.run(
            list(command), capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return done.stdout[:MAX_TOPOLOGY_CHARS].decode("utf-8", "replace")


def read_topology(
    run: Callable[[Sequence[str]], str | None] = run_tool, sys_root: Path = Path("/sys")
) -> Topology:
    """`nvidia-smi topo -m`, NVLink links in it, and the InfiniBand devices under /sys/class/infiniband."""
    matrix = run(["nvidia-smi", "topo", "-m"])
    try:
        adapters = tuple(sorted(p.name for p in (sys_root / "class" / "infiniband").iterdir()))
    except OSError:
        adapters = ()
    return Topology(
        gpu_matrix=matrix.strip() if matrix else None,
        nvlink=None if not matrix else bool(_NVLINK_RE.search(matrix)),
        infiniband=adapters[:64],
    )
