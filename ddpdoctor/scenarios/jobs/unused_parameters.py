"""DDP with a branch that one rank never uses: rank 1's batches carry no auxiliary target, so
its auxiliary head gets no gradient and DDP (without `find_unused_parameters=True`) fails."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn, optim
from torch.nn.parallel import DistributedDataParallel

from ddpdoctor.scenarios.jobs.common import batch, init


class TwoHeads(nn.Module):
    """A trunk with a main head and an auxiliary head that only some batches use."""

    def __init__(self) -> None:
        super().__init__()
        self.trunk = nn.Linear(4, 8)
        self.head = nn.Linear(8, 1)
        self.aux_head = nn.Linear(8, 1)

    def forward(self, inputs: Any, with_aux: bool) -> Any:
        """The main output, plus the auxiliary head's when `with_aux`."""
        hidden = self.trunk(inputs).tanh()
        out = self.head(hidden)
        return out + self.aux_head(hidden) if with_aux else out


def main() -> None:
    """Train three steps on this rank."""
    rank = init()
    model = DistributedDataParallel(TwoHeads())
    optimizer = optim.SGD(model.parameters(), lr=0.05)
    for step in range(1, 4):
        inputs, targets = batch(rank, step)
        loss = nn.functional.mse_loss(model(inputs, with_aux=rank == 0), targets)
        torch.autograd.backward([loss])
        optimizer.step()
        optimizer.zero_grad()
        print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)


if __name__ == "__main__":
    main()
