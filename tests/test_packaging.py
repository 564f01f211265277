"""The wheel carries the knowledge base and works on its own, loaded through importlib.resources."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(out),
            str(REPO),
        ],
        check=True,
        timeout=300,
        capture_output=True,
    )
    (whl,) = out.glob("ddpdoctor-*.whl")
    return whl


def test_wheel_ships_every_entry_and_only_yaml(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    shipped = sorted(
        n.removeprefix("ddpdoctor/_knowledge/") for n in names if n.startswith("ddpdoctor/_knowledge/")
    )
    expected = sorted(str(p.relative_to(REPO / "knowledge")) for p in (REPO / "knowledge").rglob("*.yaml"))
    assert shipped == expected
    assert all(n.endswith(".yaml") for n in shipped)


def test_installed_package_loads_its_knowledge_base(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target), str(wheel)],
        check=True,
        timeout=300,
        capture_output=True,
    )
    code = (
        "import json, ddpdoctor; from ddpdoctor.kb import load_knowledge_base; "
        "kb = load_knowledge_base(); print(json.dumps([ddpdoctor.__file__, len(kb)]))"
    )
    env = {**os.environ, "PYTHONPATH": str(target)}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    module_file, count = json.loads(proc.stdout)
    assert module_file.startswith(str(target))
    entry_files = [p for p in (REPO / "knowledge").rglob("*.yaml") if p.parent.name != "census"]
    assert count == len(entry_files) - 1  # categories.yaml and the census are not entries
