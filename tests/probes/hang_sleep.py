"""Rank 1 stalls (a long sleep) before step 3, so rank 0's gradient all-reduce times out.

The culprit is rank 1, the straggler; it prints no error, and torchrun stops it with SIGTERM after
rank 0 has failed. No `@record`: torchrun shows `error_file: <N/A>`.
"""

import time

import tiny_ddp


def main() -> None:
    """Train a few steps; rank 1 stalls before step 3."""
    rank = tiny_ddp.start()
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    for step in range(1, tiny_ddp.STEPS + 1):
        if rank == 1 and step == 3:
            time.sleep(120)
        loss = tiny_ddp.loss_of(model, *tiny_ddp.batch(rank, step))
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
