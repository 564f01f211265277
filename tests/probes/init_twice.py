"""A setup helper joins the process group again after the script already has: ValueError on every rank.

`@record` is on main().
"""

import tiny_ddp
import torch.distributed as dist
from torch.distributed.elastic.multiprocessing.errors import record


def setup_distributed() -> None:
    """Join the gloo process group (a helper copied from another project)."""
    dist.init_process_group("gloo", timeout=tiny_ddp.COLLECTIVE_TIMEOUT)


@record
def main() -> None:
    """Join the group, run the project's setup helper and train a few steps."""
    rank = tiny_ddp.start()
    setup_distributed()
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    for step in range(1, tiny_ddp.STEPS + 1):
        loss = tiny_ddp.loss_of(model, *tiny_ddp.batch(rank, step))
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
