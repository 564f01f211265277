"""The script asks for the NCCL backend on a machine whose torch build has no CUDA: every rank fails.

`init_process_group("nccl")` raises before any rank trains. `@record` is on main().
"""

import tiny_ddp
import torch.distributed as dist
from torch.distributed.elastic.multiprocessing.errors import record


@record
def main() -> None:
    """Join an NCCL process group and train a few steps."""
    dist.init_process_group("nccl", timeout=tiny_ddp.COLLECTIVE_TIMEOUT)
    rank = dist.get_rank()
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    for step in range(1, tiny_ddp.STEPS + 1):
        loss = tiny_ddp.loss_of(model, *tiny_ddp.batch(rank, step))
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
