"""Rank 1's DataLoader workers read from a slow mount; the loader's 2 s timeout expires.

The main process raises `RuntimeError: DataLoader timed out after 2 seconds`; rank 0 is left in
the gradient all-reduce. No `@record`.
"""

import time

import tiny_ddp
import torch
from torch.utils.data import DataLoader, Dataset


class RemoteSamples(Dataset[tuple[torch.Tensor, torch.Tensor]]):
    """Samples read from network storage (rank 1's mount has stalled)."""

    def __init__(self, rank: int) -> None:
        self.rank = rank

    def __len__(self) -> int:
        return 8

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        if self.rank == 1 and index >= 2:
            time.sleep(30)
        return tiny_ddp.batch(self.rank, index)


def main() -> None:
    """Train one epoch, giving up on a batch that takes over 2 s to load."""
    rank = tiny_ddp.start()
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    loader = DataLoader(RemoteSamples(rank), batch_size=None, num_workers=1, timeout=2)
    for step, (inputs, targets) in enumerate(loader, start=1):
        loss = tiny_ddp.loss_of(model, inputs, targets)
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
