"""Where this process sits in the job: rank, world size, local rank and the rendezvous address.

torchrun and other env:// launchers set RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE,
MASTER_ADDR and MASTER_PORT. Under srun without them, SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID
and SLURM_NTASKS_PER_NODE stand in for the rank variables (MASTER_ADDR/MASTER_PORT stay required).
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ddpdoctor.check.base import MAX_WORLD_SIZE, env_number
from ddpdoctor.errors import InputError

DEFAULT_CUDA_TEMPLATE = "cuda:{local_rank}"
DEFAULT_CPU_TEMPLATE = "cpu"
TEMPLATE_FIELDS = ("rank", "local_rank", "world_size", "local_world_size", "node_rank")

_LAUNCH_HINT = (
    "start it on every rank with a launcher, e.g. "
    "`torchrun --nproc-per-node 4 -m ddpdoctor check --distributed`, "
    "or set RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and MASTER_PORT"
)


@dataclass(frozen=True)
class LaunchInfo:
    """This rank's place in the job, read from the launcher's environment variables."""

    rank: int
    world_size: int
    local_rank: int
    local_world_size: int | None
    node_rank: int | None
    master_addr: str
    master_port: int
    launcher: str
    use_agent_store: bool = False
    run_id: str = "none"
    restart_count: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "rank": self.rank,
            "world_size": self.world_size,
            "local_rank": self.local_rank,
            "local_world_size": self.local_world_size,
            "node_rank": self.node_rank,
            "master_addr": self.master_addr,
            "master_port": self.master_port,
            "launcher": self.launcher,
        }


def _int(
    environ: Mapping[str, str], name: str, *, minimum: int = 0, maximum: int = MAX_WORLD_SIZE
) -> int | None:
    """A launch variable as a whole number from `minimum` to `maximum`; None when unset or empty.

    SLURM's per-node counts such as `4(x2)` (4 tasks on each of 2 nodes) count by their first number.
    """
    raw = environ.get(name)
    if raw is None or not raw.strip():
        return None
    text = raw.strip()
    if name.startswith("SLURM_") and (first := re.match(r"[0-9]+(?=\(x[0-9]+\)|,|$)", text)):
        text = first.group(0)
    value = env_number({name: text}, name, maximum)
    if not isinstance(value, int) or value < minimum:
        shown = raw if len(raw) <= 40 else raw[:37] + "..."
        raise InputError(
            f"{name}={shown!r} is not a whole number from {minimum} to {maximum}",
            hint=f"set {name} to a whole number from {minimum} to {maximum}, or let the launcher set it",
        )
    return value


def _first(environ: Mapping[str, str], names: tuple[str, ...], *, minimum: int = 0) -> int | None:
    """The first of `names` that is set, read with :func:`_int`."""
    for name in names:
        value = _int(environ, name, minimum=minimum)
        if value is not None:
            return value
    return None


def launch_from_env(environ: Mapping[str, str]) -> LaunchInfo:
    """Read the launch variables; InputError (exit 2) when they are missing or contradict each other."""
    rank = _first(environ, ("RANK", "SLURM_PROCID"))
    world_size = _first(environ, ("WORLD_SIZE", "SLURM_NTASKS"), minimum=1)
    if rank is None or world_size is None:
        missing = "RANK" if rank is None else "WORLD_SIZE"
        raise InputError(f"--distributed needs a launcher: {missing} is not set", hint=_LAUNCH_HINT)
    if rank >= world_size:
        raise InputError(
            f"RANK={rank} is not below WORLD_SIZE={world_size}",
            hint="ranks count from 0 to WORLD_SIZE-1; check the launcher's --nnodes/--nproc-per-node",
        )
    local_rank = _first(environ, ("LOCAL_RANK", "SLURM_LOCALID"))
    local_world_size = _first(environ, ("LOCAL_WORLD_SIZE", "SLURM_NTASKS_PER_NODE"), minimum=1)
    if local_world_size is not None and local_rank is not None and local_rank >= local_world_size:
        raise InputError(
            f"LOCAL_RANK={local_rank} is not below LOCAL_WORLD_SIZE={local_world_size}",
            hint="local ranks count from 0 on every node",
        )
    addr = environ.get("MASTER_ADDR", "").strip()
    port = _int(environ, "MASTER_PORT", maximum=65535)
    if not addr or port is None:
        missing = "MASTER_ADDR" if not addr else "MASTER_PORT"
        raise InputError(f"--distributed needs {missing} (the rendezvous address)", hint=_LAUNCH_HINT)
    if port == 0:
        raise InputError(f"MASTER_PORT={port} is not a port number", hint="use a free port in 1024-65535")
    launcher = "torchrun" if "TORCHELASTIC_RUN_ID" in environ else "env"
    if "RANK" not in environ and "SLURM_PROCID" in environ:
        launcher = "slurm"
    return LaunchInfo(
        rank=rank,
        world_size=world_size,
        local_rank=rank if local_rank is None else local_rank,
        local_world_size=local_world_size,
        node_rank=_first(environ, ("GROUP_RANK", "NODE_RANK", "SLURM_NODEID")),
        master_addr=addr,
        master_port=port,
        launcher=launcher,
        use_agent_store=environ.get("TORCHELASTIC_USE_AGENT_STORE") == "True",
        run_id=environ.get("TORCHELASTIC_RUN_ID", "none") or "none",
        restart_count=_int(environ, "TORCHELASTIC_RESTART_COUNT", maximum=2**31) or 0,
    )


def expand_device_template(template: str, launch: LaunchInfo) -> str:
    """`cuda:{local_rank}` with this rank's numbers filled in; InputError for unknown fields."""
    values = {
        "rank": launch.rank,
        "local_rank": launch.local_rank,
        "world_size": launch.world_size,
        "local_world_size": launch.local_world_size if launch.local_world_size is not None else "",
        "node_rank": launch.node_rank if launch.node_rank is not None else 0,
    }
    hint = (
        f"write e.g. cuda:{{local_rank}} or cpu; fields: {', '.join('{' + f + '}' for f in TEMPLATE_FIELDS)}"
    )
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]
    except ValueError:
        raise InputError(f"cannot read device template {template!r}", hint=hint) from None
    unknown = [f for f in fields if f not in values]
    if unknown:
        raise InputError(f"device template {template!r} names unknown field {{{unknown[0]}}}", hint=hint)
    try:
        return template.format(**values)
    except (ValueError, IndexError):
        raise InputError(f"cannot read device template {template!r}", hint=hint) from None
