"""On rank 1, DataLoader worker 1 is killed with SIGKILL while it decodes a sample (as by the OOM killer).

The main process notices through its SIGCHLD handler and raises `RuntimeError: DataLoader worker
(pid N) is killed by signal: Killed.`; rank 0 is left waiting in the gradient all-reduce. No `@record`.
"""

import os
import signal

import tiny_ddp
import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info


class DecodedSamples(Dataset[tuple[torch.Tensor, torch.Tensor]]):
    """Samples decoded on the fly; on rank 1 the second worker's decode blows up the host's memory."""

    def __init__(self, rank: int) -> None:
        self.rank = rank

    def __len__(self) -> int:
        return 8

    def __getitem__(self, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        worker = get_worker_info()
        if self.rank == 1 and worker is not None and worker.id == 1:
            os.kill(os.getpid(), signal.SIGKILL)
        return tiny_ddp.batch(self.rank, index)


def main() -> None:
    """Train one epoch over this rank's samples."""
    rank = tiny_ddp.start()
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    loader = DataLoader(DecodedSamples(rank), batch_size=None, num_workers=2)
    for step, (inputs, targets) in enumerate(loader, start=1):
        loss = tiny_ddp.loss_of(model, inputs, targets)
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
