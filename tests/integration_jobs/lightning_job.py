"""A 2-process Lightning DDP fit on CPU (Lightning's own launcher) with DdpDoctorCallback.

argv: the folder with the shards (also the report folder). Rank 1's second shard part is missing.
"""

from __future__ import annotations

import os
import sys

import pytorch_lightning as pl
import torch
from shards import Shard
from torch import nn
from torch.utils.data import DataLoader

from ddpdoctor.integrations.lightning import DdpDoctorCallback


class Regression(pl.LightningModule):
    """A two-layer regression model that prints its preflight report when fit starts."""

    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))

    def training_step(self, batch: list[torch.Tensor], batch_idx: int) -> torch.Tensor:
        inputs, targets = batch
        return nn.functional.mse_loss(self.net(inputs), targets)

    def on_fit_start(self) -> None:
        doctor = next(c for c in self.trainer.callbacks if isinstance(c, DdpDoctorCallback))
        assert doctor.preflight_report is not None
        print(f"rank {self.global_rank}: preflight {doctor.preflight_report.summary()}", flush=True)

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.SGD(self.parameters(), lr=0.05)


def main() -> None:
    folder = sys.argv[1]
    torch.manual_seed(0)
    trainer = pl.Trainer(
        accelerator="cpu",
        devices=2,
        strategy="ddp",
        max_steps=4,
        callbacks=[DdpDoctorCallback(report_dir=folder)],
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        use_distributed_sampler=False,
    )
    rank = int(os.environ.get("LOCAL_RANK", "0"))  # Lightning's launcher sets it in every process
    trainer.fit(Regression(), DataLoader(Shard(folder, rank), batch_size=8))


if __name__ == "__main__":
    main()
