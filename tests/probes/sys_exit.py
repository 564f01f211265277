"""Rank 1 calls `sys.exit(3)` before step 3 and prints nothing; rank 0 fails in its next all-reduce.

`@record` is on main(), but it writes no error file for `SystemExit`, only for the victim's error.
"""

import sys

import tiny_ddp
import torch.distributed as dist
from torch.distributed.elastic.multiprocessing.errors import record


@record
def main() -> None:
    """Train a few steps; rank 1 leaves with exit status 3 before step 3."""
    rank = tiny_ddp.start()
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    for step in range(1, tiny_ddp.STEPS + 1):
        if rank == 1 and step == 3:
            dist.destroy_process_group()
            sys.exit(3)
        loss = tiny_ddp.loss_of(model, *tiny_ddp.batch(rank, step))
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
