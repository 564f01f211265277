"""`ddpdoctor check`: pre-flight checks of devices, memory, data loaders, backend and launch environment."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ddpdoctor.cli.common import SETTINGS, FormatOption, KbOption, handle_errors
from ddpdoctor.errors import ExitCode, InputError
from ddpdoctor.present.findings import emit_report
from ddpdoctor.present.render import OutputFormat, emit, error_line

if TYPE_CHECKING:
    from ddpdoctor.distributed.report import DistributedCheckReport
    from ddpdoctor.distributed.runner import DistributedOptions
    from ddpdoctor.hardware.inventory import DeviceProbe

CHECK_LIST_SCHEMA = "ddpdoctor.check-list/1"


def _environ(assignments: list[str]) -> dict[str, str] | None:
    """The process environment plus `KEY=VALUE` overrides (None when there are none)."""
    if not assignments:
        return None
    import os

    env = dict(os.environ)
    for item in assignments:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise InputError(
                f"cannot read --env {item!r}", hint="write KEY=VALUE, e.g. --env MASTER_PORT=29500"
            )
        env[key.strip()] = value
    return env


def _list_checks(fmt: OutputFormat) -> int:
    from ddpdoctor.check.registry import all_checks
    from ddpdoctor.present.document import Table

    checks = all_checks()
    rows = tuple((c.id, c.category, ", ".join(n.value for n in c.needs) or "-", c.title) for c in checks)
    emit(
        [Table(("id", "category", "needs", "what it checks"), rows)],
        {"schema": CHECK_LIST_SCHEMA, "checks": [c.to_dict() for c in checks]},
        fmt,
        color=SETTINGS.color,
    )
    return ExitCode.OK


def _distributed(options: DistributedOptions, probe: DeviceProbe, fmt: OutputFormat, strict: bool) -> int:
    """One rank of `check --distributed`: rank 0 prints the job's report, other ranks only their own errors."""
    from ddpdoctor.distributed.runner import run_distributed_check
    from ddpdoctor.present.check import distributed_document

    def publish(report: DistributedCheckReport) -> None:
        if report.is_reporter:
            emit_report(report, distributed_document, fmt, color=SETTINGS.color, quiet=SETTINGS.quiet)
            return
        for finding in report.own_errors():
            error_line(f"rank {report.rank}: {finding.title}: {finding.message}", None)

    return run_distributed_check(options, probe=probe, on_report=publish).exit_code(strict=strict)


@handle_errors
def check(
    devices: Annotated[
        str | None,
        typer.Option(
            "--devices",
            "-d",
            help="Devices, comma-separated: cuda:0,cuda:1 / 0,1 / 0-3 / all / cpu / Burn's Cuda(0),Cuda(1). Default: all.",
        ),
    ] = None,
    min_free: Annotated[
        str | None, typer.Option("--min-free", help="Error when a GPU has less free memory, e.g. 20GiB.")
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(
            "--model", help="module:factory returning (model, make_batch); runs one step per device."
        ),
    ] = None,
    batch_size: Annotated[
        int | None, typer.Option("--batch-size", help="Per-device batch size for --model.")
    ] = None,
    dataloader: Annotated[
        str | None,
        typer.Option(
            "--dataloader",
            help="module:factory returning a DataLoader; its first batches load in a child process.",
        ),
    ] = None,
    timeout: Annotated[
        float,
        typer.Option(
            "--timeout",
            help="Seconds the data loader's first batches (with --distributed: each step) may take before they count as "
            "hung; importing and building the loader get at least 60.",
        ),
    ] = 60.0,
    batches: Annotated[int, typer.Option("--batches", min=1, help="How many batches to load.")] = 2,
    backend: Annotated[
        str,
        typer.Option(
            "--backend",
            help="Process-group backend: auto (NCCL for CUDA, gloo for CPU), nccl, gloo, mpi, ucc, xccl.",
        ),
    ] = "auto",
    inventory: Annotated[
        str | None,
        typer.Option(
            "--inventory",
            help="Check against a simulated machine: a YAML/JSON inventory file or builtin:default "
            "(also DDPDOCTOR_INVENTORY).",
        ),
    ] = None,
    env: Annotated[
        list[str] | None,
        typer.Option("--env", help="KEY=VALUE to check as if set (repeatable), e.g. --env WORLD_SIZE=8."),
    ] = None,
    distributed: Annotated[
        bool,
        typer.Option(
            "--distributed",
            help="Check the whole job from every rank (start it with torchrun or srun): versions, devices, "
            "collectives, bandwidth, ranks that never arrive.",
        ),
    ] = False,
    device: Annotated[
        str | None,
        typer.Option(
            "--device",
            help="With --distributed: each rank's device as a template, e.g. 'cuda:{local_rank}' (the default "
            "with CUDA) or cpu.",
        ),
    ] = None,
    loader_memory: Annotated[
        str | None,
        typer.Option(
            "--loader-memory",
            help="Memory cap of the process that loads --dataloader's batches, e.g. 16GiB, or none "
            "(default: half of this machine's memory).",
        ),
    ] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Exit 1 on warnings too.")] = False,
    list_checks: Annotated[bool, typer.Option("--list", help="List every check id and exit.")] = False,
    fmt: FormatOption = OutputFormat.AUTO,
    kb: KbOption = None,
) -> int:
    """Check a multi-device setup before training: exit 0 healthy, 1 on an error (or a warning with --strict)."""
    if list_checks:
        return _list_checks(fmt)
    from ddpdoctor.check.backend import BACKEND_CHOICES
    from ddpdoctor.check.runner import CheckOptions, run_checks
    from ddpdoctor.hardware.probes import probe_from_spec
    from ddpdoctor.present.check import check_document

    if backend not in BACKEND_CHOICES:
        raise InputError(f"unknown backend {backend!r}", hint=f"use one of: {', '.join(BACKEND_CHOICES)}")
    if distributed and devices is not None:
        raise InputError(
            "--devices cannot be combined with --distributed",
            hint="each rank checks the one device --device gives it, e.g. --device 'cuda:{local_rank}'",
        )
    if not distributed and device is not None:
        raise InputError("--device needs --distributed", hint="to check this machine's devices use --devices")
    environ = _environ(env or [])
    options = CheckOptions(
        devices=devices,
        min_free=min_free,
        model=model,
        batch_size=batch_size,
        dataloader=dataloader,
        timeout=timeout,
        batches=batches,
        backend=backend,
        environ=environ,
        kb_dirs=[Path(p) for p in kb or []],
        loader_memory=loader_memory,
    )
    probe = probe_from_spec(inventory, environ)
    if distributed:
        from ddpdoctor.distributed.runner import DistributedOptions

        return _distributed(DistributedOptions(checks=options, device_template=device), probe, fmt, strict)
    report = run_checks(options, probe)
    emit_report(report, check_document, fmt, color=SETTINGS.color, quiet=SETTINGS.quiet)
    return report.exit_code(strict=strict)
