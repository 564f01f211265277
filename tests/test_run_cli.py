"""`ddpdoctor run`'s fast path: the options it reads, what it leaves to typer, and that both agree.

The fast path (:mod:`ddpdoctor.cli.run_fast`) starts the job without importing typer or the
analysis; the typer command (:mod:`ddpdoctor.cli.run`) is reached by calling the app directly.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from ddpdoctor.cli.app import app
from ddpdoctor.cli.run_fast import RUN_SPELLINGS, OnHang, RunArgs, parse_run
from ddpdoctor.present.render import ColorMode, OutputFormat

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs Linux /proc")

PY = sys.executable


def _options(command: typer.main.TyperCommand | typer.main.TyperGroup) -> set[str]:
    return {opt for param in command.params for opt in (*param.opts, *param.secondary_opts) if opt[:1] == "-"}


def test_fast_path_accepts_exactly_the_typer_options() -> None:
    run = typer.main.get_command(app).commands["run"]  # type: ignore[attr-defined]
    assert set(RUN_SPELLINGS) == _options(run) - {"--help", "-h"}


def test_on_hang_choices_are_the_supervisors() -> None:
    from ddpdoctor.supervise.supervisor import ON_HANG

    assert tuple(choice.value for choice in OnHang) == ON_HANG


def test_fast_path_reads_every_option() -> None:
    args = [
        "--color",
        "never",
        "-q",
        "run",
        "-o",
        "r",
        "--hang-after=2.5",
        "--on-hang",
        "kill",
        "--native",
        "--no-instrument",
        "-f",
        "json",
        "--kb",
        "k1",
        "--kb=k2",
        "torchrun",
        "--nproc-per-node",
        "2",
        "--",
        "x.py",
    ]
    assert parse_run(args) == RunArgs(
        command=["torchrun", "--nproc-per-node", "2", "--", "x.py"],
        out=Path("r"),
        hang_after=2.5,
        on_hang=OnHang.KILL,
        native=True,
        instrument=False,
        fmt=OutputFormat.JSON,
        kb=[Path("k1"), Path("k2")],
        color=ColorMode.NEVER,
        quiet=True,
    )
    assert parse_run(["run", "--instrument", "--", "-x", "--out"]) == RunArgs(command=["-x", "--out"])


@pytest.mark.parametrize(
    "args",
    [
        ["run", "--help"],
        ["run", "-h", "--", PY],
        ["--debug", "run", "--", PY],
        ["--version"],
        ["explain", "run"],
        ["run", "--unknown", "--", PY],
        ["run", "--hang-after", "-1", "--", PY],
        ["run", "--hang-after", "soon", "--", PY],
        ["run", "--on-hang", "wait", "--", PY],
        ["run", "-f", "bogus", "--", PY],
        ["--color", "sometimes", "run", "--", PY],
        ["run", "--native=yes", "--", PY],
        ["run", "--out", "", "--", PY],
        ["run", "-oDIR", "--", PY],
        ["run", "--out"],
        ["run", "--"],
        ["run"],
        ["--", "run", PY],
    ],
)
def test_fast_path_declines_what_typer_must_handle(args: list[str]) -> None:
    assert parse_run(args) is None


def _cli(args: list[str], cwd: Path, *, through_typer: bool) -> tuple[int, str, str]:
    """Run the CLI (its console entry point, or the typer app itself) with paths and numbers masked."""
    entry = (
        "from ddpdoctor.cli.app import run as entry"
        if through_typer
        else "from ddpdoctor.cli import main as entry"
    )
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("DDPDOCTOR_RUN") and k != "DDPDOCTOR_DEBUG"
    }
    done = subprocess.run(
        [PY, "-c", f"import sys\n{entry}\nsys.exit(entry(sys.argv[1:]))", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
    )

    def masked(text: str) -> str:
        return re.sub(r"\d+(\.\d+)?", "N", text.replace(str(cwd), "<cwd>"))

    return done.returncode, masked(done.stdout), masked(done.stderr)


FAIL = "import sys; print('step 1'); print('RuntimeError: boom', file=sys.stderr); sys.exit(3)"
MATRIX = [  # (arguments, the exit status both paths must give)
    (["run", "--out", "r", "--", PY, "-c", "print('hello')"], 0),
    (["run", "-o", "r", "--hang-after", "0", "--no-instrument", PY, "-c", FAIL], 3),
    (["--color", "never", "run", "-f", "json", "-o", "r", "--", PY, "-c", FAIL], 3),
    (["run", "--format=markdown", "--on-hang=kill", "-o", "r", "--", PY, "-c", FAIL], 3),
    (["run", "-o", "r", "--", "/nonexistent/launcher"], 2),
]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "status"), MATRIX, ids=["healthy", "no-instrument", "json", "markdown", "no-such-command"]
)
def test_fast_path_and_typer_give_the_same_output(args: list[str], status: int, tmp_path: Path) -> None:
    (tmp_path / "fast").mkdir()
    (tmp_path / "typer").mkdir()
    fast = _cli(args, tmp_path / "fast", through_typer=False)
    slow = _cli(args, tmp_path / "typer", through_typer=True)
    assert fast == slow
    assert fast[0] == status, fast[2]
    assert "ddpdoctor: run folder <cwd>/r\n" in fast[2]


@pytest.mark.slow
def test_the_job_starts_before_typer_and_the_analysis_are_imported(tmp_path: Path) -> None:
    probe = (
        "import subprocess, sys\n"
        "seen = []\n"
        "popen = subprocess.Popen.__init__\n"
        "def spy(self, *args, **kwargs):\n"
        "    seen.append(sorted(m for m in ('typer', 'rich', 'ddpdoctor.supervise.report',\n"
        "        'ddpdoctor.explain', 'ddpdoctor.cli.app') if m in sys.modules))\n"
        "    popen(self, *args, **kwargs)\n"
        "subprocess.Popen.__init__ = spy\n"
        "from ddpdoctor.cli import main\n"
        "code = main(['run', '-o', 'r', '--', sys.executable, '-c', 'pass'])\n"
        "print('BEFORE', seen[0], code, 'typer' in sys.modules)\n"
    )
    done = subprocess.run([PY, "-c", probe], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.stdout.strip().splitlines()[-1] == "BEFORE [] 0 False", done.stderr
    assert (tmp_path / "r" / "report.json").is_file()


def test_hoisting_leaves_the_command_of_run_alone() -> None:
    from ddpdoctor.cli.options import hoist_global_options

    assert hoist_global_options(["run", "-o", "d", "-q", "train.py", "-q", "--debug"]) == [
        "-q",
        "run",
        "-o",
        "d",
        "train.py",
        "-q",
        "--debug",
    ]
    assert hoist_global_options(["--color", "never", "run", "--kb", "k", "--color=always", "x", "-q"]) == [
        "--color=always",
        "--color",
        "never",
        "run",
        "--kb",
        "k",
        "x",
        "-q",
    ]


@pytest.mark.slow
@pytest.mark.parametrize("debug", ["0", "1"], ids=["fast-path", "typer"])  # DDPDOCTOR_DEBUG=1: typer
def test_the_job_gets_its_own_options_even_those_ddpdoctor_also_has(debug: str, tmp_path: Path) -> None:
    script = "import sys; print(sys.argv[1:])"
    done = subprocess.run(
        [PY, "-m", "ddpdoctor", "run", "-o", "r", PY, "-c", script, "-q", "--color", "never", "--debug"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "DDPDOCTOR_DEBUG": debug},
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
    )
    assert (done.returncode, done.stdout) == (0, "['-q', '--color', 'never', '--debug']\n"), done.stderr
