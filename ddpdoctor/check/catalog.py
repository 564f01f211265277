"""Every check `ddpdoctor check` can report, by id; importing this module never imports torch.

`kb lint` validates the `checks:` of knowledge-base entries against :data:`CHECK_IDS`, and
`ddpdoctor check --list` prints this table.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CheckSpec:
    """One check: its id, the category of what it catches, and what it looks at."""

    id: str
    category: str
    title: str
    needs: str = ""

    @property
    def area(self) -> str:
        """The namespace before the dot: device, memory, dataloader, backend, env, dist or collective."""
        return self.id.split(".", 1)[0]

    def to_dict(self) -> dict[str, str]:
        """JSON form for `check --list --format json`."""
        return {
            "id": self.id,
            "area": self.area,
            "category": self.category,
            "title": self.title,
            "needs": self.needs,
        }


CHECKS: tuple[CheckSpec, ...] = (
    CheckSpec(
        "device.duplicate",
        "duplicate_device",
        "a device appears twice (also through aliases, CUDA_VISIBLE_DEVICES or the same UUID)",
    ),
    CheckSpec(
        "device.unavailable",
        "invalid_device",
        "a requested device type is not present or not usable by torch",
    ),
    CheckSpec(
        "device.out-of-range", "invalid_device", "a device ordinal is not below the number of visible devices"
    ),
    CheckSpec("device.mixed-types", "invalid_device", "the list mixes device types (e.g. CUDA and CPU)"),
    CheckSpec("device.busy", "cuda_error", "another process already holds the GPU", "NVML"),
    CheckSpec(
        "device.exclusive-mode", "cuda_error", "the GPU's compute mode forbids another context", "NVML"
    ),
    CheckSpec(
        "device.visible-mapping", "invalid_device", "how CUDA_VISIBLE_DEVICES maps ordinals to physical GPUs"
    ),
    CheckSpec(
        "memory.free-below-minimum", "oom_gpu", "a GPU has less free memory than --min-free", "--min-free"
    ),
    CheckSpec(
        "memory.main-device-headroom",
        "oom_gpu",
        "the main device (devices[0]) has less free memory than the others",
    ),
    CheckSpec(
        "memory.model-step",
        "oom_gpu",
        "one forward/backward step at --batch-size fits in free memory",
        "--model, --batch-size",
    ),
    CheckSpec(
        "dataloader.first-batch",
        "dataloader",
        "the data loader produces its first batches without an error",
        "--dataloader",
    ),
    CheckSpec(
        "dataloader.timeout", "dataloader", "the first batches arrive within --timeout", "--dataloader"
    ),
    CheckSpec(
        "dataloader.num-workers",
        "dataloader",
        "num_workers across all ranks against the CPU count",
        "--dataloader",
    ),
    CheckSpec(
        "dataloader.shm", "dataloader", "/dev/shm is large enough for the workers' batches", "--dataloader"
    ),
    CheckSpec(
        "dataloader.uneven-batches",
        "collective_timeout",
        "every rank gets the same number of batches",
        "--dataloader",
    ),
    CheckSpec("backend.nccl-for-cuda", "backend_unsupported", "CUDA devices communicate through NCCL"),
    CheckSpec("backend.gloo-for-cpu", "backend_unsupported", "CPU devices communicate through gloo"),
    CheckSpec(
        "backend.unavailable",
        "backend_unsupported",
        "the chosen communication backend is built into torch and supports the devices",
    ),
    CheckSpec("env.master-addr", "rendezvous", "MASTER_ADDR is set and resolves", "a distributed launch"),
    CheckSpec(
        "env.master-port",
        "rendezvous",
        "MASTER_PORT is a valid port and free on this host",
        "a distributed launch",
    ),
    CheckSpec(
        "env.rank-consistency",
        "rendezvous",
        "RANK, LOCAL_RANK and the world sizes agree",
        "a distributed launch",
    ),
    CheckSpec(
        "env.world-size",
        "rendezvous",
        "WORLD_SIZE is valid and matches the devices of this node",
        "a distributed launch",
    ),
    # Checks only `check --distributed` makes: the job as a whole, and the collectives it tests.
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
        "NCCL_*, GLOO_*, TORCH_NCCL_* and TORCH_DISTRIBUTED_* settings are the same on every rank",
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

CHECK_IDS: frozenset[str] = frozenset(c.id for c in CHECKS)
BY_ID: dict[str, CheckSpec] = {c.id: c for c in CHECKS}
