"""A model converted to SyncBatchNorm is trained on CPU tensors over gloo.

SyncBatchNorm has no CPU implementation: DistributedDataParallel refuses to wrap the model on every
rank alike (`ValueError: SyncBatchNorm layers only work with GPU modules`). No `@record`.
"""

import tiny_ddp
from torch import nn
from torch.nn.parallel import DistributedDataParallel


def main() -> None:
    """Build the model with synchronised batch norm and train a few steps."""
    rank = tiny_ddp.start()
    body = nn.Sequential(nn.Linear(tiny_ddp.FEATURES, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 1))
    model = DistributedDataParallel(nn.SyncBatchNorm.convert_sync_batchnorm(body))
    optimizer = tiny_ddp.optimizer_for(model)
    for step in range(1, tiny_ddp.STEPS + 1):
        loss = tiny_ddp.loss_of(model, *tiny_ddp.batch(rank, step))
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
