"""The CLI frame: exit codes, one-line errors, crash reports, help and README coverage."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from ddpdoctor.cli import app as app_module
from ddpdoctor.cli.app import app

REPO = Path(__file__).resolve().parent.parent


def _commands(group: typer.Typer, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = [(*prefix, c.name or c.callback.__name__) for c in group.registered_commands]
    for sub in group.registered_groups:
        out += _commands(sub.typer_instance, (*prefix, sub.name))
    return out


COMMANDS = _commands(app)


def test_version(cli) -> None:
    result = cli("--version")
    assert result.exit_code == 0 and result.stdout.startswith("ddpdoctor ")


@pytest.mark.parametrize("command", COMMANDS, ids=[" ".join(c) for c in COMMANDS])
def test_every_command_has_help_and_is_in_the_readme(command, cli) -> None:
    result = cli(*command, "--help")
    assert result.exit_code == 0
    assert "Usage:" in result.stdout
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert f"ddpdoctor {' '.join(command)}" in readme


# What typer's own help shows: type tags, braced or doubly bracketed metavars, ranges, [required].
TYPER_MARKS = re.compile(
    r"<(?:str|int|float|bool|path|file|list\[[a-z|]+\]|[a-z]+ range)>|\{[A-Z]+|\[\[|\[x[<>]=|\[required\]"
)


@pytest.mark.parametrize("command", COMMANDS, ids=[" ".join(c) for c in COMMANDS])
def test_help_reads_like_a_hand_written_tool(command, cli) -> None:
    result = cli(*command, "--help", env={"COLUMNS": "80"})
    usage = result.stdout.splitlines()[0]
    assert usage.startswith(f"Usage: ddpdoctor {' '.join(command)} [OPTIONS]")
    assert TYPER_MARKS.search(result.stdout) is None, result.stdout
    example = result.stdout.split("Example:\n", 1)[1].strip()
    assert example.startswith(f"ddpdoctor {' '.join(command)}")
    assert max(len(line) for line in result.stdout.splitlines()) <= 80


def test_readme_documents_every_exit_code() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for code in ("| 0 ", "| 1 ", "| 2 ", "| 3 ", "| 130 "):
        assert code in readme


USAGE_ERRORS = [
    (("kb", "list", "--no-such-option"), "no such option: --no-such-option", "ddpdoctor kb list --help"),
    (("kb", "list", "--format", "yaml"), "'yaml' is not one of", "ddpdoctor kb list --help"),
    (("explain", "job.log", "--format", "yaml"), "'yaml' is not one of", "ddpdoctor explain --help"),
    (("explain",), "missing argument 'LOG...'", "ddpdoctor explain --help"),
    (("kb", "show"), "missing argument 'ID'", "ddpdoctor kb show --help"),
    (("no-such-command",), "no such command 'no-such-command'", "ddpdoctor --help"),
]


@pytest.mark.parametrize(
    ("args", "message", "hint"), USAGE_ERRORS, ids=[" ".join(a) for a, _, _ in USAGE_ERRORS]
)
def test_usage_errors_are_one_error_line_and_a_hint(cli, args, message, hint) -> None:
    result = cli(*args)
    assert result.exit_code == 2 and result.stdout == ""
    error, hint_line = result.stderr.splitlines()
    assert error.startswith("ddpdoctor: error: ") and message in error
    assert hint_line == f"ddpdoctor: hint: see `{hint}`"


def test_internal_bug_gives_one_line_exit_3_and_a_crash_report(cli, monkeypatch, tmp_path) -> None:
    def explode(*_a, **_k):
        raise RuntimeError("simulated bug")

    monkeypatch.setattr("ddpdoctor.cli.kb.load_knowledge_base", explode)
    result = cli("kb", "list", env={"XDG_STATE_HOME": str(tmp_path)})
    assert result.exit_code == 3
    lines = result.stderr.strip().splitlines()
    assert (
        lines[0]
        == "ddpdoctor: error: internal error (RuntimeError: simulated bug); this is a bug in ddpdoctor"
    )
    assert "Traceback" not in result.stderr
    reports = list((tmp_path / "ddpdoctor").glob("crash-*.log"))
    assert len(reports) == 1 and str(reports[0]) in lines[1]
    body = reports[0].read_text(encoding="utf-8")
    assert "ddpdoctor 0.1.0" in body and "python " in body and "RuntimeError: simulated bug" in body


def test_internal_bug_stays_one_line_when_the_crash_report_cannot_be_written(
    cli, monkeypatch, tmp_path
) -> None:
    def explode(*_a, **_k):
        raise RuntimeError("simulated bug")

    monkeypatch.setattr("ddpdoctor.cli.kb.load_knowledge_base", explode)
    monkeypatch.setattr("ddpdoctor.cli.common.crash_dir", lambda: tmp_path / "absent")
    result = cli("kb", "list")
    assert result.exit_code == 3
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 2
    assert (
        lines[0]
        == "ddpdoctor: error: internal error (RuntimeError: simulated bug); this is a bug in ddpdoctor"
    )
    assert lines[1].startswith("ddpdoctor: hint: no crash report could be written (")
    assert "rerun with --debug" in lines[1]


def test_debug_flag_shows_the_traceback(cli, monkeypatch) -> None:
    def explode(*_a, **_k):
        raise RuntimeError("simulated bug")

    monkeypatch.setattr("ddpdoctor.cli.kb.load_knowledge_base", explode)
    with pytest.raises(RuntimeError, match="simulated bug"):
        cli("--debug", "kb", "list")


def test_ctrl_c_exits_130(cli, monkeypatch) -> None:
    def interrupt(*_a, **_k):
        raise KeyboardInterrupt

    monkeypatch.setattr("ddpdoctor.cli.kb.load_knowledge_base", interrupt)
    result = cli("kb", "list")
    assert result.exit_code == 130 and result.stderr == "ddpdoctor: interrupted\n"


def test_run_returns_exit_codes_instead_of_exiting(capsys) -> None:
    assert app_module.run(["kb", "show", "burn-ddp-main-worker-failed", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["id"] == "burn-ddp-main-worker-failed"
    assert app_module.run(["kb", "show", "no-such-entry"]) == 2


def test_kb_search_finds_the_seed_message(cli) -> None:
    result = cli("kb", "search", "Distributed data parallel main worker failed: boom", "--format", "json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["schema"] == "ddpdoctor.kb-search/1"
    found = data["findings"][0]
    assert found["id"] == "burn-ddp-main-worker-failed" and found["rank"] == 0
    assert found["data"]["captures"]["inner"] == "boom"


def test_kb_search_reads_stdin_and_exits_1_without_a_match(cli) -> None:
    result = cli("kb", "search", "-", "--format", "text", input="all good, nothing failed\n")
    assert result.exit_code == 1
    assert result.stdout == "No knowledge-base entry matches this text.\n"
    result = cli(
        "kb", "search", "-", "--format", "json", input="Distributed data parallel main worker failed: boom\n"
    )
    assert result.exit_code == 0
    assert [f["id"] for f in json.loads(result.stdout)["findings"]] == ["burn-ddp-main-worker-failed"]


def test_kb_list_json_contract(cli, kb) -> None:
    data = json.loads(cli("kb", "list", "--format", "json").stdout)
    assert set(data) == {"schema", "entries"} and data["schema"] == "ddpdoctor.kb-list/1"
    assert [item["id"] for item in data["entries"]] == [e.id for e in kb.entries]
    for item in data["entries"]:
        assert set(item) == {"id", "title", "framework", "category", "kind", "status"}


def test_kb_list_filters(cli, kb) -> None:
    data = json.loads(cli("kb", "list", "--framework", "burn", "--format", "json").stdout)
    assert data["entries"] and all(e["framework"] == "burn" for e in data["entries"])
    assert len(data["entries"]) == len(kb.select(framework="burn"))
    data = json.loads(cli("kb", "list", "--category", "rendezvous", "--format", "json").stdout)
    assert [e["id"] for e in data["entries"]] == [e.id for e in kb.select(category="rendezvous")]
    assert data["entries"] and all(e["category"] == "rendezvous" for e in data["entries"])
    for option, value in (("--framework", "tensorflow"), ("--category", "gpu_melted")):
        result = cli("kb", "list", option, value)
        assert result.exit_code == 2
        assert result.stderr.startswith(f"ddpdoctor: error: unknown {option[2:]} {value!r}\n")
        assert "ddpdoctor: hint: use one of: " in result.stderr


def test_help_and_kb_never_import_torch() -> None:
    code = (
        "import sys; from ddpdoctor.cli import main; "
        "codes = [main(['kb', 'list', '--format', 'json']), main(['kb', 'show', 'burn-ddp-main-worker-failed']), main(['--help'])]; "
        "assert 'torch' not in sys.modules, 'torch was imported'; print(codes)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("[0, 0, 0]")


def test_python_dash_m_entry_point() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "ddpdoctor", "kb", "show", "nope"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("ddpdoctor: error: no knowledge-base entry 'nope'")


def test_reproduce_suggests_the_scenario_meant(cli) -> None:
    result = cli("reproduce", "main_oom")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "ddpdoctor: error: no scenario 'main_oom'",
        "ddpdoctor: hint: did you mean: main-oom?",
    ]


@pytest.mark.parametrize("bare", ["x.log", Path("x.log")])
def test_explain_paths_rejects_one_bare_path(bare) -> None:
    from ddpdoctor.errors import InputError
    from ddpdoctor.explain.api import explain_paths

    with pytest.raises(InputError, match=r"takes a list of paths, not one path: 'x.log'") as caught:
        explain_paths(bare)
    assert caught.value.hint == "write explain_paths(['x.log'])"


def test_quiet_prints_nothing_when_all_is_well_and_problems_otherwise(cli) -> None:
    healthy = cli("kb", "lint", "--no-speed", "-q")
    assert healthy.exit_code == 0 and healthy.stdout == ""
    assert cli("kb", "lint", "--no-speed").stdout.strip().endswith("no problems.")
    found = cli("kb", "search", "Distributed data parallel main worker failed: boom", "-q", "-f", "text")
    assert found.exit_code == 0 and "burn-ddp-main-worker-failed" in found.stdout


def test_short_version_and_completion_are_offered(cli) -> None:
    assert cli("-V").stdout.startswith("ddpdoctor ")
    root = cli("--help", env={"COLUMNS": "100"})
    assert "--install-completion" in root.stdout and "-V, --version" in root.stdout
    assert TYPER_MARKS.search(root.stdout) is None


@pytest.mark.parametrize("where", ["before", "after"])
def test_global_options_work_before_or_after_the_command(cli, where: str) -> None:
    command = ["kb", "show", "nccl-duplicate-gpu", "-f", "rich"]
    options = ["--color", "always"]
    args = [*options, *command] if where == "before" else [*command, *options]
    assert "\x1b[" in cli(*args).stdout
    args = ["--color=never", *command] if where == "before" else [*command, "--color=never"]
    assert "\x1b[" not in cli(*args).stdout


def test_hoisting_stops_at_double_dash_and_keeps_values() -> None:
    from ddpdoctor.cli.options import hoist_global_options

    assert hoist_global_options(["explain", "a.log", "--color", "never", "-q"]) == [
        "--color",
        "never",
        "-q",
        "explain",
        "a.log",
    ]
    assert hoist_global_options(["--debug", "explain", "--", "--color"]) == [
        "--debug",
        "explain",
        "--",
        "--color",
    ]


def test_check_quiet_shows_only_the_problems(cli) -> None:
    simulated = ("--inventory", "builtin:default", "-f", "text")
    healthy = cli("check", "--devices", "0,1", *simulated, "-q")
    assert healthy.exit_code == 0 and healthy.stdout == ""
    found = cli("check", "--devices", "0,0", *simulated, "-q")
    assert found.exit_code == 1 and "device.duplicate" in found.stdout
    assert "\nok " not in found.stdout and "\nok " in cli("check", "--devices", "0,0", *simulated).stdout


def test_shell_completion_completes_command_names() -> None:
    env = {
        **os.environ,
        "_DDPDOCTOR_COMPLETE": "complete_bash",
        "COMP_WORDS": "ddpdoctor kb s",
        "COMP_CWORD": "2",
    }
    proc = subprocess.run(
        [sys.executable, "-m", "ddpdoctor"], capture_output=True, text=True, env=env, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["show", "search"]
    # `--show-completion` detects the shell from its parent process: run it from bash, so the test
    # does not depend on how the suite itself was started (detached runs have no shell above them).
    script = subprocess.run(
        ["bash", "-c", f"{shlex.quote(sys.executable)} -m ddpdoctor --show-completion"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "_DDPDOCTOR_COMPLETE=complete_bash" in script.stdout, script.stderr


def test_kb_show_lists_the_checks_that_declare_the_entry(cli) -> None:
    # backend.nccl-for-cuda names gloo-unsupported-device in the registry; the entry's file does not list it.
    result = cli("kb", "show", "gloo-unsupported-device", "--format", "text")
    assert result.exit_code == 0
    assert "Caught before launch by" in result.stdout
    assert "- ddpdoctor check: backend.nccl-for-cuda" in result.stdout
