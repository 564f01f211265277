"""Logs written by the reference runtime (`ddpdoctor reproduce NAME --log FILE`) are diagnosed as the
scenario catalog says.

The logs in tests/fixtures/explain/runtime/ were produced by the runtime's scenarios; keeping them
lets this check run without starting the processes again (`ddpdoctor reproduce` itself re-runs them
and compares live).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ddpdoctor.explain import explain_paths
from ddpdoctor.scenarios.catalog import get_scenario

RUNTIME_LOGS = sorted((Path(__file__).resolve().parent / "fixtures" / "explain" / "runtime").glob("*.log"))


@pytest.mark.parametrize("log", RUNTIME_LOGS, ids=[p.stem for p in RUNTIME_LOGS])
def test_runtime_log_is_diagnosed_as_the_catalog_says(log: Path) -> None:
    scenario = get_scenario(log.stem)
    root = explain_paths([str(log)]).root_cause
    assert root is not None
    assert (root.entry, root.category) == (scenario.entry, scenario.category)
    if not scenario.any_rank:
        assert root.rank == scenario.rank


def test_runtime_logs_are_present() -> None:
    assert RUNTIME_LOGS, "tests/fixtures/explain/runtime/ has no logs"
