"""Rank 1 is sent SIGTERM from outside the job at step 2 (as a pre-emption or a `kill` would); rank 0
fails in its next all-reduce and torchrun stops it.

torchrun logs the SIGTERM it sends to rank 0 (`Sending process N closing signal SIGTERM`) and not
one to rank 1: rank 1's death by SIGTERM is the first failure, not the launcher's clean-up.
"""

import os
import signal

import tiny_ddp


def main() -> None:
    """Train a few steps; rank 1 receives SIGTERM before step 2."""
    rank = tiny_ddp.start()
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    for step in range(1, tiny_ddp.STEPS + 1):
        if rank == 1 and step == 2:
            os.kill(os.getpid(), signal.SIGTERM)
        loss = tiny_ddp.loss_of(model, *tiny_ddp.batch(rank, step))
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
