"""Rank 1's shard holds fewer batches than rank 0's; it finishes its epoch and leaves first.

Rank 0's next gradient all-reduce has no peer: gloo reports the closed connection (or waits out
the 5 s timeout). Rank 1 exits cleanly. No `@record`.
"""

import tiny_ddp
import torch
from torch.utils.data import DataLoader, Dataset


class Shard(Dataset[tuple[torch.Tensor, torch.Tensor]]):
    """This rank's part of the data set (split by file, so the shards differ in size)."""

    def __init__(self, rank: int) -> None:
        self.items = [tiny_ddp.batch(rank, i) for i in range(5 if rank == 0 else 3)]

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        return self.items[index]


def main() -> None:
    """Train one epoch over this rank's shard."""
    rank = tiny_ddp.start()
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    for step, (inputs, targets) in enumerate(DataLoader(Shard(rank), batch_size=None), start=1):
        loss = tiny_ddp.loss_of(model, inputs, targets)
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
    print(f"rank {rank} finished the epoch", flush=True)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
