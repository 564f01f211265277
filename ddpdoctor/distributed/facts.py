"""What each rank knows about itself, in a form that travels through the rendezvous store as JSON."""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ddpdoctor.check.base import ResolvedDevice
from ddpdoctor.distributed.launch import LaunchInfo
from ddpdoctor.findings import Evidence, Finding, Severity

# Settings that change how ranks talk to each other; they should agree on every rank.
SHARED_ENV_PREFIXES: tuple[str, ...] = ("NCCL_", "TORCH_NCCL_", "GLOO_", "TORCH_DISTRIBUTED_")
# Also recorded (they may differ per rank by design).
RECORDED_ENV: tuple[str, ...] = (
    "CUDA_VISIBLE_DEVICES",
    "MASTER_ADDR",
    "MASTER_PORT",
    "LOCAL_WORLD_SIZE",
    "OMP_NUM_THREADS",
    "TORCH_CPP_LOG_LEVEL",
)


@dataclass(frozen=True)
class RankFacts:
    """One rank's host, numbers, device (with the GPU's identity and free memory), versions and settings."""

    rank: int
    local_rank: int
    world_size: int
    local_world_size: int | None
    node_rank: int | None
    host: str
    pid: int
    device: str
    device_type: str
    gpu: Mapping[str, Any] | None
    versions: Mapping[str, str | None]
    env: Mapping[str, str]
    inventory: str
    findings: tuple[Finding, ...] = field(default=())

    @property
    def gpu_uuid(self) -> str | None:
        """The GPU's UUID, when the device is a GPU the probe could identify."""
        return None if self.gpu is None else str(self.gpu.get("uuid") or "") or None

    @property
    def memory_free(self) -> int | None:
        """Free memory of the rank's GPU in bytes, when known."""
        value = None if self.gpu is None else self.gpu.get("memory_free")
        return value if isinstance(value, int) else None

    def to_dict(self, *, with_findings: bool = False) -> dict[str, Any]:
        """JSON form (the report's `ranks` entries); `with_findings` adds the rank's own findings."""
        out: dict[str, Any] = {
            "rank": self.rank,
            "local_rank": self.local_rank,
            "world_size": self.world_size,
            "local_world_size": self.local_world_size,
            "node_rank": self.node_rank,
            "host": self.host,
            "pid": self.pid,
            "device": self.device,
            "device_type": self.device_type,
            "gpu": None if self.gpu is None else dict(self.gpu),
            "versions": dict(self.versions),
            "env": dict(self.env),
            "inventory": self.inventory,
        }
        if with_findings:
            out["findings"] = [f.to_dict() for f in self.findings]
        return out

    def to_json(self) -> str:
        """Wire form, findings included."""
        return json.dumps(self.to_dict(with_findings=True))

    @classmethod
    def from_json(cls, text: str) -> RankFacts:
        """Read the wire form written by :meth:`to_json`."""
        data = json.loads(text)
        return cls(
            rank=int(data["rank"]),
            local_rank=int(data["local_rank"]),
            world_size=int(data["world_size"]),
            local_world_size=data.get("local_world_size"),
            node_rank=data.get("node_rank"),
            host=str(data["host"]),
            pid=int(data["pid"]),
            device=str(data["device"]),
            device_type=str(data["device_type"]),
            gpu=data.get("gpu"),
            versions=dict(data.get("versions", {})),
            env=dict(data.get("env", {})),
            inventory=str(data.get("inventory", "")),
            findings=tuple(finding_from_dict(f) for f in data.get("findings", [])),
        )


@dataclass(frozen=True)
class JobFacts:
    """What rank 0 compares: the facts of the ranks that joined (in rank order) and the expected world size."""

    ranks: tuple[RankFacts, ...]
    world_size: int


def finding_from_dict(data: Mapping[str, Any]) -> Finding:
    """Rebuild a Finding from its `to_dict` form (findings travel between ranks as JSON)."""
    return Finding(
        id=str(data["id"]),
        severity=Severity(data["severity"]),
        category=str(data["category"]),
        title=str(data["title"]),
        message=str(data.get("message", "")),
        rank=data.get("rank"),
        device=data.get("device"),
        evidence=tuple(
            Evidence(str(e["text"]), e.get("file"), e.get("line")) for e in data.get("evidence", [])
        ),
        entry=data.get("entry"),
        solutions=tuple(str(s) for s in data.get("solutions", [])),
        data=dict(data.get("data", {})),
    )


def relevant_env(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment variables that matter to a distributed job, sorted by name."""
    keep = {k: v for k, v in environ.items() if k in RECORDED_ENV or k.startswith(SHARED_ENV_PREFIXES)}
    return dict(sorted(keep.items()))


def gather_facts(
    launch: LaunchInfo,
    device: ResolvedDevice,
    *,
    environ: Mapping[str, str],
    inventory_source: str,
    versions: Mapping[str, str | None],
    findings: tuple[Finding, ...] = (),
) -> RankFacts:
    """This rank's facts from its launch numbers, resolved device, versions and environment."""
    return RankFacts(
        rank=launch.rank,
        local_rank=launch.local_rank,
        world_size=launch.world_size,
        local_world_size=launch.local_world_size,
        node_rank=launch.node_rank,
        host=socket.gethostname(),
        pid=os.getpid(),
        device=device.label,
        device_type=device.spec.type,
        gpu=device.to_dict()["gpu"],
        versions=dict(versions),
        env=relevant_env(environ),
        inventory=inventory_source,
        findings=findings,
    )
