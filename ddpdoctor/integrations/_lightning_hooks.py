"""What `DdpDoctorCallback` does, for both Lightning packages (`lightning` and `pytorch_lightning`).

The two packages define separate `Callback` classes, and a Trainer of one wraps a single callback
in a list only when it is an instance of its own class. Each package therefore gets its own
callback class (:mod:`ddpdoctor.integrations.lightning`, :mod:`ddpdoctor.integrations.pytorch_lightning`),
both built on this mixin, which imports neither package.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ddpdoctor.hooks import DEFAULT_PEER_WAIT, Guard, PreflightError, preflight

if TYPE_CHECKING:
    from ddpdoctor.check.runner import CheckReport


class LightningHooks:
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

    def setup(self, trainer: Any, pl_module: Any, stage: str) -> None:
        """Run the preflight checks on this rank's device (called on every rank)."""
        if self.run_preflight:
            options = {"devices": [trainer.strategy.root_device], **self.preflight_options}
            self.preflight_report = preflight(**options)

    def on_exception(self, trainer: Any, pl_module: Any, exception: BaseException) -> None:
        """Explain the exception on this rank: a compact diagnosis, or one line on a victim."""
        if not isinstance(exception, Exception) or isinstance(exception, PreflightError):
            return  # Ctrl-C and the like; a preflight error already says what is wrong
        self.guard = Guard(report_dir=self.report_dir, rank=trainer.global_rank, peer_wait=self.peer_wait)
        self.guard.diagnose(exception)
