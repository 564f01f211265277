"""Scenarios: real runs that fail the way the knowledge base says, for `reproduce` and the tests.

The catalog (:mod:`ddpdoctor.scenarios.catalog`) imports nothing heavy, so `kb lint` can check
`reproducer:` names against it. :func:`run_scenario` runs one scenario in a subprocess, bounded in
time, and returns its output exactly as a terminal would have shown it.
"""

from __future__ import annotations

import contextlib
import io
import os
import socket
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ddpdoctor.scenarios.catalog import (
    HANG_AFTER_S,
    SCENARIOS,
    TORCH_WORLD_SIZE,
    WORKDIR,
    Expect,
    Runtime,
    Scenario,
    get_scenario,
    scenario_names,
)
from ddpdoctor.scenarios.process import TOKEN_VARIABLE, ProcessRun, processes_with_token, run_bounded

if TYPE_CHECKING:
    from ddpdoctor.supervise import RunReport

__all__ = [
    "SCENARIOS",
    "Expect",
    "Runtime",
    "Scenario",
    "ScenarioRun",
    "diagnosis_mismatches",
    "get_scenario",
    "processes_with_token",
    "run_scenario",
    "scenario_names",
]

JOBS = Path(__file__).resolve().parent / "jobs"
# Keeps the numpy-less CPU wheel's import warning out of the logs; nothing else is filtered.
_QUIET_IMPORT = "ignore:Failed to initialize NumPy"


@dataclass(frozen=True)
class ScenarioRun:
    """A finished scenario run: the process facts plus whether it ended the expected way."""

    scenario: Scenario
    process: ProcessRun
    supervised: RunReport | None = None

    @property
    def output(self) -> str:
        """Everything the run printed, stdout and stderr interleaved."""
        return self.process.output

    @property
    def reproduced(self) -> bool:
        """True when the run ended the way the scenario expects (panic, stop, hang or job failure)."""
        code = self.process.returncode
        expect = self.scenario.expect
        if expect is Expect.HANG:
            return self.process.timed_out
        if expect is Expect.HANG_REPORT:
            return self.scenario.rank in self.suspect_ranks and bool(
                self.supervised and self.supervised.killed
            )
        if expect is Expect.PANIC:
            return code == 101
        if expect is Expect.INTERRUPTED:
            return code == 0 and "Training interrupted: " in self.output
        return code == 1

    @property
    def suspect_ranks(self) -> list[int]:
        """The ranks the hang report of a supervised run names."""
        from ddpdoctor.supervise.analysis import member_ranks

        hang = None if self.supervised is None else self.supervised.hang
        if hang is None or hang.analysis is None:
            return []
        return sorted({r for s in hang.analysis.suspects for r in member_ranks(s.members)})

    @property
    def outcome(self) -> str:
        """How the run ended, in words."""
        if self.supervised is not None and self.supervised.killed:
            silence = self.supervised.hang_silence_s or 0.0
            return (
                f"hung: `ddpdoctor run` reported it {silence:.1f} s after the last output "
                f"and stopped it (exit status {self.supervised.returncode})"
            )
        if self.process.timed_out:
            return f"no result after {self.scenario.bound_s:g} s: the run hung and was stopped"
        return f"exit status {self.process.returncode} after {self.process.duration:.1f} s"


def _environment(scenario: Scenario) -> dict[str, str]:
    env = dict(os.environ)
    package_root = str(Path(__file__).resolve().parent.parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH", "")) if p)
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONWARNINGS"] = _QUIET_IMPORT
    env.pop("RUST_BACKTRACE", None)
    for key in ("TORCH_DISTRIBUTED_DEBUG", "TORCHELASTIC_ERROR_FILE", "MASTER_ADDR", "MASTER_PORT"):
        env.pop(key, None)
    env.update(dict(scenario.env))
    return env


@contextmanager
def _port_taken() -> Iterator[int]:
    """A port on which this process listens, chosen by the kernel, for a scenario that occupies it."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("", 0))
        sock.listen()
        yield int(sock.getsockname()[1])


def _command(scenario: Scenario, workdir: Path, port: int | None) -> list[str]:
    args = [arg.replace(WORKDIR, str(workdir)) for arg in scenario.args]
    if scenario.runtime is Runtime.BURN:
        return [sys.executable, "-m", "ddpdoctor.runtime", *args]
    script, *rest = args
    launcher = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", str(TORCH_WORLD_SIZE)]
    if port is not None:
        launcher += ["--nnodes", "1", "--master-addr", "127.0.0.1", "--master-port", str(port)]
    else:
        launcher += ["--standalone"]
    return [*launcher, str(JOBS / script), *rest]


def run_scenario(
    scenario: Scenario, *, on_output: Callable[[str], None] | None = None, workdir: Path | None = None
) -> ScenarioRun:
    """Run `scenario` once and return what it printed.

    The run's working folder (Burn's experiment log, the torch job's checkpoint path) is `workdir`
    when given and kept; otherwise a temporary folder that is removed afterwards.
    """
    if workdir is None:
        with tempfile.TemporaryDirectory(prefix=f"ddpdoctor-{scenario.name}-") as tmp:
            return run_scenario(scenario, on_output=on_output, workdir=Path(tmp))
    if scenario.expect is Expect.HANG_REPORT:
        return _run_supervised(scenario, workdir, on_output)
    env = _environment(scenario)
    with contextlib.ExitStack() as stack:
        port = stack.enter_context(_port_taken()) if scenario.occupy_port else None
        process = run_bounded(
            _command(scenario, workdir, port),
            env=env,
            cwd=workdir,
            bound_s=scenario.bound_s,
            on_output=on_output,
        )
    return ScenarioRun(scenario, process)


class _Terminal(io.BytesIO):
    """Stands for the terminal a supervised scenario writes to: keeps the bytes, shows them live."""

    def __init__(self, on_output: Callable[[str], None] | None) -> None:
        super().__init__()
        self.on_output = on_output

    def write(self, data: Any) -> int:
        if self.on_output is not None:
            self.on_output(bytes(data).decode("utf-8", errors="replace"))
        return super().write(data)


def _run_supervised(
    scenario: Scenario, workdir: Path, on_output: Callable[[str], None] | None
) -> ScenarioRun:
    """Run a hang scenario under `ddpdoctor run --hang-after 5 --on-hang kill`."""
    import uuid

    from ddpdoctor.supervise import RunOptions, supervise, write_folder

    token = uuid.uuid4().hex
    command = _command(scenario, workdir, None)
    terminal = _Terminal(on_output)
    options = RunOptions(
        command=tuple(command),
        out=workdir / "run",
        hang_after=HANG_AFTER_S,
        on_hang="kill",
        explain=False,
        stop_after_s=scenario.bound_s,
    )
    env = {**_environment(scenario), TOKEN_VARIABLE: token}
    report = supervise(options, stdout=terminal, stderr=terminal, env=env, cwd=workdir)
    write_folder(report, "")
    process = ProcessRun(
        command=tuple(command),
        output=terminal.getvalue().decode("utf-8", errors="replace"),
        returncode=report.returncode,
        timed_out=report.stopped_at_bound,
        duration=report.duration_s,
        token=token,
        stragglers=tuple(report.leftover),
    )
    return ScenarioRun(scenario, process, report)


def diagnosis_mismatches(scenario: Scenario, explained: dict[str, Any]) -> list[str]:
    """How an `explain` report (its JSON form) differs from the scenario's expected diagnosis."""
    root = explained.get("root_cause")
    if scenario.category is None:
        return (
            []
            if root is None
            else [f"expected no failure, explain found {root.get('entry') or root.get('category')}"]
        )
    if root is None:
        return ["explain found no failure in the log"]
    problems = []
    if root.get("entry") != scenario.entry:
        problems.append(f"entry: expected {scenario.entry}, explain said {root.get('entry')}")
    if root.get("category") != scenario.category:
        problems.append(f"category: expected {scenario.category}, explain said {root.get('category')}")
    if scenario.any_rank:
        if root.get("rank") not in range(TORCH_WORLD_SIZE):
            problems.append(f"rank: expected one of the failing ranks, explain said {root.get('rank')}")
    elif root.get("rank") != scenario.rank:
        problems.append(f"rank: expected {scenario.rank}, explain said {root.get('rank')}")
    return problems
