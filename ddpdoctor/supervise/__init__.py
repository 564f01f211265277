"""Supervise and inspect running multi-rank jobs: `ddpdoctor run` and `ddpdoctor stacks`.

- :func:`supervise` runs a job with its output passed through and kept per rank, detects a hang,
  and returns a :class:`RunReport` (`ddpdoctor.run/1`); :func:`write_folder` completes its folder.
- :func:`hang_report` takes the stacks of running rank processes and merges them into a
  :class:`HangReport` (`ddpdoctor.stacks/1`): equivalence classes, suspects, Flight Recorder.
- :func:`find_processes` turns `stacks` arguments (pids, a job's launcher, everything) into ranks.

The names load on first use: `ddpdoctor run` starts the job before the stack and Flight Recorder
analysis (:mod:`ddpdoctor.supervise.report`) is imported.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ddpdoctor.supervise.report import HangReport, RunReport, hang_report
    from ddpdoctor.supervise.supervisor import RunCallbacks, RunOptions, supervise, write_folder
    from ddpdoctor.supervise.targets import find_processes

_HOMES = {
    "HangReport": "report",
    "RunReport": "report",
    "hang_report": "report",
    "RunCallbacks": "supervisor",
    "RunOptions": "supervisor",
    "supervise": "supervisor",
    "write_folder": "supervisor",
    "find_processes": "targets",
}

__all__ = [
    "HangReport",
    "RunCallbacks",
    "RunOptions",
    "RunReport",
    "find_processes",
    "hang_report",
    "supervise",
    "write_folder",
]


def __getattr__(name: str) -> Any:
    """Import the module that defines `name` when it is first asked for."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
