"""A job started with torch.multiprocessing.spawn whose target is a function defined inside main().

The spawn start method pickles the target to send it to each child; a local function cannot be
pickled, so the parent fails before any rank starts. Run as `python spawn_local_target.py`; only
the console exists.
"""

import os
import socket

import tiny_ddp
import torch.multiprocessing as mp


def free_port() -> int:
    """A port nobody listens on, for the group's store."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def main() -> None:
    """Spawn one process per rank, each running a training function that closes over the config."""
    world_size, port = 2, free_port()

    def train(local_rank: int) -> None:
        os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
        os.environ.update(RANK=str(local_rank), WORLD_SIZE=str(world_size))
        rank = tiny_ddp.start()
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
