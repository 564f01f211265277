"""Lightning: `DdpDoctorCallback` runs `preflight` on every rank at setup and explains an exception.

    from ddpdoctor.integrations.lightning import DdpDoctorCallback

    trainer = Trainer(accelerator="gpu", devices=4, strategy="ddp", callbacks=[DdpDoctorCallback()])

The callback subclasses `lightning.pytorch.Callback`, or `pytorch_lightning.Callback` when only
that package is installed.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ddpdoctor.hooks import DEFAULT_PEER_WAIT, Guard, PreflightError, preflight

if TYPE_CHECKING:
    from pytorch_lightning import Callback, LightningModule, Trainer

    from ddpdoctor.check.runner import CheckReport
else:
    try:
        from lightning.pytorch import Callback
    except ImportError:
        from pytorch_lightning import Callback


class DdpDoctorCallback(Callback):
    """Preflight at setup on every rank; on an exception, guard's diagnosis on the rank that raised it.

    `preflight_options` go to :func:`ddpdoctor.preflight` (`min_free`, `dataloader`, `model`, ...);
    `devices` defaults to the strategy's device for this rank. A preflight error raises
    :class:`ddpdoctor.PreflightError` from `setup`, which stops the run before training. With
    `preflight=False` only failures are explained. `report_dir` and `peer_wait` are guard's.
    """

    def __init__(
        self,
        *,
        preflight: bool = True,
        report_dir: str | Path | None = None,
        peer_wait: float = DEFAULT_PEER_WAIT,
        **preflight_options: Any,
    ) -> None:
        super().__init__()
        self.run_preflight = preflight
        self.report_dir = report_dir
        self.peer_wait = peer_wait
        self.preflight_options = preflight_options
        self.preflight_report: CheckReport | None = None
        self.guard: Guard | None = None

    def setup(self, trainer: Trainer, pl_module: LightningModule, stage: str) -> None:
        """Run the preflight checks on this rank's device (called on every rank)."""
        if self.run_preflight:
            options = {"devices": [trainer.strategy.root_device], **self.preflight_options}
            self.preflight_report = preflight(**options)

    def on_exception(self, trainer: Trainer, pl_module: LightningModule, exception: BaseException) -> None:
        """Explain the exception on this rank: a compact diagnosis, or one line on a victim."""
        if not isinstance(exception, Exception) or isinstance(exception, PreflightError):
            return  # Ctrl-C and the like; a preflight error already says what is wrong
        self.guard = Guard(report_dir=self.report_dir, rank=trainer.global_rank, peer_wait=self.peer_wait)
        self.guard.diagnose(exception)
