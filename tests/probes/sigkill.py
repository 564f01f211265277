"""Rank 1 receives SIGKILL before step 3, as from the kernel's OOM killer; it prints nothing.

No `@record` (a killed process could not write an error file anyway).
"""

import os
import signal

import tiny_ddp


def main() -> None:
    """Train a few steps; rank 1 is killed before step 3."""
    rank = tiny_ddp.start()
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    for step in range(1, tiny_ddp.STEPS + 1):
        if rank == 1 and step == 3:
            os.kill(os.getpid(), signal.SIGKILL)
        loss = tiny_ddp.loss_of(model, *tiny_ddp.batch(rank, step))
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
