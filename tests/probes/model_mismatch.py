"""Rank 1 reads a stale config and builds its model one hidden layer wider than rank 0's.

DistributedDataParallel checks at wrap time that every rank holds parameters of the same shapes;
the check fails before the first step. `@record` is on main().
"""

import tiny_ddp
from torch import nn
from torch.distributed.elastic.multiprocessing.errors import record
from torch.nn.parallel import DistributedDataParallel


def hidden_size(rank: int) -> int:
    """The hidden width from this rank's config (rank 1's copy of the config is stale)."""
    return 16 if rank == 1 else 8


@record
def main() -> None:
    """Build the model from the config and train a few steps."""
    rank = tiny_ddp.start()
    width = hidden_size(rank)
    model = DistributedDataParallel(
        nn.Sequential(nn.Linear(tiny_ddp.FEATURES, width), nn.ReLU(), nn.Linear(width, 1))
    )
    optimizer = tiny_ddp.optimizer_for(model)
    for step in range(1, tiny_ddp.STEPS + 1):
        loss = tiny_ddp.loss_of(model, *tiny_ddp.batch(rank, step))
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
