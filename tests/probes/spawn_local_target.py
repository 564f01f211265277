"""A job started with torch.multiprocessing.spawn whose target is a function defined inside main().

The spawn start method pickles the target to send it to each child; a local function cannot be
pickled, so the parent fails before any rank starts. Run as `python spawn_local_target.py`; only
the console exists.
"""

import spawned
import tiny_ddp
import torch.multiprocessing as mp


def main() -> None:
    """Spawn one process per rank, each running a training function that closes over the config."""
    world_size, port = 2, spawned.free_port()

    def train(local_rank: int) -> None:
        rank = spawned.join(local_rank, world_size, port)
        model = tiny_ddp.tiny_model()
        optimizer = tiny_ddp.optimizer_for(model)
        for step in range(1, tiny_ddp.STEPS + 1):
            loss = tiny_ddp.loss_of(model, *tiny_ddp.batch(rank, step))
            tiny_ddp.update(optimizer, loss)
            tiny_ddp.report(rank, step, loss)
        tiny_ddp.finish()

    mp.spawn(train, nprocs=world_size)


if __name__ == "__main__":
    main()
