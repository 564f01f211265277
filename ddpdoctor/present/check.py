"""The pages of `ddpdoctor check`: on this machine, and for the whole job with `--distributed`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ddpdoctor.check.grouping import group_by_device
from ddpdoctor.present.document import Document, Table, Text
from ddpdoctor.present.findings import report_document
from ddpdoctor.units import format_size

if TYPE_CHECKING:
    from ddpdoctor.check.runner import CheckReport
    from ddpdoctor.distributed.report import DistributedCheckReport


def check_document(report: CheckReport) -> Document:
    """The device table, a summary line, then the findings (repeats across devices grouped)."""
    return _page(report, [_device_table(report)])


def distributed_document(report: DistributedCheckReport) -> Document:
    """The rank table and, when measured, the bandwidth table, then the page of :func:`check_document`."""
    tables: Document = [_rank_table(report)]
    if report.bandwidth:
        tables.append(_bandwidth_table(report))
    return _page(report, tables)


def _page(report: CheckReport, tables: Document) -> Document:
    line = Text(report.summary(), tone="ok" if report.ok and not report.has_warnings() else "strong")
    grouped = report._replace(findings=group_by_device(report.findings))
    return [*tables, line, *report_document(grouped)]


def _device_table(report: CheckReport) -> Table:
    rows = tuple(
        (
            str(d.position),
            d.label,
            d.spec.token,
            "" if d.gpu is None else f"GPU {d.gpu.index} {d.gpu.name}",
            "" if d.gpu is None else f"{format_size(d.gpu.memory_free)} / {format_size(d.gpu.memory_total)}",
        )
        for d in report.devices
    )
    source = "" if report.inventory is None else f" ({report.inventory.source})"
    return Table(("#", "device", "written", "gpu", "free / total"), rows, title=f"devices{source}")


def _rank_table(report: DistributedCheckReport) -> Table:
    rows = tuple(
        (
            str(r.rank),
            r.host,
            str(r.local_rank),
            r.device,
            "" if r.gpu is None else f"{r.gpu.get('name')} {r.gpu.get('pci_bus_id')}",
            "" if r.gpu is None else format_size(r.gpu.get("memory_free")),
            f"{r.versions.get('torch')}"
            + (f" / nccl {r.versions['nccl']}" if r.versions.get("nccl") else ""),
        )
        for r in report.ranks
    )
    return Table(
        ("rank", "host", "local", "device", "gpu", "free", "versions"),
        rows,
        title=f"ranks ({len(report.ranks)} of {report.world_size}, backend {report.backend or '-'})",
    )


def _bandwidth_table(report: DistributedCheckReport) -> Table:
    return Table(
        ("size", "count", "iters", "time (us)", "algbw (GB/s)", "busbw (GB/s)"),
        tuple(
            (
                format_size(b.size, digits=0),
                str(b.count),
                str(b.iterations),
                f"{b.time_us:.1f}",
                f"{b.algbw:.3f}",
                f"{b.busbw:.3f}",
            )
            for b in report.bandwidth
        ),
        title=f"all_reduce bandwidth ({report.world_size} ranks, float32, sum)",
    )
