"""Rank 1 sizes an activation cache from a corrupt config value; the host allocator refuses it.

The request (a petabyte) fails at once, without touching this machine's memory. `@record` is on main().
"""

import tiny_ddp
import torch
from torch.distributed.elastic.multiprocessing.errors import record


def cache_items(rank: int) -> int:
    """The number of cached activations from this rank's config (rank 1's value is corrupt)."""
    return 2**48 if rank == 1 else 64


@record
def main() -> None:
    """Allocate the activation cache after step 1 and train a few steps."""
    rank = tiny_ddp.start()
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    for step in range(1, tiny_ddp.STEPS + 1):
        loss = tiny_ddp.loss_of(model, *tiny_ddp.batch(rank, step))
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
        if step == 1:
            cache = torch.empty(cache_items(rank), dtype=torch.float32)
            print(f"rank {rank} cache of {cache.numel()} items", flush=True)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
