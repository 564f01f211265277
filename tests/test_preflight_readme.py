"""The documented examples: the inventory in docs/check.md loads, the training script in
docs/integrations.md runs, and the README's training-code section links that guide."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ddpdoctor.hardware.inventory import visible_mapping
from ddpdoctor.hardware.inventory_file import inventory_from_dict
from ddpdoctor.units import GIB

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text(encoding="utf-8")
INTEGRATIONS = (REPO / "docs" / "integrations.md").read_text(encoding="utf-8")
CHECK_PAGE = (REPO / "docs" / "check.md").read_text(encoding="utf-8")


HEADINGS = {
    "check": "## Check a setup before the job starts",
    "training code": "## Use it from your training code",
}


def section(name: str) -> str:
    """The text from a level-2 heading to the next one (the check section lives in docs/check.md)."""
    text = CHECK_PAGE if name == "check" else README
    start = text.index(HEADINGS[name])
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, re.DOTALL)


def test_readme_inventory_example_is_a_valid_inventory() -> None:
    (example,) = blocks(section("check"), "yaml")
    inv = inventory_from_dict(yaml.safe_load(example))
    assert len(inv.gpus) == 4 and inv.gpus[3].memory_free == 12 * GIB
    assert visible_mapping(inv, inv.environ({})).ordinals == (1, 2, 3)


def test_readme_training_section_links_the_guide_and_stays_short() -> None:
    text = section("training code")
    assert "(docs/integrations.md)" in text and len(text.splitlines()) <= 45


@pytest.mark.slow
def test_the_guides_training_script_runs_under_torchrun_on_cpu(tmp_path: Path) -> None:
    (script,) = [b for b in blocks(INTEGRATIONS, "python") if "def main()" in b]
    (tmp_path / "train.py").write_text(script, encoding="utf-8")
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("RANK", "WORLD_SIZE", "MASTER_", "LOCAL_"))
    }
    env.update({"PYTHONPATH": str(REPO), "CUDA_VISIBLE_DEVICES": "", "OMP_NUM_THREADS": "1"})
    env.pop("DDPDOCTOR_INVENTORY", None)
    out = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2", "train.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "rank 0: final loss" in out.stdout and "rank 1: final loss" in out.stdout
    assert out.stderr == ""  # the example runs without a warning
