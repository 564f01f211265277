"""The `ddpdoctor.explain/1` JSON contract: every report validates against docs/schema/explain-1.json,
and every knowledge-base sample explained alone is diagnosed as its entry (or a declared neighbour)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from ddpdoctor.explain import explain_paths, explain_text
from ddpdoctor.kb import load_knowledge_base

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "docs" / "schema" / "explain-1.json").read_text(encoding="utf-8"))
LOGS = sorted(p.with_suffix("") for p in (ROOT / "tests" / "fixtures" / "logs").glob("*.yaml"))
KB = load_knowledge_base()


def _log(stem: Path) -> Path:
    return stem if stem.is_dir() else stem.with_suffix(".log")


@pytest.mark.parametrize("stem", LOGS, ids=[s.name for s in LOGS])
def test_report_validates_against_the_committed_schema(stem: Path) -> None:
    data = json.loads(json.dumps(explain_paths([str(_log(stem))]).to_dict()))
    jsonschema.validate(data, SCHEMA)
    known_miss = "known_miss:" in stem.with_suffix(".yaml").read_text(encoding="utf-8")
    assert data["root_cause"] is not None or known_miss


def test_no_failure_validates_too() -> None:
    jsonschema.validate(explain_text("step 1 loss 2.0\n").to_dict(), SCHEMA)


def test_schema_rejects_a_renamed_key() -> None:
    data = explain_paths([str(_log(LOGS[0]))]).to_dict()
    data["root_cause"]["categry"] = data["root_cause"].pop("category")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, SCHEMA)


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
    if KB.get(entry_id).kind != "root":  # a symptom or wrapper is reported beside the cause it comes with
        named |= {f.entry for f in report.findings}
    assert entry_id in named or named & also, f"{entry_id} sample {index}: got {root.entry} ({root.category})"
