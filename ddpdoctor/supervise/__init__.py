"""Supervise and inspect running multi-rank jobs: `ddpdoctor run` and `ddpdoctor stacks`.

- :func:`supervise` runs a job with its output passed through and kept per rank, detects a hang,
  and returns a :class:`RunReport` (`ddpdoctor.run/1`); :func:`write_folder` completes its folder.
- :func:`hang_report` takes the stacks of running rank processes and merges them into a
  :class:`HangReport` (`ddpdoctor.stacks/1`): equivalence classes, suspects, Flight Recorder.
- :func:`find_processes` turns `stacks` arguments (pids, a job's launcher, everything) into ranks.
"""

from __future__ import annotations

from ddpdoctor.supervise.report import HangReport, RunReport, hang_report
from ddpdoctor.supervise.supervisor import RunCallbacks, RunOptions, supervise, write_folder
from ddpdoctor.supervise.targets import find_processes

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
