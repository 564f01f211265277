"""The pages of `ddpdoctor reproduce`: one run with its diagnosis, and the scenario catalog."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ddpdoctor.findings import Severity
from ddpdoctor.present.document import Block, Code, Document, Fields, Heading, Table, Text
from ddpdoctor.present.explain import explain_document
from ddpdoctor.present.run import hang_document
from ddpdoctor.scenarios.catalog import Scenario
from ddpdoctor.scenarios.reproduce import ReproduceReport

if TYPE_CHECKING:
    from ddpdoctor.present.document import Tone


def reproduce_document(report: ReproduceReport) -> Document:
    """The outcome, then explain's diagnosis, then how it compares with the expected one."""
    assert report.scenario is not None and report.run is not None
    doc: Document = [Heading(f"Scenario {report.scenario.name}", level=2)]
    pairs = [("outcome", report.run.outcome), ("expected diagnosis", report.scenario.diagnosis)]
    if report.log is not None:
        pairs.append(("log", str(report.log)))
    if report.files is not None:
        pairs.append(("files the run wrote", str(report.files)))
    doc.append(Fields(tuple(pairs)))
    hang = None if report.run.supervised is None else report.run.supervised.hang
    if hang is not None:
        doc += hang_document(hang)
    if report.explain_report is not None:
        doc += [Heading("Diagnosis (ddpdoctor explain)", level=2), *explain_document(report.explain_report)]
    for finding in report.findings:
        tone: Tone = "ok" if finding.severity is Severity.OK else "error"
        doc.append(
            Text(f"{finding.title}: {finding.message}" if finding.message else finding.title, tone=tone)
        )
    return doc


def catalog_document(scenarios: list[Scenario]) -> Document:
    """`reproduce --list`: one row per scenario, then each description."""
    rows = tuple(
        (
            s.name,
            s.runtime.value,
            s.expect.value,
            s.entry or "-",
            s.category or "-",
            "any" if s.any_rank else ("-" if s.rank is None else str(s.rank)),
            s.summary,
        )
        for s in scenarios
    )
    doc: list[Block] = [
        Table(("scenario", "runtime", "ends", "entry", "category", "rank", "what happens"), rows)
    ]
    for s in scenarios:
        doc += [Heading(s.name, level=3), Text(s.description)]
        doc.append(Code(f"ddpdoctor reproduce {s.name} --log {s.name}.log", language="shell"))
    return doc
