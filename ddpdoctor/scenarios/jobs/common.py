"""What every torch job shares: the gloo process group, deterministic batches and the training step."""

from __future__ import annotations

import datetime
from typing import Any

import torch
import torch.distributed as dist

# Victims of a failed peer give up after this long instead of gloo's default of 30 minutes.
COLLECTIVE_TIMEOUT = datetime.timedelta(seconds=20)


def init() -> int:
    """Join the gloo process group torchrun describes in the environment; return this rank."""
    torch.set_num_threads(1)
    torch.manual_seed(0)
    dist.init_process_group("gloo", timeout=COLLECTIVE_TIMEOUT)
    return dist.get_rank()


def batch(rank: int, step: int) -> tuple[Any, Any]:
    """A deterministic batch of eight items for this rank and step."""
    generator = torch.Generator().manual_seed(1000 * rank + step)
    inputs = torch.randn(8, 4, generator=generator)
    return inputs, inputs.sum(dim=1, keepdim=True).tanh()


def train_step(weights: Any, inputs: Any, targets: Any) -> None:
    """One least-squares gradient step on `weights`, in place, with the gradient all-reduced over the ranks."""
    grad = inputs.t() @ (inputs @ weights - targets) / len(inputs)
    dist.all_reduce(grad)
    weights -= 0.05 * grad
