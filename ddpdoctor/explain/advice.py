"""Numbers from the evidence, turned into sentences a user can act on.

The numbers come from the knowledge-base entries' named captures (`requested`, `free`, `total`,
`reserved_unallocated`, `gpu` for an out-of-memory error; `seq`, `op`, `timeout_ms` for a watchdog timeout;
`rank`, `peer`, `device` for a duplicate GPU) and from the typed observations, never from
patterns re-run here. Advice never contradicts the verdict: a culprit is not told it is a witness,
and `@record` is suggested only when no error file was written.
"""

from __future__ import annotations

from ddpdoctor.explain.analyse import Candidate
from ddpdoctor.explain.observations import (
    CollectiveObs,
    ExitObs,
    InterfaceObs,
    MembershipObs,
    Observation,
    ranks_by_collective,
)
from ddpdoctor.explain.ranks import rank_list
from ddpdoctor.explain.timeline import Timeline
from ddpdoctor.explain.wording import device_shared_by_processes
from ddpdoctor.units import format_bytes, parse_size


def _who(rank: int | None) -> str:
    return f"rank {rank}" if rank is not None else "the failing process"


def oom_advice(cand: Candidate) -> list[str]:
    """The failed allocation against the GPU's total and free memory."""
    groups = cand.obs.groups()
    want, free, total = (parse_size(groups.get(k)) for k in ("requested", "free", "total"))
    out: list[str] = []
    if want is not None and free is not None and total:
        used = 100.0 * (1 - free / total)
        gpu = groups.get("gpu")
        on = f" on GPU {gpu}" if gpu else " on its GPU"
        out.append(
            f"{_who(cand.rank).capitalize()} asked for {format_bytes(want)}{on}, which had {format_bytes(free)} "
            f"free of {format_bytes(total)} ({used:.1f}% in use): {format_bytes(max(0.0, want - free))} more "
            "was needed. Reduce the per-GPU batch size or sequence length, or free memory on that GPU."
        )
    elif want is not None:
        out.append(
            f"{_who(cand.rank).capitalize()} failed to allocate {format_bytes(want)} of device memory. Compare it "
            "with the free memory of that device (`nvidia-smi`, or `ddpdoctor check --devices ...`)."
        )
    reserved = parse_size(groups.get("reserved_unallocated"))
    if reserved is not None and want is not None and reserved >= want:
        out.append(
            f"{format_bytes(reserved)} was reserved by PyTorch but unallocated, more than the request: the memory "
            "is fragmented. Try PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True."
        )
    return out


def duplicate_advice(cand: Candidate) -> list[str]:
    """Which ranks share a device."""
    groups = cand.obs.groups()
    rank = groups.get("rank")
    peer = groups.get("peer") or groups.get("other_rank")
    device = groups.get("device") or groups.get("bus_id")
    if rank and peer and device:
        return [
            f"Ranks {peer} and {rank} both use CUDA device {device}: give every rank its own GPU "
            "(torch.cuda.set_device(local_rank) before creating the process group)."
        ]
    if (shared := device_shared_by_processes(cand.obs.text)) is not None:
        return [
            f"{shared[:1].upper()}{shared[1:]}. Give every rank its own GPU (torch.cuda.set_device(local_rank)"
            " before any CUDA work), and start no more processes per node than it has GPUs."
        ]
    return []


_MAX_GROUPS = 8  # collectives named one by one; more are counted


def collective_advice(cand: Candidate, timeline: Timeline) -> list[str]:
    """The collective that timed out, who waited, and who did not."""
    reports = [o for o in timeline.failures if isinstance(o, CollectiveObs) and o.state == "timeout"]
    out: list[str] = []
    timed = [o for o in reports if o.op]
    if timed:
        first = timed[0]
        limit = (
            f"; the timeout is {first.timeout_ms} ms ({first.timeout_ms / 60000:.1f} min)"
            if first.timeout_ms
            else ""
        )
        # Ranks can time out in different collectives (some behind the others): each group as it is.
        groups = ranks_by_collective(timed)
        parts = [
            f"{op}"
            + (f" (SeqNum {seq})" if seq is not None else "")
            + (" timed out" if index == 0 else "")
            + (f" on rank(s) {rank_list(ranks)}" if ranks else "")
            for index, (op, seq, ranks) in enumerate(groups[:_MAX_GROUPS])
        ]
        more = f"; {len(groups) - _MAX_GROUPS} more" if len(groups) > _MAX_GROUPS else ""
        out.append(f"{'; '.join(parts)}{more}{limit}.")
    if cand.kind == "straggler" and cand.suspects:
        out.append(
            f"Look at what rank(s) {rank_list(cand.suspects)} were doing when the others waited: "
            "their last log lines, or their stacks (`ddpdoctor stacks --job PID` on a live job, py-spy dump). "
            "Typical causes: uneven batches per rank, a rank-conditional collective, a slow data loader, "
            "rank 0 alone saving a checkpoint."
        )
    elif cand.kind == "mismatch":
        out.append(
            "The ranks called different collectives at the same point: a rank skipped or added one "
            "(a collective under `if rank == 0:`, a metric logged on some ranks only). Make every rank issue "
            "the same collectives in the same order; TORCH_DISTRIBUTED_DEBUG=DETAIL names the call."
        )
    return out


def uneven_advice(cand: Candidate) -> list[str]:
    """A rank left in a collective after its peers finished: it had more steps than they did."""
    return [
        f"Rank(s) {rank_list(cand.suspects)} had more batches (or one more collective) than the others:"
        " give every rank the same number of steps - filter the data before the sampler splits it, use"
        " `DistributedSampler(drop_last=True)`, or wrap the loop in `Join` for uneven inputs."
    ]


def interface_advice(cand: Candidate) -> list[str]:
    """NCCL on an interface other hosts cannot reach: which one, and what that does."""
    obs = cand.obs
    if not isinstance(obs, InterfaceObs):
        return []
    return [
        f"NCCL used {obs.interface} ({obs.address}) for its connections: an address that ranks on other hosts"
        " cannot reach, so their connections are refused or time out."
    ]


def kill_advice(cand: Candidate) -> list[str]:
    """A rank killed by SIGKILL: how to confirm the OOM killer."""
    obs = cand.obs
    pid = f" (pid {obs.pid})" if isinstance(obs, ExitObs) and obs.pid is not None else ""
    return [
        f"{_who(cand.rank).capitalize()}{pid} was likely killed by the kernel's out-of-memory killer (host RAM, not "
        "GPU memory). Confirm with `dmesg -T | grep -i -E 'killed process|out of memory'` on that node, then "
        "reduce host memory: fewer DataLoader workers, smaller prefetch, memory-mapped datasets, or more RAM."
    ]


def membership_advice(cand: Candidate) -> list[str]:
    """The process group cannot form (ranks claimed twice, a barrier's count): how to launch it right."""
    obs = cand.obs
    if not isinstance(obs, MembershipObs):
        return []
    if obs.device is not None:
        return [
            f"Ranks {rank_list(obs.duplicated)} selected the same GPU (bus id {obs.device}): each process must"
            " pick its own device before it creates the process group (`torch.cuda.set_device(local_rank)`"
            " with `LOCAL_RANK` from the launcher), CUDA_VISIBLE_DEVICES must show every process its own GPU,"
            " and no more processes than GPUs may run on a node."
        ]
    if obs.joined is not None:
        return [
            f"The barrier waits until {obs.world} processes have registered in the store; it counted"
            f" {obs.joined}. Check that WORLD_SIZE equals the number of processes actually started (nodes x"
            " processes per node), that every node reaches MASTER_ADDR:MASTER_PORT, and that no other job"
            " uses the same port."
        ]
    return [
        f"{len(obs.duplicated)} global rank(s) were announced twice and {len(obs.missing)} never, in a group"
        f" of {obs.world}: each node computed the same ranks. Under Slurm, start one task per device"
        " (`srun --ntasks-per-node=<devices per node>`, matching Lightning's `devices` and `num_nodes`);"
        " with torchrun give every node its own `--node_rank` (or use a c10d rendezvous endpoint), and"
        " check that NODE_RANK / SLURM_PROCID differ between nodes."
    ]


def exit_advice(cand: Candidate, timeline: Timeline) -> list[str]:
    """A rank that exited non-zero without an error text."""
    obs = cand.obs
    out = []
    last = timeline.progress.get(cand.rank) if cand.rank is not None else None
    if last is not None and not (last.file == obs.file and last.line > obs.line):  # not the report's own
        out.append(f"{_who(cand.rank).capitalize()}'s last line before it exited: {last.text[:200]}")
    reporter = obs.reporter if isinstance(obs, ExitObs) else None
    if isinstance(obs, ExitObs) and obs.error_file is not None:
        return out
    if reporter in _MPI_REPORTERS:
        out.append(
            "Its error was not kept in these logs: it is printed above the launcher's report in the whole"
            " output; run mpirun with --tag-output (horovodrun with --verbose) so each line names its rank."
        )
    elif reporter in _TORCHRUN_REPORTERS:
        out.append(
            "Its traceback was not kept: decorate the entry point with "
            "torch.distributed.elastic.multiprocessing.errors.record, or run torchrun with --log-dir "
            "(and --tee 3) so every rank's output is kept."
        )
    else:
        out.append("Its error was not kept in these logs: keep every rank's whole output (stderr included).")
    return out


_MPI_REPORTERS = ("mpirun", "horovodrun")
_TORCHRUN_REPORTERS = ("torchrun-agent", "torchrun-table", "torchelastic", "error-file")


def consequence_note(culprit: Candidate, others: list[Candidate]) -> list[str]:
    """Say that the other ranks' timeouts and lost connections followed from the culprit."""
    waited = sorted(
        {c.rank for c in others if c.rank is not None and c.rank != culprit.rank and c.consequence}
    )
    if not waited or culprit.rank is None:
        return []
    went = "had already left the job" if culprit.left_early else "had already failed"
    return [
        f"The errors on rank(s) {rank_list(waited)} are consequences: they waited for, or lost "
        f"their connection to, rank {culprit.rank}, which {went}."
    ]


def notes(obs: Observation) -> list[str]:
    """What the recognizers noted on the observation (a worker's own error, Burn's log file)."""
    return list(obs.notes)
