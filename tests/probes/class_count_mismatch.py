"""Each rank sizes its per-class counts from the labels it has seen; the ranks' sizes differ.

Rank 0 saw labels 0..2, rank 1 saw 0..4, so they all-reduce tensors of 3 and 5 elements. Gloo
fails or waits out the 5 s timeout. No `@record`.
"""

import tiny_ddp
import torch
import torch.distributed as dist


def class_counts(labels: torch.Tensor) -> torch.Tensor:
    """How many items of each class all ranks saw together."""
    counts = torch.bincount(labels).float()
    dist.all_reduce(counts)
    return counts


def main() -> None:
    """Train a few steps, then count the classes seen."""
    rank = tiny_ddp.start()
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    for step in range(1, tiny_ddp.STEPS + 1):
        loss = tiny_ddp.loss_of(model, *tiny_ddp.batch(rank, step))
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
    labels = torch.arange(3 + 2 * rank)
    print(f"rank {rank} class counts {class_counts(labels).tolist()}", flush=True)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
