"""A job that trains three steps and exits cleanly (the port-in-use scenario never gets to run it)."""

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
        train_step(weights, inputs, targets)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
