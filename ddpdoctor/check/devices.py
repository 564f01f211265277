"""Device lists: reading every spelling, resolving it on an inventory, and the `device.*` checks.

Accepted forms: torch spellings (`cuda`, `cuda:1`, `cpu`, `mps`, `xpu:0`, `gpu:1`, a
`device(type='cuda', index=0)` repr), bare ordinals (`0,1`), ranges (`0-3`, `cuda:0-3`), `all`, and
Burn's Debug spellings as they appear in logs (`Cuda(0)`, `Cuda(CudaDevice { index: 0 })`,
`LibTorch(Cuda(0))`, `Cpu`, `NdArray(Cpu)`, `Wgpu(DiscreteGpu(0))`, `Device<...>`, `Autodiff { device: ... }`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

from ddpdoctor.check.base import GPU_TYPES, CheckContext, DeviceSpec, ResolvedDevice, finding, passed
from ddpdoctor.check.registry import Need, check
from ddpdoctor.errors import DeviceError
from ddpdoctor.findings import Finding, Severity
from ddpdoctor.hardware.inventory import Gpu, Inventory, VisibleMapping
from ddpdoctor.units import format_size

ACCEPTED_FORMS = (
    "cuda, cuda:0, cuda:0-3, cpu, mps, xpu:0, 0, 0-3, all, "
    "or Burn's Cuda(0), Cpu, LibTorch(Cuda(0)), Wgpu(DiscreteGpu(0))"
)
MAX_RANGE = 4096
# The largest ordinal a device list may name; longer numbers are refused before they are converted.
MAX_ORDINAL = 999_999
# Burn's spellings nest a few wrappers deep (Autodiff { device: Fusion(LibTorch(Cuda(0))) }).
MAX_NESTING = 16

_TORCH_RE = re.compile(r"^(cuda|gpu|cpu|mps|xpu)(?::([0-9]+)(?:\s*-\s*([0-9]+))?)?$", re.IGNORECASE)
_ORDINAL_RE = re.compile(r"^([0-9]+)(?:\s*-\s*([0-9]+))?$")
_REPR_RE = re.compile(r"^device\(\s*type\s*=\s*['\"](\w+)['\"]\s*(?:,\s*index\s*=\s*([0-9]+)\s*)?\)$")
_CALL_RE = re.compile(r"^([A-Za-z]\w*)\s*\((.*)\)$", re.DOTALL)
_STRUCT_RE = re.compile(r"^([A-Za-z]\w*)\s*\{(.*)\}$", re.DOTALL)
_NAME_RE = re.compile(r"^[A-Za-z]\w*$")
_DIGITS_RE = re.compile(r"^[0-9]+$")
_INDEX_FIELD_RE = re.compile(r"\bindex\s*:\s*([0-9]+)")
_AUTODIFF_RE = re.compile(r"^Autodiff\s*\{\s*device\s*:\s*(.*?)\s*(?:,\s*checkpointing\s*:.*)?\}$", re.DOTALL)
_WGPU_FAMILY = {"Wgpu": "wgpu", "Vulkan": "vulkan", "Metal": "metal", "WebGpu": "webgpu"}
_ADAPTERS = {"DiscreteGpu": "discrete", "IntegratedGpu": "integrated", "VirtualGpu": "virtual"}
_TRANSPARENT = ("LibTorch", "NdArray", "Flex", "Candle", "Autodiff", "Fusion", "Router")
_GPU_STRUCTS = {"CudaDevice": "cuda", "RocmDevice": "rocm", "HipDevice": "rocm"}


def split_top_level(text: str) -> list[str]:
    """Split on commas that are not inside (), [], {} or <>."""
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for ch in text:
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth = max(0, depth - 1)
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return [p.strip() for p in parts]


def _unquote(token: str) -> str:
    token = token.strip()
    if len(token) >= 2 and token[0] == token[-1] and token[0] in "'\"":
        return token[1:-1].strip()
    return token


def _ordinal(token: str, digits: str) -> int:
    """An ordinal written in `token`; DeviceError when it has more digits than any device count."""
    if len(digits) > len(str(MAX_ORDINAL)):
        raise DeviceError(
            f"cannot read device {token[:40]!r}: the ordinal is larger than {MAX_ORDINAL}",
            hint="ordinals count devices from 0",
        )
    return int(digits)


def _range(token: str, device_type: str, first: str, last: str | None) -> list[DeviceSpec]:
    start = _ordinal(token, first)
    stop = _ordinal(token, last) if last is not None else start
    if stop < start or stop - start >= MAX_RANGE:
        fix = (
            "write the lower bound first, e.g. 0-3"
            if stop < start
            else f"it names more than {MAX_RANGE} devices"
        )
        raise DeviceError(
            f"cannot read device range {token!r}: {fix}", hint=f"accepted forms: {ACCEPTED_FORMS}"
        )
    return [DeviceSpec(token, device_type, i) for i in range(start, stop + 1)]


def _burn(token: str, text: str, depth: int = 0) -> DeviceSpec | None:
    """Read one of Burn's Debug spellings; None when it is not one (or nests deeper than Burn's do)."""
    text = text.strip()
    if depth > MAX_NESTING:
        return None
    if text.startswith("Device<") and text.endswith(">"):
        return _burn(token, text[len("Device<") : -1], depth + 1)
    autodiff = _AUTODIFF_RE.match(text)
    if autodiff:
        return _burn(token, autodiff.group(1), depth + 1)
    struct = _STRUCT_RE.match(text)
    if struct and struct.group(1) in _GPU_STRUCTS:
        index = _INDEX_FIELD_RE.search(struct.group(2))
        return DeviceSpec(
            token,
            _GPU_STRUCTS[struct.group(1)],
            _ordinal(token, index.group(1)) if index else None,
            burn=True,
        )
    call = _CALL_RE.match(text)
    name, inner = (call.group(1), call.group(2).strip()) if call else (text, None)
    if call is None and not _NAME_RE.match(text):
        return None
    if name in _TRANSPARENT and inner:
        return _burn(token, inner, depth + 1)
    if name in ("Cuda", "Rocm", "Hip"):
        kind = "cuda" if name == "Cuda" else "rocm"
        if not inner:
            return DeviceSpec(token, kind, None, burn=True)
        if _DIGITS_RE.match(inner):
            return DeviceSpec(token, kind, _ordinal(token, inner), burn=True)
        nested = _burn(token, inner, depth + 1)
        return replace(nested, type=kind) if nested is not None and nested.type in ("cuda", "rocm") else None
    if name == "Cpu":
        return DeviceSpec(token, "cpu", None, burn=True)
    if name in ("Mps", "Vulkan") and inner is None:
        return DeviceSpec(token, name.lower(), None, burn=True)
    if name in _WGPU_FAMILY and inner:
        adapter = _burn(token, inner, depth + 1)
        if adapter is None or adapter.type not in ("wgpu", "cpu"):
            return None
        return adapter if adapter.type == "cpu" else replace(adapter, type=_WGPU_FAMILY[name])
    if name in _ADAPTERS and inner is not None and _DIGITS_RE.match(inner):
        return DeviceSpec(token, "wgpu", _ordinal(token, inner), burn=True, adapter=_ADAPTERS[name])
    if name == "DefaultDevice" and inner is None:
        return DeviceSpec(token, "wgpu", None, burn=True)
    return None


def parse_token(token: str) -> list[DeviceSpec]:
    """One entry of a device list (a range gives several); DeviceError naming the token otherwise."""
    text = _unquote(token)
    if not text:
        raise DeviceError("empty entry in the device list", hint=f"accepted forms: {ACCEPTED_FORMS}")
    if text.lower() == "all":
        return [DeviceSpec(text, "all")]
    if re.match(r"^[A-Z][a-z]", text):
        burn_first = _burn(text, text)
        if burn_first is not None:
            return [burn_first]
    ordinal = _ORDINAL_RE.match(text)
    if ordinal:
        return _range(text, "cuda", ordinal.group(1), ordinal.group(2))
    torch_form = _TORCH_RE.match(text)
    if torch_form:
        kind = torch_form.group(1).lower()
        kind = "cuda" if kind == "gpu" else kind
        if torch_form.group(2) is None:
            return [DeviceSpec(text, kind, None)]
        return _range(text, kind, torch_form.group(2), torch_form.group(3))
    repr_form = _REPR_RE.match(text)
    if repr_form and repr_form.group(1).lower() in ("cuda", "cpu", "mps", "xpu"):
        index = repr_form.group(2)
        return [DeviceSpec(text, repr_form.group(1).lower(), _ordinal(text, index) if index else None)]
    burn = _burn(text, text)
    if burn is not None:
        return [burn]
    raise DeviceError(f"cannot read device {text!r}", hint=f"accepted forms: {ACCEPTED_FORMS}")


def _entry_text(entry: object) -> str:
    """One entry of a device sequence as text (an int is an ordinal; torch.device prints its repr)."""
    if isinstance(entry, int) and not isinstance(entry, bool) and not 0 <= entry <= MAX_ORDINAL:
        raise DeviceError(
            "a device ordinal in the list is negative or larger than " + str(MAX_ORDINAL),
            hint="ordinals count devices from 0",
        )
    return str(entry)


def parse_device_list(devices: str | Iterable[object]) -> list[DeviceSpec]:
    """Read a device list: one string (comma-separated, optionally in [...]) or a sequence of entries."""
    if isinstance(devices, str):
        text = devices.strip()
        if text.startswith("[") and text.endswith("]"):
            text = text[1:-1]
        tokens = split_top_level(text) if text else []
    else:
        tokens = [_entry_text(d) for d in devices]
    specs = [spec for token in tokens for spec in parse_token(token)]
    if not specs:
        raise DeviceError("the device list is empty", hint=f"name at least one device: {ACCEPTED_FORMS}")
    return specs


def resolve_devices(
    specs: Sequence[DeviceSpec], inventory: Inventory, mapping: VisibleMapping
) -> tuple[ResolvedDevice, ...]:
    """Expand `all`, number the devices (position 0 is the main worker) and attach the GPU behind each."""
    expanded: list[DeviceSpec] = []
    for spec in specs:
        if spec.type == "all":
            visible = range(len(mapping.ordinals))
            expanded += [DeviceSpec(spec.token, "cuda", i) for i in visible] or [
                DeviceSpec(spec.token, "cpu")
            ]
        else:
            expanded.append(spec)
    out = []
    for position, spec in enumerate(expanded):
        ordinal = spec.index
        gpu: Gpu | None = None
        if spec.type in ("cuda", "rocm"):
            ordinal = 0 if ordinal is None else ordinal
            gpu = mapping.gpu(inventory, ordinal)
        elif spec.type in GPU_TYPES:
            ordinal = 0 if ordinal is None else ordinal
            gpu = inventory.gpus[ordinal] if ordinal < len(inventory.gpus) else None
        elif spec.type == "xpu":
            ordinal = 0 if ordinal is None else ordinal
        out.append(ResolvedDevice(spec, position, ordinal, gpu))
    return tuple(out)


# --- checks -----------------------------------------------------------------------------------


def _visible_count(ctx: CheckContext, device_type: str) -> int:
    if device_type in ("cuda", "rocm"):
        return len(ctx.mapping.ordinals)
    if device_type == "metal":
        return 1 if ctx.inventory.mps else 0
    if device_type in GPU_TYPES:
        return len(ctx.inventory.gpus)
    if device_type == "xpu":
        return ctx.inventory.xpu_count
    if device_type == "mps":
        return 1 if ctx.inventory.mps else 0
    return 1


def _cuda_missing_reason(ctx: CheckContext) -> tuple[str, str]:
    """Why no CUDA device is usable, and the KB entry that explains it."""
    inv, mapping = ctx.inventory, ctx.mapping
    if not inv.cuda:
        return "this torch build has no CUDA support (a CPU-only wheel)", "torch-not-compiled-with-cuda"
    if mapping.repeated is not None:
        return (
            f"CUDA_VISIBLE_DEVICES={mapping.value} repeats {mapping.repeated!r}, so CUDA hides every GPU",
            "cuda-no-gpus-available",
        )
    if mapping.value is not None and not mapping.value.strip():
        return (
            "CUDA_VISIBLE_DEVICES is set to an empty value, which hides every GPU",
            "cuda-no-gpus-available",
        )
    if not inv.gpus:
        return "no GPU was found on this machine", "cuda-no-gpus-available"
    if mapping.value is not None and mapping.problems:
        return (
            f"CUDA_VISIBLE_DEVICES={mapping.value} leaves no GPU visible: {mapping.problems[0]}",
            "cuda-no-gpus-available",
        )
    return "torch cannot initialise CUDA here (driver too old or not loaded?)", "cuda-driver-insufficient"


@check(
    "device.unavailable",
    category="invalid_device",
    title="a requested device type is not present or not usable by torch",
    entries=("cuda-no-gpus-available", "lightning-gpu-not-available"),
)
def check_unavailable(ctx: CheckContext) -> list[Finding]:
    """device.unavailable: a requested device type this machine (or this torch) cannot provide.

    When `all` (the default) found no GPU and stands for the CPU, an info finding says so.
    """
    out = _cpu_instead_of_all(ctx)
    for device_type in dict.fromkeys(d.spec.type for d in ctx.devices):
        if device_type == "cpu" or _visible_count(ctx, device_type) > 0:
            continue
        users = [d for d in ctx.devices if d.spec.type == device_type]
        entry: str | None = None
        if device_type in ("cuda", "rocm"):
            reason, entry = _cuda_missing_reason(ctx)
        elif device_type == "mps":
            reason = "MPS (Apple GPU) is not available on this machine"
        elif device_type == "xpu":
            reason = "no Intel XPU is available to torch here"
        else:
            reason = f"no GPU adapter is available for {device_type}"
        out.append(
            finding(
                "device.unavailable",
                Severity.ERROR,
                f"{device_type} devices are not available",
                f"{reason}; requested as {', '.join(repr(d.spec.token) for d in users)}.",
                device=users[0].label,
                rank=users[0].position,
                solutions=(
                    "Run on a machine that has this device type, or change the device list (e.g. --devices cpu).",
                    "Compare `ddpdoctor env` with what the job expects (torch build, driver, CUDA_VISIBLE_DEVICES).",
                ),
                entry=entry,
                data={"type": device_type, "reason": reason},
            )
        )
    if not any(f.severity is Severity.ERROR for f in out):
        out.append(passed("device.unavailable", "every requested device type is available"))
    return out


def _cpu_instead_of_all(ctx: CheckContext) -> list[Finding]:
    """An info finding when `all` resolved to the CPU because no GPU is visible."""
    if not any(d.spec.type == "cpu" and d.spec.token.lower() == "all" for d in ctx.devices):
        return []
    reason, _ = _cuda_missing_reason(ctx)
    return [
        finding(
            "device.unavailable",
            Severity.INFO,
            "no GPU found: checked cpu",
            f"`all` (the default device list) means every visible GPU, and none is visible: {reason}. "
            "The checks ran on the CPU instead.",
            device="cpu",
            solutions=(
                "Pass --devices to check a particular list, e.g. --devices cuda:0,cuda:1 on a GPU node.",
            ),
            data={"reason": reason},
        )
    ]


@check(
    "device.out-of-range",
    category="invalid_device",
    title="a device ordinal is not below the number of visible devices (any CPU slot is valid)",
    entries=("cuda-invalid-device-ordinal",),
)
def check_out_of_range(ctx: CheckContext) -> list[Finding]:
    """device.out-of-range: an ordinal at or past the number of visible devices of its type.

    A CPU ordinal names a logical CPU device slot (one replica on the host's CPUs), so every CPU
    ordinal exists.
    """
    out = []
    for device in ctx.devices:
        count = _visible_count(ctx, device.spec.type)
        if device.spec.type == "cpu" or device.ordinal is None or count == 0 or device.ordinal < count:
            continue
        kind = device.spec.type
        valid = f"{kind}:0" if count == 1 else f"{kind}:0..{kind}:{count - 1}"
        out.append(
            finding(
                "device.out-of-range",
                Severity.ERROR,
                f"{device.label} does not exist: {count} {kind} device(s) are visible",
                f"devices[{device.position}] ({device.spec.token!r}) asks for ordinal {device.ordinal}, "
                f"but the valid ordinals are {valid}"
                + (f" (CUDA_VISIBLE_DEVICES={ctx.mapping.value})" if ctx.mapping.value is not None else "")
                + ".",
                device=device.label,
                rank=device.position,
                solutions=(
                    f"Use ordinals below {count}: ordinals count the visible devices, starting at 0.",
                    "If CUDA_VISIBLE_DEVICES is set, ordinals are positions in that list, not physical GPU numbers.",
                ),
                data={"ordinal": device.ordinal, "visible": count},
            )
        )
    if not out:
        out.append(passed("device.out-of-range", "every ordinal is within the visible devices"))
    return out


def _identity(device: ResolvedDevice) -> tuple[str, ...]:
    """What makes two entries the same device: the GPU's UUID, else the type and ordinal (`cpu` is `cpu:0`)."""
    if device.gpu is not None:
        return ("gpu", device.gpu.uuid.upper())
    if device.spec.type in GPU_TYPES or device.spec.type == "xpu":
        return ("ordinal", device.spec.type, str(device.ordinal))
    if device.spec.type == "cpu":
        return ("ordinal", "cpu", str(device.spec.index or 0))
    return (device.spec.type,)


def _suggest_list(ctx: CheckContext) -> str | None:
    """The same number of devices with each one once, replacing a repeat by an unused device of its type."""
    seen: set[tuple[str, ...]] = set()
    keep: list[str] = []
    dropped: list[str] = []
    for device in ctx.devices:
        key = _identity(device)
        if key in seen:
            dropped.append(device.family)
        else:
            keep.append(device.label)
        seen.add(key)
    if not dropped:
        return None
    used = {d.label for d in ctx.devices} | {f"cpu:{key[2]}" for key in seen if key[:2] == ("ordinal", "cpu")}
    spare = {
        "cuda": [f"cuda:{i}" for i in range(len(ctx.mapping.ordinals))],
        "cpu": [f"cpu:{i}" for i in range(len(ctx.devices) + len(used))],
    }
    for family in dropped:
        label = next((s for s in spare.get(family, []) if s not in used), None)
        if label is not None:
            keep.append(label)
            used.add(label)
    return ",".join(keep)


@check(
    "device.duplicate",
    category="duplicate_device",
    title="a device appears twice (also through aliases, CUDA_VISIBLE_DEVICES or the same UUID)",
    entries=("nccl-duplicate-gpu", "lightning-gpu-ids-not-unique"),
    burn_entries=("burn-ddp-main-worker-failed",),
)
def check_duplicates(ctx: CheckContext) -> list[Finding]:
    """device.duplicate: one device twice, through spelling, aliases, CUDA_VISIBLE_DEVICES or UUID.

    CPU entries are slots: `cpu:1` twice, or `cpu` with `cpu:0`, is one slot twice.
    """
    out = []
    mapping = ctx.mapping
    if mapping.repeated is not None and any(d.spec.type in ("cuda", "rocm") for d in ctx.devices):
        out.append(
            finding(
                "device.duplicate",
                Severity.ERROR,
                f"CUDA_VISIBLE_DEVICES lists {mapping.repeated!r} twice",
                f"CUDA_VISIBLE_DEVICES={mapping.value} repeats an entry; CUDA then makes no GPU visible at all.",
                solutions=("Give each GPU once in CUDA_VISIBLE_DEVICES, e.g. CUDA_VISIBLE_DEVICES=0,1.",),
                entry="cuda-no-gpus-available",
                data={"cuda_visible_devices": mapping.value},
            )
        )
    groups: dict[tuple[str, ...], list[ResolvedDevice]] = {}
    for device in ctx.devices:
        groups.setdefault(_identity(device), []).append(device)
    suggestion = _suggest_list(ctx)
    for members in groups.values():
        if len(members) < 2:
            continue
        first = members[0]
        spellings = {m.spec.token for m in members}
        where = ", ".join(f"devices[{m.position}] {m.spec.token!r}" for m in members)
        if first.gpu is not None and len({m.ordinal for m in members}) > 1:
            how = (
                f"they are different ordinals ({', '.join(m.label for m in members)}) of one physical GPU "
                f"(UUID {first.gpu.uuid})"
            )
        elif len(spellings) > 1:
            how = "different spellings of one device"
        else:
            how = "the same entry written twice"
        gpu_text = (
            f" GPU {first.gpu.index} ({first.gpu.name}, {first.gpu.uuid}, PCI {first.gpu.pci_bus_id})"
            if first.gpu is not None
            else ""
        )
        burn_note = (
            " In Burn's DDP devices[0] is the main worker and devices[k] is `worker {k-1}`;"
            " two workers on one device collide in the gradient sync."
            if ctx.burn
            else " Two workers on one GPU collide in NCCL (duplicate GPU) or run out of memory."
        )
        solutions = [
            f"List each device once: --devices {suggestion}" if suggestion else "List each device once.",
            "Build the list from the devices that exist (torch.cuda.device_count(), Burn's Device::enumerate).",
        ]
        out.append(
            finding(
                "device.duplicate",
                Severity.ERROR,
                f"{first.label} is listed " + ("twice" if len(members) == 2 else f"{len(members)} times"),
                f"{where} are {how}:{gpu_text}.{burn_note}",
                device=first.label,
                rank=members[1].position,
                solutions=solutions,
                data={"positions": [m.position for m in members], "written": [m.spec.token for m in members]},
            )
        )
    if not out:
        out.append(passed("device.duplicate", "each device is listed once"))
    return out


@check(
    "device.mixed-types",
    category="invalid_device",
    title="the list mixes device types (e.g. CUDA and CPU)",
    entries=("burn-distributed-mixed-devices",),
    burn_entries=("burn-distributed-mixed-devices",),
)
def check_mixed_types(ctx: CheckContext) -> list[Finding]:
    """device.mixed-types: a list that mixes device types."""
    families = list(dict.fromkeys(d.family for d in ctx.devices))
    if len(families) < 2:
        return [passed("device.mixed-types", f"every device is of type {families[0]}")]
    by_family = {f: [d.spec.token for d in ctx.devices if d.family == f] for f in families}
    return [
        finding(
            "device.mixed-types",
            Severity.ERROR,
            f"the device list mixes {' and '.join(families)} devices",
            "; ".join(f"{f}: {', '.join(tokens)}" for f, tokens in by_family.items())
            + ". Data-parallel training needs one device type for every replica"
            + (
                " (Burn panics with `All devices are expected to be of the same variant`)."
                if ctx.burn
                else "."
            ),
            device=ctx.devices[0].label,
            solutions=(
                f"Use only {families[0]} devices, e.g. --devices "
                + ",".join(d.label for d in ctx.devices if d.family == families[0]),
            ),
            data={"types": families},
        )
    ]


def _distinct_gpus(ctx: CheckContext) -> list[tuple[ResolvedDevice, Gpu]]:
    seen: set[str] = set()
    out = []
    for device in ctx.devices:
        if device.gpu is not None and device.gpu.uuid not in seen:
            seen.add(device.gpu.uuid)
            out.append((device, device.gpu))
    return out


def _others(gpu: Gpu) -> list[str]:
    own = os.getpid()
    return [
        f"pid {p.pid}"
        + (f" {p.name}" if p.name else "")
        + (f" ({format_size(p.used_memory)})" if p.used_memory else "")
        for p in gpu.processes
        if p.pid != own
    ]


@check(
    "device.busy",
    category="cuda_error",
    title="another process already holds the GPU",
    needs=(Need.NVML,),
    entries=("cuda-device-busy-unavailable",),
)
def check_busy(ctx: CheckContext) -> list[Finding]:
    """device.busy: GPUs where other processes already hold a context (NVML)."""
    gpus = _distinct_gpus(ctx)
    if not gpus:
        return []
    if not ctx.inventory.process_info:
        return [
            finding(
                "device.busy",
                Severity.INFO,
                "GPU processes not checked",
                "NVML is not available, so other processes on the GPUs cannot be listed; "
                "install nvidia-ml-py to enable this check.",
            )
        ]
    out = []
    for device, gpu in gpus:
        others = _others(gpu)
        if others:
            out.append(
                finding(
                    "device.busy",
                    Severity.WARNING,
                    f"{device.label} is already in use by {len(others)} other process(es)",
                    f"GPU {gpu.index} ({gpu.name}) runs {', '.join(others)}; they share its memory and compute.",
                    device=device.label,
                    rank=device.position,
                    solutions=(
                        "Stop the other processes (nvidia-smi lists them) or pick idle GPUs.",
                        "Leftover processes of an earlier run often hold GPUs: check for zombie training workers.",
                    ),
                    data={"processes": [p.to_dict() for p in gpu.processes]},
                )
            )
    return out or [passed("device.busy", "no other process uses the GPUs")]


@check(
    "device.exclusive-mode",
    category="cuda_error",
    title="the GPU's compute mode forbids another context",
    needs=(Need.NVML,),
    entries=("cuda-device-busy-unavailable",),
)
def check_exclusive(ctx: CheckContext) -> list[Finding]:
    """device.exclusive-mode: compute modes that refuse a new context."""
    gpus = _distinct_gpus(ctx)
    if not gpus or not ctx.inventory.process_info:
        return []
    out = []
    for device, gpu in gpus:
        others = _others(gpu)
        if gpu.compute_mode == "prohibited":
            why = "its compute mode is Prohibited: no process may create a context on it"
        elif gpu.compute_mode in ("exclusive-process", "exclusive-thread") and others:
            why = f"its compute mode is {gpu.compute_mode} and {', '.join(others)} already holds it"
        else:
            continue
        out.append(
            finding(
                "device.exclusive-mode",
                Severity.ERROR,
                f"{device.label} cannot be used: {gpu.compute_mode} compute mode",
                f"GPU {gpu.index} ({gpu.name}): {why}. CUDA will answer `all CUDA-capable devices are busy or unavailable`.",
                device=device.label,
                rank=device.position,
                solutions=(
                    "Pick another GPU, or wait for the process that holds it to finish.",
                    "An administrator can reset the mode with `nvidia-smi -i N -c DEFAULT`.",
                ),
                data={"compute_mode": gpu.compute_mode},
            )
        )
    return out or [passed("device.exclusive-mode", "the GPUs' compute modes allow this job")]


@check(
    "device.visible-mapping",
    category="invalid_device",
    title="how CUDA_VISIBLE_DEVICES maps ordinals to physical GPUs",
)
def check_visible_mapping(ctx: CheckContext) -> list[Finding]:
    """device.visible-mapping: which physical GPU each CUDA ordinal is (info), and unreadable entries."""
    if not any(d.spec.type in ("cuda", "rocm") for d in ctx.devices) or not ctx.mapping.ordinals:
        return []
    mapping, inventory = ctx.mapping, ctx.inventory
    rows = []
    for ordinal, index in enumerate(mapping.ordinals):
        gpu = inventory.gpus[index]
        rows.append(
            {
                "ordinal": ordinal,
                "gpu": gpu.index,
                "name": gpu.name,
                "uuid": gpu.uuid,
                "pci_bus_id": gpu.pci_bus_id,
            }
        )
    arrows = "; ".join(f"cuda:{r['ordinal']} -> GPU {r['gpu']} (PCI {r['pci_bus_id']})" for r in rows)
    head = (
        "CUDA_VISIBLE_DEVICES is unset" if mapping.value is None else f"CUDA_VISIBLE_DEVICES={mapping.value}"
    )
    severity = Severity.WARNING if mapping.problems else Severity.INFO
    message = f"{head}: {arrows}."
    if mapping.problems:
        message += " " + "; ".join(mapping.problems) + "."
    return [
        finding(
            "device.visible-mapping",
            severity,
            f"{len(rows)} GPU(s) visible",
            message,
            solutions=("Write CUDA_VISIBLE_DEVICES as distinct physical indices or GPU UUIDs.",)
            if mapping.problems
            else (),
            data={"cuda_visible_devices": mapping.value, "visible": rows},
        )
    ]
