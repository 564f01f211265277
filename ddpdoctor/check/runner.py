"""Run the checks for one set of options and return a :class:`CheckReport` (`ddpdoctor.check/1`).

:func:`run_checks` is what `ddpdoctor check` and :func:`ddpdoctor.preflight` call. It is callable
per device (a `check --distributed` rank passes its one device) and everything it returns is
serialisable: the report's `to_dict`, the resolved devices and the inventory's facts.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ddpdoctor.check.backend import backend_findings
from ddpdoctor.check.base import CheckContext, DeviceSpec, ResolvedDevice
from ddpdoctor.check.catalog import BY_ID
from ddpdoctor.check.dataloader import dataloader_findings, run_loader
from ddpdoctor.check.devices import device_findings, parse_device_list, resolve_devices
from ddpdoctor.check.env import env_findings
from ddpdoctor.check.memory import ModelSource, free_below_minimum, main_device_headroom, model_step
from ddpdoctor.devices import DeviceProbe, Inventory, format_size, probe_from_spec, visible_mapping
from ddpdoctor.errors import InputError
from ddpdoctor.findings import Finding, Report, Severity
from ddpdoctor.kb.schema import Entry
from ddpdoctor.present.document import Document, Table, Text
from ddpdoctor.present.findings import report_document

CHECK_SCHEMA = "ddpdoctor.check/1"
# How many of the knowledge-base entry's solutions follow a finding's own.
KB_SOLUTIONS = 3

# The entry that usually explains each check, in order of preference; Burn's first for Burn spellings.
_ENTRIES: dict[str, tuple[str, ...]] = {
    "device.duplicate": ("nccl-duplicate-gpu", "lightning-gpu-ids-not-unique"),
    "device.unavailable": ("cuda-no-gpus-available", "lightning-gpu-not-available"),
    "device.out-of-range": ("cuda-invalid-device-ordinal",),
    "device.mixed-types": ("burn-distributed-mixed-devices",),
    "device.busy": ("cuda-device-busy-unavailable",),
    "device.exclusive-mode": ("cuda-device-busy-unavailable",),
    "memory.free-below-minimum": ("cuda-out-of-memory",),
    "memory.main-device-headroom": ("cuda-out-of-memory",),
    "memory.model-step": ("cuda-out-of-memory",),
    "dataloader.first-batch": ("dataloader-worker-exception",),
    "dataloader.timeout": ("dataloader-timeout",),
    "dataloader.num-workers": ("dataloader-num-workers-warning",),
    "dataloader.shm": ("dataloader-bus-error-shm",),
    "dataloader.uneven-batches": ("burn-ddp-worker-stalled", "nccl-watchdog-timeout"),
    "backend.gloo-for-cpu": ("dist-backend-error",),
    "backend.nccl-for-cuda": ("gloo-unsupported-device",),
    "backend.unavailable": ("dist-backend-error",),
    "env.master-addr": ("store-connection-refused", "torchelastic-rendezvous-timeout"),
    "env.master-port": ("address-already-in-use",),
    "env.rank-consistency": ("store-based-barrier-timeout",),
    "env.world-size": ("store-based-barrier-timeout",),
}
_BURN_ENTRIES: dict[str, tuple[str, ...]] = {
    "device.duplicate": ("burn-ddp-main-worker-failed",),
    "device.mixed-types": ("burn-distributed-mixed-devices",),
    "memory.free-below-minimum": ("burn-cubecl-out-of-device-memory",),
    "memory.main-device-headroom": ("burn-ddp-main-worker-failed", "burn-cubecl-out-of-device-memory"),
    "memory.model-step": ("burn-cubecl-out-of-device-memory",),
}


@dataclass(frozen=True)
class CheckOptions:
    """What to check. `devices` None means `all`; `dataloader` is `module:factory`, a loader or a factory."""

    devices: str | Sequence[object] | None = None
    min_free: int | None = None
    model: ModelSource | None = None
    batch_size: int | None = None
    dataloader: Any = None
    timeout: float = 60.0
    batches: int = 2
    backend: str | None = None
    environ: Mapping[str, str] | None = None
    kb_dirs: Sequence[Path] = ()
    link_kb: bool = True


@dataclass
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

    def to_document(self) -> Document:
        """The tables (:meth:`_tables`), a summary line, then the findings."""
        line = Text(self.summary(), tone="ok" if self.ok and not self.has_warnings() else "strong")
        return [*self._tables(), line, *report_document(self)]

    def _tables(self) -> Document:
        """The device table."""
        rows = tuple(
            (
                str(d.position),
                d.label,
                d.spec.token,
                "" if d.gpu is None else f"GPU {d.gpu.index} {d.gpu.name}",
                ""
                if d.gpu is None
                else f"{format_size(d.gpu.memory_free)} / {format_size(d.gpu.memory_total)}",
            )
            for d in self.devices
        )
        source = "" if self.inventory is None else f" ({self.inventory.source})"
        return [Table(("#", "device", "written", "gpu", "free / total"), rows, title=f"devices{source}")]


def _cuda_ordinals(specs: Sequence[DeviceSpec]) -> set[int] | None:
    """Which visible GPUs a real probe may touch (None: all, for `all` or a bare `cuda`)."""
    ordinals: set[int] = set()
    for spec in specs:
        if spec.type == "all" or (spec.type == "cuda" and spec.index is None):
            return None
        if spec.type == "cuda" and spec.index is not None:
            ordinals.add(spec.index)
    return ordinals


def run_checks(options: CheckOptions, probe: DeviceProbe | None = None) -> CheckReport:
    """Run every check the options ask for; InputError/DeviceError (exit 2) for unusable options."""
    if options.model is not None and not options.batch_size:
        raise InputError("--model needs --batch-size", hint="add --batch-size N (the per-device batch size)")
    if options.batch_size is not None and options.batch_size < 1:
        raise InputError("--batch-size must be at least 1")
    if options.timeout <= 0:
        raise InputError("--timeout must be a positive number of seconds")
    specs = parse_device_list(options.devices if options.devices is not None else "all")
    base_env = dict(os.environ if options.environ is None else options.environ)
    chosen = probe or probe_from_spec(None, base_env)
    inventory = chosen.inventory(cuda_ordinals=_cuda_ordinals(specs))
    environ = inventory.environ(base_env)
    mapping = visible_mapping(inventory, environ)
    devices = resolve_devices(specs, inventory, mapping)
    ctx = CheckContext(inventory, environ, mapping, devices, options.backend)
    findings = device_findings(ctx)
    if options.min_free is not None:
        findings += free_below_minimum(ctx, options.min_free)
    findings += main_device_headroom(ctx)
    if options.model is not None and options.batch_size:
        findings += model_step(ctx, options.model, options.batch_size)
    if options.dataloader is not None:
        run = run_loader(options.dataloader, batches=options.batches, timeout=options.timeout)
        findings += dataloader_findings(ctx, run)
    findings += backend_findings(ctx)
    findings += env_findings(ctx)
    if options.link_kb:
        findings = link_findings(findings, burn=ctx.burn, kb_dirs=options.kb_dirs)
    return CheckReport(schema=CHECK_SCHEMA, findings=findings, devices=list(devices), inventory=inventory)


@functools.lru_cache(maxsize=4)
def _entries(dirs: tuple[str, ...]) -> dict[str, Entry]:
    """Valid entries by id (invalid files are skipped); cached, since preflight may run every epoch."""
    from ddpdoctor.kb.loader import load_entries

    return {e.id: e for e in load_entries([Path(d) for d in dirs]).entries}


def link_findings(findings: list[Finding], *, burn: bool, kb_dirs: Sequence[Path] = ()) -> list[Finding]:
    """Attach the knowledge-base entry (and its first solutions) to every error and warning.

    The knowledge base is read only when there is something to link, and best effort: entries
    that fail validation are skipped rather than failing the check.
    """
    if not any(f.severity in (Severity.ERROR, Severity.WARNING) for f in findings):
        return findings
    from ddpdoctor.kb.loader import extra_dirs

    try:
        entries = _entries(tuple(str(d) for d in extra_dirs(kb_dirs)))
    except Exception:
        return findings
    out = []
    for f in findings:
        if f.severity not in (Severity.ERROR, Severity.WARNING):
            out.append(f)
            continue
        usual = f.id in BY_ID and f.category == BY_ID[f.id].category
        listing = [e.id for e in entries.values() if f.id in e.checks and (e.framework == "burn") == burn]
        candidates = [
            *([f.entry] if f.entry else []),
            *(_BURN_ENTRIES.get(f.id, ()) if burn and usual else ()),
            *(_ENTRIES.get(f.id, ()) if usual else ()),
            *(sorted(listing) if usual else ()),
        ]
        entry = next((entries[c] for c in candidates if c in entries), None)
        if entry is None:
            out.append(replace(f, entry=None))
            continue
        extra = [s for s in entry.solutions[:KB_SOLUTIONS] if s not in f.solutions]
        out.append(replace(f, entry=entry.id, solutions=(*f.solutions, *extra)))
    return out
