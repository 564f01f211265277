"""Fault injection as data: what goes wrong, on which device, at which step, with which text.

A fault spec on the command line reads `KIND@DEVICE:STEP`, optionally `=TEXT` or, for `delay`,
`=SECONDS`: `oom@2:3` runs devices[2] out of memory at its third step, `stall@1:2` blocks
devices[1] forever at its second step. DEVICE is the index in the devices list (0 is the main
worker); steps count each worker's batches from 1 across epochs.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from ddpdoctor.errors import InputError
from ddpdoctor.runtime.panic import CARGO_GIT_CUBECL, Location, crate_location


class FaultKind(str, enum.Enum):
    """The failures the runtime can inject."""

    OOM = "oom"  # the device's allocator fails (cubecl's text, or libtorch's through tch)
    DATALOADER = "dataloader"  # the data loader yields Err: Burn stops training (no panic)
    METRIC = "metric"  # a metric panics on the event-processor thread `train-worker`
    STALL = "stall"  # the worker blocks forever before its backward pass (deadlock, stuck kernel)
    PANIC = "panic"  # a panic with a string payload in the model code
    PANIC_ANY = "panic-any"  # `std::panic::panic_any` with a non-string payload
    DELAY = "delay"  # the worker is slow at this step (a straggler); not a failure by itself


class OomBackend(str, enum.Enum):
    """Whose out-of-memory text to print."""

    CUBECL = "cubecl"  # burn-cubecl / cubecl-cuda, the default CUDA backend
    TCH = "tch"  # burn-tch: libtorch's message inside tch's `Torch("...")`


_SPEC = re.compile(r"^(?P<kind>[a-z-]+)@(?P<device>\d+):(?P<step>\d+)(?:=(?P<arg>.*))?$", re.DOTALL)

# One GiB: the allocation that fails in the out-of-memory fault.
OOM_BYTES = 1 << 30


@dataclass(frozen=True)
class Fault:
    """One injected failure on devices[`device`] at that worker's step `step` (from 1)."""

    kind: FaultKind
    device: int
    step: int
    text: str | None = None
    seconds: float = 0.0

    @classmethod
    def parse(cls, spec: str) -> Fault:
        """Read `KIND@DEVICE:STEP[=TEXT|SECONDS]`; an InputError names what is wrong."""
        match = _SPEC.match(spec.strip())
        if match is None:
            raise InputError(
                f"bad fault spec {spec!r}", hint="write KIND@DEVICE:STEP, e.g. oom@2:3 or delay@0:1=0.5"
            )
        try:
            kind = FaultKind(match["kind"])
        except ValueError:
            kinds = ", ".join(k.value for k in FaultKind)
            raise InputError(f"unknown fault kind {match['kind']!r}", hint=f"use one of: {kinds}") from None
        step = int(match["step"])
        if step < 1:
            raise InputError(f"bad fault spec {spec!r}: steps count from 1")
        arg = match["arg"]
        if kind is FaultKind.DELAY:
            try:
                return cls(kind, int(match["device"]), step, seconds=float(arg or "0.5"))
            except ValueError:
                raise InputError(f"bad delay in {spec!r}", hint="write seconds, e.g. delay@0:1=0.5") from None
        return cls(kind, int(match["device"]), step, text=arg)

    def spec(self) -> str:
        """The command-line form of this fault."""
        base = f"{self.kind.value}@{self.device}:{self.step}"
        if self.kind is FaultKind.DELAY:
            return f"{base}={self.seconds:g}"
        return base if self.text is None else f"{base}={self.text}"


def _gib(size: int) -> str:
    return f"{size / (1 << 30):.2f} GiB"


def oom_panic(
    backend: OomBackend, device_index: int, requested: int, free: int, total: int
) -> tuple[Location, str]:
    """Where an allocation failure panics and the message Burn prints for it.

    cubecl's allocator reports `out of device memory allocating {size} bytes` and the CUDA server
    panics with `failed to reserve {size} bytes of device memory: {err}`; tch surfaces libtorch's
    `CUDA out of memory. Tried to allocate ...` inside `Torch("...")` through `Result::unwrap()`.
    Line numbers of these third-party files are illustrative.
    """
    if backend is OomBackend.TCH:
        libtorch = (
            f"CUDA out of memory. Tried to allocate {_gib(requested)}. GPU {device_index} has a total capacity "
            f"of {_gib(total)} of which {_gib(free)} is free. Of the allocated memory {_gib(total - free)} "
            "is allocated by PyTorch, and 0 bytes is reserved by PyTorch but unallocated. If reserved but "
            "unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to "
            "avoid fragmentation.  See documentation for Memory Management  "
            "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)\\n"
            "Exception raised from malloc at /pytorch/c10/cuda/CUDACachingAllocator.cpp:1341 "
            "(most recent call first):"
        )
        location = crate_location("tch-0.22.0", "src/wrappers/tensor_generated.rs", 7850, 39)
        return location, f'called `Result::unwrap()` on an `Err` value: Torch("{libtorch}")'
    location = Location(f"{CARGO_GIT_CUBECL}/crates/cubecl-cuda/src/compute/server.rs", 412, 39)
    return (
        location,
        f"failed to reserve {requested} bytes of device memory: out of device memory allocating {requested} bytes",
    )


# The panics of the model code itself live in the user's crate, which Cargo shows relative.
MODEL_LOCATION = Location("src/model.rs", 57, 13)
METRIC_LOCATION = Location("src/metric.rs", 41, 9)


def metric_panic_text(predictions: int, targets: int) -> str:
    """The assertion a user's metric fails when predictions and targets disagree in length."""
    return (
        "assertion `left == right` failed: the metric expects one target per prediction\n"
        f"  left: {predictions}\n right: {targets}"
    )


def dataset_error_text(item: int) -> str:
    """The Display of the dataset error the injected fault returns for item `item`."""
    return f"I/O error: `failed to read item {item}: /data/train/shard-{item // 64:04}.bin: No such file or directory (os error 2)`"
