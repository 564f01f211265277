"""GPU memory: free memory per device, the main device's headroom, and one model step per device.

A model for `--model module:factory` is a zero-argument factory returning ``(model, make_batch)``:
``model`` is a ``torch.nn.Module`` and ``make_batch(batch_size)`` returns the model's input (a
tensor, a tuple of positional inputs or a dict of keyword inputs) on the CPU. The loss is the
output's ``loss`` (attribute or key) when it has one, otherwise the mean of the (first) output.

On a real GPU the step is measured (peak allocated memory). On a simulated inventory, or when
torch cannot reach the device, it is estimated without a GPU: parameters, gradients, the
activations autograd saves for the backward pass, the output, and twice the largest saved
activation for the gradients that live briefly during the backward pass; the step runs on the
`meta` device (or on the CPU when an operator has no meta kernel). Optimizer state is not included.
"""

from __future__ import annotations

import copy
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ddpdoctor.check.base import (
    CheckContext,
    ResolvedDevice,
    finding,
    frames_of,
    load_factory,
    passed,
    user_frames,
)
from ddpdoctor.check.registry import Need, check
from ddpdoctor.errors import InputError
from ddpdoctor.findings import Finding, Severity
from ddpdoctor.units import GIB, format_size

# Share of a GPU's free memory a step may plan to use; the rest absorbs fragmentation and workspaces.
USABLE_FRACTION = 0.9
# The main device must not have this much less free memory than the emptiest other device.
HEADROOM_TOLERANCE = 0.05

ModelSource = str | Callable[[], Any] | tuple[Any, Callable[[int], Any]]


@check(
    "memory.free-below-minimum",
    category="oom_gpu",
    title="a GPU has less free memory than --min-free",
    needs=(Need.MIN_FREE,),
    entries=("cuda-out-of-memory",),
    burn_entries=("burn-cubecl-out-of-device-memory",),
)
def free_below_minimum(ctx: CheckContext) -> list[Finding]:
    """memory.free-below-minimum: GPUs with less free memory than `--min-free`."""
    min_free = ctx.min_free
    assert min_free is not None
    out = []
    for device in ctx.gpu_devices():
        gpu = device.gpu
        assert gpu is not None
        if gpu.memory_free is None or gpu.memory_free >= min_free:
            continue
        out.append(
            finding(
                "memory.free-below-minimum",
                Severity.ERROR,
                f"{device.label} has {format_size(gpu.memory_free)} free, less than the {format_size(min_free)} required",
                f"GPU {gpu.index} ({gpu.name}) has {format_size(gpu.memory_free)} of {format_size(gpu.memory_total)} "
                f"free; --min-free asks for {format_size(min_free)}.",
                device=device.label,
                rank=device.position,
                solutions=(
                    "Free the GPU (other processes, a notebook kernel holding tensors) or pick GPUs with more free memory.",
                    "Lower the per-device batch size, or use mixed precision / activation checkpointing.",
                ),
                data={"free": gpu.memory_free, "total": gpu.memory_total, "min_free": min_free},
            )
        )
    if not out and ctx.gpu_devices():
        out.append(
            passed(
                "memory.free-below-minimum",
                f"every GPU has at least {format_size(min_free)} free",
                min_free=min_free,
            )
        )
    return out


@check(
    "memory.main-device-headroom",
    category="oom_gpu",
    title="the main device (devices[0]) has less free memory than the others",
    entries=("cuda-out-of-memory",),
    burn_entries=("burn-ddp-main-worker-failed", "burn-cubecl-out-of-device-memory"),
)
def main_device_headroom(ctx: CheckContext) -> list[Finding]:
    """memory.main-device-headroom: devices[0] (the main worker) with less free memory than the others."""
    gpus = ctx.gpu_devices()
    if len(gpus) < 2 or gpus[0].position != 0:
        return []
    main = gpus[0]
    assert main.gpu is not None
    others = [d for d in gpus[1:] if d.gpu is not None and d.gpu.uuid != main.gpu.uuid]
    frees = [d.gpu.memory_free for d in others if d.gpu is not None and d.gpu.memory_free is not None]
    if main.gpu.memory_free is None or not frees:
        return []
    least_other = min(frees)
    shortfall = least_other - main.gpu.memory_free
    if shortfall <= max(HEADROOM_TOLERANCE * least_other, 0.5 * GIB):
        return [
            passed(
                "memory.main-device-headroom",
                f"the main device {main.label} has as much free memory as the others",
            )
        ]
    best = max(
        (d for d in others if d.gpu is not None and d.gpu.memory_free is not None),
        key=lambda d: d.gpu.memory_free if d.gpu is not None and d.gpu.memory_free is not None else 0,
    )
    reordered = [best.label, *(d.label for d in ctx.devices if d is not best)]
    return [
        finding(
            "memory.main-device-headroom",
            Severity.WARNING,
            f"the main device {main.label} has {format_size(shortfall)} less free memory than the others",
            f"devices[0] is the main worker: it also runs validation, metrics and checkpointing, so it needs "
            f"the most headroom, but it has {format_size(main.gpu.memory_free)} free against at least "
            f"{format_size(least_other)} on the other devices. It is usually the first to run out of memory.",
            device=main.label,
            rank=0,
            solutions=(
                f"Put the GPU with the most free memory first: --devices {','.join(reordered)}",
                f"Free memory on {main.label} (another process or a leftover context may hold it).",
            ),
            data={"main_free": main.gpu.memory_free, "least_other_free": least_other},
        )
    ]


# --- one model step ---------------------------------------------------------------------------


@dataclass(frozen=True)
class StepMeasure:
    """Memory of one forward/backward step: `fixed + per_sample * batch` bytes."""

    batch_size: int
    peak: int
    fixed: int
    per_sample: float
    method: str

    def need(self, batch_size: int) -> int:
        """Bytes a step at `batch_size` needs."""
        return int(self.fixed + self.per_sample * batch_size)

    def largest_batch(self, budget: int) -> int | None:
        """The largest batch size whose step fits in `budget` bytes (None: no measurable growth)."""
        if self.per_sample <= 0:
            return None
        return max(0, int((budget - self.fixed) // self.per_sample))


def model_pair(source: ModelSource) -> tuple[Any, Callable[[int], Any]]:
    """`(model, make_batch)` from a `module:factory` spec, a zero-argument factory, or the pair itself."""
    if isinstance(source, str):
        source = load_factory(source, "model")
    pair = source() if callable(source) else source
    if not (isinstance(pair, tuple) and len(pair) == 2 and callable(pair[1])):
        raise InputError(
            "the model factory must return (model, make_batch)",
            hint="return the module and a function make_batch(batch_size) that builds its input",
        )
    return pair[0], pair[1]


def _move(obj: Any, device: Any) -> Any:
    import torch

    if isinstance(obj, torch.Tensor):
        return obj.to(device)
    if isinstance(obj, dict):
        return {k: _move(v, device) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_move(v, device) for v in obj)
    return obj


def _forward(model: Any, inputs: Any) -> Any:
    if isinstance(inputs, dict):
        return model(**inputs)
    if isinstance(inputs, (list, tuple)):
        return model(*inputs)
    return model(inputs)


def _loss(output: Any) -> Any:
    import torch

    loss = getattr(output, "loss", None)
    if loss is None and isinstance(output, dict):
        loss = output.get("loss")
    if loss is None and isinstance(output, (list, tuple)) and output:
        loss = output[0]
    if loss is None:
        loss = output
    if not isinstance(loss, torch.Tensor):
        raise TypeError(f"the model returned {type(output).__name__}, not a tensor to compute a loss from")
    return loss.float().mean()


def _tensor_bytes(obj: Any) -> int:
    import torch

    if isinstance(obj, torch.Tensor):
        return int(obj.numel() * obj.element_size())
    if isinstance(obj, dict):
        return sum(_tensor_bytes(v) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return sum(_tensor_bytes(v) for v in obj)
    loss = getattr(obj, "loss", None)
    return _tensor_bytes(loss) if loss is not None else 0


def _estimated_step(model: Any, make_batch: Callable[[int], Any], batch_size: int, device: str) -> int:
    """Estimated peak bytes of one step on `device` (meta or cpu); see the module docstring."""
    import torch

    replica = copy.deepcopy(model).to(device)
    params = list(replica.parameters())
    param_ids = {id(p) for p in params}
    param_bytes = sum(p.numel() * p.element_size() for p in params)
    grad_bytes = sum(p.numel() * p.element_size() for p in params if p.requires_grad)
    saved: dict[int, Any] = {}

    def pack(tensor: Any) -> Any:
        base = tensor._base if tensor._base is not None else tensor
        if id(base) not in param_ids and id(base) not in saved:
            saved[id(base)] = base
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        output = _forward(replica, _move(make_batch(batch_size), device))
    sizes = [t.numel() * t.element_size() for t in saved.values()]
    _loss(output).backward()
    transient = 2 * max(sizes, default=0)
    return int(param_bytes + grad_bytes + sum(sizes) + transient + _tensor_bytes(output))


def _measure_estimate(model: Any, make_batch: Callable[[int], Any], batch_size: int) -> StepMeasure:
    small = max(1, batch_size // 2)
    try:
        device, sizes = "meta", [_estimated_step(model, make_batch, b, "meta") for b in (small, batch_size)]
    except (NotImplementedError, RuntimeError):
        device, sizes = "cpu", [_estimated_step(model, make_batch, b, "cpu") for b in (small, batch_size)]
    return _fit(batch_size, small, sizes[0], sizes[1], _static_bytes(model), f"estimated on {device}")


def _static_bytes(model: Any) -> int:
    return int(sum(p.numel() * p.element_size() * (2 if p.requires_grad else 1) for p in model.parameters()))


def _fit(batch_size: int, small: int, small_bytes: int, peak: int, static: int, method: str) -> StepMeasure:
    if batch_size > small:
        per_sample = (peak - small_bytes) / (batch_size - small)
        fixed = int(peak - per_sample * batch_size)
    else:
        per_sample = float(max(0, peak - static)) / batch_size
        fixed = static
    return StepMeasure(batch_size, peak, max(0, fixed), max(0.0, per_sample), method)


def _cuda_peak(model: Any, make_batch: Callable[[int], Any], batch_size: int, device: str) -> int:
    import torch

    torch.cuda.synchronize(device)
    torch.cuda.empty_cache()
    start = torch.cuda.memory_allocated(device)
    torch.cuda.reset_peak_memory_stats(device)
    replica = copy.deepcopy(model).to(device)
    try:
        output = _forward(replica, _move(make_batch(batch_size), device))
        _loss(output).backward()
        torch.cuda.synchronize(device)
        return int(torch.cuda.max_memory_allocated(device) - start)
    finally:
        del replica
        torch.cuda.empty_cache()


def _measure_cuda(model: Any, make_batch: Callable[[int], Any], batch_size: int, device: str) -> StepMeasure:
    import torch

    small = max(1, batch_size // 2)
    _cuda_peak(model, make_batch, 1, device)  # warm-up: cuBLAS workspaces and kernels load on first use
    small_bytes = _cuda_peak(model, make_batch, small, device)
    try:
        peak = _cuda_peak(model, make_batch, batch_size, device) if batch_size > small else small_bytes
    except torch.cuda.OutOfMemoryError:
        torch.cuda.empty_cache()
        per_sample = small_bytes / small
        return StepMeasure(
            batch_size, int(per_sample * batch_size), 0, per_sample, f"measured on {device} (OOM)"
        )
    return _fit(batch_size, small, small_bytes, peak, _static_bytes(model), f"measured on {device}")


def _step_error(exc: BaseException, device: str | None) -> Finding:
    """The user's own exception, raised by the model factory (`device` None) or by the step on `device`."""
    if device is None:
        what, where, culprit = "model factory", "Building the model", "the model factory"
    else:
        what, where, culprit = (
            "model step",
            f"One forward/backward step on {device}",
            "the model or in make_batch",
        )
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return finding(
        "memory.model-step",
        Severity.ERROR,
        f"the {what} failed: {type(exc).__name__}: {exc}".splitlines()[0][:300],
        f"{where} raised {type(exc).__name__}; training would fail the same way.",
        category="user_code",
        device=device,
        evidence=user_frames(frames_of(text), limit=3),
        solutions=(f"Fix the error in {culprit}; the evidence shows where it was raised.",),
    )


def _real_cuda(ctx: CheckContext, device: ResolvedDevice) -> bool:
    return not ctx.inventory.simulated and device.gpu is not None and device.spec.type == "cuda"


@check(
    "memory.model-step",
    category="oom_gpu",
    title="one forward/backward step at --batch-size fits in free memory",
    needs=(Need.MODEL,),
    entries=("cuda-out-of-memory",),
    burn_entries=("burn-cubecl-out-of-device-memory",),
)
def model_step(ctx: CheckContext) -> list[Finding]:
    """memory.model-step: measure (or estimate) one step per GPU and suggest the largest batch that fits.

    InputError when the model source names no factory or returns no pair; any other exception
    of the user's factory or step becomes an error finding.
    """
    source, batch_size = ctx.model, ctx.batch_size
    assert source is not None and batch_size is not None
    try:
        model, make_batch = model_pair(source)
    except InputError:
        raise
    except Exception as exc:
        return [_step_error(exc, None)]
    distinct: list[ResolvedDevice] = []
    for device in ctx.gpu_devices():
        if device.gpu is not None and all(d.gpu is None or d.gpu.uuid != device.gpu.uuid for d in distinct):
            distinct.append(device)
    measures: dict[int, StepMeasure] = {}
    estimate: StepMeasure | None = None
    for device in distinct or ctx.devices[:1]:
        try:
            if _real_cuda(ctx, device):
                measures[device.position] = _measure_cuda(model, make_batch, batch_size, device.label)
            else:
                estimate = estimate or _measure_estimate(model, make_batch, batch_size)
                measures[device.position] = estimate
        except Exception as exc:
            return [_step_error(exc, device.label)]
    return _step_findings(distinct, measures, batch_size) if distinct else _cpu_step(measures, batch_size)


def _cpu_step(measures: dict[int, StepMeasure], batch_size: int) -> list[Finding]:
    measure = next(iter(measures.values()))
    return [
        passed(
            "memory.model-step",
            f"one step at batch size {batch_size} runs ({format_size(measure.peak)}, {measure.method})",
            "No GPU is in the device list, so the step was not compared with GPU memory.",
            peak=measure.peak,
        )
    ]


def _step_findings(
    devices: Sequence[ResolvedDevice], measures: dict[int, StepMeasure], batch_size: int
) -> list[Finding]:
    out: list[Finding] = []
    largest: list[int] = []
    for device in devices:
        gpu, measure = device.gpu, measures[device.position]
        if gpu is None or gpu.memory_free is None:
            continue
        budget = int(gpu.memory_free * USABLE_FRACTION)
        fits = measure.largest_batch(budget)
        if fits is not None:
            largest.append(fits)
        need = measure.need(batch_size)
        if need <= budget:
            continue
        suggestion = (
            f"Use a batch size of at most {fits} per device (or keep {batch_size} with gradient accumulation)."
            if fits
            else "Even batch size 1 does not fit: shard the model (FSDP/ZeRO), use mixed precision or a larger GPU."
        )
        out.append(
            finding(
                "memory.model-step",
                Severity.ERROR,
                f"batch size {batch_size} does not fit on {device.label}: ~{format_size(need)} needed, "
                f"{format_size(budget)} usable",
                f"One forward/backward step needs about {format_size(need)} ({measure.method}); {device.label} has "
                f"{format_size(gpu.memory_free)} free, of which {int(USABLE_FRACTION * 100)}% is planned for the step. "
                "Optimizer state (e.g. twice the parameters for Adam) comes on top.",
                device=device.label,
                rank=device.position,
                solutions=(
                    suggestion,
                    "Activation checkpointing and bf16/fp16 autocast lower the per-sample memory.",
                ),
                data={"need": need, "usable": budget, "largest_batch_size": fits, "method": measure.method},
            )
        )
    if not out:
        first = measures[devices[0].position]
        best = min(largest) if largest else None
        out.append(
            passed(
                "memory.model-step",
                f"batch size {batch_size} fits on every GPU (~{format_size(first.need(batch_size))} per step, {first.method})",
                f"The largest batch size that fits on every device is {best}." if best is not None else "",
                need=first.need(batch_size),
                largest_batch_size=best,
            )
        )
    return out
