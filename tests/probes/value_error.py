"""Rank 1's batch at step 3 holds a NaN; the training step's own check raises ValueError.

`@record` is on main(): rank 1's error file carries the ValueError.
"""

import math

import tiny_ddp
from torch.distributed.elastic.multiprocessing.errors import record


@record
def main() -> None:
    """Train a few steps, refusing to step on a NaN loss."""
    rank = tiny_ddp.start()
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    for step in range(1, tiny_ddp.STEPS + 1):
        inputs, targets = tiny_ddp.batch(rank, step)
        if rank == 1 and step == 3:
            inputs[0, 0] = math.nan
        loss = tiny_ddp.loss_of(model, inputs, targets)
        if loss.isnan():
            raise ValueError(f"loss is NaN at step {step}")
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
