"""An Accelerate training loop on 2 CPU processes (torchrun) with the documented two lines.

argv: the folder with the shards (also the report folder). Rank 1's second shard part is missing.
"""

from __future__ import annotations

import sys

import torch
from accelerate import Accelerator
from shards import Shard
from torch import nn
from torch.utils.data import DataLoader

from ddpdoctor import guard, preflight


def train(accelerator: Accelerator, folder: str) -> None:
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    loader = DataLoader(Shard(folder, accelerator.process_index), batch_size=8)
    model, optimizer = accelerator.prepare(model, optimizer)  # the loader is already this rank's shard
    for inputs, targets in loader:
        loss = nn.functional.mse_loss(model(inputs), targets)
        accelerator.backward(loss)
        optimizer.step()
        optimizer.zero_grad()


def main() -> None:
    folder = sys.argv[1]
    accelerator = Accelerator(cpu=True)
    report = preflight(devices=[accelerator.device])
    print(f"rank {accelerator.process_index}: preflight {report.summary()}", flush=True)
    with guard(report_dir=folder):
        train(accelerator, folder)


if __name__ == "__main__":
    main()
