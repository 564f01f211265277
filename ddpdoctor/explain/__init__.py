"""`ddpdoctor explain`: the root cause of a multi-rank failure, from plain logs.

Public API (other commands and outside tools call these):

- :func:`explain_paths` (files, folders, `-`) and :func:`explain_text` (a string);
- :class:`ExplainOptions`, a frozen record of reading options;
- :class:`ExplainReport`, whose `to_dict()` is the `ddpdoctor.explain/1` JSON contract.
"""

from __future__ import annotations

from ddpdoctor.explain.api import attach_excerpt, explain_paths, explain_text
from ddpdoctor.explain.options import ExplainOptions
from ddpdoctor.explain.report import SCHEMA, ExplainReport

__all__ = ["SCHEMA", "ExplainOptions", "ExplainReport", "attach_excerpt", "explain_paths", "explain_text"]
