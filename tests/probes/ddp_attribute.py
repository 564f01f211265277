"""Rank 0 logs a hyper-parameter through the DDP wrapper (`model.head_dim`), which DDP does not forward.

Only rank 0 logs, so only rank 0 raises `AttributeError`; rank 1 waits in its first gradient
all-reduce and fails as a victim. `@record` is on main().
"""

import tiny_ddp
from torch import nn
from torch.distributed.elastic.multiprocessing.errors import record


class Regressor(nn.Sequential):
    """The tiny model with a hyper-parameter kept as an attribute."""

    def __init__(self) -> None:
        super().__init__(nn.Linear(tiny_ddp.FEATURES, 8), nn.ReLU(), nn.Linear(8, 1))
        self.head_dim = 8


@record
def main() -> None:
    """Train a few steps; rank 0 logs the model's head size first."""
    rank = tiny_ddp.start()
    model = tiny_ddp.DistributedDataParallel(Regressor())
    optimizer = tiny_ddp.optimizer_for(model)
    if rank == 0:
        tiny_ddp.log.info("head_dim=%d", model.head_dim)
    for step in range(1, tiny_ddp.STEPS + 1):
        loss = tiny_ddp.loss_of(model, *tiny_ddp.batch(rank, step))
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
