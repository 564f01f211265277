"""Restarts: which observations belong to the launcher's last attempt.

torchrun started with `--max-restarts` runs the workers again after a failure, so one log can hold
several attempts: its agent reports each failed attempt once (`failed (exitcode: 1) local_rank: 3
(pid: 22170)`) and `--log-dir` keeps each attempt's files under `attempt_<n>/`. An agent that reports
a second failure, of other worker processes, had restarted them; every line after its earlier report
belongs to a later attempt. Agents are told apart by the process id in their log header, so that two
nodes' agents in one capture, each reporting one failure of the same attempt, are not a restart.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

from ddpdoctor.explain.observations import ExitObs, Observation

_LOGDIR_ATTEMPT = re.compile(r"[/\\]attempt_(\d{1,7})[/\\]")
# The header of the agent's log record: `E1202 09:50:53.261000 22137 torch/...`, its process id third.
_AGENT_PROCESS = re.compile(r"^[IWEF]\d{4} \d\d:\d\d:\d\d(?:\.\d{1,9})? +(\d{1,10}) ")


def attempts(observations: Sequence[Observation]) -> list[int] | None:
    """Each observation's attempt number (0 the first), or None when the logs show one attempt."""
    numbers = [path_attempt(obs.file) for obs in observations]
    restarts = _restarts_by_input(observations)
    for index, obs in enumerate(observations):
        if numbers[index] is None:
            numbers[index] = _stream_attempt(obs, restarts.get(obs.file_index, {}))
    known = [n or 0 for n in numbers]
    return known if max(known, default=0) > 0 else None


def path_attempt(path: str) -> int | None:
    """The attempt of a file in a torchrun `--log-dir` folder (`.../attempt_1/0/stderr.log`)."""
    found = _LOGDIR_ATTEMPT.findall(path)
    return int(found[-1]) if found else None


def _restarts_by_input(observations: Sequence[Observation]) -> dict[int, dict[str, list[int]]]:
    """Per input, per agent: the lines of its reports of a failed attempt that it restarted after
    (every report but its last, each of other worker processes than the report before)."""
    reports: dict[int, dict[str, list[tuple[int, int | None]]]] = {}
    for obs in observations:
        if isinstance(obs, ExitObs) and obs.reporter == "torchrun-agent":
            header = _AGENT_PROCESS.match(obs.text)
            agent = f"{obs.host or ''}:{header.group(1) if header else ''}"
            reports.setdefault(obs.file_index, {}).setdefault(agent, []).append((obs.line, obs.pid))
    restarts: dict[int, dict[str, list[int]]] = {}
    for file_index, agents in reports.items():
        for agent, seen in agents.items():
            seen.sort()
            ends = [
                line
                for (line, pid), (_, next_pid) in pairwise(seen)
                if pid is None or next_pid is None or pid != next_pid
            ]
            if ends:
                restarts.setdefault(file_index, {})[agent] = ends
    return restarts


def _stream_attempt(obs: Observation, restarts: dict[str, list[int]]) -> int:
    """The attempt a line of one capture belongs to: the most restarts any agent reported above it."""
    return max((sum(1 for end in ends if end < obs.line) for ends in restarts.values()), default=0)
