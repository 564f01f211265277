"""Four ways a data-parallel job hangs without a word: rank 1 goes astray at step 3, rank 0 waits.

`python hang.py MODE` under torchrun (two ranks, gloo, a collective timeout of ten minutes so the
job really hangs):

- `sleep`: rank 1 sleeps before its all_reduce;
- `dataloader`: rank 1's data-loader worker blocks while producing batch 3;
- `broadcast`: rank 1 calls broadcast while rank 0 calls all_reduce;
- `early-exit`: rank 1 leaves the loop early and waits in barrier while rank 0 all-reduces.

The script is self-contained so that its frames are the user's code wherever it lies.
"""

from __future__ import annotations

import datetime
import sys
import time
from typing import Any

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset

MODES = ("sleep", "dataloader", "broadcast", "early-exit")
STUCK_STEP = 3
HANG_TIMEOUT = datetime.timedelta(minutes=10)


class Batches(Dataset[tuple[Any, Any]]):
    """Deterministic batches; with `stall`, producing batch STUCK_STEP never finishes."""

    def __init__(self, rank: int, stall: bool) -> None:
        self.rank = rank
        self.stall = stall

    def __len__(self) -> int:
        return 6

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        if self.stall and index + 1 == STUCK_STEP:
            time.sleep(3600)  # rank 1's worker: a read that never returns
        generator = torch.Generator().manual_seed(1000 * self.rank + index)
        inputs = torch.randn(8, 4, generator=generator)
        return inputs, inputs.sum(dim=1, keepdim=True).tanh()


def train_step(weights: Any, inputs: Any, targets: Any) -> None:
    """One least-squares step with the gradient all-reduced over the ranks."""
    grad = inputs.t() @ (inputs @ weights - targets) / len(inputs)
    dist.all_reduce(grad)  # rank 0 waits here for rank 1
    weights -= 0.05 * grad


def train(mode: str) -> None:
    """Train until rank 1 goes astray at step STUCK_STEP."""
    torch.set_num_threads(1)
    dist.init_process_group("gloo", timeout=HANG_TIMEOUT)
    rank = dist.get_rank()
    weights = torch.zeros(4, 1)
    stall = mode == "dataloader" and rank == 1
    loader = DataLoader(Batches(rank, stall), batch_size=None, num_workers=1 if mode == "dataloader" else 0)
    for step, (inputs, targets) in enumerate(loader, 1):
        if rank == 1 and step == STUCK_STEP:
            if mode == "sleep":
                time.sleep(3600)  # rank 1 never reaches the all_reduce
            elif mode == "broadcast":
                dist.broadcast(weights, src=0)  # rank 1 broadcasts, rank 0 all-reduces
            elif mode == "early-exit":
                break  # rank 1 leaves the loop; rank 0 still all-reduces
        train_step(weights, inputs, targets)
        print(f"rank {rank} step {step}", flush=True)
    dist.barrier()  # rank 1 (early-exit) waits here
    dist.destroy_process_group()


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in MODES:
        sys.exit(f"usage: hang.py {{{','.join(MODES)}}}")
    train(sys.argv[1])
