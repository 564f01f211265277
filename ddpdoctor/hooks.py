"""Hooks for training scripts: :func:`preflight` before training, :func:`guard` around it.

    from ddpdoctor import preflight, guard

    preflight(devices=["cuda:0", "cuda:1"], dataloader=train_loader, min_free="20GiB")
    with guard(report_dir="ddpdoctor-reports"):
        train()

`preflight` runs the checks of `ddpdoctor check` in-process and raises :class:`PreflightError`
(carrying the report) on any error. `guard` explains an exception with the `explain` engine,
prints the diagnosis to stderr, optionally writes one JSON report per rank, and re-raises, or,
with ``fallback=``, runs a single-device retry instead. Its own diagnostics never raise.
"""

from __future__ import annotations

import contextvars
import datetime as _dt
import functools
import json
import os
import socket
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, TYPE_CHECKING, Any, TypeVar, cast, overload

from ddpdoctor.check.memory import ModelSource
from ddpdoctor.check.runner import CheckOptions, CheckReport, run_checks
from ddpdoctor.devices import DeviceProbe, Inventory, parse_size, probe_from_spec
from ddpdoctor.errors import DdpDoctorError, ExitCode
from ddpdoctor.findings import Severity

if TYPE_CHECKING:
    from ddpdoctor.explain.report import ExplainReport

GUARD_SCHEMA = "ddpdoctor.guard/1"
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
    """
    if probe is None and inventory is not None:
        probe = probe_from_spec(inventory)
    options = CheckOptions(
        devices=devices,
        min_free=parse_size(min_free) if isinstance(min_free, str) else min_free,
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


def _rank(explicit: int | None) -> int:
    if explicit is not None:
        return explicit
    raw = os.environ.get("RANK", "")
    return int(raw) if raw.isdigit() else 0


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
    ) -> None:
        env_dir = os.environ.get(ENV_REPORT_DIR)
        self.report_dir = Path(report_dir) if report_dir is not None else (Path(env_dir) if env_dir else None)
        self.fallback = fallback
        self.rank = _rank(rank)
        self.name = name
        self.stream = stream
        self.diagnosis: ExplainReport | None = None
        self.report_path: Path | None = None
        self.fallback_result: Any = None

    def __enter__(self) -> Guard:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool:
        if not isinstance(exc, Exception):
            return False
        self.diagnose(exc)
        if self._may_fall_back():
            self.fallback_result = self._run_fallback()
            return True
        return False

    def __call__(self, fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except Exception as exc:
                self.diagnose(exc)
                if self._may_fall_back():
                    return self._run_fallback()
                raise

        return cast(F, wrapper)

    def _may_fall_back(self) -> bool:
        return self.fallback is not None and not _IN_FALLBACK.get()

    def _run_fallback(self) -> Any:
        assert self.fallback is not None
        self._note("running the single-device fallback")
        token = _IN_FALLBACK.set(True)
        try:
            return self.fallback()
        finally:
            _IN_FALLBACK.reset(token)

    def _stream(self) -> IO[str]:
        return self.stream if self.stream is not None else sys.stderr

    def _note(self, text: str) -> None:
        try:
            stream = self._stream()
            stream.write(f"ddpdoctor: rank {self.rank}: {text}\n")
            stream.flush()
        except Exception:
            return

    def diagnose(self, exc: BaseException) -> ExplainReport | None:
        """Explain `exc` (message, chained causes and traceback), print it, write the rank's report.

        Returns the explain report, or None when the diagnosis itself failed (a one-line note
        is printed instead; this method never raises). `.diagnosis` and `.report_path` describe
        the latest failure only.
        """
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        error: str | None = None
        self.diagnosis, self.report_path = None, None
        try:
            from ddpdoctor.explain import explain_text
            from ddpdoctor.present.explain import print_diagnosis

            self.diagnosis = explain_text(text, name=self.name or f"<rank {self.rank} exception>")
            print_diagnosis(
                self.diagnosis, title=f"{type(exc).__name__} on rank {self.rank}", stream=self._stream()
            )
        except Exception as err:
            error = f"{type(err).__name__}: {err}"
            self._note(f"could not diagnose the failure ({error})")
        if self.report_dir is not None:
            self._write(exc, text, error)
        return self.diagnosis

    def _write(self, exc: BaseException, text: str, error: str | None) -> None:
        try:
            record = {
                "schema": GUARD_SCHEMA,
                "rank": self.rank,
                "host": socket.gethostname(),
                "pid": os.getpid(),
                "time": _dt.datetime.now(_dt.timezone.utc).isoformat(),
                "exception": {"type": type(exc).__name__, "message": str(exc), "traceback": text},
                "diagnosis": None if self.diagnosis is None else self.diagnosis.to_dict(),
                "diagnosis_error": error,
                "fallback": self._may_fall_back(),
            }
            assert self.report_dir is not None
            self.report_dir.mkdir(parents=True, exist_ok=True)
            path = self.report_dir / f"ddpdoctor-rank{self.rank}.json"
            partial = path.with_suffix(f".json.{os.getpid()}.tmp")
            partial.write_text(
                json.dumps(record, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8"
            )
            partial.replace(path)
            self.report_path = path
            self._note(f"report written to {path}")
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
) -> F | Guard:
    """Explain failures of a training call: `with guard(...):`, `@guard(...)` or bare `@guard`.

    On an exception it prints the diagnosis to stderr (or `stream`), writes
    `report_dir/ddpdoctor-rank{rank}.json` when a folder is given (or DDPDOCTOR_REPORT_DIR is set),
    then re-raises. With `fallback` (a zero-argument callable, typically the same training on one
    device) it runs the fallback instead and returns its result (as a decorator) or keeps it in
    `.fallback_result` (as a context manager). `rank` defaults to $RANK, else 0.
    """
    hook = Guard(report_dir=report_dir, fallback=fallback, rank=rank, name=name, stream=stream)
    return hook(func) if func is not None else hook
