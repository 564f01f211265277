"""Rank 1's native data augmentation hits an internal check before step 3 and aborts (SIGABRT).

Nothing Python can catch is raised: the process dies of the signal. No `@record`.
"""

import os

import tiny_ddp


def native_augment(rank: int, step: int) -> None:
    """Stand-in for a C extension whose internal assertion aborts the process."""
    if rank == 1 and step == 3:
        os.abort()


def main() -> None:
    """Train a few steps with the native augmentation."""
    rank = tiny_ddp.start()
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    for step in range(1, tiny_ddp.STEPS + 1):
        native_augment(rank, step)
        loss = tiny_ddp.loss_of(model, *tiny_ddp.batch(rank, step))
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
