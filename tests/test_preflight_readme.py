"""The documented examples: the inventory in docs/check.md loads, the training script in
docs/python-api.md runs, and the README's short hook example is an excerpt of that script."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ddpdoctor.devices import GIB, inventory_from_dict, visible_mapping

REPO = Path(__file__).resolve().parent.parent
PAGES = {"check": REPO / "docs" / "check.md", "preflight": REPO / "docs" / "python-api.md"}


def section(name: str) -> str:
    """The documentation page that holds the `name` example."""
    return PAGES[name].read_text(encoding="utf-8")


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, re.DOTALL)


def test_readme_inventory_example_is_a_valid_inventory() -> None:
    (example,) = blocks(section("check"), "yaml")
    inv = inventory_from_dict(yaml.safe_load(example))
    assert len(inv.gpus) == 4 and inv.gpus[3].memory_free == 12 * GIB
    assert visible_mapping(inv, inv.environ({})).ordinals == (1, 2, 3)


@pytest.mark.slow
def test_readme_training_script_runs_under_torchrun_on_cpu(tmp_path: Path) -> None:
    (script,) = [b for b in blocks(section("preflight"), "python") if "def main()" in b]
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


def test_readme_hook_example_is_taken_from_the_tested_script() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    start = readme.index("## In the training script")
    (excerpt,) = blocks(readme[start : readme.index("\n## ", start + 1)], "python")
    (script,) = [b for b in blocks(section("preflight"), "python") if "def main()" in b]
    for line in excerpt.splitlines():
        if line.strip() and not line.lstrip().startswith(("#", "...")):
            assert line.strip() in script, line
