"""A job started with torch.multiprocessing.spawn; rank 1 receives SIGKILL before step 3 (as from the
OOM killer) and prints nothing.

spawn stops rank 0 and raises `ProcessExitedException: process 1 terminated with signal SIGKILL`
in the parent. Run as `python spawn_sigkill.py`; only the console exists.
"""

import os
import signal

import spawned
import tiny_ddp
import torch.multiprocessing as mp


def train(local_rank: int, world_size: int, port: int) -> None:
    """One spawned rank: join the group and train a few steps (rank 1 is killed before step 3)."""
    rank = spawned.join(local_rank, world_size, port)
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    for step in range(1, tiny_ddp.STEPS + 1):
        if rank == 1 and step == 3:
            os.kill(os.getpid(), signal.SIGKILL)
        loss = tiny_ddp.loss_of(model, *tiny_ddp.batch(rank, step))
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
    tiny_ddp.finish()


def main() -> None:
    """Spawn one process per rank."""
    world_size = 2
    mp.spawn(train, args=(world_size, spawned.free_port()), nprocs=world_size)


if __name__ == "__main__":
    main()
