"""What the Lightning probes share: a tiny LightningModule trained by Lightning's own DDP launcher.

Run as `python <probe>.py`: Lightning starts the second rank itself (it runs the script again with
`LOCAL_RANK` set), so there is no torchrun, and only the console exists. Each probe passes the
failure rank 1 meets at its third batch.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable

import lightning as L
import torch
from lightning.pytorch.strategies import DDPStrategy
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

# A rank left waiting for a peer gives up after this long instead of gloo's default of 30 minutes.
COLLECTIVE_TIMEOUT = datetime.timedelta(seconds=8)
FAILING_BATCH = 2


class TinyRegression(L.LightningModule):
    """A linear regression whose rank 1 meets `failure` at batch FAILING_BATCH."""

    def __init__(self, failure: Callable[[int], None]) -> None:
        super().__init__()
        self.net = nn.Linear(4, 1)
        self.failure = failure

    def training_step(self, batch: tuple[torch.Tensor, torch.Tensor], index: int) -> torch.Tensor:
        inputs, targets = batch
        if self.global_rank == 1 and index == FAILING_BATCH:
            self.failure(index)
        return nn.functional.mse_loss(self.net(inputs), targets)

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.SGD(self.parameters(), lr=0.1)


def fit(failure: Callable[[int], None]) -> None:
    """Train one epoch on two CPU ranks over gloo; rank 1 meets `failure`."""
    torch.set_num_threads(1)
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(64, 4), torch.randn(64, 1))
    trainer = L.Trainer(
        accelerator="cpu",
        devices=2,
        strategy=DDPStrategy(process_group_backend="gloo", timeout=COLLECTIVE_TIMEOUT),
        max_epochs=1,
        enable_progress_bar=False,
        logger=False,
        enable_checkpointing=False,
    )
    trainer.fit(TinyRegression(failure), DataLoader(data, batch_size=8))
