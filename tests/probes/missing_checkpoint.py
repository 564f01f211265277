"""Both ranks resume from a checkpoint; rank 1's path points at a file that does not exist.

Rank 0 loads its copy and waits in the barrier after loading; rank 1 raises FileNotFoundError.
`@record` is on main().
"""

import tempfile
from pathlib import Path

import tiny_ddp
import torch
import torch.distributed as dist
from torch.distributed.elastic.multiprocessing.errors import record


def checkpoint_path(rank: int, folder: Path) -> Path:
    """This rank's checkpoint (rank 1's path names an epoch that was never saved)."""
    return folder / ("epoch-7.pt" if rank == 1 else "epoch-3.pt")


@record
def main() -> None:
    """Resume from this rank's checkpoint and train a few steps."""
    rank = tiny_ddp.start()
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    with tempfile.TemporaryDirectory() as folder:
        torch.save(model.module.state_dict(), Path(folder) / "epoch-3.pt")
        model.module.load_state_dict(torch.load(checkpoint_path(rank, Path(folder))))
    dist.barrier()
    for step in range(1, tiny_ddp.STEPS + 1):
        loss = tiny_ddp.loss_of(model, *tiny_ddp.batch(rank, step))
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
