"""Rank 0 saves a checkpoint after step 2; the script's own size check raises RuntimeError.

Rank 1 goes on to step 3 and fails in its all-reduce as a victim. No `@record`.
"""

import io

import tiny_ddp
import torch

# The (deliberately too small) limit the script enforces on a checkpoint's size.
MAX_CHECKPOINT_BYTES = 1024


def save_checkpoint(model: torch.nn.Module, step: int) -> None:
    """Serialise the model and refuse a checkpoint over the size limit."""
    blob = io.BytesIO()
    torch.save(model.state_dict(), blob)
    size = blob.tell()
    if size > MAX_CHECKPOINT_BYTES:
        raise RuntimeError(
            f"checkpoint for step {step} is {size} bytes, over the {MAX_CHECKPOINT_BYTES}-byte limit"
        )


def main() -> None:
    """Train a few steps; rank 0 saves a checkpoint after step 2."""
    rank = tiny_ddp.start()
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    for step in range(1, tiny_ddp.STEPS + 1):
        loss = tiny_ddp.loss_of(model, *tiny_ddp.batch(rank, step))
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
        if rank == 0 and step == 2:
            save_checkpoint(model.module, step)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
