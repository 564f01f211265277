"""The `ddpdoctor.explain/1` JSON contract: every report validates against docs/schema/explain-1.json,
and every knowledge-base sample explained alone is diagnosed as its entry (or a declared neighbour)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest

from ddpdoctor.explain import explain_paths, explain_text
from ddpdoctor.explain.report import ExplainReport
from ddpdoctor.kb import load_knowledge_base

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "docs" / "schema" / "explain-1.json").read_text(encoding="utf-8"))
# Built once: `jsonschema.validate` checks the schema itself again on every call.
VALIDATOR = jsonschema.validators.validator_for(SCHEMA)(SCHEMA)
LOGS = sorted(p.with_suffix("") for p in (ROOT / "tests" / "fixtures" / "logs").glob("*.yaml"))
KB = load_knowledge_base()


def _log(stem: Path) -> Path:
    return stem if stem.is_dir() else stem.with_suffix(".log")


def test_the_committed_schema_is_a_valid_json_schema() -> None:
    type(VALIDATOR).check_schema(SCHEMA)


@pytest.mark.parametrize("stem", LOGS, ids=[s.name for s in LOGS])
def test_report_validates_against_the_committed_schema(
    stem: Path, explained_log: Callable[[Path], ExplainReport]
) -> None:
    data = json.loads(json.dumps(explained_log(_log(stem)).to_dict()))
    VALIDATOR.validate(data)
    known_miss = "known_miss:" in stem.with_suffix(".yaml").read_text(encoding="utf-8")
    assert data["root_cause"] is not None or known_miss


def test_no_failure_validates_too() -> None:
    VALIDATOR.validate(explain_text("step 1 loss 2.0\n").to_dict())


def test_schema_rejects_a_renamed_key() -> None:
    data = explain_paths([str(_log(LOGS[0]))]).to_dict()
    data["root_cause"]["categry"] = data["root_cause"].pop("category")
    with pytest.raises(jsonschema.ValidationError):
        VALIDATOR.validate(data)


SAMPLES = [
    (entry.id, index, sample)
    for entry in KB.entries
    if entry.status != "deprecated"
    for index, sample in enumerate(entry.samples_match)
]


@pytest.mark.parametrize(("entry_id", "index", "sample"), SAMPLES, ids=[f"{e}-{i}" for e, i, _ in SAMPLES])
def test_every_kb_sample_explains_to_its_entry(entry_id: str, index: int, sample: object) -> None:
    text = getattr(sample, "text")  # noqa: B009
    also = set(getattr(sample, "also"))  # noqa: B009
    report = explain_text(text)
    root = report.root_cause
    if root is None:  # a warning: listed as one, not a failure
        warned = {f.entry for f in report.findings if f.severity.value == "warning"}
        assert entry_id in warned or warned & also, f"{entry_id} sample {index}: neither failure nor warning"
        return
    named = {root.entry, *(link.entry for link in root.chain)}
    if KB.get(entry_id).kind != "root" or root.kind == "stall":
        # A symptom or wrapper is reported beside the cause it comes with; a warning NCCL logs as it sets
        # up, beside the stall its output stops at.
        named |= {f.entry for f in report.findings}
    assert entry_id in named or named & also, f"{entry_id} sample {index}: got {root.entry} ({root.category})"
