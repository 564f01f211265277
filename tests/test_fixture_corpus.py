"""The real-log fixture corpus: every sidecar is well formed and points at a log that exists.

Each fixture is `tests/fixtures/logs/<name>.log` (or a folder `<name>/` of per-rank files) with a
sidecar `<name>.yaml` that names the public thread the log was taken from and the expected root
cause. The explain regression test reads the same sidecars; this module only checks the corpus.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
import yaml

from ddpdoctor.kb import KnowledgeBase

REPO = Path(__file__).resolve().parent.parent
LOGS = REPO / "tests" / "fixtures" / "logs"
KNOWLEDGE = REPO / "knowledge"

SIDECAR_KEYS = {"source", "framework", "expected", "notes"}
EXPECTED_KEYS = {"category", "entry", "rank"}
FRAMEWORKS = {"pytorch", "lightning", "accelerate", "deepspeed", "burn", "other"}
MIN_LOGS = 30
MIN_FRAMEWORKS = 4


def _sidecars() -> list[Path]:
    return sorted(LOGS.glob("*.yaml"))


def _load(sidecar: Path) -> dict[str, Any]:
    data = yaml.safe_load(sidecar.read_text(encoding="utf-8"))
    assert isinstance(data, dict), f"{sidecar.name}: the sidecar must be a mapping"
    return data


def _log_target(sidecar: Path) -> Path:
    """The log a sidecar describes: `<name>.log` or the folder `<name>/`."""
    single = sidecar.with_suffix(".log")
    return single if single.exists() else sidecar.with_suffix("")


def _categories() -> set[str]:
    data = yaml.safe_load((KNOWLEDGE / "categories.yaml").read_text(encoding="utf-8"))
    return {item["name"] for item in data["categories"]}


SIDECARS = _sidecars()
NAMES = [path.stem for path in SIDECARS]


def test_categories_file_holds_the_closed_list_of_fifteen() -> None:
    assert _categories() == {
        "oom_gpu",
        "oom_host",
        "duplicate_device",
        "invalid_device",
        "dataloader",
        "unused_parameters",
        "collective_timeout",
        "collective_mismatch",
        "nccl_error",
        "rendezvous",
        "cuda_error",
        "backend_unsupported",
        "user_code",
        "version_mismatch",
        "other",
    }


@pytest.mark.parametrize("sidecar", SIDECARS, ids=NAMES)
def test_sidecar_has_exactly_the_documented_fields(sidecar: Path) -> None:
    data = _load(sidecar)
    assert set(data) == SIDECAR_KEYS, f"fields: {sorted(data)}"
    assert isinstance(data["expected"], dict)
    assert set(data["expected"]) == EXPECTED_KEYS, f"expected fields: {sorted(data['expected'])}"
    assert data["framework"] in FRAMEWORKS
    assert isinstance(data["notes"], str) and data["notes"].strip()


@pytest.mark.parametrize("sidecar", SIDECARS, ids=NAMES)
def test_source_is_a_public_https_thread(sidecar: Path) -> None:
    source = _load(sidecar)["source"]
    assert isinstance(source, str)
    url = urlparse(source)
    assert url.scheme == "https" and url.netloc, source
    assert url.path.strip("/"), source


@pytest.mark.parametrize("sidecar", SIDECARS, ids=NAMES)
def test_expected_category_is_one_of_the_fifteen(sidecar: Path) -> None:
    category = _load(sidecar)["expected"]["category"]
    assert category in _categories(), category


@pytest.mark.parametrize("sidecar", SIDECARS, ids=NAMES)
def test_expected_rank_is_an_integer_or_null(sidecar: Path) -> None:
    rank = _load(sidecar)["expected"]["rank"]
    assert rank is None or (isinstance(rank, int) and not isinstance(rank, bool) and rank >= 0), rank


@pytest.mark.parametrize("sidecar", SIDECARS, ids=NAMES)
def test_expected_entry_is_null_or_a_knowledge_base_id(sidecar: Path, kb: KnowledgeBase) -> None:
    entry = _load(sidecar)["expected"]["entry"]
    assert entry is None or entry in kb.by_id, f"entry {entry!r} is not in knowledge/"


@pytest.mark.parametrize("sidecar", SIDECARS, ids=NAMES)
def test_log_exists_and_is_not_empty(sidecar: Path) -> None:
    target = _log_target(sidecar)
    if target.is_dir():
        files = [path for path in target.rglob("*") if path.is_file()]
        assert files, f"{target.name}/ holds no files"
        assert all(path.stat().st_size > 0 for path in files), f"{target.name}/ holds an empty file"
    else:
        assert target.is_file(), f"missing {target.name} (or a folder {sidecar.stem}/)"
        assert target.stat().st_size > 0, f"{target.name} is empty"


def test_every_log_has_a_sidecar() -> None:
    described = {_log_target(sidecar) for sidecar in SIDECARS}
    logs = {path for path in LOGS.iterdir() if path.suffix != ".yaml"}
    assert logs - described == set(), "logs without a sidecar"


def test_corpus_is_large_and_spans_frameworks() -> None:
    frameworks = Counter(_load(sidecar)["framework"] for sidecar in SIDECARS)
    assert len(SIDECARS) >= MIN_LOGS, f"only {len(SIDECARS)} fixtures"
    assert len(set(frameworks) - {"other"}) >= MIN_FRAMEWORKS, dict(frameworks)
