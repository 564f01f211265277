"""The ranks gather their run summaries with all_gather_object; rank 1's summary holds a lambda.

Pickling it fails on rank 1 (`Can't pickle local object` / `PicklingError`); rank 0 waits in the
gather until torchrun stops it. No `@record`.
"""

from collections import defaultdict

import tiny_ddp
import torch.distributed as dist


def summary(rank: int, losses: list[float]) -> dict[str, object]:
    """This rank's run summary (rank 1 also keeps per-step notes in a defaultdict)."""
    result: dict[str, object] = {"rank": rank, "final_loss": losses[-1]}
    if rank == 1:
        notes: defaultdict[int, str] = defaultdict(lambda: "ok")
        notes[len(losses)] = "last"
        result["notes"] = notes
    return result


def main() -> None:
    """Train a few steps, then gather every rank's summary."""
    rank = tiny_ddp.start()
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    losses = []
    for step in range(1, tiny_ddp.STEPS + 1):
        loss = tiny_ddp.loss_of(model, *tiny_ddp.batch(rank, step))
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
        losses.append(loss.item())
    summaries: list[object] = [None, None]
    dist.all_gather_object(summaries, summary(rank, losses))
    print(f"rank {rank} summaries {summaries}", flush=True)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
