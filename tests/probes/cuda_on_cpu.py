"""The script moves its model to "cuda" on a machine whose torch build has no CUDA: every rank fails.

`@record` is on main().
"""

import tiny_ddp
import torch
from torch import nn
from torch.distributed.elastic.multiprocessing.errors import record
from torch.nn.parallel import DistributedDataParallel


@record
def main() -> None:
    """Put the model on the GPU, wrap it and train a few steps."""
    rank = tiny_ddp.start()
    device = torch.device("cuda", 0)
    module = nn.Sequential(nn.Linear(tiny_ddp.FEATURES, 8), nn.ReLU(), nn.Linear(8, 1)).to(device)
    model = DistributedDataParallel(module)
    optimizer = tiny_ddp.optimizer_for(model)
    for step in range(1, tiny_ddp.STEPS + 1):
        loss = tiny_ddp.loss_of(model, *(t.to(device) for t in tiny_ddp.batch(rank, step)))
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
