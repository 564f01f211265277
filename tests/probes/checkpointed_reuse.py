"""A shared block is applied twice through reentrant activation checkpointing, under
DDP(find_unused_parameters=True).

Its parameters are marked ready twice in one backward: `RuntimeError: Expected to mark a variable
ready only once` on every rank. No `@record`.
"""

import tiny_ddp
import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.checkpoint import checkpoint


class SharedBlockModel(nn.Module):
    """An input layer, one block applied twice (weights shared), and a head."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Linear(tiny_ddp.FEATURES, 8)
        self.block = nn.Sequential(nn.Linear(8, 8), nn.ReLU())
        self.head = nn.Linear(8, 1)

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        hidden = self.embed(inputs)
        for _ in range(2):
            hidden = checkpoint(self.block, hidden, use_reentrant=True)
        return self.head(hidden)


def main() -> None:
    """Train a few steps."""
    rank = tiny_ddp.start()
    model = DistributedDataParallel(SharedBlockModel(), find_unused_parameters=True)
    optimizer = tiny_ddp.optimizer_for(model)
    for step in range(1, tiny_ddp.STEPS + 1):
        loss = tiny_ddp.loss_of(model, *tiny_ddp.batch(rank, step))
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
