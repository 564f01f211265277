"""Communication backends: NCCL for CUDA, gloo for CPU, and whether the chosen one is built in."""

from __future__ import annotations

from ddpdoctor.check.base import CheckContext, env_number, finding, passed
from ddpdoctor.check.registry import check
from ddpdoctor.findings import Finding, Severity

BACKEND_CHOICES: tuple[str, ...] = ("auto", "nccl", "gloo", "mpi", "ucc", "xccl")
_NATIVE = {"cuda": "nccl", "rocm": "nccl", "xpu": "xccl"}


def choose_backend(requested: str | None, device_type: str) -> str:
    """The requested backend, or NCCL for CUDA (and ROCm) devices, xccl for XPU and gloo otherwise."""
    if requested not in (None, "auto"):
        return str(requested)
    return _NATIVE.get(device_type, "gloo")


def _needs_backend(ctx: CheckContext, backend: str | None) -> bool:
    world = env_number(ctx.environ, "WORLD_SIZE")
    return len(ctx.devices) > 1 or (backend not in (None, "auto")) or (isinstance(world, int) and world > 1)


def _burn_findings(ctx: CheckContext) -> list[Finding]:
    others = [d for d in ctx.devices if d.spec.burn and d.spec.type not in ("cuda", "rocm")]
    if len(ctx.devices) < 2 or not others:
        return []
    return [
        finding(
            "backend.unavailable",
            Severity.WARNING,
            f"Burn's DDP strategy does not support {others[0].label} devices",
            "Since Burn 0.22 `ExecutionStrategy::ddp` builds its collectives only for CUDA (and remote) devices and "
            f"panics with `Distributed operations are not supported for device ...` otherwise; {others[0].spec.token!r} "
            "is not one. Earlier versions ran DDP on any backend.",
            device=others[0].label,
            rank=others[0].position,
            entry="burn-distributed-unsupported-device",
            solutions=(
                "Use CUDA devices for ExecutionStrategy::ddp, or ExecutionStrategy::multi / single for other backends.",
            ),
        )
    ]


def _chosen(ctx: CheckContext) -> str | None:
    """The backend the job would use, or None when no backend is needed or none is built in."""
    if not _needs_backend(ctx, ctx.backend) or not ctx.inventory.backends:
        return None
    return choose_backend(ctx.backend, ctx.devices[0].family)


def _families(ctx: CheckContext) -> set[str]:
    return {d.family for d in ctx.devices}


@check(
    "backend.nccl-for-cuda",
    category="backend_unsupported",
    title="CUDA devices communicate through NCCL",
    entries=("gloo-unsupported-device",),
)
def check_nccl_for_cuda(ctx: CheckContext) -> list[Finding]:
    """backend.nccl-for-cuda: gloo chosen for CUDA tensors (a warning)."""
    chosen = _chosen(ctx)
    if chosen is None or "cuda" not in _families(ctx):
        return []
    if chosen != "gloo":
        return [passed("backend.nccl-for-cuda", f"{chosen} handles the CUDA devices")]
    return [
        finding(
            "backend.nccl-for-cuda",
            Severity.WARNING,
            "gloo is chosen for CUDA devices",
            "gloo moves CUDA tensors through host memory and lacks several collectives on GPU; "
            "NCCL is the backend for CUDA tensors.",
            solutions=(
                'Use init_process_group("nccl") for CUDA devices (or "cuda:nccl,cpu:gloo" for both).',
            ),
        )
    ]


@check(
    "backend.gloo-for-cpu",
    category="backend_unsupported",
    title="CPU devices communicate through gloo",
    entries=("dist-backend-error",),
)
def check_gloo_for_cpu(ctx: CheckContext) -> list[Finding]:
    """backend.gloo-for-cpu: NCCL chosen for CPU tensors (an error)."""
    chosen = _chosen(ctx)
    if chosen is None or "cpu" not in _families(ctx):
        return []
    if chosen != "nccl":
        return [passed("backend.gloo-for-cpu", f"{chosen} handles the CPU devices")]
    return [
        finding(
            "backend.gloo-for-cpu",
            Severity.ERROR,
            "NCCL is chosen for CPU devices",
            "NCCL only communicates CUDA tensors; collectives on CPU tensors fail "
            "(`No backend type associated with device type cpu`).",
            entry="dist-backend-error",
            solutions=('Use init_process_group("gloo") for CPU training.',),
        )
    ]


@check(
    "backend.unavailable",
    category="backend_unsupported",
    title="the chosen communication backend is built into torch and supports the devices",
    entries=("dist-backend-error",),
)
def check_backend_available(ctx: CheckContext) -> list[Finding]:
    """backend.unavailable: torch.distributed and the chosen backend are built in; Burn's DDP supports the devices."""
    if not _needs_backend(ctx, ctx.backend):
        return []
    out = _burn_findings(ctx)
    available = ctx.inventory.backends
    if not available:
        return [
            *out,
            finding(
                "backend.unavailable",
                Severity.ERROR,
                "torch.distributed is not available in this torch build",
                "torch.distributed.is_available() is False, so no process group can be created.",
                entry="dist-backend-error",
                solutions=(
                    "Install a torch build with distributed support (the standard Linux wheels have it).",
                ),
            ),
        ]
    chosen = choose_backend(ctx.backend, ctx.devices[0].family)
    if chosen not in available:
        why = (
            "this torch build has no NCCL (CPU-only wheel, macOS or Windows)"
            if chosen == "nccl"
            else f"torch.distributed.is_{chosen}_available() is False"
        )
        fallback = "gloo" if "gloo" in available else available[0]
        out.append(
            finding(
                "backend.unavailable",
                Severity.ERROR,
                f"the {chosen} backend is not available",
                f"{why}; available here: {', '.join(available)}.",
                entry="dist-backend-error",
                solutions=(
                    f"Install a torch build that includes {chosen}, or use {fallback} (e.g. --backend {fallback}).",
                ),
                data={"backend": chosen, "available": list(available)},
            )
        )
    elif not out:
        out.append(passed("backend.unavailable", f"{chosen} is built into torch", backend=chosen))
    return out
