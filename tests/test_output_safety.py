"""Output is safe whatever the input: control characters are shown escaped in every format, and
closed or full standard streams end with one error line and exit 2, never an internal error."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ddpdoctor.present.sanitize import escape_controls

# Sequences a hostile log line can carry: reset, DCS, "report terminal id" (types into the input),
# APC, OSC with BEL, an 8-bit CSI, backspace, carriage return and a bidirectional override.
HOSTILE = "\x1bc\x1bP1$r\x1b\\\x1b[>0c\x1b_apc\x1b\\\x1b]0;owned\x07\x9b31m\x08\r\u202e"
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
SGR = re.compile("\x1b\\[[0-9;]*m")  # rich's own colour codes


def test_escape_controls_shows_every_control_and_keeps_layout() -> None:
    assert escape_controls("a\x1bc\tb\nc\x9b\x07") == "a\\x1bc\tb\nc\\x9b\\x07"
    assert UNSAFE.search(escape_controls(HOSTILE)) is None
    assert escape_controls("plain text: ünïcode ✓") == "plain text: ünïcode ✓"


def run(*args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DDPDOCTOR_DEBUG", "NO_COLOR")}
    return subprocess.run(
        [sys.executable, "-m", "ddpdoctor", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
        **kwargs,  # type: ignore[arg-type]
    )


@pytest.fixture
def hostile_log(tmp_path: Path) -> Path:
    """A real-looking failure whose message and file name carry terminal control sequences."""
    log = tmp_path / f"rank0{HOSTILE[:2]}.log"
    log.write_text(
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "train.py", line 3, in <module>\n'
        f"[rank0]: RuntimeError: boom {HOSTILE} end\n",
        encoding="utf-8",
    )
    return log


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["text", "markdown", "rich"])
def test_no_control_character_reaches_the_terminal_in_any_human_format(fmt: str, hostile_log: Path) -> None:
    done = run("explain", str(hostile_log), "--format", fmt, "--color", "always")
    assert done.returncode == 1, done.stderr
    shown = SGR.sub("", done.stdout) if fmt == "rich" else done.stdout
    assert UNSAFE.search(shown) is None
    assert "\\x1bc" in shown and "\\x9b31m" in shown  # shown, not dropped


@pytest.mark.slow
def test_json_stays_valid_and_exact_but_carries_no_raw_control(hostile_log: Path) -> None:
    done = run("explain", str(hostile_log), "--format", "json")
    assert done.returncode == 1, done.stderr
    assert UNSAFE.search(done.stdout) is None
    data = json.loads(done.stdout)
    # The data keeps what the log said (explain itself drops OSC titles and carriage returns).
    assert "\x1bc\x1bP1$r" in data["root_cause"]["text"] and "\x9b31m\x08" in data["root_cause"]["text"]


def test_error_lines_escape_the_file_name(cli, tmp_path: Path) -> None:
    result = cli("explain", str(tmp_path / f"missing{HOSTILE}.log"))
    assert result.exit_code == 2
    assert UNSAFE.search(result.stderr) is None and "\\x1bc" in result.stderr


def test_kb_search_escapes_the_pasted_text(cli) -> None:
    result = cli("kb", "search", f"Distributed data parallel main worker failed: {HOSTILE}", "-f", "text")
    assert result.exit_code == 0
    assert UNSAFE.search(result.stdout) is None and "\\x9b31m" in result.stdout


# --- standard streams -----------------------------------------------------------------------------

LOG = str(Path(__file__).parent / "fixtures" / "explain" / "torchrun_oom_table.log")
STREAM_CASES = {
    "explain, stdout closed": (["explain", LOG], {"stdout": None}, "standard output is closed"),
    "kb list, stdout closed": (["kb", "list"], {"stdout": None}, "standard output is closed"),
    "explain, stdout full": (["explain", LOG], {"stdout": "/dev/full"}, "No space left on device"),
    "kb list, stdout full": (["kb", "list", "-f", "rich"], {"stdout": "/dev/full"}, "No space left"),
    "explain -, stdin closed": (["explain", "-"], {"stdin": None}, "standard input is closed"),
    "kb search -, stdin closed": (["kb", "search", "-"], {"stdin": None}, "standard input is closed"),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", list(STREAM_CASES))
def test_closed_or_full_streams_exit_2_with_one_line(case: str) -> None:
    args, streams, message = STREAM_CASES[case]
    # A shell closes or redirects the stream, as a user's `>&-`, `>/dev/full` or `<&-` would.
    redirect = {"stdout": {None: ">&-", "/dev/full": ">/dev/full"}, "stdin": {None: "<&-"}}
    shell = " ".join(redirect[name][target] for name, target in streams.items())
    command = " ".join(f"'{a}'" for a in [sys.executable, "-m", "ddpdoctor", *args])
    done = subprocess.run(
        ["bash", "-c", f"{command} {shell}"], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("ddpdoctor: error: ") and message in done.stderr.splitlines()[0]
    assert "internal error" not in done.stderr and "Exception ignored" not in done.stderr
