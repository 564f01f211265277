"""Lightning (`import lightning`): `DdpDoctorCallback` runs `preflight` at setup and explains an exception.

    from ddpdoctor.integrations.lightning import DdpDoctorCallback

    trainer = L.Trainer(accelerator="gpu", devices=4, strategy="ddp", callbacks=[DdpDoctorCallback()])

The callback subclasses `lightning.pytorch.Callback`; when only the standalone `pytorch_lightning`
package is installed it subclasses `pytorch_lightning.Callback` instead. With both installed, code
that imports `pytorch_lightning` takes :mod:`ddpdoctor.integrations.pytorch_lightning`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ddpdoctor.integrations._lightning_hooks import LightningHooks

if TYPE_CHECKING:
    from lightning.pytorch import Callback
else:
    try:
        from lightning.pytorch import Callback
    except ImportError:
        from pytorch_lightning import Callback


class DdpDoctorCallback(LightningHooks, Callback):
    """Preflight at setup on every rank and guard's diagnosis of an exception, as a `lightning.pytorch.Callback` (or `pytorch_lightning.Callback` without `lightning`).

    See :class:`ddpdoctor.integrations._lightning_hooks.LightningHooks` for the arguments.
    """
