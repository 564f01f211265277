"""Every example fix in the knowledge base with `check:` arguments is verified by `ddpdoctor check`.

On the default simulated inventory (4 x 80 GiB GPUs, ~75 GiB free, idle, CUDA_VISIBLE_DEVICES
unset), the `before` arguments must produce an error or warning from one of the entry's `checks`,
and the `after` arguments none from any of them.
"""

from __future__ import annotations

import json
import shlex

import pytest

from ddpdoctor.kb.loader import load_entries
from ddpdoctor.kb.schema import Entry

ENTRIES = [e for e in load_entries().entries if e.example_fix.check is not None]
SIM = {"DDPDOCTOR_INVENTORY": "builtin:default"}


def flagged(cli, args: str, checks: tuple[str, ...]) -> list[str]:
    result = cli("check", *shlex.split(args), "--format", "json", env=SIM)
    assert result.exit_code in (0, 1), result.stderr
    data = json.loads(result.stdout)
    return [f["id"] for f in data["findings"] if f["id"] in checks and f["severity"] in ("error", "warning")]


def test_there_are_fixtures_to_verify() -> None:
    assert ENTRIES, "no knowledge-base entry has example_fix.check"


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.id for e in ENTRIES])
def test_example_fix_before_is_flagged_and_after_passes(
    cli, monkeypatch: pytest.MonkeyPatch, entry: Entry
) -> None:
    for name in ("CUDA_VISIBLE_DEVICES", "WORLD_SIZE", "RANK", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"):
        monkeypatch.delenv(name, raising=False)
    fixture = entry.example_fix.check
    assert fixture is not None
    assert entry.checks, f"{entry.id} has example_fix.check but no `checks:` to verify it against"
    before = flagged(cli, fixture.before, entry.checks)
    assert before, f"`ddpdoctor check {fixture.before}` flags none of {entry.checks}"
    after = flagged(cli, fixture.after, entry.checks)
    assert not after, f"`ddpdoctor check {fixture.after}` still flags {after}"
