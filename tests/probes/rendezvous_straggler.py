"""Rank 1 spends too long preparing its data before it joins the process group; rank 0 gives up.

Rank 0 waits in init_process_group for its peer until the 5 s timeout; torchrun then stops rank 1,
still preparing, with SIGTERM. No `@record`.
"""

import os
import time

import tiny_ddp


def prepare_data(rank: int) -> None:
    """Build this rank's data cache (rank 1's cache is cold and takes minutes)."""
    print(f"rank {rank} preparing the data cache", flush=True)
    if rank == 1:
        time.sleep(120)


def main() -> None:
    """Prepare the data, join the group and train a few steps."""
    prepare_data(int(os.environ["RANK"]))
    rank = tiny_ddp.start()
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    for step in range(1, tiny_ddp.STEPS + 1):
        loss = tiny_ddp.loss_of(model, *tiny_ddp.batch(rank, step))
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
