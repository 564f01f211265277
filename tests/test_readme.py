"""The README stays true and short: its explain output is what the command prints at 80 columns, it
says how to install torch for CPU, keeps the two set-up commands, and the demo runs without a warning."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text(encoding="utf-8")


def test_the_readme_leads_with_the_explain_output_ddpdoctor_prints_at_80_columns(
    cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    block = re.search(r"```text\n(.*?)```", README, re.DOTALL)
    assert block is not None and README.index(block.group(0)) < README.index("## Install")
    command, *shown = block.group(1).splitlines()
    assert command.startswith("$ ddpdoctor explain tests/fixtures/logs/")
    monkeypatch.chdir(REPO)
    args = command.removeprefix("$ ddpdoctor ").split()
    result = cli(*args, "--format", "rich", "--color", "never", env={"COLUMNS": "80"})
    assert result.exit_code == 1 and result.stderr == ""
    printed = [line.rstrip() for line in result.stdout.strip("\n").splitlines()]
    assert printed == shown
    assert len(shown) <= 45


def test_the_readme_is_short_and_says_how_to_install() -> None:
    assert len(README.splitlines()) <= 250
    assert "pip install ddpdoctor" in README and "pip install 'ddpdoctor[torch]'" in README
    assert "pip install torch --index-url https://download.pytorch.org/whl/cpu" in README
    for setup in ("make demo", "make test"):
        assert f"\n{setup} " in README


@pytest.mark.slow
def test_the_demo_runs_without_a_warning(tmp_path: Path) -> None:
    recipe = (REPO / "Makefile").read_text(encoding="utf-8").split("\ndemo:", 1)[1].splitlines()[1]
    assert recipe.strip() == "$(BIN)/ddpdoctor reproduce main-oom"
    env = {k: v for k, v in os.environ.items() if k != "DDPDOCTOR_DEBUG"}
    out = subprocess.run(
        [sys.executable, "-m", "ddpdoctor", "reproduce", "main-oom", "-f", "text"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert out.returncode == 0, out.stderr
    (said,) = out.stderr.splitlines()
    assert said.startswith("ddpdoctor: reproducing main-oom")
    assert "warning" not in out.stdout.lower()
