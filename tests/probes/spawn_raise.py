"""A job started with torch.multiprocessing.spawn, not torchrun: rank 1's validation shard is empty.

Its mean validation loss divides by zero; spawn stops rank 0 and re-raises the error in the parent
as `ProcessRaisedException: -- Process 1 terminated with the following error:`. Run as
`python spawn_raise.py`; only the console exists.
"""

import spawned
import tiny_ddp
import torch
import torch.multiprocessing as mp


def validation_loss(model: torch.nn.Module, rank: int) -> float:
    """The mean loss over this rank's validation batches (rank 1's shard came out empty)."""
    batches = [tiny_ddp.batch(rank, 100 + i) for i in range(0 if rank == 1 else 2)]
    with torch.no_grad():
        total = sum(tiny_ddp.loss_of(model, *pair).item() for pair in batches)
    return total / len(batches)


def train(local_rank: int, world_size: int, port: int) -> None:
    """One spawned rank: join the group, train a few steps, validate."""
    rank = spawned.join(local_rank, world_size, port)
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    for step in range(1, tiny_ddp.STEPS + 1):
        loss = tiny_ddp.loss_of(model, *tiny_ddp.batch(rank, step))
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
    print(f"rank {rank} validation loss {validation_loss(model, rank):.4f}", flush=True)
    tiny_ddp.finish()


def main() -> None:
    """Spawn one process per rank."""
    world_size = 2
    mp.spawn(train, args=(world_size, spawned.free_port()), nprocs=world_size)


if __name__ == "__main__":
    main()
