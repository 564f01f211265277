"""Only rank 0 creates the process group used to sync evaluation metrics; rank 1 skips new_group.

new_group must be called by every rank: rank 0 waits in it for rank 1, while rank 1 goes on to
the next step's gradient all-reduce. Both give up after the 5 s timeout. No `@record`.
"""

import tiny_ddp
import torch
import torch.distributed as dist


def evaluate(rank: int, loss: torch.Tensor) -> None:
    """Average the loss over the ranks of an evaluation group (built only where metrics are logged)."""
    if rank == 0:
        eval_group = dist.new_group([0, 1])
        metric = loss.detach().clone()
        dist.all_reduce(metric, group=eval_group)
        print(f"eval loss {metric.item() / 2:.4f}", flush=True)


def main() -> None:
    """Train a few steps, evaluating after step 2."""
    rank = tiny_ddp.start()
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    for step in range(1, tiny_ddp.STEPS + 1):
        loss = tiny_ddp.loss_of(model, *tiny_ddp.batch(rank, step))
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
        if step == 2:
            evaluate(rank, loss)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
