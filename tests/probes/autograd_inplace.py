"""Rank 1's batches carry a padding mask; its forward masks the sigmoid output in place.

Backward then finds a tensor it saved modified: `RuntimeError: one of the variables needed for
gradient computation has been modified by an inplace operation`. Rank 0 waits in the gradient
all-reduce until torchrun stops it. No `@record`.
"""

import tiny_ddp
import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel


class GatedRegressor(nn.Module):
    """A linear layer gated by a sigmoid; padded items are masked out of the gate."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = nn.Linear(tiny_ddp.FEATURES, 1)
        self.value = nn.Linear(tiny_ddp.FEATURES, 1)

    def forward(self, inputs: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        gate = torch.sigmoid(self.gate(inputs))
        if mask is not None:
            gate.mul_(mask)
        return gate * self.value(inputs)


def main() -> None:
    """Train a few steps; rank 1's data is padded."""
    rank = tiny_ddp.start()
    model = DistributedDataParallel(GatedRegressor())
    optimizer = tiny_ddp.optimizer_for(model)
    for step in range(1, tiny_ddp.STEPS + 1):
        inputs, targets = tiny_ddp.batch(rank, step)
        mask = torch.ones(len(inputs), 1) if rank == 1 else None
        loss = nn.functional.mse_loss(model(inputs, mask), targets)
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
