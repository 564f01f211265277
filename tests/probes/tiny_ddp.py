"""What every probe job shares: a gloo process group, a tiny DDP model, batches and one training step.

Torchrun starts each probe as a script, so its folder is on `sys.path` and the probes import this
module by its bare name.
"""

from __future__ import annotations

import datetime
import logging
import sys

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

# A rank left waiting for a peer gives up after this long instead of gloo's default of 30 minutes.
COLLECTIVE_TIMEOUT = datetime.timedelta(seconds=5)
FEATURES = 4
STEPS = 4

log = logging.getLogger("probe")


def start() -> int:
    """Join the gloo process group that torchrun describes in the environment; return this rank."""
    torch.set_num_threads(1)
    torch.manual_seed(0)
    dist.init_process_group("gloo", timeout=COLLECTIVE_TIMEOUT)
    rank = dist.get_rank()
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format=f"%(asctime)s rank {rank} %(message)s")
    log.info("joined a group of %d ranks", dist.get_world_size())
    return rank


def tiny_model() -> DistributedDataParallel:
    """A two-layer regression model wrapped in DistributedDataParallel."""
    return DistributedDataParallel(nn.Sequential(nn.Linear(FEATURES, 8), nn.ReLU(), nn.Linear(8, 1)))


def batch(rank: int, step: int, features: int = FEATURES) -> tuple[torch.Tensor, torch.Tensor]:
    """A deterministic batch of eight items for this rank and step."""
    generator = torch.Generator().manual_seed(1000 * rank + step)
    inputs = torch.randn(8, features, generator=generator)
    return inputs, inputs.sum(dim=1, keepdim=True).tanh()


def loss_of(model: nn.Module, inputs: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """The mean squared error of the model on one batch."""
    return nn.functional.mse_loss(model(inputs), targets)


def update(optimizer: torch.optim.Optimizer, loss: torch.Tensor) -> None:
    """Backward (DDP all-reduces the gradients here) and one optimizer step."""
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def optimizer_for(model: nn.Module) -> torch.optim.Optimizer:
    """Plain SGD over the model's parameters."""
    return torch.optim.SGD(model.parameters(), lr=0.05)


def report(rank: int, step: int, loss: torch.Tensor) -> None:
    """One short progress line on stdout."""
    print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)


def finish() -> None:
    """Leave the process group."""
    log.info("done")
    dist.destroy_process_group()
