"""`ddpdoctor explain` on the command line: formats, exit codes, errors, and the fast path.

In-process runs go through typer's CliRunner (the documented interface). The fast path is only
taken by the real entry point, so it is exercised with `python -m ddpdoctor` subprocesses and
compared with the typer path (`--debug` style environment forces typer) for a matrix of arguments.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main

from ddpdoctor.cli.app import app
from ddpdoctor.cli.explain import EngineChoice
from ddpdoctor.cli.explain_fast import OPTIONS, FastArgs, parse_fast
from ddpdoctor.explain.options import ENGINES
from ddpdoctor.present.render import ColorMode, OutputFormat

SAMPLES = Path(__file__).resolve().parent / "fixtures" / "explain"
OOM = str(SAMPLES / "torchrun_oom_table.log")


def test_text_output_leads_with_the_root_cause(cli) -> None:
    result = cli("explain", OOM, "--format", "text")
    assert result.exit_code == 1
    first = result.stdout.splitlines()[0]
    assert first == "rank 3: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.50 GiB."
    assert "rank:" in result.stdout and "confidence:" in result.stdout
    assert "Other ranks" in result.stdout and "What to do" in result.stdout
    assert "Example fix" not in result.stdout and "--full" in result.stdout
    assert len(result.stdout.splitlines()) <= 45
    assert result.stderr == ""
    full = cli("explain", OOM, "--format", "text", "--full").stdout
    assert "Example fix" in full and "Chain (outermost first)" in full


def test_json_output_is_the_contract(cli) -> None:
    result = cli("explain", OOM, "-f", "json")
    assert result.exit_code == 1 and result.stderr == ""
    data = json.loads(result.stdout)
    assert data["schema"] == "ddpdoctor.explain/1"
    assert data["root_cause"]["entry"] == "cuda-out-of-memory" and data["root_cause"]["rank"] == 3


def test_markdown_is_ready_for_an_issue(cli) -> None:
    result = cli("explain", str(SAMPLES / "chained_user_error.log"), "--format", "markdown")
    assert result.exit_code == 1
    assert result.stdout.startswith("# rank 2: KeyError: 'label'")
    assert "```" in result.stdout and "## Log excerpt" in result.stdout and "## Environment" in result.stdout
    assert "/home/bob" in result.stdout
    redacted = cli(
        "explain", str(SAMPLES / "chained_user_error.log"), "--format", "markdown", "--redact"
    ).stdout
    assert "/home/bob" not in redacted and "~/data/loader.py" in redacted


def test_markdown_for_filing_carries_the_env_facts_and_redacts_host_names(cli) -> None:
    from ddpdoctor import __version__

    log = str(SAMPLES.parent / "logs" / "mmseg-torchrun-all-ranks-sigabrt-table.log")
    report = cli("explain", log, "--format", "markdown").stdout
    environment = report.split("## Environment\n", 1)[1]
    for fact in (
        f"ddpdoctor:** {__version__}",
        f"python:** {platform.python_version()}",
        "os:**",
        "kernel:**",
    ):
        assert f"- **{fact}" in environment
    assert "neptun.informatik.uni-kl.de" in report.split("## Environment")[0]
    redacted = cli("explain", log, "--format", "markdown", "--redact").stdout
    assert "neptun.informatik.uni-kl.de" not in redacted and "<host>" in redacted


def test_rich_output_renders(cli) -> None:
    result = cli("explain", OOM, "--format", "rich")
    assert result.exit_code == 1 and result.stderr == ""
    assert (
        "rank 3: torch.OutOfMemoryError: CUDA out of memory" in result.stdout
        and "Other ranks" in result.stdout
    )


def test_verbose_lists_every_finding_and_input(cli) -> None:
    plain = cli("explain", OOM, "-f", "text").stdout
    verbose = cli("explain", OOM, "-f", "text", "--verbose").stdout
    assert "Every finding" in verbose and "Every finding" not in plain
    assert "explain.victim" in verbose and "selected" in verbose


def test_clean_log_exits_zero(cli, tmp_path: Path) -> None:
    log = tmp_path / "ok.log"
    log.write_text("[rank0]: epoch 1 loss 0.5\n[rank1]: epoch 1 loss 0.6\n")
    result = cli("explain", str(log), "-f", "text")
    assert result.exit_code == 0 and "No failure found" in result.stdout


def test_stdin(cli) -> None:
    result = cli("explain", "-", "-f", "json", input=(SAMPLES / "srun_labels.log").read_text())
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["inputs"][0]["path"] == "<stdin>" and data["root_cause"]["rank"] == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["/no/such/file.log"], "no such file or folder: /no/such/file.log"),
        (["/dev/null"], "not a regular file: /dev/null"),
        (["--engine", "python", "{empty}"], "no log files in folder"),
        (["--kb", "/no/such/kb", OOM], "knowledge folder not found"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(cli, tmp_path: Path, args: list[str], message: str) -> None:
    args = [a.replace("{empty}", str(tmp_path)) for a in args]
    result = cli("explain", *args)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"ddpdoctor: error: {message}")
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_unreadable_file_is_exit_2(cli, tmp_path: Path) -> None:
    # A symlink loop cannot be opened even by root (ELOOP), unlike a file with mode 000.
    log = tmp_path / "rank0.log"
    log.symlink_to(log)
    result = cli("explain", str(log))
    assert result.exit_code == 2 and "cannot read" in result.stderr
    assert len(result.stderr.strip().splitlines()) <= 2 and "Traceback" not in result.stderr


def test_input_files_are_not_modified(cli, tmp_path: Path) -> None:
    log = tmp_path / "rank3.log"
    log.write_bytes((SAMPLES / "torchrun_oom_table.log").read_bytes())
    before = (log.read_bytes(), log.stat().st_mtime_ns)
    cli("explain", str(log), "-f", "json")
    assert (log.read_bytes(), log.stat().st_mtime_ns) == before


# --- the fast path ----------------------------------------------------------------------------------


def typer_options(command: typer.main.TyperCommand | typer.main.TyperGroup) -> set[str]:
    return {opt for param in command.params for opt in param.opts if opt.startswith("-")}


def test_fast_path_accepts_exactly_the_typer_options() -> None:
    root = typer.main.get_command(app)
    explain = root.commands["explain"]  # type: ignore[attr-defined]
    not_for_explain = {"--help", "-h", "--version", "-V", "--install-completion", "--show-completion"}
    assert set(OPTIONS) == (typer_options(explain) | typer_options(root)) - not_for_explain


def test_engine_choices_are_the_engines() -> None:
    assert tuple(choice.value for choice in EngineChoice) == ENGINES


def test_fast_path_reads_every_option() -> None:
    args = [
        "a.log",
        "-f",
        "json",
        "--kb",
        "k1",
        "--kb=k2",
        "-j",
        "3",
        "--engine",
        "python",
        "-v",
        "--color=never",
        "-q",
        "-",
        "--",
        "-x",
    ]
    assert parse_fast(args) == FastArgs(
        logs=["a.log", "-", "-x"],
        fmt=OutputFormat.JSON,
        verbose=True,
        color=ColorMode.NEVER,
        quiet=True,
        kb=["k1", "k2"],
        engine="python",
        jobs=3,
    )


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["--debug", OOM],
        ["--color", "sometimes", OOM],
        ["--unknown", OOM],
        ["-f", "bogus", OOM],
        ["--jobs", "x", OOM],
        ["--jobs", "\u00b2", OOM],  # a Unicode digit that int() rejects
        ["--verbose=yes", OOM],
        ["--engine", "grep", OOM],
        [OOM, "--kb"],
        [],
    ],
)
def test_fast_path_declines_what_typer_must_handle(args: list[str]) -> None:
    assert parse_fast(args) is None


def run_cli(args: list[str]) -> tuple[int, str, str]:
    env = {k: v for k, v in os.environ.items() if k != "DDPDOCTOR_DEBUG"}
    proc = subprocess.run(
        [sys.executable, "-m", "ddpdoctor", *args], capture_output=True, text=True, env=env, timeout=120
    )
    return proc.returncode, proc.stdout, proc.stderr


MATRIX = [
    [OOM, "-f", "json"],
    [OOM, "--format=text"],
    [OOM, "-f", "markdown", "-v"],
    [str(SAMPLES / "torchrun_logdir"), "-f", "json", "--jobs", "2"],
    [str(SAMPLES / "burn_worker_oom.log"), "--engine", "python", "-f", "text"],
    ["/no/such.log", "-f", "json"],
    ["--", str(SAMPLES / "srun_labels.log")],
]


@pytest.mark.slow
@pytest.mark.parametrize("args", MATRIX, ids=[" ".join(Path(a).name for a in m) for m in MATRIX])
def test_fast_path_and_typer_give_the_same_output(args: list[str]) -> None:
    fast = run_cli(["explain", *args])
    # A global option before the command sends the same invocation through typer.
    slow = run_cli(["--color", "auto", "explain", *args])
    assert fast == slow


@pytest.mark.slow
def test_fast_path_does_not_import_typer_rich_or_torch(tmp_path: Path) -> None:
    probe = (
        "import sys, runpy\n"
        "sys.argv = ['ddpdoctor', 'explain', sys.argv[1], '-f', 'json']\n"
        "from ddpdoctor.cli import main\n"
        "code = main()\n"
        "heavy = sorted(m for m in ('typer', 'click', 'rich', 'torch', 'yaml') if m in sys.modules)\n"
        "print('HEAVY', heavy, code)\n"
    )
    run_cli(["explain", OOM, "-f", "json"])  # builds the index cache if it is cold
    proc = subprocess.run(
        [sys.executable, "-c", probe, OOM], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert proc.stdout.strip().splitlines()[-1] == "HEAVY [] 1"


class FakeTerminal:
    def __init__(self, tty: bool) -> None:
        self.tty = tty
        self.written = ""

    def isatty(self) -> bool:
        return self.tty

    def write(self, text: str) -> None:
        self.written += text

    def flush(self) -> None:
        pass


@pytest.mark.parametrize("tty", [True, False])
def test_progress_bar_only_on_a_terminal_and_only_after_a_second(
    tty: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ddpdoctor.cli import explain_fast

    clock = [100.0]
    monkeypatch.setattr(explain_fast.time, "monotonic", lambda: clock[0])
    term = FakeTerminal(tty)
    bar = explain_fast.ProgressBar(term)  # type: ignore[arg-type]
    bar(10 << 20, 100 << 20)
    assert term.written == ""  # under a second: nothing
    clock[0] += 1.5
    bar(50 << 20, 100 << 20)
    bar.close()
    if tty:
        assert "50.0%" in term.written and "50/100 MiB" in term.written and term.written.endswith("\x1b[2K")
    else:
        assert term.written == ""


def test_parallel_processes_give_the_same_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ddpdoctor.children import usable_cpus
    from ddpdoctor.explain import ExplainOptions, api, explain_paths

    names = ("torchrun_oom_table.log", "burn_worker_oom.log", "srun_labels.log")
    for name in names:
        (tmp_path / name).write_bytes((SAMPLES / name).read_bytes())
    total = sum((SAMPLES / name).stat().st_size for name in names)
    one = explain_paths([str(tmp_path)], ExplainOptions(jobs=1)).to_dict()
    monkeypatch.setattr(api, "PROCESS_MIN_BYTES", 0)
    calls = tmp_path / "progress.txt"

    def progress(done: int, seen_total: int | None) -> None:
        with open(calls, "a") as fh:  # a file, so that calls made in a forked child show up too
            fh.write(f"{os.getpid()} {done} {seen_total}\n")

    jobs = min(3, usable_cpus())  # --jobs may not exceed the CPUs
    many = explain_paths([str(tmp_path)], ExplainOptions(jobs=jobs), progress=progress).to_dict()
    assert many == one
    reports = [line.split() for line in calls.read_text().splitlines()]
    assert {pid for pid, _, _ in reports} == {str(os.getpid())}  # only the parent draws the bar
    assert reports[-1][1:] == [str(total), str(total)]


def test_progress_counts_every_byte_once(tmp_path: Path) -> None:
    from ddpdoctor.explain import explain_paths

    # A .json argument is tried as a torchelastic error file first; this one is not one, so its
    # bytes are scanned as a log: they must not be counted twice.
    notes = tmp_path / "notes.json"
    notes.write_text('{"loss": 0.5}\nRuntimeError: CUDA error: device-side assert triggered\n')
    seen: list[tuple[int, int | None]] = []
    report = explain_paths([str(notes)], progress=lambda done, total: seen.append((done, total)))
    assert report.root_cause is not None and report.root_cause.entry == "cuda-device-side-assert"
    size = notes.stat().st_size
    assert seen[-1] == (size, size)


def test_team_knowledge_folder_is_used(cli, tmp_path: Path) -> None:
    import yaml

    entry = yaml.safe_load(
        (
            Path(__file__).resolve().parent.parent / "knowledge" / "burn" / "burn-ddp-worker-failed.yaml"
        ).read_text()
    )
    entry.update(
        id="team-flux-capacitor-empty",
        title="ZorkError: the flux capacitor is empty",
        kind="root",
        category="user_code",
        patterns=[r"ZorkError: the flux capacitor is (?P<state>empty)"],
        samples={
            "match": [{"text": "ZorkError: the flux capacitor is empty"}],
            "no_match": [{"text": "ZorkError: the flux capacitor is full"}],
        },
    )
    entry.pop("rank", None)
    entry.pop("related", None)
    (tmp_path / "team" / "burn").mkdir(parents=True)
    (tmp_path / "team" / "burn" / "team-flux-capacitor-empty.yaml").write_text(
        yaml.safe_dump(entry, sort_keys=False)
    )
    log = tmp_path / "rank4.log"
    log.write_text(
        'Traceback (most recent call last):\n  File "t.py", line 1, in <module>\nZorkError: the flux capacitor is empty\n'
    )
    without = json.loads(cli("explain", str(log), "-f", "json").stdout)["root_cause"]
    with_team = json.loads(cli("explain", str(log), "-f", "json", "--kb", str(tmp_path / "team")).stdout)[
        "root_cause"
    ]
    assert without["entry"] is None and without["rank"] == 4
    assert with_team["entry"] == "team-flux-capacitor-empty" and with_team["category"] == "user_code"


def test_an_empty_input_is_an_input_error_not_a_healthy_log(cli, tmp_path: Path) -> None:
    empty = tmp_path / "empty.log"
    empty.write_bytes(b"")
    result = cli("explain", str(empty))
    assert result.exit_code == 2
    assert (
        result.stderr.startswith("ddpdoctor: error: nothing to read:")
        and "No failure found" not in result.stdout
    )


@pytest.mark.slow
def test_explain_dash_says_it_waits_for_standard_input_only_on_a_terminal() -> None:
    import pty

    log = (SAMPLES / "srun_labels.log").read_bytes()
    command = [sys.executable, "-m", "ddpdoctor", "explain", "-", "-f", "json"]
    master, terminal = pty.openpty()
    try:
        proc = subprocess.Popen(command, stdin=terminal, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        os.close(terminal)
        os.write(master, log + b"\x04")  # Ctrl-D at the start of a line ends the input
        out, err = proc.communicate(timeout=120)
    finally:
        os.close(master)
    assert proc.returncode == 1 and json.loads(out)["root_cause"]["rank"] == 1
    assert err.decode() == "ddpdoctor: reading the log from standard input (end it with Ctrl-D)\n"
    piped = subprocess.run(command, input=log, capture_output=True, timeout=120)
    assert piped.returncode == 1 and piped.stderr == b""


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_an_unknown_message_gets_one_report_it_line_with_the_issue_url(cli, tmp_path: Path, fmt: str) -> None:
    log = tmp_path / "rank5.log"
    log.write_text(
        '[rank5]: Traceback (most recent call last):\n[rank5]:   File "/x/site-packages/lib.py", line 3, in f\n'
        "[rank5]: ZorkError: the flux capacitor is empty\n"
    )
    result = cli("explain", str(log), "-f", fmt)
    assert result.exit_code == 1
    reporting = [line for line in result.stdout.splitlines() if "report it" in line or "/issues" in line]
    assert len(reporting) == 1 and "https://github.com/ddpdoctor/ddpdoctor/issues" in reporting[0]
