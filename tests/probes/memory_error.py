"""Rank 1 builds a cache larger than the host can hold at step 2: Python raises MemoryError.

No `@record`; rank 0 fails in its next all-reduce once rank 1 is gone.
"""

import tiny_ddp


def main() -> None:
    """Train a few steps; rank 1 asks for an impossible host buffer at step 2."""
    rank = tiny_ddp.start()
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    for step in range(1, tiny_ddp.STEPS + 1):
        inputs, targets = tiny_ddp.batch(rank, step)
        if rank == 1 and step == 2:
            cache = bytearray(1 << 60)
            inputs = inputs + len(cache)
        loss = tiny_ddp.loss_of(model, inputs, targets)
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
