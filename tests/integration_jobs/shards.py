"""The data of the integration jobs: each rank reads its own shard, and rank 1's second part is missing.

A real FileNotFoundError on one rank after training has started (its first batch trains), the way a
shard that was not copied to one node fails; the other rank is left waiting in a collective.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch
from torch.utils.data import Dataset

ITEMS = 64
FIRST_PART = 8  # items each rank reads before it opens the second part of its shard


def write_shards(folder: Path) -> None:
    """Write rank 0's second part only."""
    torch.save(torch.zeros(1), folder / "shard0-part2.pt")


class Shard(Dataset[Any]):
    """Regression items; from item FIRST_PART on, every read also opens `shard{rank}-part2.pt`."""

    def __init__(self, folder: str, rank: int) -> None:
        generator = torch.Generator().manual_seed(rank)
        self.inputs = torch.randn(ITEMS, 4, generator=generator)
        self.targets = self.inputs.sum(dim=1, keepdim=True).tanh()
        self.part2 = Path(folder) / f"shard{rank}-part2.pt"
        self.reads = 0

    def __len__(self) -> int:
        return ITEMS

    def __getitem__(self, index: int) -> Any:
        self.reads += 1
        if self.reads > FIRST_PART:
            torch.load(self.part2)
        return self.item(index)

    def item(self, index: int) -> Any:
        """The item to train on: (inputs, targets)."""
        return self.inputs[index], self.targets[index]
