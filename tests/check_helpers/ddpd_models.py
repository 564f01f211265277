"""Model factories for memory.model-step: (model, make_batch) pairs."""

from __future__ import annotations

import torch
from torch import nn


def mlp():
    model = nn.Sequential(nn.Linear(256, 1024), nn.ReLU(), nn.Linear(1024, 10))
    return model, lambda batch_size: torch.randn(batch_size, 256)


def keyword_inputs():
    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = nn.Linear(16, 4)

        def forward(self, features: torch.Tensor) -> dict[str, torch.Tensor]:
            out = self.body(features)
            return {"loss": out.pow(2).mean(), "logits": out}

    return Net(), lambda batch_size: {"features": torch.randn(batch_size, 16)}


def shape_bug():
    model = nn.Linear(8, 2)
    return model, lambda batch_size: torch.randn(batch_size, 9)


def not_a_pair():
    return nn.Linear(2, 2)


def factory_raises():
    raise FileNotFoundError("checkpoint /models/base.pt is missing")
