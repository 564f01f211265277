"""Rank 1 logs metrics through an optional dependency that is not installed: ModuleNotFoundError.

`@record` is on main(); rank 0 fails in its next all-reduce as a victim.
"""

import tiny_ddp
from torch.distributed.elastic.multiprocessing.errors import record

# The rank that writes metrics to the experiment tracker.
TRACKER_RANK = 1


def open_tracker() -> object:
    """Import the experiment tracker, an optional dependency."""
    import ddpdoctor_probe_tracker  # type: ignore[import-not-found]

    return ddpdoctor_probe_tracker


@record
def main() -> None:
    """Train a few steps; the tracking rank opens the tracker after step 1."""
    rank = tiny_ddp.start()
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    for step in range(1, tiny_ddp.STEPS + 1):
        loss = tiny_ddp.loss_of(model, *tiny_ddp.batch(rank, step))
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
        if rank == TRACKER_RANK and step == 1:
            open_tracker()
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
