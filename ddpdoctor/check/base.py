"""What every check module shares: parsed device specs, the resolved device list, the context."""

from __future__ import annotations

import importlib
import linecache
import os
import re
import sys
import sysconfig
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from ddpdoctor.check import registry
from ddpdoctor.errors import InputError
from ddpdoctor.findings import Evidence, Finding, Severity
from ddpdoctor.hardware.inventory import Gpu, Inventory, VisibleMapping

if TYPE_CHECKING:
    from ddpdoctor.check.loader_probe import LoaderRun
    from ddpdoctor.check.memory import ModelSource

# The variables whose presence means a distributed launch (the `env.*` checks then apply).
LAUNCH_VARS: tuple[str, ...] = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT")
# The largest world size (and so rank) a launch variable may name; larger values are input errors.
MAX_WORLD_SIZE = 2**20
# Device types whose ordinals address the machine's GPU list.
GPU_TYPES: tuple[str, ...] = ("cuda", "rocm", "wgpu", "vulkan", "metal", "webgpu")


@dataclass(frozen=True)
class DeviceSpec:
    """One device as the user wrote it, read into a type and an optional ordinal."""

    token: str
    type: str
    index: int | None = None
    burn: bool = False
    adapter: str | None = None

    @property
    def label(self) -> str:
        """Canonical spelling: `cuda:0`, `cpu`, `wgpu:discrete:1`."""
        parts = [
            self.type,
            *([self.adapter] if self.adapter else []),
            *([str(self.index)] if self.index is not None else []),
        ]
        return ":".join(parts)


@dataclass(frozen=True)
class ResolvedDevice:
    """A device of the list with its position (devices[0] is the main worker) and the GPU behind it."""

    spec: DeviceSpec
    position: int
    ordinal: int | None = None
    gpu: Gpu | None = None

    @property
    def label(self) -> str:
        """`cuda:0` (with the ordinal a bare `cuda` resolves to), or the spec's label."""
        if self.spec.index is None and self.ordinal is not None:
            return f"{self.spec.type}:{self.ordinal}"
        return self.spec.label

    @property
    def family(self) -> str:
        """The device type, with ROCm counted as CUDA (torch addresses both as `cuda`)."""
        return "cuda" if self.spec.type == "rocm" else self.spec.type

    def to_dict(self) -> dict[str, Any]:
        """JSON form: position, how it was written, what it resolved to."""
        gpu = self.gpu
        return {
            "position": self.position,
            "written": self.spec.token,
            "device": self.label,
            "type": self.spec.type,
            "ordinal": self.ordinal,
            "gpu": None
            if gpu is None
            else {
                "index": gpu.index,
                "name": gpu.name,
                "uuid": gpu.uuid,
                "pci_bus_id": gpu.pci_bus_id,
                "memory_total": gpu.memory_total,
                "memory_free": gpu.memory_free,
            },
        }


@dataclass(frozen=True)
class CheckContext:
    """Everything a check reads: the machine, the environment, the visible mapping, the devices, the options.

    `backend` is the `--backend` choice as given (None or `auto`: the devices' native one);
    `min_free`, `model` with `batch_size`, and `loader` (the data loader's probe run) are set
    when the options ask for them, and the checks that need them run only then.
    """

    inventory: Inventory
    environ: Mapping[str, str]
    mapping: VisibleMapping
    devices: tuple[ResolvedDevice, ...]
    backend: str | None = None
    min_free: int | None = None
    model: ModelSource | None = None
    batch_size: int | None = None
    loader: LoaderRun | None = None

    def provides(self, need: registry.Need) -> bool:
        """True when this context has what `need` asks for (launch variables, --min-free, ...)."""
        if need is registry.Need.MIN_FREE:
            return self.min_free is not None
        if need is registry.Need.MODEL:
            return self.model is not None and bool(self.batch_size)
        if need is registry.Need.DATALOADER:
            return self.loader is not None
        if need is registry.Need.LAUNCH:
            return any(name in self.environ for name in LAUNCH_VARS)
        return need is registry.Need.NVML

    @property
    def burn(self) -> bool:
        """True when the list was written in Burn's spelling (links prefer Burn's entries)."""
        return any(d.spec.burn for d in self.devices)

    def gpu_devices(self) -> list[ResolvedDevice]:
        """The devices that resolved to a GPU."""
        return [d for d in self.devices if d.gpu is not None]


def env_number(environ: Mapping[str, str], name: str, maximum: int = MAX_WORLD_SIZE) -> int | str | None:
    """A launch variable as a whole number from 0 to `maximum`; None when unset, the raw text otherwise.

    Only ASCII digits count (`RANK=²` is text, not 2), and the digits are bounded before they are
    converted, so no value can make Python's int conversion fail or a loop run a billion times.
    """
    raw = environ.get(name)
    if raw is None:
        return None
    text = raw.strip()
    if text.isascii() and text.isdigit() and len(text) <= len(str(maximum)) and int(text) <= maximum:
        return int(text)
    return raw


def finding(
    check_id: str,
    severity: Severity,
    title: str,
    message: str = "",
    *,
    device: str | None = None,
    rank: int | None = None,
    solutions: Sequence[str] = (),
    evidence: Sequence[Evidence] = (),
    entry: str | None = None,
    category: str | None = None,
    data: Mapping[str, Any] | None = None,
) -> Finding:
    """A Finding for a registered check (its category comes from the registry).

    `entry` names the knowledge-base entry that explains this very case; the runner keeps it
    only if the knowledge base has it, and otherwise links the check's usual entry. `category`
    overrides the registry's for a finding that is not the check's usual kind (such a finding is
    only linked to its own `entry`).
    """
    return Finding(
        id=check_id,
        severity=severity,
        category=category or registry.get(check_id).category,
        title=title,
        message=message or title,
        rank=rank,
        device=device,
        evidence=tuple(evidence),
        entry=entry,
        solutions=tuple(solutions),
        data=dict(data or {}),
    )


def passed(check_id: str, title: str, message: str = "", **data: Any) -> Finding:
    """An `ok` finding: the check ran and found nothing wrong."""
    return finding(check_id, Severity.OK, title, message, data=data)


def load_factory(spec: str, what: str) -> Callable[[], Any]:
    """Import `module:attribute` (the current directory is importable, as with `python -m`).

    InputError when the spec is malformed, the module itself is missing or has no such attribute;
    an exception raised while the module runs its own imports propagates unchanged.
    """
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise InputError(
            f"cannot read {what} {spec!r}", hint="write module:factory, e.g. mypkg.data:make_loader"
        )
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (module_name + ".").startswith(exc.name + "."):
            raise InputError(
                f"cannot import {what} module {module_name!r}: {exc}",
                hint="run from the folder that holds it, or add its folder to PYTHONPATH",
            ) from None
        raise
    target: Any = module
    for part in attr.split("."):
        if not hasattr(target, part):
            raise InputError(
                f"{module_name} has no attribute {attr!r}", hint=f"name a callable in {module_name}"
            )
        target = getattr(target, part)
    if not callable(target):
        raise InputError(f"{spec} is not callable", hint="name a function that builds the object")
    return cast(Callable[[], Any], target)


_FRAME_RE = re.compile(
    r'File "(?P<file>[^"]+)", line (?P<line>\d+),? in (?P<func>[^\n]+)(?:\n {4}(?P<code>\S[^\n]*))?'
)


def frames_of(text: str) -> list[Evidence]:
    """Frames of a Python traceback or faulthandler dump, in the order they appear."""
    out = []
    for m in _FRAME_RE.finditer(text):
        source = linecache.getline(m.group("file"), int(m.group("line"))).strip()
        code = (m.group("code") or source or m.group("func")).strip()
        out.append(Evidence(code, m.group("file"), int(m.group("line"))))
    return out


_STDLIB = sysconfig.get_paths()["stdlib"].replace("\\", "/")


def is_internal(e: Evidence) -> bool:
    """True for frames in torch, ddpdoctor, the standard library or installed packages."""
    name = (e.file or "").replace("\\", "/")
    return (
        "/torch/" in name
        or "/ddpdoctor/" in name
        or name.startswith(("<frozen", _STDLIB))
        or "/site-packages/" in name
    )


def user_frames(frames: list[Evidence], limit: int = 2) -> list[Evidence]:
    """The innermost `limit` frames of the user's own code (all frames when there are none)."""
    mine = [f for f in frames if not is_internal(f)]
    return (mine or frames)[-limit:]
