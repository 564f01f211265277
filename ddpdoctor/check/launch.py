"""The launch environment (`env.*` checks): MASTER_ADDR/MASTER_PORT, RANK and the world sizes.

The checks apply to a distributed launch (RANK, WORLD_SIZE, MASTER_ADDR ... set, as torchrun, srun
wrappers or Accelerate do) and are skipped otherwise.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import ipaddress
import socket
import sys
import time
from collections.abc import Mapping

from ddpdoctor.check.base import MAX_WORLD_SIZE, CheckContext, env_number, finding, passed
from ddpdoctor.check.registry import Need, check
from ddpdoctor.findings import Finding, Severity

RESOLVE_TIMEOUT_S = 3.0
# How long a name resolution is reused (the address and port checks both need it).
RESOLVE_REUSE_S = 10.0
_RESOLVED: dict[str, tuple[float, list[str], str | None]] = {}


def _bad(check_id: str, name: str, raw: str, what: str) -> Finding:
    return finding(
        check_id,
        Severity.ERROR,
        f"{name}={raw!r} is not {what}",
        f"torch.distributed reads {name} as {what}.",
        solutions=(f"Set {name} to {what}, or let the launcher (torchrun) set it.",),
    )


@check(
    "env.world-size",
    category="rendezvous",
    title="WORLD_SIZE is valid and matches the devices of this node",
    needs=(Need.LAUNCH,),
    entries=("store-based-barrier-timeout",),
)
def check_world_size(ctx: CheckContext) -> list[Finding]:
    """env.world-size: WORLD_SIZE and LOCAL_WORLD_SIZE are set, whole, consistent and fit the GPUs."""
    env = ctx.environ
    world, local_world = env_number(env, "WORLD_SIZE"), env_number(env, "LOCAL_WORLD_SIZE")
    out = []
    if isinstance(world, str) or world == 0:
        out.append(
            _bad("env.world-size", "WORLD_SIZE", str(world), f"a whole number from 1 to {MAX_WORLD_SIZE}")
        )
    elif world is None:
        out.append(
            finding(
                "env.world-size",
                Severity.ERROR,
                "WORLD_SIZE is not set",
                "Other launch variables are set, but the env:// rendezvous also needs WORLD_SIZE.",
                entry="store-based-barrier-timeout",
                solutions=("Launch with torchrun, or export WORLD_SIZE=<number of processes in the job>.",),
            )
        )
    if isinstance(local_world, str) or local_world == 0:
        out.append(
            _bad(
                "env.world-size",
                "LOCAL_WORLD_SIZE",
                str(local_world),
                f"a whole number from 1 to {MAX_WORLD_SIZE}",
            )
        )
        local_world = None
    if isinstance(world, int) and isinstance(local_world, int) and world and local_world:
        if local_world > world or world % local_world:
            out.append(
                finding(
                    "env.world-size",
                    Severity.WARNING,
                    f"WORLD_SIZE={world} is not a multiple of LOCAL_WORLD_SIZE={local_world}",
                    "With the same number of processes on every node, the world size is nodes x processes per node.",
                    solutions=("Check --nnodes and --nproc-per-node (or the scheduler's task counts).",),
                )
            )
        gpus = len(ctx.mapping.ordinals)
        if any(d.spec.type == "cuda" for d in ctx.devices) and gpus and local_world > gpus:
            out.append(
                finding(
                    "env.world-size",
                    Severity.ERROR,
                    f"{local_world} processes per node but only {gpus} visible GPU(s)",
                    "With one rank per GPU, some ranks would share a GPU (NCCL reports a duplicate GPU) or "
                    "ask for an ordinal that does not exist.",
                    entry="nccl-duplicate-gpu",
                    solutions=(f"Start at most {gpus} processes per node (--nproc-per-node={gpus}).",),
                )
            )
    if not out and world is not None:
        out.append(passed("env.world-size", f"WORLD_SIZE={world} is consistent"))
    return out


@check(
    "env.rank-consistency",
    category="rendezvous",
    title="RANK, LOCAL_RANK and the world sizes agree",
    needs=(Need.LAUNCH,),
    entries=("store-based-barrier-timeout",),
)
def check_ranks(ctx: CheckContext) -> list[Finding]:
    """env.rank-consistency: RANK and LOCAL_RANK are whole and below their world sizes."""
    env = ctx.environ
    world, local_world = env_number(env, "WORLD_SIZE"), env_number(env, "LOCAL_WORLD_SIZE")
    rank, local_rank = env_number(env, "RANK"), env_number(env, "LOCAL_RANK")
    out = []
    for name, value in (("RANK", rank), ("LOCAL_RANK", local_rank)):
        if isinstance(value, str):
            out.append(
                _bad("env.rank-consistency", name, value, f"a whole number from 0 to {MAX_WORLD_SIZE - 1}")
            )
    if isinstance(rank, int) and isinstance(world, int) and world and rank >= world:
        out.append(
            finding(
                "env.rank-consistency",
                Severity.ERROR,
                f"RANK={rank} is not below WORLD_SIZE={world}",
                "Ranks run from 0 to WORLD_SIZE-1; this process would wait for a rendezvous slot that does not exist.",
                entry="store-based-barrier-timeout",
                solutions=(
                    "Let the launcher assign RANK, or fix the arithmetic node_rank x nproc_per_node + local_rank.",
                ),
            )
        )
    if (
        isinstance(local_rank, int)
        and isinstance(local_world, int)
        and local_world
        and local_rank >= local_world
    ):
        out.append(
            finding(
                "env.rank-consistency",
                Severity.ERROR,
                f"LOCAL_RANK={local_rank} is not below LOCAL_WORLD_SIZE={local_world}",
                "Local ranks run from 0 to LOCAL_WORLD_SIZE-1 on each node.",
                solutions=("Let torchrun set LOCAL_RANK and LOCAL_WORLD_SIZE.",),
            )
        )
    if isinstance(local_rank, int) and isinstance(rank, int) and local_rank > rank:
        out.append(
            finding(
                "env.rank-consistency",
                Severity.ERROR,
                f"LOCAL_RANK={local_rank} is larger than RANK={rank}",
                "A process's rank on its node cannot exceed its rank in the job.",
                solutions=("Check how the launcher script computes RANK and LOCAL_RANK.",),
            )
        )
    gpus = len(ctx.mapping.ordinals)
    uses_cuda = any(d.spec.type == "cuda" for d in ctx.devices)
    if isinstance(local_rank, int) and uses_cuda and gpus and local_rank >= gpus:
        out.append(
            finding(
                "env.rank-consistency",
                Severity.ERROR,
                f"LOCAL_RANK={local_rank} has no GPU: {gpus} visible",
                f"The usual torch.cuda.set_device(LOCAL_RANK) would ask for cuda:{local_rank}, which does not exist.",
                entry="cuda-invalid-device-ordinal",
                solutions=(
                    f"Start at most {gpus} processes per node, or map local ranks onto the visible GPUs.",
                ),
            )
        )
    if not out and (rank is not None or local_rank is not None):
        out.append(passed("env.rank-consistency", f"RANK={rank}, LOCAL_RANK={local_rank} are consistent"))
    return out


def _resolve(host: str) -> list[str]:
    infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def resolve_host(host: str, timeout: float = RESOLVE_TIMEOUT_S) -> tuple[list[str], str | None]:
    """(addresses, error) for a host name, bounded by `timeout` seconds; reused for RESOLVE_REUSE_S."""
    now = time.monotonic()
    cached = _RESOLVED.get(host)
    if cached is not None and now - cached[0] < RESOLVE_REUSE_S:
        return cached[1], cached[2]
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    try:
        addresses, error = pool.submit(_resolve, host).result(timeout=timeout), None
    except concurrent.futures.TimeoutError:
        addresses, error = [], f"no answer within {timeout:g} s"
    except OSError as exc:
        addresses, error = [], str(exc.strerror or exc)
    except (ValueError, UnicodeError) as exc:  # a NUL byte, a label longer than DNS allows
        addresses, error = [], f"not a host name ({exc})"
    finally:
        pool.shutdown(wait=False)
    _RESOLVED[host] = (now, addresses, error)
    return addresses, error


def _local_addresses() -> set[str]:
    found = {"0.0.0.0", "::"}
    with contextlib.suppress(OSError):
        found.update(_resolve(socket.gethostname()))
    return found


def port_in_use(address: str, port: int) -> str | None:
    """The error text when `address:port` cannot be bound (in use), None when it is free."""
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((address, port))
        except OSError as exc:
            return str(exc.strerror or exc)
    return None


def _needs_master(environ: Mapping[str, str]) -> bool:
    """True when the job needs a rendezvous address: several processes, or MASTER_* given."""
    world = env_number(environ, "WORLD_SIZE")
    return (isinstance(world, int) and world > 1) or "MASTER_ADDR" in environ or "MASTER_PORT" in environ


@check(
    "env.master-addr",
    category="rendezvous",
    title="MASTER_ADDR is set and resolves",
    needs=(Need.LAUNCH,),
    entries=("store-connection-refused", "torchelastic-rendezvous-timeout"),
)
def check_master_addr(ctx: CheckContext) -> list[Finding]:
    """env.master-addr: MASTER_ADDR is set and resolves within RESOLVE_TIMEOUT_S."""
    env = ctx.environ
    if not _needs_master(env):
        return []
    out: list[Finding] = []
    addr = env.get("MASTER_ADDR")
    if not addr:
        out.append(
            finding(
                "env.master-addr",
                Severity.ERROR,
                "MASTER_ADDR is not set",
                "The env:// rendezvous connects every rank to MASTER_ADDR:MASTER_PORT; without it init_process_group fails.",
                entry="store-connection-refused",
                solutions=("Launch with torchrun, or export MASTER_ADDR=<host of rank 0>.",),
            )
        )
    else:
        addresses, error = resolve_host(addr)
        if error is not None:
            out.append(
                finding(
                    "env.master-addr",
                    Severity.ERROR,
                    f"MASTER_ADDR={addr} does not resolve: {error}",
                    "Every rank must resolve MASTER_ADDR to rank 0's host; this one cannot.",
                    entry="store-connection-refused",
                    solutions=(
                        "Use an IP address or a host name that every node resolves (check /etc/hosts and DNS).",
                    ),
                )
            )
        else:
            out.append(passed("env.master-addr", f"MASTER_ADDR={addr} resolves to {', '.join(addresses)}"))
    return out


def _joined_a_group() -> bool:
    """Whether this process already called init_process_group (preflight from a framework's setup hook)."""
    dist = sys.modules.get("torch.distributed")
    try:
        return bool(dist is not None and dist.is_available() and dist.is_initialized())
    except Exception:
        return False


@check(
    "env.master-port",
    category="rendezvous",
    title="MASTER_PORT is a valid port and free on this host",
    needs=(Need.LAUNCH,),
    entries=("address-already-in-use",),
)
def check_master_port(ctx: CheckContext) -> list[Finding]:
    """env.master-port: MASTER_PORT is a port number, and free on rank 0's host when that is this one."""
    env = ctx.environ
    if not _needs_master(env):
        return []
    addr = env.get("MASTER_ADDR")
    addresses = resolve_host(addr)[0] if addr else []
    raw = env.get("MASTER_PORT")
    if raw is None:
        return [
            finding(
                "env.master-port",
                Severity.ERROR,
                "MASTER_PORT is not set",
                "The env:// rendezvous needs MASTER_PORT as well as MASTER_ADDR.",
                entry="store-connection-refused",
                solutions=(
                    "Launch with torchrun, or export MASTER_PORT=29500 (any free port, the same on every rank).",
                ),
            )
        ]
    port = env_number(env, "MASTER_PORT", maximum=65535)
    if not isinstance(port, int) or port == 0:
        return [_bad("env.master-port", "MASTER_PORT", raw, "a port number between 1 and 65535")]
    agent = env.get("TORCHELASTIC_USE_AGENT_STORE", "").lower() == "true"
    valid = passed("env.master-port", f"MASTER_PORT={port} is a valid port")
    if agent or env_number(env, "RANK") not in (None, 0) or not addresses or _joined_a_group():
        # the port is the agent's or rank 0's to hold, MASTER_ADDR names no host, or this job holds it
        return [valid]
    own = _local_addresses()
    local = [a for a in addresses if a in own or ipaddress.ip_address(a.split("%")[0]).is_loopback]
    if not local:
        return [valid]
    busy = port_in_use(local[0], port)
    if busy is None:
        return [passed("env.master-port", f"MASTER_PORT={port} is free on {local[0]}")]
    return [
        finding(
            "env.master-port",
            Severity.ERROR,
            f"MASTER_PORT={port} is already in use on {local[0]}",
            f"Binding {local[0]}:{port} failed ({busy}); rank 0's store could not listen there. "
            "A previous run that did not exit, or another job on this host, holds the port.",
            entry="address-already-in-use",
            solutions=(
                "Pick another port (torchrun --master-port, or MASTER_PORT), or --rdzv-endpoint=host:0 for a free one.",
                "Find the holder with `ss -ltnp | grep :PORT` and stop a leftover run.",
            ),
            data={"port": port, "address": local[0]},
        )
    ]
