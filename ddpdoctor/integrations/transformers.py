"""Hugging Face Trainer: `DdpDoctorTrainerCallback` runs `preflight` on every rank when training begins.

    from ddpdoctor import guard
    from ddpdoctor.integrations.transformers import DdpDoctorTrainerCallback

    trainer = Trainer(model=model, args=args, train_dataset=data, callbacks=[DdpDoctorTrainerCallback()])
    with guard():
        trainer.train()

A `TrainerCallback` sees events (init end, train begin, steps, logs, saves, train end) but no
exception: when `train()` raises, no callback is called. Wrap `trainer.train()` in `guard()` for
the diagnosis.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from transformers import TrainerCallback, TrainerControl, TrainerState, TrainingArguments

from ddpdoctor.hooks import preflight

if TYPE_CHECKING:
    from ddpdoctor.check.runner import CheckReport


class DdpDoctorTrainerCallback(TrainerCallback):
    """Preflight on this rank's device at `on_train_begin` (every rank); a preflight error stops `train()`.

    `preflight_options` go to :func:`ddpdoctor.preflight` (`min_free`, `dataloader`, `model`, ...);
    `devices` defaults to `args.device`. It raises :class:`ddpdoctor.PreflightError` before the
    first step.
    """

    def __init__(self, **preflight_options: Any) -> None:
        self.preflight_options = preflight_options
        self.preflight_report: CheckReport | None = None

    def on_train_begin(
        self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs: Any
    ) -> None:
        """Run the preflight checks on this rank's device."""
        options = {"devices": [args.device], **self.preflight_options}
        self.preflight_report = preflight(**options)
