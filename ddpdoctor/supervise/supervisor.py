"""`ddpdoctor run`: start a job, pass its output through, watch for a hang, diagnose how it ended.

The job runs as a child of this process, which becomes a child subreaper (Linux) so that no
process of the job escapes when its launcher dies. Its standard output and error pass through
unchanged and are kept in the run folder: the launcher's own output in `launcher.log`, each rank's
(sent by the startup hook over a Unix socket) in `ranks/rank<N>.log`. Every process of the job
carries a token in its environment, so the whole job can be found and stopped by pid.

A hang is `hang_after` seconds without output, or a rank whose progress heartbeat (from `guard()`,
`preflight()` or `heartbeat()`, see :mod:`ddpdoctor._heartbeat`) stopped that long, during which
the job's processes together also use less than :data:`BUSY_CORES` of CPU (a stopped `heartbeat()`
needs no such check). Then the stacks of every rank are taken, Flight Recorder dumps are requested
and read, and the hang report is handed to the caller.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import functools
import os
import re
import selectors
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import IO, TYPE_CHECKING, Any

from ddpdoctor._heartbeat import BEAT_INTERVAL_S, BEAT_SUFFIX, STEPS, parse_beat
from ddpdoctor.children import become_subreaper, die_with_parent
from ddpdoctor.errors import DdpDoctorError, InputError
from ddpdoctor.findings import Finding, Severity
from ddpdoctor.supervise import procfs
from ddpdoctor.supervise.instrument import (
    HEARTBEAT_DIR,
    SIGNAL_DUMP_SUFFIX,
    SIGNAL_STACK_DIR,
    TOKEN_VARIABLE,
    Setting,
    instrumented_environment,
)

if TYPE_CHECKING:
    from ddpdoctor.explain.report import ExplainReport
    from ddpdoctor.supervise.report import HangReport, RunReport

ON_HANG = ("report", "kill")
DEFAULT_HANG_AFTER_S = 300.0
DEFAULT_RUNS_DIR = "ddpdoctor-runs"
# A silent job whose processes together use more CPU than this is still working.
BUSY_CORES = 0.25
# How long CPU use is measured once the job looks stuck (silent, or a heartbeat stopped).
PROBE_S = 2.0
TICK_S = 0.25
# Ranks whose beats stopped together are seen to stop up to this far apart: a write and a read
# interval, each at its own phase, and a late tick.
_SAME_MOMENT_S = 3 * BEAT_INTERVAL_S
# After the job's main process exits, how long its pipes may stay open before run moves on.
EXIT_DRAIN_S = 2.0
FLIGHT_RECORDER_WAIT_S = 10.0
BUNDLE_NAME = "bundle.tar.gz"
# gzip's own default level: a third of the time of tarfile's level 9 on a log, for a 4% larger bundle.
BUNDLE_GZIP_LEVEL = 6
REPORT_JSON = "report.json"
REPORT_MARKDOWN = "report.md"


@dataclass(frozen=True)
class RunOptions:
    """What to run and how to watch it."""

    command: tuple[str, ...]
    out: Path | None = None
    hang_after: float = DEFAULT_HANG_AFTER_S
    on_hang: str = "report"
    native: bool = False
    instrument: bool = True
    explain: bool = True
    kb_dirs: tuple[str, ...] = ()
    # Stop the job after this many seconds whatever it does (a bound for scenarios and tests).
    stop_after_s: float | None = None


@dataclass(frozen=True)
class RunCallbacks:
    """How the caller hears about a run while it goes on (the core itself never prints)."""

    started: Callable[[Path, list[Setting]], None] | None = None
    hang: Callable[[HangReport], None] | None = None


def default_folder(command: Sequence[str], base: Path | None = None) -> Path:
    """`./ddpdoctor-runs/<date>-<time>-<program>`, e.g. `20261130-152501-torchrun`."""
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    program = re.sub(r"[^A-Za-z0-9_.-]", "_", os.path.basename(command[0]))[:40] if command else "job"
    folder = (base or Path.cwd() / DEFAULT_RUNS_DIR) / f"{stamp}-{program}"
    suffix = 1
    while folder.exists():
        suffix += 1
        folder = folder.with_name(f"{stamp}-{program}-{suffix}")
    return folder


def _prepare_folder(options: RunOptions) -> Path:
    folder = options.out if options.out is not None else default_folder(options.command)
    if (folder / REPORT_JSON).exists():
        raise InputError(f"{folder} already holds a run", hint="choose another --out folder")
    try:
        (folder / "ranks").mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create the run folder {folder}: {exc.strerror}") from None
    return folder.resolve()


class _Streams:
    """The job's output: the launcher's pipes and the ranks' sockets, passed through and kept."""

    def __init__(self, folder: Path, stdout: IO[bytes], stderr: IO[bytes]) -> None:
        self.folder = folder
        self.terminal = {"stdout": stdout, "stderr": stderr}
        self.selector = selectors.DefaultSelector()
        self.launcher = open(folder / "launcher.log", "ab")  # noqa: SIM115
        self.rank_files: dict[str, IO[bytes]] = {}
        self.controls: dict[int, tuple[str, socket.socket]] = {}
        self.last_output = time.monotonic()
        self.open_streams = 0  # the launcher's pipes and the ranks' output sockets still open

    def add_pipe(self, pipe: IO[bytes], stream: str) -> None:
        self.selector.register(pipe, selectors.EVENT_READ, ("pipe", stream, self.launcher))
        self.open_streams += 1

    def add_server(self, server: socket.socket) -> None:
        self.selector.register(server, selectors.EVENT_READ, ("server", "", None))

    def _rank_file(self, rank: str) -> IO[bytes]:
        if rank not in self.rank_files:
            self.rank_files[rank] = open(self.folder / "ranks" / f"rank{rank}.log", "ab")  # noqa: SIM115
        return self.rank_files[rank]

    def _accept(self, server: socket.socket) -> None:
        conn, _ = server.accept()
        conn.settimeout(2.0)
        header = b""
        with contextlib.suppress(OSError):
            while not header.endswith(b"\n") and len(header) < 200:
                chunk = conn.recv(1)
                if not chunk:
                    break
                header += chunk
        parts = header.decode(errors="replace").split()
        if len(parts) != 3 or not parts[1].isdigit() or not parts[2].isdigit():
            conn.close()
            return
        kind, rank, pid = parts
        conn.settimeout(None)
        if kind == "control":
            self.controls[int(pid)] = (rank, conn)
        elif kind in self.terminal:
            self.selector.register(conn, selectors.EVENT_READ, ("socket", kind, self._rank_file(rank)))
            self.open_streams += 1
        else:
            conn.close()

    def pump(self, timeout: float) -> int:
        """Move whatever output is ready (waiting at most `timeout`); the number of streams that had some."""
        ready = self.selector.select(timeout)
        for key, _ in ready:
            kind, stream, copy = key.data
            if kind == "server":
                self._accept(key.fileobj)  # type: ignore[arg-type]
                continue
            fd = key.fd
            try:
                data = os.read(fd, 65536)
            except OSError:
                data = b""
            if not data:
                self.selector.unregister(key.fileobj)
                self.open_streams -= 1
                if kind != "pipe":
                    key.fileobj.close()  # type: ignore[union-attr]
                continue
            self.last_output = time.monotonic()
            out = self.terminal[stream]
            out.write(data)
            out.flush()
            copy.write(data)
        return len(ready)

    def ask_for_flight_recorder_dumps(self) -> Callable[[], None]:
        """Ask every rank's hook for a Flight Recorder dump; return the (bounded) wait for the answers."""
        deadline = time.monotonic() + FLIGHT_RECORDER_WAIT_S
        asked = []
        for pid, (_, conn) in list(self.controls.items()):
            try:
                conn.sendall(b"flight-recorder\n")
                asked.append(conn)
            except OSError:
                del self.controls[pid]

        def wait() -> None:
            for conn in asked:
                with contextlib.suppress(OSError):
                    conn.settimeout(max(0.1, deadline - time.monotonic()))
                    conn.recv(256)

        return wait

    def close(self) -> None:
        for key in list(self.selector.get_map().values()):
            with contextlib.suppress(OSError):
                key.fileobj.close()  # type: ignore[union-attr]
        self.selector.close()
        for _, conn in self.controls.values():
            conn.close()
        for handle in (self.launcher, *self.rank_files.values()):
            handle.close()


def job_processes(root: int, token: str) -> list[int]:
    """Every live process of the job: descendants of this process and carriers of the job's token."""
    table = procfs.process_table()
    mine = set(procfs.descendants(os.getpid(), table))
    tagged = {pid for pid in table if procfs.has_variable(pid, TOKEN_VARIABLE, token)}
    return sorted((mine | tagged | ({root} if root in table else set())) - {os.getpid()})


def _hang_targets(pids: Sequence[int]) -> list[procfs.RankProcess]:
    ranks = procfs.rank_processes(pids)
    if ranks:
        return ranks
    table = procfs.process_table()
    return [procfs.RankProcess(pid, None, None, None, table[pid].command) for pid in pids if pid in table]


@dataclass(frozen=True)
class Stall:
    """A rank whose progress heartbeat stopped: since when (monotonic) and what beat it."""

    rank: int
    since: float
    source: str


class _Heartbeats:
    """The ranks' progress beats (:mod:`ddpdoctor._heartbeat`): when each beat file last changed."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.changed: dict[Path, tuple[bytes, float]] = {}
        self.next_look = 0.0
        self.stalls: list[Stall] = []

    def _still(self, now: float) -> list[Stall]:
        """Every live rank with a beat file, since when (monotonic) its beat has not changed."""
        ranks = []
        for path in self.folder.glob("rank*" + BEAT_SUFFIX):
            try:
                data = path.read_bytes()
            except OSError:
                continue
            beat = parse_beat(data)
            rank = path.name[4 : -len(BEAT_SUFFIX)]
            if beat is None or not rank.isdigit() or not procfs.alive([beat.pid]):
                continue
            previous = self.changed.get(path)
            if previous is None or previous[0] != data:
                self.changed[path] = previous = (data, now)
            ranks.append(Stall(int(rank), previous[1], beat.source))
        return sorted(ranks, key=lambda stall: stall.rank)

    def stalled(self, hang_after: float) -> list[Stall]:
        """The ranks of live processes whose beat has not changed for `hang_after` seconds (read at
        most once per beat interval)."""
        now = time.monotonic()
        if now >= self.next_look:
            self.next_look = now + BEAT_INTERVAL_S
            self.stalls = [stall for stall in self._still(now) if now - stall.since >= hang_after]
        return self.stalls

    def stalled_together(self, hang_after: float) -> list[Stall]:
        """Read now: the stalled ranks with every rank whose beat stopped in the same moment as theirs.

        Each rank writes its beat once per interval at its own phase and the supervisor reads once
        per interval, so ranks that stopped together cross `hang_after` some seconds apart.
        """
        now = time.monotonic()
        still = self._still(now)
        if not any(now - stall.since >= hang_after for stall in still):
            return self.stalls
        limit = max(hang_after - _SAME_MOMENT_S, hang_after / 2)
        return [stall for stall in still if now - stall.since >= limit]


class _HangWatch:
    """The job looks stuck, and then shows no sign of work over :data:`PROBE_S`: a hang.

    Stuck is no output for `hang_after` seconds, or a rank whose progress heartbeat stopped that
    long. Work is CPU use above :data:`BUSY_CORES`, or a job process found running or runnable in
    at least half of the samples (on a crowded machine a busy job waits for a CPU, it does not
    sleep). A rank whose `heartbeat()` calls stopped is a hang without the probe.
    """

    def __init__(self) -> None:
        self.samples: list[tuple[float, int, bool]] = []
        self.reported = False
        self.ranked: dict[int, bool] = {}
        self.ticks_per_s = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

    def _ranked_first(self, pids: list[int]) -> list[int]:
        """The rank processes (and their helpers) when there are any: a launcher polling its
        workers is not work. Otherwise every process."""
        for pid in pids:
            if pid not in self.ranked:
                self.ranked[pid] = procfs.rank_of(procfs.read_environ(pid)) is not None
        ranked = [pid for pid in pids if self.ranked[pid]]
        return ranked or pids

    def check(self, stuck: bool, decisive: bool, pids: Callable[[], list[int]]) -> bool:
        """Whether the job hangs now, given whether it looks `stuck` (`decisive`: no probe); every tick."""
        now = time.monotonic()
        if self.reported:
            self.reported = stuck  # output or progress resumed: watch again
            return False
        if not stuck:
            self.samples = []
            return False
        if decisive:
            return True
        ticks, running = procfs.activity(self._ranked_first(pids()))
        self.samples.append((now, ticks, running))
        started, before, _ = self.samples[0]
        if now - started < PROBE_S:
            return False
        cores = (ticks - before) / self.ticks_per_s / (now - started)
        busy = sum(1 for _, _, r in self.samples if r) * 2 >= len(self.samples)
        self.samples = [(now, ticks, running)]
        return cores < BUSY_CORES and not busy


def _explain_folder(folder: Path, kb_dirs: tuple[str, ...]) -> ExplainReport | None:
    from ddpdoctor.explain import ExplainOptions, explain_paths

    try:
        explained = explain_paths([str(folder)], ExplainOptions(kb_dirs=kb_dirs))
    except DdpDoctorError:
        return None  # e.g. a job that printed nothing: there is no log to explain
    return explained


class _Job:
    """A started job: its main process, its token, its streams and the report being filled."""

    def __init__(
        self,
        child: subprocess.Popen[bytes],
        token: str,
        streams: _Streams,
        options: RunOptions,
        report: RunReport,
        callbacks: RunCallbacks,
        started: float,
    ) -> None:
        self.child = child
        self.token = token
        self.streams = streams
        self.options = options
        self.report = report
        self.callbacks = callbacks
        self.started = started
        self.watch = _HangWatch()
        self.heartbeats = _Heartbeats(Path(report.folder) / HEARTBEAT_DIR)
        self.silent = False

    def processes(self) -> list[int]:
        """Every live process of the job."""
        return job_processes(self.child.pid, self.token)

    def stop(self, *, at_once: bool = True) -> None:
        """Kill every process of the job (SIGKILL at once, or SIGTERM first)."""
        procfs.terminate(self.processes(), grace_s=0 if at_once else 3.0)

    def looks_stuck(self) -> tuple[bool, bool]:
        """Whether the job looks stuck (silent, or a rank's heartbeat stopped), and whether decisively."""
        if self.options.hang_after <= 0:
            return False, False
        self.silent = time.monotonic() - self.streams.last_output >= self.options.hang_after
        stalls = self.heartbeats.stalled(self.options.hang_after)
        return self.silent or bool(stalls), any(stall.source == STEPS for stall in stalls)

    def report_hang(self) -> None:
        """Take the hang report (asking the ranks for Flight Recorder dumps meanwhile); kill if asked."""
        from ddpdoctor.supervise.report import hang_report

        answers = self.streams.ask_for_flight_recorder_dumps()
        last_output = self.streams.last_output
        # The one stuck and the ones that then blocked waiting for it stopped beating together.
        stalls = self.heartbeats.stalled_together(self.options.hang_after)
        stalled_since = min((stall.since for stall in stalls), default=None)
        self.report.hang_trigger = "silence" if self.silent else "heartbeat"
        self.report.stalled_ranks = [stall.rank for stall in stalls]

        def named() -> None:
            now = time.monotonic()
            self.report.hang_silence_s = now - last_output
            self.report.hang_stall_s = None if stalled_since is None else now - stalled_since
            answers()

        hang = hang_report(_hang_targets(self.processes()), native=self.options.native, before_dumps=named)
        self.report.hang = hang
        self.watch.reported = True
        if self.callbacks.hang is not None:
            self.callbacks.hang(hang)
        if self.options.on_hang == "kill":
            # SIGKILL at once: a SIGTERM makes launchers print tracebacks that a later `explain`
            # of the run folder would take for the cause.
            self.report.killed = True
            self.stop()

    def follow(self) -> None:
        """Pass output through and watch for a hang until the job's main process has exited."""
        interrupts = 0
        exited_at: float | None = None
        while True:
            try:
                moved = self.streams.pump(TICK_S)
                if self.child.poll() is not None:
                    exited_at = exited_at or time.monotonic()
                    # A process the job left behind may hold its pipes open: stop waiting for them.
                    # A rank's socket may still wait to be accepted: done when a pump finds nothing.
                    drained = self.streams.open_streams == 0 and not moved
                    if drained or time.monotonic() - exited_at > EXIT_DRAIN_S:
                        return
                    continue
                if self.watch.check(*self.looks_stuck(), self.processes):
                    self.report_hang()
                bound = self.options.stop_after_s
                if bound is not None and time.monotonic() - self.started > bound:
                    self.report.stopped_at_bound = True
                    self.stop()
            except KeyboardInterrupt:
                # The terminal sent SIGINT to the job as well; a second Ctrl-C stops everything.
                interrupts += 1
                if interrupts > 1:
                    self.stop(at_once=False)

    def finish(self) -> None:
        """Stop what is left of the job, drain its output and note how it ended."""
        if self.child.poll() is None:
            self.stop(at_once=False)
        self.child.wait()
        self.report.reaped = self.processes()
        self.report.leftover = procfs.terminate(self.report.reaped)
        drained_by = time.monotonic() + EXIT_DRAIN_S
        while time.monotonic() < drained_by:
            # Wait for output only while a stream is open; then one last look for a late socket.
            moved = self.streams.pump(TICK_S if self.streams.open_streams else 0)
            if not moved and not self.streams.open_streams:
                break
        self.report.duration_s = time.monotonic() - self.started
        self.report.exit_status = self.child.returncode


def supervise(
    options: RunOptions,
    *,
    stdout: IO[bytes],
    stderr: IO[bytes],
    callbacks: RunCallbacks | None = None,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> RunReport:
    """Run the job to its end (or until a hang is stopped) and return the run report.

    The job's output is written to `stdout`/`stderr` as it arrives; it runs in `cwd` with `env`
    (default: this process's) plus the instrumentation. Files go to the run folder; call
    :func:`write_folder` afterwards to add the report files and the bundle. The job starts before
    the report and analysis modules are imported (they load while it runs).
    """
    if not options.command:
        raise InputError(
            "no command to run", hint="put the command after --, e.g. ddpdoctor run -- torchrun ..."
        )
    if options.on_hang not in ON_HANG:
        raise InputError(f"--on-hang {options.on_hang}: use one of {', '.join(ON_HANG)}")
    callbacks = callbacks or RunCallbacks()
    folder = _prepare_folder(options)
    token = uuid.uuid4().hex
    socket_dir = tempfile.mkdtemp(prefix="ddpd-")
    socket_path = os.path.join(socket_dir, "s")
    job_env, applied = instrumented_environment(
        os.environ if env is None else env, folder, socket_path, token, instrument=options.instrument
    )
    if callbacks.started is not None:
        callbacks.started(folder, applied)
    streams = _Streams(folder, stdout, stderr)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind(socket_path)
        server.listen(256)
        streams.add_server(server)
        become_subreaper()
        try:
            child = subprocess.Popen(
                list(options.command),
                env=job_env,
                cwd=cwd,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                preexec_fn=functools.partial(die_with_parent, os.getpid()),
            )
        except OSError as exc:
            raise InputError(
                f"cannot start {options.command[0]}: {exc.strerror}", hint="check the command after --"
            ) from None
        started = time.monotonic()
        assert child.stdout is not None and child.stderr is not None
        streams.add_pipe(child.stdout, "stdout")
        streams.add_pipe(child.stderr, "stderr")
        report = _new_report(options, folder, applied)
        job = _Job(child, token, streams, options, report, callbacks, started)
        previous = _forward_sigterm(child)
        try:
            job.follow()
        finally:
            job.finish()
            with contextlib.suppress(ValueError):
                signal.signal(signal.SIGTERM, previous)
    finally:
        streams.close()
        server.close()
        shutil.rmtree(socket_dir, ignore_errors=True)
    _conclude(report, options, folder)
    return report


def _new_report(options: RunOptions, folder: Path, applied: list[Setting]) -> RunReport:
    """The empty run report; its module (and the analysis behind it) loads once the job runs."""
    from ddpdoctor.supervise.report import RUN_SCHEMA, RunReport

    return RunReport(
        schema=RUN_SCHEMA,
        command=options.command,
        folder=str(folder),
        instrumentation=[(s.name, s.value) for s in applied],
    )


def _forward_sigterm(child: subprocess.Popen[bytes]) -> Any:
    def forward(signum: int, frame: FrameType | None) -> None:
        with contextlib.suppress(ProcessLookupError):
            child.send_signal(signum)

    try:
        return signal.signal(signal.SIGTERM, forward)
    except ValueError:  # not the main thread: leave signals alone
        return signal.SIG_DFL


def _conclude(report: RunReport, options: RunOptions, folder: Path) -> None:
    if report.hang is not None:
        report.findings.append(
            Finding(
                id="run.hang",
                severity=Severity.ERROR,
                category="collective_timeout",
                title="the job hung" + ("; ddpdoctor stopped it" if report.killed else ""),
                message=report.hang_reason(options.hang_after),
            )
        )
        report.findings += report.hang.findings
    if report.exit_status not in (0, None) and not report.killed:
        report.findings.append(
            Finding(
                id="run.failed",
                severity=Severity.ERROR,
                category="other",
                title=f"the job exited with status {report.exit_status}",
                message="",
            )
        )
        if options.explain:
            report.explanation = _explain_folder(folder, options.kb_dirs)
    for empty in (folder / SIGNAL_STACK_DIR).glob("*" + SIGNAL_DUMP_SUFFIX):
        if empty.stat().st_size == 0:
            empty.unlink()


def write_folder(report: RunReport, markdown: str) -> None:
    """Write `report.json`, `report.md` and the `.tar.gz` bundle of the whole run folder."""
    import json
    import tarfile

    folder = Path(report.folder)
    (folder / REPORT_MARKDOWN).write_text(markdown, encoding="utf-8")
    if report.hang is not None:
        (folder / "stacks.json").write_text(json.dumps(report.hang.to_dict(), indent=2), encoding="utf-8")
    bundle = folder / BUNDLE_NAME
    report.bundle = str(bundle)
    report.files = sorted(
        str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file() and p.name != BUNDLE_NAME
    )
    report.files.append(REPORT_JSON)
    (folder / REPORT_JSON).write_text(json.dumps(report.to_dict(), indent=2), encoding="utf-8")
    with tarfile.open(bundle, "w:gz", compresslevel=BUNDLE_GZIP_LEVEL) as tar:
        for name in report.files:
            tar.add(folder / name, arcname=f"{folder.name}/{name}")
