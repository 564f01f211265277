"""The wheel carries the knowledge base and works on its own, loaded through importlib.resources."""

from __future__ import annotations

import json
import os
import platform
import re
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


def test_torch_is_an_extra_and_the_project_has_urls(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = archive.read(name).decode("utf-8").splitlines()
    requires = [
        line.removeprefix("Requires-Dist: ") for line in metadata if line.startswith("Requires-Dist:")
    ]
    torch = [r for r in requires if r.startswith("torch")]
    assert torch and all("extra == 'torch'" in r or 'extra == "torch"' in r for r in torch)
    # What `pip install ddpdoctor` brings: the CLI's libraries, the prefilter and py-spy, never torch.
    always = {re.split(r"[ ;<>=!~\[]", r, maxsplit=1)[0].lower() for r in requires if "extra ==" not in r}
    assert always == {"typer", "rich", "pyyaml", "hyperscan", "py-spy"}
    urls = {line for line in metadata if line.startswith("Project-URL:")}
    assert "Project-URL: Issues, https://github.com/ddpdoctor/ddpdoctor/issues" in urls


# A meta-path finder that refuses torch, in this interpreter and in every process it starts.
HIDE_TORCH = """
import sys

class _NoTorch:
    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            raise ModuleNotFoundError(f"No module named {name!r}")
        return None

sys.meta_path.insert(0, _NoTorch())
"""
LOG = str(REPO / "tests" / "fixtures" / "explain" / "torchrun_oom_table.log")
WITHOUT_TORCH = {
    # command -> (exit code, what stdout or stderr says)
    "explain": (["explain", LOG, "-f", "json"], 1, '"schema": "ddpdoctor.explain/1"'),
    "kb list": (["kb", "list", "-f", "json"], 0, '"schema": "ddpdoctor.kb-list/1"'),
    "env": (["env", "-f", "text"], 0, "torch is not installed"),
    "check": (["check"], 2, "ddpdoctor: error: `ddpdoctor check` needs PyTorch, which is not installed"),
    "reproduce": (["reproduce", "main-oom"], 2, "`ddpdoctor reproduce` needs PyTorch"),
}


def run_without_torch(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """`python -m ddpdoctor ARGS...` in a process where `import torch` fails."""
    (tmp_path / "sitecustomize.py").write_text(HIDE_TORCH, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(REPO)]), "COLUMNS": "80"}
    env.pop("DDPDOCTOR_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "ddpdoctor", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )


@pytest.mark.slow
@pytest.mark.parametrize("case", list(WITHOUT_TORCH))
def test_reading_logs_works_without_torch_and_the_rest_says_how_to_install_it(
    case: str, tmp_path: Path
) -> None:
    args, code, says = WITHOUT_TORCH[case]
    proc = run_without_torch(args, tmp_path)
    assert proc.returncode == code, proc.stderr
    assert says in proc.stdout + proc.stderr
    if code == 2:
        assert proc.stderr.splitlines()[1].startswith("ddpdoctor: hint: pip install 'ddpdoctor[torch]'")
        assert "--index-url https://download.pytorch.org/whl/cpu" in proc.stderr


@pytest.mark.slow
def test_env_without_torch_prints_what_it_can_and_one_line_on_installing_torch(tmp_path: Path) -> None:
    text = run_without_torch(["env", "-f", "text"], tmp_path)
    assert text.returncode == 0, text.stderr
    install = [line for line in text.stdout.splitlines() if "pip install" in line]
    assert install == [
        "torch is not installed, so CUDA, NCCL and the devices are not shown: pip install "
        "'ddpdoctor[torch]'; for a CPU-only torch: pip install torch --index-url "
        "https://download.pytorch.org/whl/cpu"
    ]
    assert "\nSystem\n" in text.stdout and "\nglibc:" in text.stdout
    data = json.loads(run_without_torch(["env", "-f", "json"], tmp_path).stdout)
    assert data["versions"]["torch"] is None and data["versions"]["python"] == platform.python_version()
    assert data["inventory"] is None and data["problems"] == install


@pytest.mark.slow
def test_run_and_stacks_work_without_torch(tmp_path: Path) -> None:
    job = run_without_torch(["run", "--out", "job", "--", sys.executable, "-c", "print('job ran')"], tmp_path)
    assert job.returncode == 0 and "job ran" in job.stdout, job.stderr
    assert (tmp_path / "job" / "report.json").is_file()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        stacks = run_without_torch(["stacks", str(sleeper.pid), "-f", "json"], tmp_path)
    finally:
        sleeper.kill()
        sleeper.wait(timeout=30)
    assert stacks.returncode in (0, 2), stacks.stderr
    if stacks.returncode == 2:  # no ptrace rights here: the one-line error, not a missing torch
        assert stacks.stderr.startswith("ddpdoctor: error: no stack could be taken")
    else:
        assert json.loads(stacks.stdout)["processes"][0]["pid"] == sleeper.pid
