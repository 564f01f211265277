"""The launch environment (`env.*` checks) and the versions `ddpdoctor env` reports.

The checks apply to a distributed launch (RANK, WORLD_SIZE, MASTER_ADDR ... set, as torchrun, srun
wrappers or Accelerate do) and stay silent otherwise.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import ipaddress
import platform
import socket
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

from ddpdoctor import __version__
from ddpdoctor.check.base import CheckContext, finding, passed
from ddpdoctor.devices import Inventory, TorchProbe, format_size, nvml_driver_version, torch_nccl_version
from ddpdoctor.findings import Finding, Severity
from ddpdoctor.present.document import Document, Fields, Heading, Table, Text

LAUNCH_VARS: tuple[str, ...] = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT")
RESOLVE_TIMEOUT_S = 3.0
ENV_SCHEMA = "ddpdoctor.env/1"
# Variables worth showing in a bug report; values of other variables are never printed.
REPORTED_PREFIXES: tuple[str, ...] = (
    "CUDA_",
    "NCCL_",
    "TORCH_",
    "TORCHELASTIC_",
    "GLOO_",
    "OMP_",
    "PYTORCH_",
    "BURN_",
)
REPORTED_NAMES: tuple[str, ...] = (
    *LAUNCH_VARS,
    "LOCAL_WORLD_SIZE",
    "GROUP_RANK",
    "NODE_RANK",
    "SLURM_PROCID",
    "SLURM_NTASKS",
    "SLURM_LOCALID",
    "RUST_BACKTRACE",
)


def _int(environ: Mapping[str, str], name: str) -> int | str | None:
    """The variable as an int, None when unset, or the raw text when it is not a non-negative int."""
    raw = environ.get(name)
    if raw is None:
        return None
    text = raw.strip()
    return int(text) if text.isdigit() else raw


def _bad(check_id: str, name: str, raw: str, what: str) -> Finding:
    return finding(
        check_id,
        Severity.ERROR,
        f"{name}={raw!r} is not {what}",
        f"torch.distributed reads {name} as {what}.",
        solutions=(f"Set {name} to {what}, or let the launcher (torchrun) set it.",),
    )


def _sizes(ctx: CheckContext) -> list[Finding]:
    env = ctx.environ
    world, local_world = _int(env, "WORLD_SIZE"), _int(env, "LOCAL_WORLD_SIZE")
    out = []
    if isinstance(world, str) or world == 0:
        out.append(_bad("env.world-size", "WORLD_SIZE", str(world), "a positive integer"))
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
        out.append(_bad("env.world-size", "LOCAL_WORLD_SIZE", str(local_world), "a positive integer"))
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


def _ranks(ctx: CheckContext) -> list[Finding]:
    env = ctx.environ
    world, local_world = _int(env, "WORLD_SIZE"), _int(env, "LOCAL_WORLD_SIZE")
    rank, local_rank = _int(env, "RANK"), _int(env, "LOCAL_RANK")
    out = []
    for name, value in (("RANK", rank), ("LOCAL_RANK", local_rank)):
        if isinstance(value, str):
            out.append(_bad("env.rank-consistency", name, value, "a non-negative integer"))
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
    """(addresses, error) for a host name, bounded by `timeout` seconds."""
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    try:
        return pool.submit(_resolve, host).result(timeout=timeout), None
    except concurrent.futures.TimeoutError:
        return [], f"no answer within {timeout:g} s"
    except OSError as exc:
        return [], str(exc.strerror or exc)
    finally:
        pool.shutdown(wait=False)


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


def _master(ctx: CheckContext) -> list[Finding]:
    env = ctx.environ
    world = _int(env, "WORLD_SIZE")
    needed = (isinstance(world, int) and world > 1) or "MASTER_ADDR" in env or "MASTER_PORT" in env
    if not needed:
        return []
    out: list[Finding] = []
    addr = env.get("MASTER_ADDR")
    addresses: list[str] = []
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
    out += _port(ctx, addresses)
    return out


def _port(ctx: CheckContext, addresses: list[str]) -> list[Finding]:
    env = ctx.environ
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
    text = raw.strip()
    if not text.isdigit() or not 0 < int(text) < 65536:
        return [_bad("env.master-port", "MASTER_PORT", raw, "a port number between 1 and 65535")]
    port = int(text)
    agent = env.get("TORCHELASTIC_USE_AGENT_STORE", "").lower() == "true"
    valid = passed("env.master-port", f"MASTER_PORT={port} is a valid port")
    if agent or _int(env, "RANK") not in (None, 0) or not addresses:
        return [valid]  # the port is the agent's or rank 0's to hold, or MASTER_ADDR names no host
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


def env_findings(ctx: CheckContext) -> list[Finding]:
    """env.*: only when launch variables are present."""
    if not any(name in ctx.environ for name in LAUNCH_VARS):
        return []
    return [*_master(ctx), *_ranks(ctx), *_sizes(ctx)]


# --- `ddpdoctor env` --------------------------------------------------------------------------


@dataclass
class EnvReport:
    """Versions, the machine's inventory and the relevant environment variables."""

    versions: dict[str, str | None]
    inventory: Inventory | None
    variables: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON form; `inventory` can be passed back to `check --inventory`."""
        return {
            "schema": ENV_SCHEMA,
            "versions": self.versions,
            "inventory": None if self.inventory is None else self.inventory.to_dict(),
            "variables": self.variables,
            "problems": self.problems,
        }

    def to_document(self) -> Document:
        """Versions, GPUs and variables as text blocks."""
        doc: Document = [Heading("Versions"), Fields(tuple((k, v or "-") for k, v in self.versions.items()))]
        inv = self.inventory
        if inv is not None:
            doc.append(Heading("Devices"))
            rows = tuple(
                (
                    str(g.index),
                    g.name,
                    format_size(g.memory_free),
                    format_size(g.memory_total),
                    g.uuid,
                    g.pci_bus_id,
                )
                for g in inv.gpus
            )
            if rows:
                doc.append(Table(("gpu", "name", "free", "total", "uuid", "pci"), rows))
            doc.append(
                Fields(
                    (
                        ("cpus", str(inv.cpu_count)),
                        ("/dev/shm", f"{format_size(inv.shm_free)} free of {format_size(inv.shm_total)}"),
                        ("backends", ", ".join(inv.backends) or "none"),
                        ("source", inv.source),
                    )
                )
            )
        if self.variables:
            doc += [Heading("Environment"), Fields(tuple(self.variables.items()))]
        for problem in self.problems:
            doc.append(Text(problem, tone="warning"))
        return doc


def _package(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _torch_versions(versions: dict[str, str | None]) -> None:
    import torch

    versions["torch"] = str(torch.__version__)
    versions["cuda (torch build)"] = torch.version.cuda
    versions["hip (torch build)"] = getattr(torch.version, "hip", None)
    cudnn = getattr(torch.backends, "cudnn", None)
    try:
        versions["cudnn"] = str(cudnn.version()) if cudnn is not None and cudnn.is_available() else None
    except Exception:
        versions["cudnn"] = None
    versions["nccl"] = torch_nccl_version(torch)


def collect_environment(environ: Mapping[str, str]) -> EnvReport:
    """Everything a bug report needs: ddpdoctor, Python, torch, CUDA, cuDNN, NCCL, driver, devices."""
    versions: dict[str, str | None] = {
        "ddpdoctor": __version__,
        "python": f"{platform.python_version()} ({sys.executable})",
        "platform": platform.platform(),
    }
    problems: list[str] = []
    inventory: Inventory | None = None
    try:
        _torch_versions(versions)
    except ImportError:
        versions["torch"] = None
        problems.append("torch is not installed: install torch to see CUDA, NCCL and device details.")
    else:
        try:
            inventory = TorchProbe().inventory()
        except Exception as exc:  # a broken driver or CUDA set-up is exactly what `env` is run to show
            problems.append(f"reading the devices failed: {type(exc).__name__}: {exc}")
    versions["driver"] = nvml_driver_version()
    versions["pynvml"] = _package("nvidia-ml-py") or _package("pynvml")
    variables = {
        k: v for k, v in sorted(environ.items()) if k in REPORTED_NAMES or k.startswith(REPORTED_PREFIXES)
    }
    return EnvReport(versions, inventory, variables, problems)
