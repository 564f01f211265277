"""Lightning's standalone package (`import pytorch_lightning`): the same callback as :mod:`.lightning`.

from ddpdoctor.integrations.pytorch_lightning import DdpDoctorCallback

trainer = pl.Trainer(accelerator="gpu", devices=4, strategy="ddp", callbacks=[DdpDoctorCallback()])
"""

from __future__ import annotations

from pytorch_lightning import Callback

from ddpdoctor.integrations._lightning_hooks import LightningHooks


class DdpDoctorCallback(LightningHooks, Callback):
    """Preflight at setup on every rank and guard's diagnosis of an exception, as a `pytorch_lightning.Callback`.

    See :class:`ddpdoctor.integrations._lightning_hooks.LightningHooks` for the arguments.
    """
