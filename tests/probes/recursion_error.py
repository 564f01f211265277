"""Rank 1 records its loss history inside the dict of losses it sums; summing it never ends.

`total_loss` walks nested dicts recursively; the cycle raises `RecursionError: maximum recursion
depth exceeded`. Rank 0 waits in the next all-reduce until torchrun stops it. No `@record`.
"""

import tiny_ddp
import torch


def total_loss(terms: dict[str, object]) -> torch.Tensor:
    """The sum of every tensor in a nested dict of loss terms."""
    total = torch.zeros(())
    for value in terms.values():
        if isinstance(value, dict):
            total = total + total_loss(value)
        elif isinstance(value, torch.Tensor):
            total = total + value
    return total


def main() -> None:
    """Train a few steps; rank 1 keeps its history inside its loss terms from step 2 on."""
    rank = tiny_ddp.start()
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    terms: dict[str, object] = {}
    for step in range(1, tiny_ddp.STEPS + 1):
        terms["mse"] = tiny_ddp.loss_of(model, *tiny_ddp.batch(rank, step))
        if rank == 1 and step == 2:
            terms["history"] = terms
        loss = total_loss(terms)
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
