"""Rank 1 ends itself with exit status 3 before step 3 and prints nothing; rank 0 fails in its next all-reduce.

It exits with `os._exit(3)`: a `sys.exit(3)` under DDP sometimes aborts during interpreter teardown
(`terminate called without an active exception`, SIGABRT), even after destroy_process_group(), so
the exit status would differ between runs. `@record` is on main(); only rank 0 writes an error file.
"""

import os

import tiny_ddp
from torch.distributed.elastic.multiprocessing.errors import record


@record
def main() -> None:
    """Train a few steps; rank 1 leaves with exit status 3 before step 3."""
    rank = tiny_ddp.start()
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    for step in range(1, tiny_ddp.STEPS + 1):
        if rank == 1 and step == 3:
            os._exit(3)
        loss = tiny_ddp.loss_of(model, *tiny_ddp.batch(rank, step))
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
