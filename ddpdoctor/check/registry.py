"""The check registry: every check declares its id, category, needs and KB entries once, here.

A single-node check is one function decorated with :func:`check` in its area's module::

    @check("device.mixed-types", category="invalid_device", title="the list mixes device types",
           entries=("burn-distributed-mixed-devices",))
    def check_mixed_types(ctx: CheckContext) -> list[Finding]: ...

The runner runs every registered check whose :class:`Need` the options satisfy, in registration
order; `check --list`, the `checks:` ids the knowledge-base schema accepts (:data:`CHECK_ID_RE`)
and the check-to-entry links all come from this registry. A check of the whole job
(`check --distributed`, comparing ranks) is a function decorated with :func:`job_check`; a
finding that a protocol step of the distributed check makes (rendezvous, collectives) is
declared with :func:`declare`.

Importing this module imports nothing else of ddpdoctor; :func:`all_checks` imports the area
modules (none of which imports torch at import time).
"""

from __future__ import annotations

import enum
import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from ddpdoctor.check.base import CheckContext
    from ddpdoctor.findings import Finding

# The namespaces of check ids (the part before the dot) and what each covers.
AREAS: dict[str, str] = {
    "device": "the device list",
    "memory": "GPU memory",
    "dataloader": "the data loader",
    "backend": "the communication backend",
    "env": "the launch environment",
    "dist": "the distributed job as a whole",
    "collective": "collectives on the real backend",
}
# The modules that register checks, in the order their checks run and are listed.
CHECK_MODULES: tuple[str, ...] = (
    "ddpdoctor.check.devices",
    "ddpdoctor.check.memory",
    "ddpdoctor.check.dataloader",
    "ddpdoctor.check.backend",
    "ddpdoctor.check.launch",
    "ddpdoctor.distributed.analysis",
    "ddpdoctor.distributed.collectives",
    "ddpdoctor.distributed.runner",
)
CHECK_ID_RE = re.compile(rf"^(?:{'|'.join(AREAS)})\.[a-z0-9_]+(?:-[a-z0-9_]+)*$")


class Need(enum.Enum):
    """What a check needs before it can run; the value is how `check --list` shows it."""

    MIN_FREE = "--min-free"
    MODEL = "--model, --batch-size"
    DATALOADER = "--dataloader"
    LAUNCH = "a distributed launch"
    NVML = "NVML"
    DISTRIBUTED = "--distributed"


NodeCheck = Callable[["CheckContext"], "list[Finding]"]
JobCheck = Callable[[Any], "list[Finding]"]
F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class CheckSpec:
    """One check: its id, the category of what it catches, what it looks at and needs, its KB entries.

    `entries` are the knowledge-base entries that usually explain a problem it finds, most
    specific first; `burn_entries` come first for device lists written in Burn's spelling.
    `run` checks this machine; `job` compares the ranks of a distributed job.
    """

    id: str
    category: str
    title: str
    needs: tuple[Need, ...] = ()
    entries: tuple[str, ...] = ()
    burn_entries: tuple[str, ...] = ()
    run: NodeCheck | None = None
    job: JobCheck | None = None

    @property
    def area(self) -> str:
        """The namespace before the dot, one of :data:`AREAS`."""
        return self.id.split(".", 1)[0]

    def to_dict(self) -> dict[str, Any]:
        """JSON form for `check --list --format json`."""
        return {
            "id": self.id,
            "area": self.area,
            "category": self.category,
            "title": self.title,
            "needs": ", ".join(n.value for n in self.needs),
            "entries": list(self.entries),
        }


_SPECS: dict[str, CheckSpec] = {}


def _register(spec: CheckSpec) -> None:
    if not CHECK_ID_RE.match(spec.id):
        raise ValueError(f"check id {spec.id!r} must be AREA.name with AREA one of {', '.join(AREAS)}")
    known = _SPECS.get(spec.id)
    if known is not None:
        declared_only = spec.run is None and spec.job is None
        if (
            declared_only
            or (known.run and spec.run)
            or (known.job and spec.job)
            or known.category != spec.category
        ):
            raise ValueError(f"check {spec.id!r} is registered twice")
        node, other = (spec, known) if spec.run is not None else (known, spec)
        spec = replace(node, job=node.job or other.job)
    _SPECS[spec.id] = spec


def check(
    check_id: str,
    *,
    category: str,
    title: str,
    needs: tuple[Need, ...] = (),
    entries: tuple[str, ...] = (),
    burn_entries: tuple[str, ...] = (),
) -> Callable[[F], F]:
    """Register the decorated function as the single-node check `check_id`."""

    def register(fn: F) -> F:
        _register(CheckSpec(check_id, category, title, needs, entries, burn_entries, run=fn))
        return fn

    return register


def job_check(check_id: str, *, category: str, title: str, entries: tuple[str, ...] = ()) -> Callable[[F], F]:
    """Register the decorated function as the cross-rank part of `check_id` (it receives the job's facts).

    When `check_id` is also a single-node check, both share one entry in the registry and must
    agree on the category.
    """

    def register(fn: F) -> F:
        _register(CheckSpec(check_id, category, title, (Need.DISTRIBUTED,), entries, job=fn))
        return fn

    return register


def declare(check_id: str, *, category: str, title: str, entries: tuple[str, ...] = ()) -> None:
    """Register a check whose findings a step of `check --distributed` makes (no function of its own)."""
    _register(CheckSpec(check_id, category, title, (Need.DISTRIBUTED,), entries))


def all_checks() -> tuple[CheckSpec, ...]:
    """Every registered check, in the order they run."""
    for module in CHECK_MODULES:
        importlib.import_module(module)
    areas = list(AREAS)
    return tuple(sorted(_SPECS.values(), key=lambda spec: areas.index(spec.area)))


def get(check_id: str) -> CheckSpec:
    """The check `check_id`; KeyError when no module registers it."""
    if check_id not in _SPECS:
        all_checks()
    return _SPECS[check_id]


def checks_linking(entry_id: str) -> tuple[str, ...]:
    """The ids of the checks that declare the knowledge-base entry `entry_id`, in the order they run."""
    return tuple(spec.id for spec in all_checks() if entry_id in (*spec.entries, *spec.burn_entries))


def check_ids() -> frozenset[str]:
    """Every registered check id (what `kb lint` accepts in an entry's `checks:`)."""
    return frozenset(spec.id for spec in all_checks())
