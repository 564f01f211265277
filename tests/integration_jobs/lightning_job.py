"""A 2-process Lightning DDP fit on CPU with DdpDoctorCallback, through either Lightning package.

argv: the package (`lightning`: `import lightning as L`; `pytorch_lightning`: the standalone
package) and the folder with the shards (also the report folder). Rank 1's second shard part is
missing. Started as `python lightning_job.py ...` Lightning launches the second process itself;
under torchrun it joins torchrun's processes.
"""

from __future__ import annotations

import importlib
import os
import sys

import torch
from shards import Shard
from torch import nn
from torch.utils.data import DataLoader

PACKAGES = {
    # package -> (its module with Trainer, LightningModule and Callback; ddpdoctor's integration)
    "lightning": ("lightning", "ddpdoctor.integrations.lightning"),
    "pytorch_lightning": ("pytorch_lightning", "ddpdoctor.integrations.pytorch_lightning"),
}
PACKAGE, FOLDER = sys.argv[1], sys.argv[2]
pl = importlib.import_module(PACKAGES[PACKAGE][0])
DdpDoctorCallback = importlib.import_module(PACKAGES[PACKAGE][1]).DdpDoctorCallback


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
        packages = sorted(p for p in PACKAGES if p in sys.modules)
        print(f"rank {self.global_rank}: callback is a {pl.__name__}.Callback, loaded {packages}", flush=True)

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.SGD(self.parameters(), lr=0.05)


def main() -> None:
    torch.manual_seed(0)
    doctor = DdpDoctorCallback(report_dir=FOLDER)
    assert isinstance(doctor, pl.Callback)
    trainer = pl.Trainer(
        accelerator="cpu",
        devices=2,
        strategy="ddp",
        max_steps=4,
        callbacks=doctor,  # a single callback: the Trainer lists it only if it is the package's Callback
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        use_distributed_sampler=False,
    )
    rank = int(os.environ.get("LOCAL_RANK", "0"))  # set in every process by both launchers
    trainer.fit(Regression(), DataLoader(Shard(FOLDER, rank), batch_size=8))


if __name__ == "__main__":
    main()
