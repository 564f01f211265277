"""Rank 0 saves a checkpoint after step 1 into a folder that does not exist and raises; rank 1
waits in the next all-reduce for a peer that is gone."""

from __future__ import annotations

import sys

import torch

from ddpdoctor.scenarios.jobs.common import batch, init, train_step


def main() -> None:
    """Train three steps on this rank."""
    rank = init()
    checkpoint_dir = sys.argv[1]
    weights = torch.zeros(4, 1)
    for step in range(1, 4):
        inputs, targets = batch(rank, step)
        train_step(weights, inputs, targets)
        if rank == 0:
            torch.save({"weights": weights, "step": step}, f"{checkpoint_dir}/step-{step}.pt")
        print(f"rank {rank} step {step}", flush=True)


if __name__ == "__main__":
    main()
