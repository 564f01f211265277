"""Run the checks for one set of options and return a :class:`CheckReport` (`ddpdoctor.check/1`).

:func:`run_checks` is what `ddpdoctor check` and :func:`ddpdoctor.preflight` call. It is callable
per device (a `check --distributed` rank passes its one device) and everything it returns is
serialisable: the report's `to_dict`, the resolved devices and the inventory's facts.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ddpdoctor.check import registry
from ddpdoctor.check.base import CheckContext, DeviceSpec, ResolvedDevice
from ddpdoctor.check.devices import parse_device_list, resolve_devices
from ddpdoctor.check.loader_probe import LoaderRun, default_memory_limit, run_loader
from ddpdoctor.check.memory import ModelSource
from ddpdoctor.errors import DdpDoctorError, InputError
from ddpdoctor.findings import Finding, Report, Severity
from ddpdoctor.hardware.inventory import DeviceProbe, Inventory, visible_mapping
from ddpdoctor.hardware.probes import probe_from_spec
from ddpdoctor.kb.schema import Entry
from ddpdoctor.records import field
from ddpdoctor.units import MAX_SIZE, SizeError, parse_user_size

CHECK_SCHEMA = "ddpdoctor.check/1"
# How many of the knowledge-base entry's solutions follow a finding's own.
KB_SOLUTIONS = 3
# Bounds on numeric options: a day per step, a few thousand batches.
MAX_TIMEOUT_S = 86_400.0
MAX_BATCHES = 10_000
MAX_BATCH_SIZE = 2**31


@dataclass(frozen=True)
class CheckOptions:
    """What to check, as the CLI or `preflight()` got it; :func:`run_checks` validates every value.

    `devices` None means `all`; `dataloader` is `module:factory`, a loader or a factory;
    `min_free` and `loader_memory` are bytes or sizes such as `20GiB`; `loader_memory` caps the
    data-loader probe's child process (None: half of this machine's memory; `none`: no cap).
    """

    devices: str | Sequence[object] | None = None
    min_free: int | str | None = None
    model: ModelSource | None = None
    batch_size: int | None = None
    dataloader: Any = None
    timeout: float = 60.0
    batches: int = 2
    backend: str | None = None
    environ: Mapping[str, str] | None = None
    kb_dirs: Sequence[Path] = ()
    link_kb: bool = True
    loader_memory: int | str | None = None


def _whole(value: object, name: str, low: int, high: int) -> int:
    """`value` as a whole number from `low` to `high`; InputError naming the option otherwise."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InputError(f"{name} must be a whole number from {low} to {high}")
    return value


def read_size(value: object, name: str) -> int:
    """Bytes from an int or a size text such as `20GiB`; InputError naming the option otherwise."""
    if isinstance(value, str):
        try:
            return parse_user_size(value)
        except SizeError as exc:
            raise InputError(
                f"{name}: {exc}", hint="write a number with a unit, e.g. 10GiB, 512MiB or 4096B"
            ) from None
    return _whole(value, name, 0, MAX_SIZE)


def read_timeout(value: object, name: str = "--timeout") -> float:
    """Seconds as a finite number above 0 and at most a day; InputError otherwise (NaN included)."""
    seconds = float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else math.nan
    if not (math.isfinite(seconds) and 0 < seconds <= MAX_TIMEOUT_S):
        raise InputError(
            f"{name} {value} is not a usable number of seconds: it must be a positive number, at most {MAX_TIMEOUT_S:g}",
            hint=f"e.g. {name} 60",
        )
    return seconds


def _loader_memory(value: int | str | None) -> int | None:
    if value is None:
        return default_memory_limit()
    if isinstance(value, str) and value.strip().lower() in ("none", "off", "unlimited"):
        return None
    return read_size(value, "--loader-memory") or None


class CheckReport(Report):
    """Findings plus the resolved device list and where the machine's facts came from."""

    devices: list[ResolvedDevice] = field(default_factory=list)
    inventory: Inventory | None = None

    def to_dict(self) -> dict[str, Any]:
        """`ddpdoctor.check/1`: schema, ok, findings, devices and the inventory's source."""
        inv = self.inventory
        return {
            **super().to_dict(),
            "devices": [d.to_dict() for d in self.devices],
            "inventory": None if inv is None else {"source": inv.source, "simulated": inv.simulated},
        }

    def _problem_count(self) -> str | None:
        """`2 error(s), 1 warning(s)`, or None when there are neither."""
        errors = sum(f.severity is Severity.ERROR for f in self.findings)
        warnings = sum(f.severity is Severity.WARNING for f in self.findings)
        return f"{errors} error(s), {warnings} warning(s)" if errors or warnings else None

    def summary(self) -> str:
        """One line: how many errors and warnings, or that all checks passed."""
        problems = self._problem_count()
        return f"{problems or 'all checks passed'} on {len(self.devices)} device(s)"


def _cuda_ordinals(specs: Sequence[DeviceSpec]) -> set[int] | None:
    """Which visible GPUs a real probe may touch (None: all, for `all` or a bare `cuda`)."""
    ordinals: set[int] = set()
    for spec in specs:
        if spec.type == "all" or (spec.type == "cuda" and spec.index is None):
            return None
        if spec.type == "cuda" and spec.index is not None:
            ordinals.add(spec.index)
    return ordinals


def crash_finding(check_id: str, exc: Exception) -> Finding:
    """An error finding for a check that raised: which check, and the one-line reason."""
    reason = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}".rstrip(
        ": "
    )
    return Finding(
        id=check_id,
        severity=Severity.ERROR,
        category="other",
        title=f"the check {check_id} crashed: {reason}"[:300],
        message="This is a bug in ddpdoctor, not a finding about your setup; the other checks still ran. "
        "Please report it with this message and the output of `ddpdoctor env`.",
        data={"crash": reason[:1000]},
    )


def run_guarded(check_id: str, body: Callable[[], list[Finding]]) -> list[Finding]:
    """`body()`, or a crash finding when it raises anything but an input error or an interrupt."""
    try:
        return body()
    except DdpDoctorError:
        raise
    except Exception as exc:
        return [crash_finding(check_id, exc)]


def _probe_loader(options: CheckOptions) -> tuple[LoaderRun | None, list[Finding]]:
    """The data loader's first batches (see :mod:`~ddpdoctor.check.loader_probe`), or a crash finding."""
    memory = options.loader_memory if isinstance(options.loader_memory, int) else None
    try:
        run = run_loader(
            options.dataloader, batches=options.batches, timeout=options.timeout, memory_limit=memory
        )
    except DdpDoctorError:
        raise
    except Exception as exc:
        return None, [crash_finding("dataloader.first-batch", exc)]
    return run, []


def validated(options: CheckOptions) -> CheckOptions:
    """The options with every number checked and sizes read; InputError (exit 2) for unusable values."""
    if options.model is not None and not options.batch_size:
        raise InputError("--model needs --batch-size", hint="add --batch-size N (the per-device batch size)")
    return replace(
        options,
        min_free=None if options.min_free is None else read_size(options.min_free, "--min-free"),
        batch_size=None
        if options.batch_size is None
        else _whole(options.batch_size, "--batch-size", 1, MAX_BATCH_SIZE),
        timeout=read_timeout(options.timeout),
        batches=_whole(options.batches, "--batches", 1, MAX_BATCHES),
        loader_memory=_loader_memory(options.loader_memory),
    )


def run_checks(options: CheckOptions, probe: DeviceProbe | None = None) -> CheckReport:
    """Run every registered check the options allow, in registry order; InputError/DeviceError for bad options.

    A check that raises becomes an error finding naming it (see :func:`crash_finding`).
    """
    options = validated(options)
    specs = parse_device_list(options.devices if options.devices is not None else "all")
    base_env = dict(os.environ if options.environ is None else options.environ)
    chosen = probe or probe_from_spec(None, base_env)
    inventory = chosen.inventory(cuda_ordinals=_cuda_ordinals(specs))
    environ = inventory.environ(base_env)
    mapping = visible_mapping(inventory, environ)
    devices = resolve_devices(specs, inventory, mapping)
    loader, findings = _probe_loader(options) if options.dataloader is not None else (None, [])
    ctx = CheckContext(
        inventory,
        environ,
        mapping,
        devices,
        options.backend,
        min_free=options.min_free if isinstance(options.min_free, int) else None,
        model=options.model,
        batch_size=options.batch_size,
        loader=loader,
    )
    for spec in registry.all_checks():
        if spec.run is not None and all(ctx.provides(need) for need in spec.needs):
            findings += run_guarded(spec.id, functools.partial(spec.run, ctx))
    if options.link_kb:
        findings = link_findings(findings, burn=ctx.burn, kb_dirs=options.kb_dirs)
    return CheckReport(schema=CHECK_SCHEMA, findings=findings, devices=list(devices), inventory=inventory)


@functools.lru_cache(maxsize=4)
def _entries(dirs: tuple[str, ...]) -> dict[str, Entry]:
    """Valid entries by id (invalid files are skipped); cached, since preflight may run every epoch."""
    from ddpdoctor.kb.loader import load_entries

    return {e.id: e for e in load_entries([Path(d) for d in dirs]).entries}


def link_findings(findings: list[Finding], *, burn: bool, kb_dirs: Sequence[Path] = ()) -> list[Finding]:
    """Attach the knowledge-base entry (and its first pre-flight solutions) to every error and warning.

    The knowledge base is read only when there is something to link, and best effort: entries
    that fail validation are skipped, and a knowledge base that cannot be read at all adds an
    info finding saying why instead of failing the check.
    """
    if not any(f.severity in (Severity.ERROR, Severity.WARNING) for f in findings):
        return findings
    from ddpdoctor.kb.loader import extra_dirs

    try:
        entries = _entries(tuple(str(d) for d in extra_dirs(kb_dirs)))
    except Exception as exc:
        note = Finding(
            id="check.kb-links",
            severity=Severity.INFO,
            category="other",
            title="knowledge-base entries are not linked",
            message=f"Reading the knowledge base failed ({type(exc).__name__}: {exc}); "
            "the findings are shown without their entries.",
        )
        return [*findings, note]
    known = {spec.id: spec for spec in registry.all_checks()}
    out = []
    for f in findings:
        if f.severity not in (Severity.ERROR, Severity.WARNING):
            out.append(f)
            continue
        spec = known.get(f.id)
        usual = spec is not None and f.category == spec.category
        listing = [e.id for e in entries.values() if f.id in e.checks and (e.framework == "burn") == burn]
        candidates = [
            *([f.entry] if f.entry else []),
            *(spec.burn_entries if spec is not None and burn and usual else ()),
            *(spec.entries if spec is not None and usual else ()),
            *(sorted(listing) if usual else ()),
        ]
        entry = next((entries[c] for c in candidates if c in entries), None)
        if entry is None:
            out.append(f._replace(entry=None))
            continue
        extra = [s for s in entry.solutions_for("preflight")[:KB_SOLUTIONS] if s not in f.solutions]
        out.append(f._replace(entry=entry.id, solutions=(*f.solutions, *extra)))
    return out
