"""`ddpdoctor check`: find the setup mistakes that otherwise surface as a failed job an hour later.

Modules: :mod:`~ddpdoctor.check.registry` (every check declares itself there, torch-free), the
area modules that hold the checks (:mod:`~ddpdoctor.check.devices`, :mod:`~ddpdoctor.check.memory`,
:mod:`~ddpdoctor.check.dataloader`, :mod:`~ddpdoctor.check.backend`, :mod:`~ddpdoctor.check.launch`),
the data-loader probe (:mod:`~ddpdoctor.check.loader_probe`), and :mod:`~ddpdoctor.check.runner`,
which runs the registered checks and returns a :class:`~ddpdoctor.check.runner.CheckReport`.
"""
