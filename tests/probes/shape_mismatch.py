"""Rank 1's batch at step 3 has five features instead of four, so its forward pass raises.

`@record` is on main(): rank 1's error file carries the `mat1 and mat2 shapes` traceback.
"""

import tiny_ddp
from torch.distributed.elastic.multiprocessing.errors import record


@record
def main() -> None:
    """Train a few steps; rank 1 reads a batch of the wrong width at step 3."""
    rank = tiny_ddp.start()
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    for step in range(1, tiny_ddp.STEPS + 1):
        features = 5 if rank == 1 and step == 3 else tiny_ddp.FEATURES
        loss = tiny_ddp.loss_of(model, *tiny_ddp.batch(rank, step, features))
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
