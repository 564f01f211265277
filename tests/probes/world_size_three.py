"""The script's config says three ranks, but torchrun starts two; init_process_group waits for the third.

`world_size=3` is passed explicitly, overriding torchrun's WORLD_SIZE=2; after the 5 s timeout
both ranks fail while setting up the group. No `@record`.
"""

import os

import tiny_ddp
import torch.distributed as dist

CONFIG = {"world_size": 3, "backend": "gloo"}


def main() -> None:
    """Join the group the config describes and train a few steps."""
    dist.init_process_group(
        CONFIG["backend"],
        world_size=CONFIG["world_size"],
        rank=int(os.environ["RANK"]),
        timeout=tiny_ddp.COLLECTIVE_TIMEOUT,
    )
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
