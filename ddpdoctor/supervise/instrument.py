"""The environment `ddpdoctor run` gives a job so that its failures and hangs can be diagnosed.

Every variable is set only when the user has not set it (or its older alias); `PYTHONPATH` gets
the startup hook's folder in front of the user's entries. Nothing in the job's code changes.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ddpdoctor._heartbeat import HEARTBEAT_DIR_VARIABLE

HOOK_DIR = Path(__file__).resolve().parent / "hook"
RUN_DIR_VARIABLE = "DDPDOCTOR_RUN_DIR"
SOCKET_VARIABLE = "DDPDOCTOR_RUN_SOCKET"
TOKEN_VARIABLE = "DDPDOCTOR_RUN_TOKEN"
FLIGHT_RECORDER_DIR = "flight-recorder"
FLIGHT_RECORDER_PREFIX = "rank_"
SIGNAL_STACK_DIR = "signal-stacks"
HEARTBEAT_DIR = "heartbeat"
TORCHELASTIC_DIR = "torchelastic"
# The startup hook's signal and the folder it writes signal dumps to.
STACK_SIGNAL_VARIABLE = "DDPDOCTOR_STACK_SIGNAL"
STACK_DIR_VARIABLE = "DDPDOCTOR_STACK_DIR"
DEFAULT_STACK_SIGNAL = "SIGUSR2"
# The hook writes `pid<PID>.stack` (it cannot import ddpdoctor: the job may run another Python).
SIGNAL_DUMP_SUFFIX = ".stack"


@dataclass(frozen=True)
class Setting:
    """One variable `run` sets, with the reason shown to the user."""

    name: str
    value: str
    why: str


def _settings(run_dir: Path) -> list[tuple[tuple[str, ...], Setting]]:
    """(names that mean the user already chose, the setting) in the order they are shown."""
    prefix = str(run_dir / FLIGHT_RECORDER_DIR / FLIGHT_RECORDER_PREFIX)
    return [
        (("PYTHONFAULTHANDLER",), Setting("PYTHONFAULTHANDLER", "1", "Python stacks on a crash")),
        (("PYTHONUNBUFFERED",), Setting("PYTHONUNBUFFERED", "1", "output arrives live through the pipe")),
        (("NCCL_DEBUG",), Setting("NCCL_DEBUG", "WARN", "NCCL says why it fails")),
        (
            ("TORCH_FR_BUFFER_SIZE", "TORCH_NCCL_TRACE_BUFFER_SIZE"),
            Setting("TORCH_FR_BUFFER_SIZE", "2000", "Flight Recorder keeps the last 2000 collectives"),
        ),
        (
            ("TORCH_FR_DUMP_TEMP_FILE", "TORCH_NCCL_DEBUG_INFO_TEMP_FILE"),
            Setting("TORCH_FR_DUMP_TEMP_FILE", prefix, "Flight Recorder dumps land in the run folder"),
        ),
        (
            ("TORCH_NCCL_DUMP_ON_TIMEOUT",),
            Setting("TORCH_NCCL_DUMP_ON_TIMEOUT", "1", "NCCL dumps the Flight Recorder on a timeout"),
        ),
        (
            ("PET_LOG_DIR",),
            Setting(
                "PET_LOG_DIR", str(run_dir / TORCHELASTIC_DIR), "torchrun writes per-rank error files here"
            ),
        ),
        (
            (STACK_SIGNAL_VARIABLE,),
            Setting(
                STACK_SIGNAL_VARIABLE, DEFAULT_STACK_SIGNAL, "a rank dumps all thread stacks on this signal"
            ),
        ),
    ]


def instrumented_environment(
    base: Mapping[str, str], run_dir: Path, socket_path: str, token: str, *, instrument: bool
) -> tuple[dict[str, str], list[Setting]]:
    """The job's environment and the user-visible settings that were added to it.

    Without `instrument` only the token that finds the job's processes is added.
    """
    env = dict(base)
    env[TOKEN_VARIABLE] = token
    if not instrument:
        return env, []
    applied = []
    for names, setting in _settings(run_dir):
        if not any(env.get(name) for name in names):
            env[setting.name] = setting.value
            applied.append(setting)
    path = os.pathsep.join(p for p in (str(HOOK_DIR), env.get("PYTHONPATH", "")) if p)
    env["PYTHONPATH"] = path
    applied.append(Setting("PYTHONPATH", f"{HOOK_DIR} + yours", "startup hook: per-rank output, stack dumps"))
    env[RUN_DIR_VARIABLE] = str(run_dir)
    env[SOCKET_VARIABLE] = socket_path
    env[STACK_DIR_VARIABLE] = str(run_dir / SIGNAL_STACK_DIR)
    env[HEARTBEAT_DIR_VARIABLE] = str(run_dir / HEARTBEAT_DIR)
    for folder in (FLIGHT_RECORDER_DIR, SIGNAL_STACK_DIR, HEARTBEAT_DIR):
        (run_dir / folder).mkdir(parents=True, exist_ok=True)
    return env, applied
