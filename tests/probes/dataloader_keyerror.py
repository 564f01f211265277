"""Rank 1's shard lists a sample id that its table lacks; `__getitem__` raises KeyError in a worker.

The DataLoader (two workers) re-raises it in the main process as `KeyError: Caught KeyError in
DataLoader worker process 0.` with the original traceback. No `@record`.
"""

import tiny_ddp
import torch
from torch.utils.data import DataLoader, Dataset


class Samples(Dataset[tuple[torch.Tensor, torch.Tensor]]):
    """Samples looked up by id; rank 1's id list has a stale id."""

    def __init__(self, rank: int) -> None:
        self.table = {f"s{rank}-{i}": tiny_ddp.batch(rank, i) for i in range(4)}
        self.ids = list(self.table)
        if rank == 1:
            self.ids[2] = "s1-deleted"

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        return self.table[self.ids[index]]


def main() -> None:
    """Train one epoch over this rank's samples."""
    rank = tiny_ddp.start()
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    loader = DataLoader(Samples(rank), batch_size=None, num_workers=2)
    for step, (inputs, targets) in enumerate(loader, start=1):
        loss = tiny_ddp.loss_of(model, inputs, targets)
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
