"""Hooks for training scripts: :func:`preflight` before training, :func:`guard` around it.

    from ddpdoctor import preflight, guard

    preflight(devices=["cuda:0", "cuda:1"], dataloader=train_loader, min_free="20GiB")
    with guard(report_dir="ddpdoctor-reports"):
        train()

`preflight` runs the checks of `ddpdoctor check` in-process and raises :class:`PreflightError`
(carrying the report) on any error. `guard` explains an exception with the `explain` engine and
re-raises it (or, with ``fallback=`` and no launcher, runs a single-device retry instead). The
failing rank prints a compact diagnosis; a rank that failed only because a peer did (a timeout, a
connection closed by the peer) prints one line naming the culprit, found through the report
folder every rank writes to. Its own diagnostics never raise. Under `ddpdoctor run`, both also
start the rank's progress heartbeat (:mod:`ddpdoctor._heartbeat`).
"""

from __future__ import annotations

import builtins
import contextlib
import contextvars
import datetime as _dt
import functools
import os
import signal
import socket
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, TYPE_CHECKING, Any, TypeVar, cast, overload

from ddpdoctor._guard_folder import (
    CULPRIT,
    GUARD_SCHEMA,
    VICTIM,
    PeerFailure,
    bounded_wait,
    process_start_time,
    report_stem,
    wait_for_culprit,
    write_reports,
)
from ddpdoctor._heartbeat import watch_this_thread
from ddpdoctor._placement import placement_from_env
from ddpdoctor.check.memory import ModelSource
from ddpdoctor.check.runner import CheckOptions, CheckReport, run_checks
from ddpdoctor.errors import DdpDoctorError, ExitCode
from ddpdoctor.findings import Severity
from ddpdoctor.hardware.inventory import DeviceProbe, Inventory
from ddpdoctor.hardware.probes import probe_from_spec

if TYPE_CHECKING:
    from ddpdoctor.explain.report import ExplainReport

ENV_REPORT_DIR = "DDPDOCTOR_REPORT_DIR"
F = TypeVar("F", bound=Callable[..., Any])
# Set while a guard's fallback runs, so that a guarded function called by its own fallback
# does not fall back again.
_IN_FALLBACK: contextvars.ContextVar[bool] = contextvars.ContextVar("ddpdoctor_in_fallback", default=False)


class PreflightError(DdpDoctorError):
    """`preflight` found at least one error; `.report` holds every finding."""

    exit_code = ExitCode.PROBLEM

    def __init__(self, report: CheckReport) -> None:
        errors = [f for f in report.findings if f.severity is Severity.ERROR]
        listed = "; ".join(f"{f.id}: {f.title}" for f in errors[:3])
        more = f" (+{len(errors) - 3} more)" if len(errors) > 3 else ""
        first_fix = next((f.solutions[0] for f in errors if f.solutions), None)
        super().__init__(f"preflight found {len(errors)} error(s): {listed}{more}", hint=first_fix)
        self.report = report


def preflight(
    *,
    devices: str | Sequence[object],
    dataloader: Any = None,
    model: ModelSource | None = None,
    min_free: int | str | None = None,
    raise_on_error: bool = True,
    batch_size: int | None = None,
    timeout: float = 60.0,
    batches: int = 2,
    backend: str | None = None,
    inventory: str | Inventory | None = None,
    probe: DeviceProbe | None = None,
    kb_dirs: Sequence[Path] = (),
) -> CheckReport:
    """Run `ddpdoctor check` in-process; raise PreflightError on an error unless `raise_on_error` is False.

    `devices` takes the CLI's spellings as a string or a list (torch.device objects and ints too).
    `dataloader` is a loader object (iterated in a thread), a zero-argument factory, or a
    `module:factory` string (iterated in a child process). `model` is `(module, make_batch)`, a
    factory returning that pair, or `module:factory`; it needs `batch_size`. `min_free` is bytes or
    a size such as "20GiB". `inventory` (a file, `builtin:NAME` or an Inventory) simulates a machine.
    Under `ddpdoctor run` it also starts the rank's progress heartbeat (see `ddpdoctor.heartbeat`).
    """
    watch_this_thread()
    if probe is None and inventory is not None:
        probe = probe_from_spec(inventory)
    options = CheckOptions(
        devices=devices,
        min_free=min_free,
        model=model,
        batch_size=batch_size,
        dataloader=dataloader,
        timeout=timeout,
        batches=batches,
        backend=backend,
        kb_dirs=kb_dirs,
    )
    report = run_checks(options, probe)
    if raise_on_error and not report.ok:
        raise PreflightError(report)
    return report


DEFAULT_REPORT_DIR = "ddpdoctor-reports"
DEFAULT_PEER_WAIT = 3.0
# Text of an exception beyond this is cut in the middle before it is explained or written.
_MAX_TEXT_CHARS = 1024 * 1024
_MAX_LEAVES = 32  # sub-exceptions of an exception group that are explained
_MAX_GROUP_DEPTH = 16
_GROUP_TYPE: type[BaseException] | None = getattr(builtins, "BaseExceptionGroup", None)
# Conclusions of `explain` about one rank's own error that make the rank a victim of a peer's failure.
VICTIM_KINDS = frozenset({"symptom", "lost-peer", "straggler"})
_LAUNCHER_NAMES = {"torchrun": "torchrun", "slurm": "srun", "mpi": "mpirun"}
# Set on an exception once a guard has reported it, so that nested guards report it once.
_DIAGNOSED = "_ddpdoctor_diagnosed"


@dataclass(frozen=True)
class GuardNotice:
    """What a guard tells the user about one failure; `ddpdoctor.present.guard` turns it into lines."""

    who: str | None  # "rank 1", "rank unknown (...)", or None for a process started without a launcher
    role: str  # "culprit" or "victim"
    summary: str  # the error line, e.g. "RuntimeError: boom"
    root_cause: dict[str, Any] | None  # the explain/1 root cause, when the diagnosis worked
    report: Path | None
    folder: Path | None
    culprit: PeerFailure | None
    peer_wait: float


def _exception_leaves(exc: BaseException) -> list[BaseException]:
    """The exceptions to explain: `exc` itself, or the leaves of an exception group (depth first, capped)."""
    leaves: list[BaseException] = []

    def visit(current: BaseException, depth: int) -> None:
        if len(leaves) >= _MAX_LEAVES:
            return
        if _GROUP_TYPE is not None and isinstance(current, _GROUP_TYPE) and depth < _MAX_GROUP_DEPTH:
            for sub in getattr(current, "exceptions", ()):
                visit(sub, depth + 1)
        else:
            leaves.append(current)

    visit(exc, 0)
    return leaves or [exc]


def _formatted(exc: BaseException) -> str:
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))


def _bounded(text: str) -> str:
    if len(text) <= _MAX_TEXT_CHARS:
        return text
    half = _MAX_TEXT_CHARS // 2
    return f"{text[:half]}\n... [{len(text) - 2 * half} characters cut by ddpdoctor] ...\n{text[-half:]}"


def _explainable_text(exc: BaseException) -> str:
    """The exception as `explain` reads it: its traceback, or each leaf's traceback for an exception group."""
    return _bounded("\n".join(_formatted(leaf) for leaf in _exception_leaves(exc)))


def _error_line(exc: BaseException) -> str:
    """`Type: message` of `exc`, even when its __str__ fails."""
    lines = traceback.format_exception_only(type(exc), exc)
    return lines[-1].strip() if lines else type(exc).__name__


@contextlib.contextmanager
def _sigterm_held() -> Iterator[None]:
    """Hold SIGTERM while the guard reports; deliver it afterwards.

    A launcher stops every rank with SIGTERM as soon as one exits, which would otherwise cut a
    victim's one line (or a culprit's report) short. Only the main thread can do this; elsewhere
    nothing changes. The wait is bounded by the guard's own work (`peer_wait` and the diagnosis).
    """
    received: list[int] = []
    try:
        previous = signal.signal(signal.SIGTERM, lambda signum, frame: received.append(signum))
    except (ValueError, OSError):  # not the main thread, or no signals here
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)
        if received:
            signal.raise_signal(signal.SIGTERM)


class Guard:
    """Context manager and decorator that explains a failure, then re-raises it (or falls back)."""

    def __init__(
        self,
        *,
        report_dir: str | Path | None = None,
        fallback: Callable[[], Any] | None = None,
        rank: int | None = None,
        name: str | None = None,
        stream: IO[str] | None = None,
        peer_wait: float = DEFAULT_PEER_WAIT,
    ) -> None:
        self._rank_arg = rank
        self._report_dir_arg = report_dir
        self._locate()
        self.fallback = fallback
        self.name = name
        self.stream = stream
        self.peer_wait = bounded_wait(peer_wait)
        self.diagnosis: ExplainReport | None = None
        self.report_path: Path | None = None
        self.role: str | None = None
        self.culprit: PeerFailure | None = None
        self.fallback_result: Any = None

    def _locate(self) -> None:
        """Read the launcher's variables (again at each failure: a launcher may set them after the guard exists)."""
        self.placement = placement_from_env(os.environ)
        self.rank = self._rank_arg if self._rank_arg is not None else self.placement.rank
        self._named = self._rank_arg is not None or self.placement.launcher is not None
        env_dir = os.environ.get(ENV_REPORT_DIR)
        if self._report_dir_arg is not None:
            self.report_dir: Path | None = Path(self._report_dir_arg)
        elif env_dir:
            self.report_dir = Path(env_dir)
        else:
            self.report_dir = Path(DEFAULT_REPORT_DIR) if self.placement.launched else None

    def __enter__(self) -> Guard:
        watch_this_thread()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool:
        if not isinstance(exc, Exception):
            return False
        if self._diagnose_and_decide(exc):
            self.fallback_result = self._run_fallback()
            return True
        return False

    def __call__(self, fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            watch_this_thread()
            try:
                return fn(*args, **kwargs)
            except Exception as exc:
                if self._diagnose_and_decide(exc):
                    return self._run_fallback()
                raise

        return cast(F, wrapper)

    def _diagnose_and_decide(self, exc: Exception) -> bool:
        """Diagnose `exc`; True when the fallback should run instead of re-raising."""
        self.diagnose(exc)
        if self.fallback is None or _IN_FALLBACK.get():
            return False
        if self.placement.launched:
            if self.role == VICTIM:
                return False  # a victim prints one line, the culprit's diagnosis says the rest
            launcher = _LAUNCHER_NAMES.get(self.placement.launcher or "", "the launcher")
            self._note(
                f"fallback not run: {launcher} started {self.placement.world_size} processes "
                "and stops all of them once one fails; run the single-device training without the launcher"
            )
            return False
        return True

    def _will_fall_back(self) -> bool:
        return self.fallback is not None and not _IN_FALLBACK.get() and not self.placement.launched

    def _run_fallback(self) -> Any:
        assert self.fallback is not None
        self._note("running the single-device fallback")
        token = _IN_FALLBACK.set(True)
        try:
            return self.fallback()
        finally:
            _IN_FALLBACK.reset(token)

    def _who(self) -> str | None:
        """How this process is named in output: None without a launcher (and without `rank=`)."""
        if not self._named:
            return None
        if self.rank is not None:
            return f"rank {self.rank}"
        return f"rank unknown ({'; '.join(self.placement.notes) or 'no rank variable'})"

    def _stem(self) -> str:
        return report_stem(self.rank)

    def _note(self, text: str) -> None:
        who = self._who()
        self._emit([f"ddpdoctor: {who}: {text}" if who else f"ddpdoctor: {text}"])

    def _emit(self, lines: Sequence[str]) -> None:
        try:
            stream = self.stream if self.stream is not None else sys.stderr
            stream.write("".join(f"{line}\n" for line in lines))
            stream.flush()
        except Exception:
            return

    def _labelled(self, text: str) -> str:
        """`text` with every line labelled `[rankN]: `, as torchrun shows a rank's output."""
        if self.rank is None:
            return text
        label = f"[rank{self.rank}]: "
        return "".join(label + line for line in text.splitlines(keepends=True))

    def diagnose(self, exc: BaseException) -> ExplainReport | None:
        """Explain `exc`, write this rank's report, and print a compact diagnosis or a victim's one line.

        Returns the explain report, or None when the diagnosis itself failed (a one-line note is
        printed instead; this method never raises) or when another guard (an enclosing one, or a
        framework callback) already diagnosed this exception. `.diagnosis`, `.role`, `.culprit`
        and `.report_path` describe the latest failure only.
        """
        self.diagnosis, self.report_path, self.culprit, self.role = None, None, None, None
        if getattr(exc, _DIAGNOSED, False):
            return None
        with _sigterm_held():
            try:
                self._locate()
                self._diagnose(exc)
            except Exception as err:
                self._note(f"could not diagnose the failure ({type(err).__name__}: {err})")
        with contextlib.suppress(Exception):
            setattr(exc, _DIAGNOSED, True)
        return self.diagnosis

    def _diagnose(self, exc: BaseException) -> None:
        failed_at = time.time()
        text = self._labelled(_explainable_text(exc))
        error: str | None = None
        try:
            from ddpdoctor.explain import explain_text

            self.diagnosis = explain_text(text, name=self.name or f"{self._stem()}.log")
        except Exception as err:
            error = f"{type(err).__name__}: {err}"
            self._note(f"could not diagnose the failure ({error})")
        record = self.diagnosis.to_dict() if self.diagnosis is not None else None
        root: dict[str, Any] | None = record["root_cause"] if record is not None else None
        self.role = VICTIM if root is not None and root.get("kind") in VICTIM_KINDS else CULPRIT
        if self.role == VICTIM and self.report_dir is not None:
            self.culprit = wait_for_culprit(
                self.report_dir,
                own=self._stem(),
                run=self.placement.run,
                since=process_start_time(),
                wait=self.peer_wait,
            )
        summary = root["text"] if root is not None and root.get("text") else _error_line(exc)
        if self.report_dir is not None:
            self._write(exc, text, failed_at, summary, record, error)
        if error is None:
            self._show(summary, root)

    def _show(self, summary: str, root: dict[str, Any] | None) -> None:
        """Print the diagnosis: the one place that renders it."""
        try:
            from ddpdoctor.present.guard import guard_lines

            notice = GuardNotice(
                who=self._who(),
                role=self.role or CULPRIT,
                summary=summary,
                root_cause=root,
                report=self.report_path,
                folder=self.report_dir,
                culprit=self.culprit,
                peer_wait=self.peer_wait,
            )
            self._emit(guard_lines(notice))
        except Exception as err:
            self._note(f"could not print the diagnosis ({type(err).__name__}: {err})")

    def _write(
        self,
        exc: BaseException,
        text: str,
        failed_at: float,
        summary: str,
        diagnosis: dict[str, Any] | None,
        error: str | None,
    ) -> None:
        root = diagnosis["root_cause"] if diagnosis is not None else None
        culprit = self.culprit
        try:
            stamp = _dt.datetime.fromtimestamp(failed_at, _dt.timezone.utc).isoformat()
            record = {
                "schema": GUARD_SCHEMA,
                "rank": self.rank,
                "host": socket.gethostname(),
                "pid": os.getpid(),
                "time": stamp,
                "exception": {
                    "type": type(exc).__name__,
                    "message": _error_line(exc),
                    "traceback": _bounded(_formatted(exc)),
                },
                "diagnosis": diagnosis,
                "diagnosis_error": error,
                "fallback": self._will_fall_back(),
                "role": self.role,
                "summary": summary,
                "entry": None if root is None else root.get("entry"),
                "failed_at": failed_at,
                "run": self.placement.run,
                "launcher": self.placement.launcher,
                "world_size": self.placement.world_size,
                "rank_notes": list(self.placement.notes),
                "culprit": None
                if culprit is None
                else {"rank": culprit.rank, "report": str(culprit.report), "summary": culprit.summary},
                "log": f"{self._stem()}.log",
            }
            header = self._labelled(f"{stamp} ddpdoctor guard: {type(exc).__name__} (pid {os.getpid()})\n")
            assert self.report_dir is not None
            self.report_path = write_reports(self.report_dir, self._stem(), record, header + text)
        except Exception as err:
            self._note(f"could not write the report ({type(err).__name__}: {err})")


@overload
def guard(func: F, /) -> F: ...


@overload
def guard(
    func: None = None,
    /,
    *,
    report_dir: str | Path | None = None,
    fallback: Callable[[], Any] | None = None,
    rank: int | None = None,
    name: str | None = None,
    stream: IO[str] | None = None,
    peer_wait: float = DEFAULT_PEER_WAIT,
) -> Guard: ...


def guard(
    func: F | None = None,
    /,
    *,
    report_dir: str | Path | None = None,
    fallback: Callable[[], Any] | None = None,
    rank: int | None = None,
    name: str | None = None,
    stream: IO[str] | None = None,
    peer_wait: float = DEFAULT_PEER_WAIT,
) -> F | Guard:
    """Explain failures of a training call: `with guard(...):`, `@guard(...)` or bare `@guard`.

    On an exception it writes `ddpdoctor-rank{rank}.json` and `.log` into `report_dir` (default:
    $DDPDOCTOR_REPORT_DIR, else `ddpdoctor-reports` under a launcher that started several processes,
    else no report), prints a compact diagnosis to stderr (or `stream`), then re-raises. A rank
    whose error is a symptom of a peer's failure waits up to `peer_wait` seconds for a culprit's
    report in that folder and prints one line naming it. `rank` defaults to the launcher's (RANK,
    SLURM_PROCID, ...), 0 without a launcher. With `fallback` (a zero-argument callable, typically
    the same training on one device) and no multi-process launcher, it runs the fallback instead and
    returns its result (as a decorator) or keeps it in `.fallback_result` (as a context manager);
    under a launcher it says why it does not and re-raises. Under `ddpdoctor run` the guarded code
    also beats a progress heartbeat, so a rank stuck inside it is seen as hung even while the job
    keeps printing (see `ddpdoctor.heartbeat`).
    """
    hook = Guard(
        report_dir=report_dir, fallback=fallback, rank=rank, name=name, stream=stream, peer_wait=peer_wait
    )
    return hook(func) if func is not None else hook
