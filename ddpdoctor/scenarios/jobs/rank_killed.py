"""Rank 1 is killed with SIGKILL at step 2, the way the kernel's OOM killer ends a process."""

from __future__ import annotations

import os
import signal

import torch

from ddpdoctor.scenarios.jobs.common import batch, init, train_step


def main() -> None:
    """Train three steps on this rank."""
    rank = init()
    weights = torch.zeros(4, 1)
    for step in range(1, 4):
        if rank == 1 and step == 2:
            os.kill(os.getpid(), signal.SIGKILL)
        inputs, targets = batch(rank, step)
        train_step(weights, inputs, targets)
        print(f"rank {rank} step {step}", flush=True)


if __name__ == "__main__":
    main()
