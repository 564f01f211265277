"""Rank 1 raises at step 2; torchrun (`--max-restarts 1`) restarts the group once, then gives up.

The first attempt's KeyError is the cause. The restarted attempt fails too, often differently (with
gloo on torch 2.13, `Gloo connectFullMesh failed ... Connect timeout` while the group re-forms): a
later attempt's known message must not outweigh the error that set off the restart. `@record` is on
main(), so the table of the last attempt carries that attempt's error file.
"""

import tiny_ddp
from torch.distributed.elastic.multiprocessing.errors import record


@record
def main() -> None:
    """Train a few steps; rank 1 looks up a label its batch does not have at step 2."""
    rank = tiny_ddp.start()
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    labels = {"step": 1}
    for step in range(1, tiny_ddp.STEPS + 1):
        if rank == 1 and step == 2:
            print(labels["targets"])
        loss = tiny_ddp.loss_of(model, *tiny_ddp.batch(rank, step))
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
