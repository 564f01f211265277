"""The checks only a distributed run can make, by id; importing this module never imports torch.

Cross-rank device clashes reuse the single-node id `device.duplicate`; everything else lives under
`dist.*` (the job as a whole) and `collective.*` (named after the torch.distributed call it tests).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ddpdoctor.check.catalog import BY_ID as SINGLE_NODE_CHECKS
from ddpdoctor.check.catalog import CheckSpec
from ddpdoctor.findings import Evidence, Finding, Severity

DIST_CHECKS: tuple[CheckSpec, ...] = (
    CheckSpec(
        "dist.rendezvous",
        "rendezvous",
        "every rank reaches the rendezvous store within --timeout; missing ranks are named",
        "--distributed",
    ),
    CheckSpec(
        "dist.world-size",
        "rendezvous",
        "WORLD_SIZE agrees on every rank and equals nodes x ranks per node; local ranks are distinct",
        "--distributed",
    ),
    CheckSpec(
        "dist.versions",
        "version_mismatch",
        "torch, CUDA, NCCL and Python versions are the same on every rank",
        "--distributed",
    ),
    CheckSpec(
        "dist.env-mismatch",
        "other",
        "NCCL_*, GLOO_* and TORCH_NCCL_* settings are the same on every rank",
        "--distributed",
    ),
    CheckSpec(
        "dist.memory-imbalance",
        "oom_gpu",
        "free GPU memory is about the same on every rank",
        "--distributed",
    ),
    CheckSpec(
        "dist.process-group",
        "backend_unsupported",
        "torch.distributed.init_process_group succeeds on every rank",
        "--distributed",
    ),
    CheckSpec(
        "dist.rank-lost",
        "collective_timeout",
        "every rank reports back after the collective tests",
        "--distributed",
    ),
    CheckSpec(
        "collective.barrier",
        "collective_timeout",
        "every rank reaches a barrier within --timeout (monitored_barrier on gloo, a store check otherwise)",
        "--distributed",
    ),
    CheckSpec(
        "collective.all_reduce",
        "collective_mismatch",
        "all_reduce returns the correct sum on every rank",
        "--distributed",
    ),
    CheckSpec(
        "collective.broadcast",
        "collective_mismatch",
        "broadcast from rank 0 delivers the same tensor to every rank",
        "--distributed",
    ),
    CheckSpec(
        "collective.bandwidth",
        "other",
        "all_reduce algorithm and bus bandwidth over a range of sizes (as nccl-tests reports them)",
        "--distributed",
    ),
)

DIST_BY_ID: dict[str, CheckSpec] = {c.id: c for c in DIST_CHECKS}


def dist_finding(
    check_id: str,
    severity: Severity,
    title: str,
    message: str = "",
    *,
    rank: int | None = None,
    device: str | None = None,
    solutions: Sequence[str] = (),
    evidence: Sequence[Evidence] = (),
    entry: str | None = None,
    data: Mapping[str, Any] | None = None,
) -> Finding:
    """A Finding for a distributed (or single-node) check id; the category comes from its catalog."""
    spec = DIST_BY_ID.get(check_id) or SINGLE_NODE_CHECKS[check_id]
    return Finding(
        id=check_id,
        severity=severity,
        category=spec.category,
        title=title,
        message=message or title,
        rank=rank,
        device=device,
        evidence=tuple(evidence),
        entry=entry,
        solutions=tuple(solutions),
        data=dict(data or {}),
    )


def check_title(check_id: str) -> str:
    """What a check id checks, from either catalog."""
    spec = DIST_BY_ID.get(check_id) or SINGLE_NODE_CHECKS.get(check_id)
    return spec.title if spec is not None else check_id


def rank_list(ranks: Sequence[int]) -> str:
    """`0-3, 6` style text for a set of ranks."""
    ordered = sorted(set(ranks))
    parts: list[str] = []
    start = prev = None
    for r in [*ordered, None]:
        if r is not None and prev is not None and r == prev + 1:
            prev = r
            continue
        if start is not None and prev is not None:
            if start == prev:
                parts.append(str(start))
            else:
                parts.append(f"{start}, {prev}" if prev == start + 1 else f"{start}-{prev}")
        start = prev = r
    return ", ".join(parts)


def ranks_phrase(ranks: Sequence[int]) -> str:
    """`rank 1` or `ranks 1, 3-5`."""
    return ("rank " if len(set(ranks)) == 1 else "ranks ") + rank_list(ranks)
