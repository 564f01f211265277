"""The tiny real model and data set every worker trains: a two-layer regression net on CPU tensors.

torch is imported inside the functions that use it, when a runtime starts, so the scenario catalog
and the CLI stay importable without it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ddpdoctor.runtime.faults import dataset_error_text

FEATURES = 4
HIDDEN = 8
LEARNING_RATE = 0.05


@dataclass(frozen=True)
class Batch:
    """One batch of a device's slice: inputs, targets and the global item indices it holds."""

    inputs: Any
    targets: Any
    items: range


@dataclass(frozen=True)
class DatasetFailure:
    """The `Err` a data loader yields when an item cannot be read."""

    item: int
    message: str


def split_items(num_items: int, num_devices: int) -> list[range]:
    """Burn's `split_dataloader`: contiguous slices of `num_items // n`, the last takes the remainder."""
    if num_devices <= 1:
        return [range(num_items)]
    step = num_items // num_devices
    slices = []
    start = 0
    for index in range(num_devices):
        end = num_items if index == num_devices - 1 else start + step
        slices.append(range(start, end))
        start = end
    return slices


def batches_of(items: range, batch_size: int) -> list[range]:
    """The consecutive batches of a slice; the last one may be short."""
    return [items[i : i + batch_size] for i in range(0, len(items), batch_size)]


class TinyRegression:
    """A seeded synthetic data set and a fresh two-layer model to fit it."""

    def __init__(self, num_items: int, seed: int) -> None:
        import torch

        generator = torch.Generator().manual_seed(seed)
        self.inputs = torch.randn(num_items, FEATURES, generator=generator)
        weights = torch.randn(FEATURES, 1, generator=generator)
        self.targets = torch.tanh(self.inputs @ weights)
        torch.manual_seed(seed)
        self.model = torch.nn.Sequential(
            torch.nn.Linear(FEATURES, HIDDEN), torch.nn.Tanh(), torch.nn.Linear(HIDDEN, 1)
        )

    def fork(self) -> Any:
        """A replica of the initial model for one device (`learner.fork(device)`)."""
        import copy

        return copy.deepcopy(self.model)

    def batch(self, items: range) -> Batch:
        """The tensors of these items."""
        return Batch(self.inputs[items.start : items.stop], self.targets[items.start : items.stop], items)

    def loader(
        self, items: range, batch_size: int, fail_at_step: int | None
    ) -> Iterator[Batch | DatasetFailure]:
        """A device's data loader; with `fail_at_step` it yields an `Err` for that batch instead."""
        for step, chunk in enumerate(batches_of(items, batch_size), start=1):
            if step == fail_at_step:
                yield DatasetFailure(chunk.start, dataset_error_text(chunk.start))
            else:
                yield self.batch(chunk)


def loss_and_backward(replica: Any, batch: Batch) -> float:
    """Forward, mean squared error, backward; returns the loss."""
    import torch

    prediction = replica(batch.inputs)
    loss = torch.nn.functional.mse_loss(prediction, batch.targets)
    torch.autograd.backward([loss])
    return float(loss.detach())


def parameters_of(replica: Any) -> list[Any]:
    """The replica's parameters in a fixed order; their index is the parameter id."""
    return list(replica.parameters())


def sgd_step(replica: Any) -> None:
    """Plain SGD with the (averaged) gradients, then clear them."""
    import torch

    with torch.no_grad():
        for param in replica.parameters():
            if param.grad is not None:
                param -= LEARNING_RATE * param.grad
                param.grad = None


def evaluate(replica: Any, batch: Batch) -> float:
    """Validation loss of one batch."""
    import torch

    with torch.no_grad():
        return float(torch.nn.functional.mse_loss(replica(batch.inputs), batch.targets))
