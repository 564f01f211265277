"""Which processes `ddpdoctor stacks` looks at: given pids, a job's launcher, or every ranked process."""

from __future__ import annotations

from collections.abc import Sequence

from ddpdoctor.errors import InputError
from ddpdoctor.supervise import procfs


def find_processes(
    pids: Sequence[int], *, job: int | None = None, everything: bool = False
) -> list[procfs.RankProcess]:
    """The rank processes to inspect; an InputError when the choice is ambiguous or finds nothing."""
    chosen = sum((bool(pids), job is not None, everything))
    if chosen != 1:
        raise InputError(
            "name what to inspect: rank pids, --job PID or --all (exactly one of them)",
            hint="e.g. ddpdoctor stacks --job $(pgrep -f torchrun | head -1)",
        )
    if not procfs.PROC.is_dir():
        raise InputError("ddpdoctor stacks needs Linux /proc to find a job's processes")
    table = procfs.process_table()
    if job is not None:
        if job not in table:
            raise InputError(
                f"no process {job}", hint="give the pid of a running launcher (torchrun) or rank"
            )
        found = procfs.rank_processes([job, *procfs.descendants(job, table)], table)
        if not found:
            raise InputError(
                f"process {job} has no rank process below it (no RANK in any environment)",
                hint="give rank pids directly: ddpdoctor stacks PID...",
            )
        return found
    if everything:
        found = procfs.ranked_processes_of_user()
        if not found:
            raise InputError("no process of yours has RANK/LOCAL_RANK in its environment")
        return found
    missing = [pid for pid in pids if pid not in table]
    if missing:
        raise InputError(f"no process {', '.join(map(str, missing))}", hint="check the pids with ps")
    ranked = {p.pid: p for p in procfs.rank_processes(pids, table)}
    return [
        ranked.get(pid) or procfs.RankProcess(pid, None, None, None, table[pid].command)
        for pid in pids
        if pid in ranked or not any(pid in r.children for r in ranked.values())
    ]
