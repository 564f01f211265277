"""Rank 1 stops itself with `sys.exit("ERROR: ...")` before step 2: Python prints the message, no traceback.

With the gloo group's threads still running, the interpreter's exit may abort (`terminate called
without an active exception`, SIGABRT) or end with status 1; either way the printed message is
rank 1's reason, and rank 0's lost connection is a consequence. No `@record`.
"""

import sys

import tiny_ddp


def main() -> None:
    """Train a few steps; rank 1 finds its shard missing before step 2 and exits with a message."""
    rank = tiny_ddp.start()
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    for step in range(1, tiny_ddp.STEPS + 1):
        if rank == 1 and step == 2:
            sys.exit("ERROR: shard /data/train-00001.tar is missing; cannot continue")
        loss = tiny_ddp.loss_of(model, *tiny_ddp.batch(rank, step))
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
