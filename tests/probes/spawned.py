"""What the probes started with torch.multiprocessing.spawn share: a free port and joining the group.

Without torchrun nothing sets MASTER_ADDR, MASTER_PORT, RANK or WORLD_SIZE; each spawned rank sets
them itself, as scripts written for `mp.spawn` do, before joining the gloo group of tiny_ddp.
"""

from __future__ import annotations

import os
import socket

import tiny_ddp


def free_port() -> int:
    """A port nobody listens on yet, for the group's store."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def join(local_rank: int, world_size: int, port: int) -> int:
    """Describe the group in the environment as torchrun would, join it and return this rank."""
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    os.environ.update(RANK=str(local_rank), WORLD_SIZE=str(world_size))
    return tiny_ddp.start()
