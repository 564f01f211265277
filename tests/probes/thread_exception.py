"""Rank 1's prefetch thread dies on a malformed record; its main loop waits for batches that never come.

Python prints the thread's traceback (`Exception in thread ...`) without torch's `[rankN]:` prefix,
which covers only the main thread's uncaught exception. Rank 0's gradient all-reduce times out
waiting for rank 1: the culprit is rank 1, whose unlabelled traceback says why.
"""

import queue
import threading

import tiny_ddp
import torch

# Rank 1's main loop gives up waiting for a batch after this long, well after rank 0 timed out.
BATCH_WAIT_S = 30


def prefetch(rank: int, batches: queue.Queue[tuple[torch.Tensor, torch.Tensor]]) -> None:
    """Read this rank's batches ahead of the training loop (rank 1's second read fails)."""
    for step in range(1, tiny_ddp.STEPS + 1):
        if rank == 1 and step == 2:
            raise ValueError(f"record {step} of /data/shard-00001.bin has 3 fields, expected 5")
        batches.put(tiny_ddp.batch(rank, step))


def main() -> None:
    """Train on batches a background thread reads ahead."""
    rank = tiny_ddp.start()
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    batches: queue.Queue[tuple[torch.Tensor, torch.Tensor]] = queue.Queue(maxsize=2)
    threading.Thread(target=prefetch, args=(rank, batches), daemon=True).start()
    for step in range(1, tiny_ddp.STEPS + 1):
        loss = tiny_ddp.loss_of(model, *batches.get(timeout=BATCH_WAIT_S))
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
