"""The model's auxiliary head is used only on even steps; DDP was not told to expect unused parameters.

Step 1 skips the head on every rank, so the reducer never finishes that step's reduction and step 2's
forward raises "Expected to have finished reduction in the prior iteration" on both ranks alike.
`@record` is on main().
"""

import tiny_ddp
import torch
from torch import nn
from torch.distributed.elastic.multiprocessing.errors import record
from torch.nn.parallel import DistributedDataParallel


class TwoHeads(nn.Module):
    """A body, a main head and an auxiliary head that only some steps use."""

    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(tiny_ddp.FEATURES, 8), nn.ReLU())
        self.head = nn.Linear(8, 1)
        self.aux_head = nn.Linear(8, 1)

    def forward(self, inputs: torch.Tensor, use_aux: bool) -> torch.Tensor:
        hidden = self.body(inputs)
        out = self.head(hidden)
        if use_aux:
            out = out + 0.1 * self.aux_head(hidden)
        return out


@record
def main() -> None:
    """Train a few steps, adding the auxiliary loss only on even steps."""
    rank = tiny_ddp.start()
    model = DistributedDataParallel(TwoHeads())
    optimizer = tiny_ddp.optimizer_for(model)
    for step in range(1, tiny_ddp.STEPS + 1):
        inputs, targets = tiny_ddp.batch(rank, step)
        loss = nn.functional.mse_loss(model(inputs, use_aux=step % 2 == 0), targets)
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
