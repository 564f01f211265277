"""The page of `ddpdoctor env`: versions, system, devices, topology and launch variables."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ddpdoctor.present.document import Document, Fields, Heading, Table, Text
from ddpdoctor.units import format_size

if TYPE_CHECKING:
    from ddpdoctor.environment import EnvReport


def env_document(report: EnvReport) -> Document:
    """Versions, system, GPUs, topology and variables, then what could not be read."""
    doc: Document = [
        Heading("Versions"),
        Fields(tuple((k, v or "-") for k, v in report.versions.items())),
        Heading("System"),
        Fields(tuple((k, "-" if v is None else str(v)) for k, v in report.system.to_dict().items())),
    ]
    inv = report.inventory
    if inv is not None:
        doc.append(Heading("Devices"))
        rows = tuple(
            (
                str(g.index),
                g.name,
                format_size(g.memory_free),
                format_size(g.memory_total),
                g.uuid,
                g.pci_bus_id,
            )
            for g in inv.gpus
        )
        if rows:
            doc.append(Table(("gpu", "name", "free", "total", "uuid", "pci"), rows))
        doc.append(
            Fields(
                (
                    ("cpus", str(inv.cpu_count)),
                    ("/dev/shm", f"{format_size(inv.shm_free)} free of {format_size(inv.shm_total)}"),
                    ("backends", ", ".join(inv.backends) or "none"),
                    ("source", inv.source),
                )
            )
        )
    topo = report.topology
    doc += [
        Heading("Topology"),
        Fields(
            (
                ("nvlink", _yes_no(topo.nvlink)),
                ("infiniband", ", ".join(topo.infiniband) if topo.infiniband else "none found"),
            )
        ),
    ]
    if topo.gpu_matrix:
        doc.append(Text(topo.gpu_matrix))
    if report.variables:
        doc += [Heading("Environment"), Fields(tuple(report.variables.items()))]
    for problem in report.problems:
        doc.append(Text(problem, tone="warning"))
    return doc


def _yes_no(value: bool | None) -> str:
    return "unknown" if value is None else "yes" if value else "no"
