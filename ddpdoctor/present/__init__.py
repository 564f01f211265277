"""The presentation layer: reports in, terminal text, plain text, Markdown or JSON out.

Core packages (`explain`, `check`, `kb`, `scenarios`, ...) return reports as data and never
import this package's formatters or the CLI. Here:

- :mod:`~ddpdoctor.present.document`: the format-neutral blocks a layout is made of;
- layouts, one per kind of report (:mod:`~ddpdoctor.present.findings` for any report,
  :mod:`~ddpdoctor.present.explain`, :mod:`~ddpdoctor.present.kb`, ...): report -> document;
- :mod:`~ddpdoctor.present.render`: one formatter per output format behind one protocol, and
  :func:`~ddpdoctor.present.render.emit`, the one place output is written;
- :mod:`~ddpdoctor.present.sanitize`: control characters from outside text shown escaped.

The CLI and the training-script hooks both print through this package.
"""
