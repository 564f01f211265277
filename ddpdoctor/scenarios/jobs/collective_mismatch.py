"""Rank 0 all-reduces a logging metric that rank 1 skips, so the next collective differs between
ranks; with TORCH_DISTRIBUTED_DEBUG=DETAIL torch checks every collective and names the mismatch."""

from __future__ import annotations

import torch
import torch.distributed as dist

from ddpdoctor.scenarios.jobs.common import batch, init, train_step


def main() -> None:
    """Train three steps on this rank."""
    rank = init()
    weights = torch.zeros(4, 1)
    for step in range(1, 4):
        inputs, targets = batch(rank, step)
        loss = ((inputs @ weights - targets) ** 2).mean()
        if rank == 0:
            # Only rank 0 logs the mean loss: the other ranks never enter this all_reduce.
            dist.all_reduce(loss.detach().reshape(1))
        train_step(weights, inputs, targets)
        print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)


if __name__ == "__main__":
    main()
