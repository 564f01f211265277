"""`ddpdoctor check`: find the setup mistakes that otherwise surface as a failed job an hour later.

Modules: :mod:`~ddpdoctor.check.catalog` (every check id, torch-free), :mod:`~ddpdoctor.check.devices`
(device lists), :mod:`~ddpdoctor.check.memory`, :mod:`~ddpdoctor.check.dataloader`,
:mod:`~ddpdoctor.check.backend`, :mod:`~ddpdoctor.check.env`, and :mod:`~ddpdoctor.check.runner`,
which runs them and returns a :class:`~ddpdoctor.check.runner.CheckReport`.
"""
