"""The device-probe seam: what the machine has, read for real or described in a file.

A :class:`DeviceProbe` returns an :class:`Inventory`, the serialisable facts the checks work on:
physical GPUs (name, memory, UUID, PCI bus id, compute mode, processes), CPU count, /dev/shm,
the torch.distributed backends that are built in, and the environment overrides a planned job
will run with. :class:`TorchProbe` reads the real machine (torch imported lazily, NVML through
the optional ``pynvml`` module); :class:`SimulatedProbe` serves an inventory loaded from a YAML or
JSON file (``--inventory FILE``) or built in code, so that CUDA checks run on machines without a GPU.

:func:`visible_mapping` applies ``CUDA_VISIBLE_DEVICES`` the way CUDA does: entries are physical
indices or UUID prefixes, the list stops at the first entry that names no GPU, and a repeated
entry hides every device.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
import sys
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from ddpdoctor.errors import InputError

GIB = 1024**3
ENV_INVENTORY = "DDPDOCTOR_INVENTORY"
BUILTIN_PREFIX = "builtin:"
COMPUTE_MODES: tuple[str, ...] = ("default", "exclusive-thread", "prohibited", "exclusive-process")
KNOWN_BACKENDS: tuple[str, ...] = ("nccl", "gloo", "mpi", "ucc", "xccl")

_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgtp]?)(i?)(b?)\s*$", re.IGNORECASE)
_UNIT_POWER = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4, "p": 5}


def parse_size(text: str) -> int:
    """Bytes from `80GiB`, `512MiB`, `10GB` (powers of 1000), `1.5G` (binary) or `123B`; a unit is required."""
    match = _SIZE_RE.match(text)
    if match is None or (not match.group(2) and not match.group(4)):
        raise InputError(
            f"cannot read size {text!r}",
            hint="write a number with a unit, e.g. 10GiB, 512MiB, 80GB or 4096B",
        )
    number, prefix, binary, byte = match.groups()
    power = _UNIT_POWER[prefix.lower()]
    base = 1000 if (byte and not binary and prefix) else 1024
    return int(float(number) * base**power)


def format_size(num_bytes: int | None) -> str:
    """`75.0 GiB`-style text; `unknown` for None."""
    if num_bytes is None:
        return "unknown"
    value = float(num_bytes)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(value) < 1024 or unit == "TiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} TiB"


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
    digits = re.match(r"[+-]?\d+", text)
    return int(digits.group(0)) if digits else -1


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


def _fail(where: str, problem: str, hint: str) -> InputError:
    return InputError(f"inventory {where}: {problem}", hint=hint)


def _size(value: Any, where: str) -> int:
    if isinstance(value, bool):
        raise _fail(where, "must be a size", "write bytes or a size such as 80GiB")
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        try:
            return parse_size(value)
        except InputError:
            pass
    raise _fail(where, f"{value!r} is not a size", "write bytes or a size such as 80GiB")


def _int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _fail(where, f"{value!r} is not a non-negative integer", "write a whole number")
    return value


def _check_keys(data: Mapping[str, Any], allowed: Sequence[str], where: str) -> None:
    for key in data:
        if key not in allowed:
            raise _fail(f"{where}{key}", "unknown key", f"allowed keys: {', '.join(allowed)}")


_GPU_KEYS = (
    "index",
    "name",
    "uuid",
    "pci_bus_id",
    "memory_total",
    "memory_free",
    "compute_mode",
    "processes",
    "count",
)
_INVENTORY_KEYS = (
    "source",
    "gpus",
    "cuda",
    "cuda_available",
    "mps",
    "xpu_count",
    "cpu_count",
    "shm_total",
    "shm_free",
    "backends",
    "platform",
    "process_info",
    "visible",
    "env",
)


def _processes(value: Any, where: str) -> tuple[GpuProcess, ...]:
    if not isinstance(value, list):
        raise _fail(where, "must be a list", "write `processes: [{pid: 1234, name: python}]`")
    out = []
    for i, item in enumerate(value):
        if not isinstance(item, dict) or "pid" not in item:
            raise _fail(f"{where}[{i}]", "needs a pid", "write `{pid: 1234, name: python}`")
        _check_keys(item, ("pid", "name", "used_memory"), f"{where}[{i}].")
        used = item.get("used_memory")
        out.append(
            GpuProcess(
                pid=_int(item["pid"], f"{where}[{i}].pid"),
                name=str(item.get("name", "")),
                used_memory=None if used is None else _size(used, f"{where}[{i}].used_memory"),
            )
        )
    return tuple(out)


def _gpus(value: Any) -> tuple[Gpu, ...]:
    if not isinstance(value, list):
        raise _fail("gpus", "must be a list", "write `gpus: [{name: ..., memory_total: 80GiB}]`")
    out: list[Gpu] = []
    for i, item in enumerate(value):
        where = f"gpus[{i}]"
        if not isinstance(item, dict):
            raise _fail(where, "must be a mapping", "write `{name: ..., memory_total: 80GiB}`")
        _check_keys(item, _GPU_KEYS, f"{where}.")
        if "memory_total" not in item:
            raise _fail(f"{where}.memory_total", "is missing", "add e.g. `memory_total: 80GiB`")
        count = _int(item.get("count", 1), f"{where}.count")
        if count > 1 and any(k in item for k in ("index", "uuid", "pci_bus_id")):
            raise _fail(
                f"{where}.count",
                "cannot be combined with index, uuid or pci_bus_id",
                "list the GPUs one by one",
            )
        total = _size(item["memory_total"], f"{where}.memory_total")
        free_raw = item.get("memory_free", total)
        free = None if free_raw is None else _size(free_raw, f"{where}.memory_free")
        mode = item.get("compute_mode", "default")
        if mode not in COMPUTE_MODES:
            raise _fail(
                f"{where}.compute_mode", f"{mode!r} is not allowed", f"use one of {', '.join(COMPUTE_MODES)}"
            )
        for _ in range(count):
            n = len(out)
            index = _int(item.get("index", n), f"{where}.index")
            out.append(
                Gpu(
                    index=index,
                    name=str(item.get("name", "simulated GPU")),
                    uuid=str(item.get("uuid", f"GPU-{n:08x}-0000-4000-8000-5e1f00000000")),
                    pci_bus_id=str(item.get("pci_bus_id", f"00000000:{n + 1:02X}:00.0")),
                    memory_total=total,
                    memory_free=free,
                    compute_mode=mode,
                    processes=_processes(item.get("processes", []), f"{where}.processes"),
                )
            )
    indices = [g.index for g in out]
    if len(set(indices)) != len(indices):
        raise _fail("gpus", "two GPUs have the same index", "give each GPU its own `index`")
    return tuple(out)


def _visible(value: Any, gpus: Sequence[Gpu]) -> tuple[int, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) and 0 <= v < len(gpus) for v in value
    ):
        raise _fail(
            "visible", "must list positions in `gpus`", "write e.g. `visible: [2, 3]`, or leave it out"
        )
    return tuple(value)


def inventory_from_dict(data: Any, *, source: str = "simulated") -> Inventory:
    """Validate an inventory mapping (the file format, or `ddpdoctor env --format json` output)."""
    if isinstance(data, dict) and isinstance(data.get("inventory"), dict):
        data = data["inventory"]
    if not isinstance(data, dict):
        raise _fail("file", "is not a mapping", "start the file with `gpus:`")
    _check_keys(data, _INVENTORY_KEYS, "")
    gpus = _gpus(data.get("gpus", []))
    backends = data.get("backends", ["nccl", "gloo"] if gpus else ["gloo"])
    if not isinstance(backends, list) or not all(isinstance(b, str) for b in backends):
        raise _fail(
            "backends",
            "must be a list of names",
            f"write e.g. [nccl, gloo]; known: {', '.join(KNOWN_BACKENDS)}",
        )
    env = data.get("env", {})
    if not isinstance(env, dict):
        raise _fail("env", "must map names to values", "write `env: {CUDA_VISIBLE_DEVICES: '0,1'}`")

    def flag(key: str, default: bool) -> bool:
        value = data.get(key, default)
        if not isinstance(value, bool):
            raise _fail(key, f"{value!r} is not true or false", "write true or false")
        return value

    shm_total = data.get("shm_total")
    shm_free = data.get("shm_free", shm_total)
    return Inventory(
        source=str(data.get("source", source)),
        gpus=gpus,
        cuda=flag("cuda", True),
        cuda_available=flag("cuda_available", flag("cuda", True) and bool(gpus)),
        mps=flag("mps", False),
        xpu_count=_int(data.get("xpu_count", 0), "xpu_count"),
        cpu_count=max(1, _int(data.get("cpu_count", _host_cpu_count()), "cpu_count")),
        shm_total=None if shm_total is None else _size(shm_total, "shm_total"),
        shm_free=None if shm_free is None else _size(shm_free, "shm_free"),
        backends=tuple(backends),
        platform=str(data.get("platform", "linux")),
        process_info=flag("process_info", True),
        visible=_visible(data.get("visible"), gpus),
        simulated=True,
        env={str(k): str(v) for k, v in env.items()},
    )


def load_inventory(spec: str) -> Inventory:
    """An inventory from `builtin:NAME` or a YAML/JSON file; InputError naming the problem otherwise."""
    if spec.startswith(BUILTIN_PREFIX):
        name = spec[len(BUILTIN_PREFIX) :]
        try:
            return BUILTIN_INVENTORIES[name]()
        except KeyError:
            raise InputError(
                f"no built-in inventory {name!r}",
                hint=f"use one of: {', '.join(BUILTIN_PREFIX + n for n in BUILTIN_INVENTORIES)}",
            ) from None
    path = Path(spec)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(
            f"cannot read inventory file {spec}: {exc.strerror or exc}",
            hint="pass a YAML or JSON inventory file, or builtin:default",
        ) from None
    import yaml

    try:
        data = yaml.safe_load(text)  # JSON is YAML too
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else "the file"
        raise InputError(
            f"inventory file {spec}: invalid YAML/JSON at {where}", hint="fix the syntax"
        ) from None
    try:
        return inventory_from_dict(data, source=f"file:{spec}")
    except InputError as exc:
        raise InputError(f"{spec}: {exc.message}", hint=exc.hint) from None


@dataclass
class SimulatedProbe:
    """Serves a fixed inventory: tests, and users planning a job for another machine."""

    fixed: Inventory

    def inventory(self, *, cuda_ordinals: Collection[int] | None = None) -> Inventory:
        """The inventory as given."""
        return self.fixed


# --- the real machine -------------------------------------------------------------------------


def _host_cpu_count() -> int:
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
            cpu_count=_host_cpu_count(),
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
        return SimulatedProbe(load_inventory(chosen))
    return TorchProbe()
