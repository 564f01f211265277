"""After step 2 the ranks sync a metric: rank 0 all-reduces it, rank 1 broadcasts it instead.

The two collectives do not match; gloo sees a different operation from its peer and fails or waits
out the 5 s timeout. No `@record`.
"""

import tiny_ddp
import torch
import torch.distributed as dist


def sync_metric(rank: int, value: float) -> float:
    """Share a metric across ranks (rank 1 runs an older copy of this function)."""
    metric = torch.tensor([value])
    if rank == 1:
        dist.broadcast(metric, src=1)
    else:
        dist.all_reduce(metric)
    return metric.item()


def main() -> None:
    """Train a few steps, syncing the loss after step 2."""
    rank = tiny_ddp.start()
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    for step in range(1, tiny_ddp.STEPS + 1):
        loss = tiny_ddp.loss_of(model, *tiny_ddp.batch(rank, step))
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
        if step == 2:
            print(f"rank {rank} mean loss {sync_metric(rank, loss.item()):.4f}", flush=True)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
