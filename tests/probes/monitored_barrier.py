"""Rank 1 stalls in its evaluation after step 2; rank 0's monitored_barrier names it after 3 s.

No `@record`.
"""

import datetime
import time

import tiny_ddp
import torch.distributed as dist

BARRIER_TIMEOUT = datetime.timedelta(seconds=3)


def evaluate(rank: int) -> None:
    """Run this rank's share of the evaluation (rank 1's share hangs)."""
    if rank == 1:
        time.sleep(120)


def main() -> None:
    """Train a few steps and evaluate after step 2, then wait for every rank."""
    rank = tiny_ddp.start()
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    for step in range(1, tiny_ddp.STEPS + 1):
        loss = tiny_ddp.loss_of(model, *tiny_ddp.batch(rank, step))
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
        if step == 2:
            evaluate(rank)
            dist.monitored_barrier(timeout=BARRIER_TIMEOUT)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
