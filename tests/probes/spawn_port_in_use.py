"""A job started with torch.multiprocessing.spawn whose config gives one port to two servers.

The parent opens its status endpoint (where the ranks would report progress) on the configured
port, then hands the same port to the ranks as MASTER_PORT. Rank 0 cannot host the group's store
there: `DistNetworkError: The server socket has failed to listen on any local network address ...
EADDRINUSE`. Run as `python spawn_port_in_use.py`; only the console exists.
"""

import socket

import spawned
import tiny_ddp
import torch.multiprocessing as mp


def train(local_rank: int, world_size: int, port: int) -> None:
    """One spawned rank: join the group and train a few steps."""
    rank = spawned.join(local_rank, world_size, port)
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    for step in range(1, tiny_ddp.STEPS + 1):
        loss = tiny_ddp.loss_of(model, *tiny_ddp.batch(rank, step))
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
    tiny_ddp.finish()


def main() -> None:
    """Open the status endpoint, then spawn one process per rank."""
    config = {"world_size": 2, "port": spawned.free_port()}
    with socket.create_server(("127.0.0.1", config["port"])):
        print(f"status endpoint listening on port {config['port']}", flush=True)
        mp.spawn(train, args=(config["world_size"], config["port"]), nprocs=config["world_size"])


if __name__ == "__main__":
    main()
