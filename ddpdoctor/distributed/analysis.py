"""Rank 0's view of the whole job: what the ranks' facts say when put side by side.

Every check here is registered with :func:`~ddpdoctor.check.registry.job_check`, takes the
:class:`~ddpdoctor.distributed.facts.JobFacts` of the ranks that joined and returns findings;
none of them needs torch or a process group, so they are tested on hand-built facts.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from ddpdoctor.check import registry
from ddpdoctor.check.base import finding
from ddpdoctor.check.grouping import rank_list
from ddpdoctor.check.registry import job_check
from ddpdoctor.check.runner import run_guarded
from ddpdoctor.distributed.facts import SHARED_ENV_PREFIXES, JobFacts, RankFacts
from ddpdoctor.distributed.wording import ranks_phrase
from ddpdoctor.findings import Finding, Severity
from ddpdoctor.units import GIB, format_size

# A version that differs here breaks the job (error); the others only deserve a warning.
STRICT_VERSIONS: tuple[str, ...] = ("torch", "cuda", "nccl")
LOOSE_VERSIONS: tuple[str, ...] = ("python", "ddpdoctor", "driver")
# Memory imbalance: flag when the spread exceeds both this share of the largest and this many bytes.
IMBALANCE_SHARE = 0.10
IMBALANCE_BYTES = 1 * GIB


def _groups(values: dict[int, str]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for rank, value in sorted(values.items()):
        out.setdefault(value, []).append(rank)
    return out


def _spread(groups: dict[str, list[int]]) -> str:
    return "; ".join(f"{value} on {ranks_phrase(ranks)}" for value, ranks in groups.items())


@job_check(
    "device.duplicate",
    category="duplicate_device",
    title="two ranks of one host use the same GPU (the same UUID)",
    entries=("nccl-duplicate-gpu",),
)
def duplicate_devices(job: JobFacts) -> list[Finding]:
    """device.duplicate across ranks: two ranks of one host on one GPU (same UUID)."""
    ranks = job.ranks
    groups: dict[tuple[str, str], list[RankFacts]] = {}
    for facts in ranks:
        uuid = facts.gpu_uuid
        if uuid is not None:
            groups.setdefault((facts.host, uuid.upper()), []).append(facts)
    out = []
    for (host, _), members in groups.items():
        if len(members) < 2:
            continue
        gpu = members[0].gpu or {}
        numbers = [m.rank for m in members]
        where = ", ".join(f"rank {m.rank} (local rank {m.local_rank}, {m.device})" for m in members)
        out.append(
            finding(
                "device.duplicate",
                Severity.ERROR,
                f"{ranks_phrase(numbers)} share one GPU on {host}",
                f"{where} resolve to the same GPU {gpu.get('index')} ({gpu.get('name')}, {gpu.get('uuid')}, "
                f"PCI {gpu.get('pci_bus_id')}). NCCL refuses two ranks on one GPU (`Duplicate GPU detected`), "
                "and even where it runs they share its memory.",
                rank=members[1].rank,
                device=members[1].device,
                solutions=(
                    "Give each rank its own GPU: --device 'cuda:{local_rank}' with torch.cuda.set_device(LOCAL_RANK) "
                    "in the training script.",
                    "Start no more ranks per node than it has GPUs (torchrun --nproc-per-node, srun --ntasks-per-node).",
                    "Do not give every rank the same single-GPU CUDA_VISIBLE_DEVICES unless each then uses cuda:0 "
                    "of a different GPU.",
                ),
                entry="nccl-duplicate-gpu",
                data={
                    "host": host,
                    "ranks": numbers,
                    "uuid": gpu.get("uuid"),
                    "devices": [m.device for m in members],
                },
            )
        )
    if not out and any(f.gpu_uuid for f in ranks):
        out.append(finding("device.duplicate", Severity.OK, "every rank has its own GPU"))
    return out


@job_check(
    "dist.versions",
    category="version_mismatch",
    title="torch, CUDA, NCCL and Python versions are the same on every rank",
)
def version_mismatches(job: JobFacts) -> list[Finding]:
    """dist.versions: torch/CUDA/NCCL differences are errors, Python/ddpdoctor/driver ones warnings."""
    ranks = job.ranks
    out = []
    for key in (*STRICT_VERSIONS, *LOOSE_VERSIONS):
        values = {f.rank: str(f.versions[key]) for f in ranks if f.versions.get(key)}
        groups = _groups(values)
        if len(groups) < 2:
            continue
        strict = key in STRICT_VERSIONS
        out.append(
            finding(
                "dist.versions",
                Severity.ERROR if strict else Severity.WARNING,
                f"{key} versions differ across ranks",
                f"{key}: {_spread(groups)}."
                + (
                    " Ranks with different builds can disagree on the wire format of collectives and fail or hang."
                    if strict
                    else ""
                ),
                rank=min(min(r) for v, r in groups.items() if v != str(ranks[0].versions.get(key))),
                solutions=(
                    "Run every node from the same image or environment (same torch wheel, same CUDA and NCCL).",
                    "Compare `ddpdoctor env` on the nodes and reinstall where it differs.",
                ),
                entry="nccl-version-mismatch" if key == "nccl" else None,
                data={"component": key, "values": {v: r for v, r in groups.items()}},
            )
        )
    if not out:
        shown = {k: ranks[0].versions.get(k) for k in STRICT_VERSIONS if ranks and ranks[0].versions.get(k)}
        text = ", ".join(f"{k} {v}" for k, v in shown.items())
        out.append(finding("dist.versions", Severity.OK, f"every rank runs the same versions ({text})"))
    return out


@job_check(
    "dist.world-size",
    category="rendezvous",
    title="WORLD_SIZE agrees on every rank and equals nodes x ranks per node; local ranks are distinct",
    entries=("store-based-barrier-timeout",),
)
def world_size(job: JobFacts) -> list[Finding]:
    """dist.world-size: WORLD_SIZE agreement, nodes x local size, LOCAL_WORLD_SIZE and local ranks per host."""
    ranks, expected = job.ranks, job.world_size
    out = []
    sizes = _groups({f.rank: str(f.world_size) for f in ranks})
    if len(sizes) > 1 or (sizes and int(next(iter(sizes))) != expected):
        out.append(
            finding(
                "dist.world-size",
                Severity.ERROR,
                "ranks disagree on WORLD_SIZE",
                f"WORLD_SIZE: {_spread(sizes)}; rank 0 expects {expected}.",
                solutions=("Launch every node with the same --nnodes and --nproc-per-node.",),
                data={"world_size": {v: r for v, r in sizes.items()}},
            )
        )
    # Per-host counts only mean something when every rank joined (missing ranks are reported apart).
    complete = len(ranks) == expected
    hosts: dict[str, list[RankFacts]] = {}
    for facts in ranks:
        hosts.setdefault(facts.host, []).append(facts)
    for host, members in hosts.items():
        local = [m.local_rank for m in members]
        clashes = sorted({lr for lr in local if local.count(lr) > 1})
        if clashes:
            out.append(
                finding(
                    "dist.world-size",
                    Severity.ERROR,
                    f"two ranks on {host} have the same LOCAL_RANK",
                    f"LOCAL_RANK {', '.join(map(str, clashes))} is used by more than one rank on {host} "
                    f"({ranks_phrase([m.rank for m in members if m.local_rank in clashes])}); "
                    "a `cuda:{local_rank}` device then lands twice on one GPU.",
                    rank=next(m.rank for m in members if m.local_rank in clashes),
                    solutions=(
                        "Let the launcher set LOCAL_RANK (torchrun does; under srun use SLURM_LOCALID).",
                        "Make sure two nodes do not report the same host name.",
                    ),
                    data={"host": host, "local_ranks": local},
                )
            )
        declared = {m.local_world_size for m in members if m.local_world_size is not None}
        if complete and declared and declared != {len(members)}:
            out.append(
                finding(
                    "dist.world-size",
                    Severity.ERROR,
                    f"{host} runs {len(members)} rank(s) but LOCAL_WORLD_SIZE says {rank_list(sorted(declared))}",
                    f"{ranks_phrase([m.rank for m in members])} joined from {host}, while their LOCAL_WORLD_SIZE "
                    f"is {rank_list(sorted(declared))}. Ranks from two nodes may share a host name, or the "
                    "launcher's per-node count is wrong.",
                    rank=members[0].rank,
                    solutions=(
                        "Use the same --nproc-per-node on every node and give nodes distinct host names.",
                    ),
                    data={
                        "host": host,
                        "ranks": [m.rank for m in members],
                        "local_world_size": sorted(declared),
                    },
                )
            )
    counts = {h: len(m) for h, m in hosts.items()}
    if complete and len(set(counts.values())) > 1:
        out.append(
            finding(
                "dist.world-size",
                Severity.WARNING,
                "nodes run different numbers of ranks",
                "; ".join(f"{h}: {c}" for h, c in counts.items())
                + ". Uneven nodes are legal but usually mean one node got a different --nproc-per-node.",
                data={"ranks_per_host": counts},
            )
        )
    if not out and complete:
        per_node = next(iter(counts.values())) if counts else 0
        out.append(
            finding(
                "dist.world-size",
                Severity.OK,
                f"{len(counts)} node(s) x {per_node} rank(s) = world size {expected}",
                data={"nodes": len(counts), "ranks_per_node": per_node, "world_size": expected},
            )
        )
    return out


@job_check(
    "dist.env-mismatch",
    category="other",
    title="NCCL_*, GLOO_*, TORCH_NCCL_* and TORCH_DISTRIBUTED_* settings are the same on every rank",
)
def env_mismatches(job: JobFacts) -> list[Finding]:
    """dist.env-mismatch: settings under SHARED_ENV_PREFIXES that differ (or are missing) across ranks."""
    ranks = job.ranks
    names = sorted({k for f in ranks for k in f.env if k.startswith(SHARED_ENV_PREFIXES)})
    differing = {}
    for name in names:
        groups = _groups({f.rank: f.env.get(name, "<unset>") for f in ranks})
        if len(groups) > 1:
            differing[name] = groups
    if not differing:
        return []
    return [
        finding(
            "dist.env-mismatch",
            Severity.WARNING,
            f"{len(differing)} communication setting(s) differ across ranks",
            " ".join(f"{name}: {_spread(groups)}." for name, groups in differing.items()),
            solutions=(
                "Export the same NCCL_*/GLOO_* settings on every node (e.g. in the job script, not a shell profile).",
            ),
            data={name: {v: r for v, r in g.items()} for name, g in differing.items()},
        )
    ]


@job_check(
    "dist.memory-imbalance",
    category="oom_gpu",
    title="free GPU memory is about the same on every rank",
    entries=("cuda-out-of-memory",),
)
def memory_imbalance(job: JobFacts) -> list[Finding]:
    """dist.memory-imbalance: one rank's GPU has clearly less free memory than the others'."""
    ranks = job.ranks
    free = {f.rank: f.memory_free for f in ranks if f.memory_free is not None}
    if len(free) < 2:
        return []
    most, least = max(free.values()), min(free.values())
    if most - least <= max(IMBALANCE_BYTES, IMBALANCE_SHARE * most):
        return [
            finding(
                "dist.memory-imbalance",
                Severity.OK,
                f"free GPU memory is balanced ({format_size(least)} to {format_size(most)})",
            )
        ]
    poorest = sorted(r for r, v in free.items() if v == least)
    by_rank = {f.rank: f for f in ranks}
    return [
        finding(
            "dist.memory-imbalance",
            Severity.WARNING,
            f"{ranks_phrase(poorest)} has {format_size(most - least)} less free GPU memory than the best rank",
            f"Free memory ranges from {format_size(least)} ({ranks_phrase(poorest)}, "
            f"{by_rank[poorest[0]].device} on {by_rank[poorest[0]].host}) to {format_size(most)}. "
            "Every rank runs the same batch, so the poorest rank decides when the job runs out of memory.",
            rank=poorest[0],
            device=by_rank[poorest[0]].device,
            solutions=(
                "Find what else holds memory on that GPU (nvidia-smi) and stop it, or move the rank to an idle GPU.",
                "Size the batch for the rank with the least free memory.",
            ),
            entry="cuda-out-of-memory",
            data={"free": {str(r): v for r, v in sorted(free.items())}},
        )
    ]


def analyse(ranks: Sequence[RankFacts], expected_world_size: int) -> list[Finding]:
    """Every registered cross-rank check on the facts of the ranks that joined, in registry order.

    A check that raises becomes an error finding naming it, as on a single node.
    """
    job = JobFacts(tuple(ranks), expected_world_size)
    out: list[Finding] = []
    for spec in registry.all_checks():
        if spec.job is not None:
            out += run_guarded(spec.id, functools.partial(spec.job, job))
    return out
