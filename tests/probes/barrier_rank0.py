"""Rank 0 alone enters a barrier before saving a checkpoint; rank 1 goes on to the next all-reduce.

The `if rank == 0:` guard around the barrier is the bug: rank 0 waits in `barrier` while rank 1
waits in DDP's gradient all-reduce, and both give up after gloo's 5 s timeout. No `@record`.
"""

import tiny_ddp
import torch
import torch.distributed as dist


def main() -> None:
    """Train a few steps; rank 0 saves a checkpoint after step 2 behind a barrier only it enters."""
    rank = tiny_ddp.start()
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    for step in range(1, tiny_ddp.STEPS + 1):
        loss = tiny_ddp.loss_of(model, *tiny_ddp.batch(rank, step))
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
        if step == 2 and rank == 0:
            dist.barrier()
            torch.save(model.state_dict(), "checkpoint.pt")
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
