"""Run a probe job under torchrun twice at once; keep what each way of capturing its output holds.

Run (a) captures the plain console (`console.log`: stdout and stderr interleaved, no rank
prefixes). Run (b) adds `--tee 3 --log-dir DIR`: the console, now with `[rankN]:` prefixes, goes
to `tee.log` and torchrun writes its per-rank folder under `logdir/`
(`<run_id>/attempt_0/<local_rank>/{stdout,stderr}.log`, and `error.json` where `@record` is used).

`PROBES` are run again by the slow live test; `FIXTURE_PROBES` are captured only into the
committed fixtures (tests/fixtures/logs/probe-*), so that more scenarios do not slow the suite.
A probe that starts its own ranks (`torch.multiprocessing.spawn`, Lightning's DDP launcher) is run
once with plain `python`, and only its console is kept: there is no torchrun to tee or write a log
folder.

Usable as a module (`capture_probe`) and as a script::

    python tests/probes/capture.py hang-sleep sigkill --out /tmp/probes
    python tests/probes/capture.py --all --fixtures tests/fixtures/logs
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ddpdoctor.scenarios.process import ProcessRun, processes_with_token, run_bounded

HERE = Path(__file__).resolve().parent
WORLD_SIZE = 2
# Every probe ends well within this; past it the run is stopped and the capture is reported as hung.
BOUND_S = 60.0


@dataclass(frozen=True)
class Probe:
    """One failure class: the job that produces it and the diagnosis its captures must get."""

    name: str
    category: str
    # The culprit's global rank; None where every rank fails alike.
    rank: int | None
    # The category the `--log-dir` folder alone supports, where it lacks the evidence the console
    # holds: torchrun writes a worker's exit code or signal only to its own console, so a rank that
    # ended without a word there is taken for the likeliest cause, a kill by the out-of-memory killer.
    logdir_category: str | None = None
    # Options for torchrun itself. A job whose survivors must report the lost peer before the agent
    # stops them sets how often the agent looks at its workers (torch's default is every 0.1 s, and
    # a survivor that is not scheduled in time is stopped before it prints; older torch looked every 5 s).
    launcher: tuple[str, ...] = ()
    # The script starts its ranks itself (torch.multiprocessing.spawn, Lightning's DDP launcher): run
    # with python, console only.
    spawn: bool = False

    @property
    def captures(self) -> tuple[str, ...]:
        """The ways this probe's output is captured: console, tee and log-dir, or the console alone."""
        return ("console",) if self.spawn else ("console", "tee", "log-dir")

    def expected_category(self, capture: str) -> str:
        """The category a diagnosis of `capture` (console, tee or log-dir) must name."""
        if capture == "log-dir" and self.logdir_category is not None:
            return self.logdir_category
        return self.category

    @property
    def script(self) -> Path:
        """The job torchrun starts: `<name>.py` with underscores."""
        return HERE / f"{self.name.replace('-', '_')}.py"


PROBES = (
    Probe("hang-sleep", "collective_timeout", 1),
    Probe("sys-exit", "other", 1, logdir_category="oom_host", launcher=("--monitor-interval", "2")),
    Probe("sigkill", "oom_host", 1, launcher=("--monitor-interval", "2")),
    Probe("shape-mismatch", "user_code", 1),
    Probe("dataloader-keyerror", "dataloader", 1),
    Probe("ddp-attribute", "user_code", 0),
    Probe("checkpoint-exception", "user_code", 0),
    Probe("value-error", "user_code", 1),
)
# Captured into fixtures only: the live test runs PROBES, so that these do not slow the suite.
FIXTURE_PROBES = (
    Probe("unused-parameter", "unused_parameters", None),
    Probe("model-mismatch", "collective_mismatch", 1),
    Probe("mismatched-collective", "collective_mismatch", None),
    Probe("rendezvous-straggler", "rendezvous", 1),
    Probe("sigabrt", "other", 1, logdir_category="oom_host"),
    Probe("sigsegv", "other", 1, logdir_category="oom_host"),
    Probe("monitored-barrier", "collective_timeout", 1),
    Probe("missing-module", "version_mismatch", 1),
    Probe("host-alloc", "oom_host", 1),
    Probe("missing-checkpoint", "user_code", 1),
    Probe("init-twice", "user_code", None),
    Probe("cuda-on-cpu", "invalid_device", None),
    Probe("spawn-raise", "user_code", 1, spawn=True),
    Probe("dataloader-worker-killed", "oom_host", 1),
    Probe("autograd-inplace", "user_code", 1),
    Probe("class-count-mismatch", "collective_mismatch", None),
    Probe("partial-new-group", "collective_timeout", 0),
    Probe("spawn-port-in-use", "rendezvous", None, spawn=True),
    Probe("nccl-on-cpu", "backend_unsupported", None),
    Probe("gather-lambda", "user_code", 1),
    Probe("recursion-error", "user_code", 1),
    Probe("checkpointed-reuse", "unused_parameters", None),
    Probe("world-size-three", "rendezvous", None),
    Probe("uneven-batches", "dataloader", 1),
    Probe("dataloader-timeout", "dataloader", 1),
    Probe("spawn-sigkill", "oom_host", 1, spawn=True),
    Probe("spawn-local-target", "user_code", None, spawn=True),
    Probe("restart-raise", "user_code", 1, launcher=("--max-restarts", "1")),
    Probe("sigterm-rank", "other", 1, logdir_category="oom_host"),
    Probe("sys-exit-message", "user_code", 1),
    Probe("thread-exception", "user_code", 1),
    Probe("lightning-raise", "user_code", 1, spawn=True),
    Probe("lightning-sleep", "collective_timeout", 1, spawn=True),
    Probe("lightning-exit", "other", 1, spawn=True),
    Probe("syncbn-cpu", "backend_unsupported", None),
    Probe("memory-error", "oom_host", 1),
    Probe("recv-deadlock", "collective_timeout", None),
    Probe("barrier-rank0", "collective_timeout", None),
)
ALL_PROBES = PROBES + FIXTURE_PROBES


@dataclass(frozen=True)
class Capture:
    """Where one probe's three captures lie, and how its two torchrun runs ended."""

    console: Path
    tee: Path
    logdir: Path
    console_run: ProcessRun
    tee_run: ProcessRun


class ProbeRunError(RuntimeError):
    """A probe run hung past its bound or left processes behind."""


def get_probe(name: str) -> Probe:
    """The probe called `name`."""
    for probe in ALL_PROBES:
        if probe.name == name:
            return probe
    raise KeyError(f"no probe {name!r}; known: {', '.join(p.name for p in ALL_PROBES)}")


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env.update(OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1", PYTHONWARNINGS="ignore:Failed to initialize NumPy")
    for key in ("TORCHELASTIC_ERROR_FILE", "TORCH_DISTRIBUTED_DEBUG", "MASTER_ADDR", "MASTER_PORT"):
        env.pop(key, None)
    return env


def _command(probe: Probe, launcher_options: Sequence[str]) -> list[str]:
    if probe.spawn:
        return [sys.executable, str(probe.script)]
    return [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        "--nproc-per-node",
        str(WORLD_SIZE),
        *probe.launcher,
        *launcher_options,
        str(probe.script),
    ]


def _run(probe: Probe, launcher_options: Sequence[str], log: Path, cwd: Path) -> ProcessRun:
    run = run_bounded(_command(probe, launcher_options), env=_environment(), cwd=cwd, bound_s=BOUND_S)
    log.write_text(run.output, encoding="utf-8")
    if run.timed_out:
        raise ProbeRunError(f"{probe.name}: no result after {BOUND_S:g} s (output in {log})")
    left = processes_with_token(run.token)
    if left:
        raise ProbeRunError(f"{probe.name}: processes {left} outlived the run")
    return run


def capture_console(probe: Probe, out: Path) -> ProcessRun:
    """Run a probe that starts its own ranks once and write its console to `out/console.log`."""
    out.mkdir(parents=True, exist_ok=True)
    return _run(probe, [], out / "console.log", out)


def capture_probe(probe: Probe, out: Path) -> Capture:
    """Run `probe` twice at once (plain console; `--tee 3 --log-dir`) and write its captures under `out`."""
    out.mkdir(parents=True, exist_ok=True)
    console, tee, logdir = out / "console.log", out / "tee.log", out / "logdir"
    # A folder left by an earlier capture would add a second run to the one explained.
    shutil.rmtree(logdir, ignore_errors=True)
    # The two runs are independent jobs (each its own rendezvous port and token): run them at the
    # same time, so that one's waits (process start, the collective timeout) overlap the other's work.
    with ThreadPoolExecutor(max_workers=2) as pool:
        console_run = pool.submit(_run, probe, [], console, out)
        tee_run = pool.submit(_run, probe, ["--tee", "3", "--log-dir", str(logdir)], tee, out)
        return Capture(console, tee, logdir, console_run.result(), tee_run.result())


def _store_fixtures(probe: Probe, out: Path, fixtures: Path) -> None:
    stem = fixtures / f"probe-{probe.name}"
    shutil.copyfile(out / "console.log", f"{stem}-console.log")
    if probe.spawn:
        return
    shutil.copyfile(out / "tee.log", f"{stem}-tee.log")
    target = Path(f"{stem}-logdir")
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(out / "logdir", target)


def main(argv: Sequence[str] | None = None) -> int:
    """Capture the named probes (or all) into `--out`, or into the fixture layout with `--fixtures`."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help=f"probes to run: {', '.join(p.name for p in ALL_PROBES)}")
    parser.add_argument("--all", action="store_true", help="run every probe")
    parser.add_argument("--out", type=Path, help="write OUT/<probe>/{console.log,tee.log,logdir/}")
    parser.add_argument(
        "--fixtures", type=Path, help="copy into FIXTURES/probe-<probe>-{console.log,tee.log,logdir/}"
    )
    args = parser.parse_args(argv)
    try:
        probes = list(ALL_PROBES) if args.all else [get_probe(name) for name in args.names]
    except KeyError as exc:
        parser.error(str(exc.args[0]))
    if not probes:
        parser.error("name a probe or give --all")
    with tempfile.TemporaryDirectory(prefix="ddpdoctor-probes-") as scratch:
        root = args.out or Path(scratch)
        for probe in probes:
            out = root / probe.name
            if probe.spawn:
                code = capture_console(probe, out).returncode
                print(f"{probe.name}: exit status {code} (console); {out}")
            else:
                capture = capture_probe(probe, out)
                codes = (capture.console_run.returncode, capture.tee_run.returncode)
                print(f"{probe.name}: exit status {codes[0]} (console), {codes[1]} (tee); {out}")
            if args.fixtures is not None:
                _store_fixtures(probe, out, args.fixtures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
