"""The core of `ddpdoctor reproduce`: run a scenario, keep its log, explain it, compare.

Exit status of the command (:meth:`ReproduceReport.exit_code`): 0 when the scenario reproduced
its failure and, unless explaining was turned off, `explain` gave the diagnosis the scenario
expects; 1 when it did not reproduce or the diagnosis differs.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ddpdoctor.errors import InputError
from ddpdoctor.explain.report import ExplainReport
from ddpdoctor.findings import Finding, Report, Severity
from ddpdoctor.scenarios import ScenarioRun, diagnosis_mismatches, run_scenario
from ddpdoctor.scenarios.catalog import SCENARIOS, Scenario, get_scenario

REPRODUCE_SCHEMA = "ddpdoctor.reproduce/1"
LIST_SCHEMA = "ddpdoctor.reproduce-list/1"


@dataclass(frozen=True)
class ReproduceOptions:
    """What to run and what to do with the log."""

    name: str
    log: Path | None = None
    explain: bool = True


class ReproduceReport(Report):
    """One reproduction: how the run ended, its log, and the diagnosis against the expected one."""

    scenario: Scenario | None = None
    run: ScenarioRun | None = None
    log: Path | None = None
    files: Path | None = None
    explained: dict[str, Any] | None = None
    explain_report: ExplainReport | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form: the scenario, the run, the expected diagnosis and explain's report."""
        assert self.scenario is not None and self.run is not None
        scenario = self.scenario
        return {
            **super().to_dict(),
            "scenario": scenario.name,
            "runtime": scenario.runtime.value,
            "reproduced": self.run.reproduced,
            "exit_status": self.run.process.returncode,
            "timed_out": self.run.process.timed_out,
            "duration_s": round(self.run.process.duration, 3),
            "log": None if self.log is None else str(self.log),
            "files": None if self.files is None else str(self.files),
            "output": self.run.output,
            "expected": {"entry": scenario.entry, "category": scenario.category, "rank": scenario.rank},
            "explain": self.explained,
            "hang": None if self.run.supervised is None else self.run.supervised.to_dict()["hang"],
        }


def _finding(ok: bool, fid: str, title: str, message: str = "") -> Finding:
    return Finding(
        id=fid,
        severity=Severity.OK if ok else Severity.ERROR,
        category="other",
        title=title,
        message=message,
    )


def reproduce(
    options: ReproduceOptions, *, on_output: Callable[[str], None] | None = None
) -> ReproduceReport:
    """Run the scenario, write its log, explain it and compare with the expected diagnosis."""
    scenario = get_scenario(options.name)
    if options.log is not None and options.log.is_dir():
        raise InputError(f"--log {options.log} is a folder", hint="give a file name, e.g. --log run.log")
    if options.log is not None and not options.log.parent.is_dir():
        raise InputError(
            f"--log {options.log}: the folder {options.log.parent} does not exist",
            hint="create it first, or write the log elsewhere",
        )
    workdir = Path(tempfile.mkdtemp(prefix=f"ddpdoctor-{scenario.name}-"))
    run = run_scenario(scenario, on_output=on_output, workdir=workdir)
    if options.log is not None:
        try:
            options.log.write_text(run.output, encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot write --log {options.log}: {exc.strerror}") from None
    report = ReproduceReport(schema=REPRODUCE_SCHEMA, scenario=scenario, run=run, log=options.log)
    if any(workdir.iterdir()):
        report.files = workdir
    else:
        workdir.rmdir()
    if run.reproduced:
        report.findings.append(_finding(True, "reproduce.reproduced", "reproduced", run.outcome))
    else:
        expected = scenario.expect.value
        report.findings.append(
            _finding(
                False, "reproduce.not-reproduced", f"did not reproduce (expected: {expected})", run.outcome
            )
        )
    if options.explain:
        from ddpdoctor.explain import explain_text

        explained = explain_text(run.output, name=str(options.log or f"<{scenario.name}>"))
        report.explained = explained.to_dict()
        report.explain_report = explained
        mismatches = diagnosis_mismatches(scenario, report.explained)
        if mismatches:
            report.findings.append(
                _finding(
                    False,
                    "reproduce.diagnosis",
                    "diagnosis differs from the expected one",
                    "; ".join(mismatches),
                )
            )
        else:
            report.findings.append(
                _finding(True, "reproduce.diagnosis", "diagnosed as expected", scenario.diagnosis)
            )
    return report


def catalog_dict(scenarios: list[Scenario]) -> dict[str, Any]:
    """JSON form of the catalog."""
    return {
        "schema": LIST_SCHEMA,
        "scenarios": [
            {
                "name": s.name,
                "summary": s.summary,
                "description": s.description,
                "runtime": s.runtime.value,
                "ends": s.expect.value,
                "entry": s.entry,
                "category": s.category,
                "rank": s.rank,
                "any_rank": s.any_rank,
                "bound_s": s.bound_s,
            }
            for s in scenarios
        ],
    }


def all_scenarios() -> list[Scenario]:
    """The catalog in order."""
    return list(SCENARIOS.values())
