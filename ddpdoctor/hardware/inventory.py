"""The machine's facts as the checks see them: GPUs, CPUs, /dev/shm, backends, CUDA_VISIBLE_DEVICES.

An :class:`Inventory` is the serialisable description of one machine; a :class:`DeviceProbe`
returns one, read for real (:mod:`ddpdoctor.hardware.probes`) or from a file
(:mod:`ddpdoctor.hardware.inventory_file`). :func:`visible_mapping` applies
``CUDA_VISIBLE_DEVICES`` the way CUDA does: entries are physical indices or UUID prefixes, the
list stops at the first entry that names no GPU, and a repeated entry hides every device.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from ddpdoctor.units import GIB

COMPUTE_MODES: tuple[str, ...] = ("default", "exclusive-thread", "prohibited", "exclusive-process")
KNOWN_BACKENDS: tuple[str, ...] = ("nccl", "gloo", "mpi", "ucc", "xccl")


@dataclass(frozen=True)
class GpuProcess:
    """A process holding a context on a GPU (from NVML)."""

    pid: int
    name: str = ""
    used_memory: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON/YAML form, as an inventory file writes it."""
        return {"pid": self.pid, "name": self.name, "used_memory": self.used_memory}


@dataclass(frozen=True)
class Gpu:
    """One GPU: `index` is the driver's (physical) numbering, or the visible ordinal when unknown."""

    index: int
    name: str
    uuid: str
    pci_bus_id: str
    memory_total: int
    memory_free: int | None
    compute_mode: str = "default"
    processes: tuple[GpuProcess, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON/YAML form, as an inventory file writes it."""
        return {
            "index": self.index,
            "name": self.name,
            "uuid": self.uuid,
            "pci_bus_id": self.pci_bus_id,
            "memory_total": self.memory_total,
            "memory_free": self.memory_free,
            "compute_mode": self.compute_mode,
            "processes": [p.to_dict() for p in self.processes],
        }


@dataclass(frozen=True)
class Inventory:
    """Facts about one machine that the checks rely on; `to_dict` is the inventory-file format.

    `cuda` says torch was built with CUDA (or ROCm), `cuda_available` that it can use a GPU.
    `visible`, when set, is the measured index into `gpus` of each visible CUDA ordinal (the real
    probe matches torch's device UUIDs to NVML's); otherwise CUDA_VISIBLE_DEVICES is applied.
    """

    source: str
    gpus: tuple[Gpu, ...] = ()
    cuda: bool = True
    cuda_available: bool = True
    mps: bool = False
    xpu_count: int = 0
    cpu_count: int = 1
    shm_total: int | None = None
    shm_free: int | None = None
    backends: tuple[str, ...] = ("gloo",)
    platform: str = "linux"
    process_info: bool = False
    visible: tuple[int, ...] | None = None
    simulated: bool = False
    env: Mapping[str, str] = field(default_factory=dict)

    def environ(self, base: Mapping[str, str]) -> dict[str, str]:
        """The environment a job sees on this machine: `base` plus the inventory's own `env`."""
        return {**base, **self.env}

    def to_dict(self) -> dict[str, Any]:
        """Serialisable facts; :func:`inventory_from_dict` reads them back."""
        return {
            "source": self.source,
            "gpus": [g.to_dict() for g in self.gpus],
            "cuda": self.cuda,
            "cuda_available": self.cuda_available,
            "mps": self.mps,
            "xpu_count": self.xpu_count,
            "cpu_count": self.cpu_count,
            "shm_total": self.shm_total,
            "shm_free": self.shm_free,
            "backends": list(self.backends),
            "platform": self.platform,
            "process_info": self.process_info,
            "visible": None if self.visible is None else list(self.visible),
            "env": dict(self.env),
        }


class DeviceProbe(Protocol):
    """Anything that can describe the machine: the real probe or a simulated inventory."""

    def inventory(self, *, cuda_ordinals: Collection[int] | None = None) -> Inventory:
        """The machine's facts; `cuda_ordinals` limits which visible GPUs a real probe may touch."""
        ...


# --- CUDA_VISIBLE_DEVICES ---------------------------------------------------------------------


@dataclass(frozen=True)
class VisibleMapping:
    """For each visible CUDA ordinal, the index into `Inventory.gpus`; plus what went wrong reading it."""

    value: str | None
    ordinals: tuple[int, ...]
    problems: tuple[str, ...] = ()
    repeated: str | None = None

    def gpu(self, inventory: Inventory, ordinal: int) -> Gpu | None:
        """The GPU behind visible ordinal `ordinal`, or None when out of range."""
        if 0 <= ordinal < len(self.ordinals):
            return inventory.gpus[self.ordinals[ordinal]]
        return None


def _leading_int(text: str) -> int:
    """The number an entry starts with, as CUDA reads it; -1 for none, 10**9 for one too long to be an index."""
    digits = re.match(r"[+-]?\d+", text)
    if digits is None:
        return -1
    return int(digits.group(0)) if len(digits.group(0)) <= 9 else 10**9


def visible_mapping(inventory: Inventory, environ: Mapping[str, str]) -> VisibleMapping:
    """Apply CUDA_VISIBLE_DEVICES from `environ` to the inventory's GPUs, with CUDA's rules."""
    value = environ.get("CUDA_VISIBLE_DEVICES")
    parsed = _parse_visible(inventory, value)
    if not inventory.cuda_available:
        return replace(parsed, ordinals=())
    if inventory.visible is not None:
        return VisibleMapping(value, inventory.visible)
    return parsed


def _parse_visible(inventory: Inventory, value: str | None) -> VisibleMapping:
    if value is None:
        return VisibleMapping(value, tuple(range(len(inventory.gpus))))
    entries = [e.strip() for e in value.split(",")]
    uuid_mode = bool(entries) and entries[0].upper().startswith(("GPU-", "MIG-"))
    ordinals: list[int] = []
    seen: list[str] = []
    problems: list[str] = []
    for entry in entries:
        if entry in seen:
            return VisibleMapping(
                value,
                (),
                (f"{entry!r} is listed twice, and CUDA then hides every device",),
                repeated=entry,
            )
        seen.append(entry)
        if uuid_mode:
            hits = [i for i, g in enumerate(inventory.gpus) if g.uuid.upper().startswith(entry.upper())]
            if len(hits) != 1:
                why = "matches no GPU UUID" if not hits else "matches several GPU UUIDs"
                problems.append(f"{entry!r} {why}; CUDA ignores it and every entry after it")
                break
            ordinals.append(hits[0])
        else:
            number = _leading_int(entry)
            if number < 0:
                problems.append(f"{entry!r} is not a GPU index; CUDA ignores it and every entry after it")
                break
            hits = [i for i, g in enumerate(inventory.gpus) if g.index == number]
            if not hits:
                problems.append(
                    f"GPU {number} does not exist ({len(inventory.gpus)} GPU(s)); "
                    "CUDA ignores it and every entry after it"
                )
                break
            ordinals.append(hits[0])
    return VisibleMapping(value, tuple(ordinals), tuple(problems))


# --- simulated inventories --------------------------------------------------------------------


def default_simulated_inventory() -> Inventory:
    """The reference machine KB example fixes are checked on: 4 x 80 GiB GPUs, ~75 GiB free, idle."""
    gpus = tuple(
        Gpu(
            index=i,
            name="NVIDIA A100-SXM4-80GB",
            uuid=f"GPU-{i + 1}{i + 1}5e1f00-0000-4000-8000-0000000000{i:02d}",
            pci_bus_id=f"00000000:{0x07 + 4 * i:02X}:00.0",
            memory_total=80 * GIB,
            memory_free=75 * GIB,
        )
        for i in range(4)
    )
    return Inventory(
        source="builtin:default",
        gpus=gpus,
        cuda=True,
        cpu_count=32,
        shm_total=64 * GIB,
        shm_free=64 * GIB,
        backends=("nccl", "gloo"),
        platform="linux",
        process_info=True,
        simulated=True,
    )


BUILTIN_INVENTORIES = {"default": default_simulated_inventory}


@dataclass
class SimulatedProbe:
    """Serves a fixed inventory: tests, and users planning a job for another machine."""

    fixed: Inventory

    def inventory(self, *, cuda_ordinals: Collection[int] | None = None) -> Inventory:
        """The inventory as given."""
        return self.fixed
