"""Where this process sits in a launched job, read leniently for the training-script hooks.

`guard()` runs on the error path of a user's training, so nothing here raises: a variable that is
not a plain decimal number within bounds (`RANK=²`, five thousand digits, `-1`) makes the value
unknown and adds a note saying so. The strict reader for `check --distributed` is
`ddpdoctor.distributed.launch`.

Rank: the first of RANK (torchrun, Accelerate, DeepSpeed), SLURM_PROCID, OMPI_COMM_WORLD_RANK,
PMI_RANK, PMIX_RANK that is set; without any of them LOCAL_RANK counts when the node rank
(GROUP_RANK, NODE_RANK) is absent or 0, as under Lightning's own launcher on one node. World size:
WORLD_SIZE, SLURM_NTASKS, OMPI_COMM_WORLD_SIZE or PMI_SIZE.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

# Ranks and world sizes beyond this are not real jobs; the bound also keeps int() cheap.
MAX_WORLD_SIZE = 2**20
_MAX_DIGITS = len(str(MAX_WORLD_SIZE))
_RANK_VARS = ("RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK")
_WORLD_VARS = ("WORLD_SIZE", "SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE")
_NODE_VARS = ("GROUP_RANK", "NODE_RANK")
_SHOWN_CHARS = 12
_MAX_RUN_PART = 100


@dataclass(frozen=True)
class Placement:
    """This process's rank and world size; `notes` say why a value that was set is unknown."""

    rank: int | None
    world_size: int | None
    launcher: str | None
    notes: tuple[str, ...] = ()
    run: str | None = None  # the launch attempt: a peer's report counts only when it names the same

    @property
    def launched(self) -> bool:
        """Whether a launcher started more than one process (peers exist that can fail or be stopped)."""
        return self.world_size is not None and self.world_size > 1


def _number(raw: str) -> int | None:
    """A non-negative decimal number of ASCII digits within MAX_WORLD_SIZE, else None."""
    text = raw.strip()
    if not text or len(text) > _MAX_DIGITS or not (text.isascii() and text.isdigit()):
        return None
    value = int(text)
    return value if value <= MAX_WORLD_SIZE else None


def _shown(raw: str) -> str:
    """The value as it may be quoted in a note: short and with control characters escaped."""
    cut = raw[:_SHOWN_CHARS]
    more = f"... ({len(raw)} characters)" if len(raw) > _SHOWN_CHARS else ""
    return ascii(cut) + more


def _first_set(environ: Mapping[str, str], names: tuple[str, ...]) -> tuple[str, str] | None:
    for name in names:
        raw = environ.get(name)
        if raw is not None and raw.strip():
            return name, raw
    return None


def _read(
    environ: Mapping[str, str], names: tuple[str, ...], what: str, notes: list[str]
) -> tuple[int | None, bool]:
    """(value, whether a variable was set) of the first variable of `names` that is set."""
    found = _first_set(environ, names)
    if found is None:
        return None, False
    name, raw = found
    value = _number(raw)
    if value is None:
        notes.append(f"{name}={_shown(raw)} is not a {what} number")
    return value, True


def _launcher(environ: Mapping[str, str]) -> str | None:
    if "TORCHELASTIC_RUN_ID" in environ:
        return "torchrun"
    if "SLURM_PROCID" in environ:
        return "slurm"
    if "OMPI_COMM_WORLD_RANK" in environ or "PMI_RANK" in environ or "PMIX_RANK" in environ:
        return "mpi"
    if "RANK" in environ or "LOCAL_RANK" in environ:
        return "env"
    return None


def _run(environ: Mapping[str, str]) -> str | None:
    """torchrun's run id and restart count, or Slurm's job and step ids (shortened to a sane length)."""
    if "TORCHELASTIC_RUN_ID" in environ:
        parts = ("torchrun", environ["TORCHELASTIC_RUN_ID"], environ.get("TORCHELASTIC_RESTART_COUNT", ""))
    elif "SLURM_JOB_ID" in environ:
        parts = ("slurm", environ["SLURM_JOB_ID"], environ.get("SLURM_STEP_ID", ""))
    else:
        return None
    return ":".join(part[:_MAX_RUN_PART] for part in parts)


def placement_from_env(environ: Mapping[str, str]) -> Placement:
    """Read the launcher's variables; never raises. Without any launcher the process is rank 0 of 1."""
    notes: list[str] = []
    launcher = _launcher(environ)
    world_size, _ = _read(environ, _WORLD_VARS, "world-size", notes)
    rank, rank_set = _read(environ, _RANK_VARS, "rank", notes)
    if not rank_set:
        rank, local_set = _read(environ, ("LOCAL_RANK",), "rank", notes)
        node, node_set = _read(environ, _NODE_VARS, "node-rank", notes)
        if local_set and node_set and node != 0:
            notes.append("only LOCAL_RANK is set, on a node other than the first")
            rank = None
    if launcher is None:
        return Placement(rank=0, world_size=world_size, launcher=None, notes=tuple(notes))
    if rank is not None and world_size is not None and rank >= world_size:
        notes.append(f"rank {rank} is not below the world size {world_size}")
        rank = None
    return Placement(rank, world_size, launcher, tuple(notes), _run(environ))
