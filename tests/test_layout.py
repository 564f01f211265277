"""Terminal layout at 80 and 120 columns: whole ids, one line per `kb list` entry, coloured severities."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from rich.console import Console

from ddpdoctor.findings import Finding, Report, Severity
from ddpdoctor.present.document import Table
from ddpdoctor.present.findings import report_document
from ddpdoctor.present.render import ColorMode, OutputFormat, emit, rich_renderables

WIDTHS = [80, 120]
LOG = str(Path(__file__).parent / "fixtures" / "logs" / "accelerate-four-procs-one-gpu-duplicate.log")
SGR = re.compile("\x1b\\[[0-9;]*m")


def shown(cli, *args: str, width: int) -> list[str]:
    result = cli(*args, "--format", "rich", "--color", "never", env={"COLUMNS": str(width)})
    assert result.exit_code in (0, 1), result.stderr
    return result.stdout.splitlines()


@pytest.mark.parametrize("width", WIDTHS)
def test_kb_list_is_one_line_per_entry_with_whole_ids(cli, width: int) -> None:
    entries = json.loads(cli("kb", "list", "-f", "json").stdout)["entries"]
    lines = shown(cli, "kb", "list", width=width)
    assert max(len(line) for line in lines) <= width
    rows = [line for line in lines if line.split(" ", 1)[0] in {e["id"] for e in entries}]
    assert [row.split(" ", 1)[0] for row in rows] == [e["id"] for e in entries]
    # A title that does not fit is cut with an ellipsis, never wrapped onto a second line.
    assert any(row.endswith("…") for row in rows)
    assert len(lines) == len(rows) + 3  # title, header, rule


@pytest.mark.parametrize("width", WIDTHS)
def test_explain_fits_the_terminal_and_keeps_the_entry_id_whole(cli, width: int) -> None:
    lines = shown(cli, "explain", LOG, width=width)
    assert max(len(line) for line in lines) <= width
    assert any("nccl-duplicate-gpu (ddpdoctor kb show nccl-duplicate-gpu)" in line for line in lines)


def test_optional_columns_go_first_and_the_last_column_keeps_room() -> None:
    entry_id = "a-forty-character-entry-id-that-is-whole"
    table = Table(
        ("id", "framework", "kind", "message"),
        ((entry_id, "torchelastic", "wrapper", "word " * 40),),
        truncate=True,
        optional=("framework",),
    )
    out = io.StringIO()
    console = Console(file=out, width=80, no_color=True)
    for renderable in rich_renderables([table], 80):
        console.print(renderable)
    lines = out.getvalue().splitlines()
    assert "framework" not in lines[0] and "kind" in lines[0]
    assert lines[2].startswith(entry_id) and lines[2].endswith("…") and len(lines) == 3
    # With room enough, nothing is dropped.
    out.seek(0)
    out.truncate()
    for renderable in rich_renderables([table], 120):
        Console(file=out, width=120, no_color=True).print(renderable)
    assert "torchelastic" in out.getvalue()


def test_a_long_fixed_column_narrows_the_last_column_instead_of_overflowing() -> None:
    # Once no optional column is left to drop, the free-text column takes what the whole ids leave,
    # even below its usual minimum, so no row is cropped at the terminal's edge without an ellipsis.
    entry_id = "an-entry-id-of-sixty-characters-that-a-user-kb-might-well-use"
    table = Table(("id", "kind", "message"), ((entry_id, "wrapper", "word " * 40),), truncate=True)
    out = io.StringIO()
    for renderable in rich_renderables([table], 80):
        Console(file=out, width=80, no_color=True).print(renderable)
    lines = out.getvalue().splitlines()
    assert max(len(line) for line in lines) <= 80
    assert lines[2].startswith(entry_id) and lines[2].endswith("…")


def test_severity_is_coloured_in_tables() -> None:
    report = Report(
        schema="ddpdoctor.test/1",
        findings=[
            Finding(id="a.bad", severity=Severity.ERROR, category="other", title="bad", message=""),
            Finding(id="a.meh", severity=Severity.WARNING, category="other", title="meh", message=""),
        ],
    )
    out = io.StringIO()
    emit(report_document(report), report.to_dict(), OutputFormat.RICH, color=ColorMode.ALWAYS, stream=out)
    text = out.getvalue()
    assert re.search("\x1b\\[1;31merror", text) and re.search("\x1b\\[33mwarning", text)
    assert "a.bad" in SGR.sub("", text)


OOM = str(Path(__file__).parent / "fixtures" / "explain" / "torchrun_oom_table.log")
_ALL_FIXTURE_LOGS = sorted((Path(__file__).parent / "fixtures" / "logs").glob("*.log"))
# An evenly spaced sample of the development logs: the layout's spread over every kind of log, in a
# time that does not grow with the split (each log is laid out through the whole CLI).
FIXTURE_LOGS = _ALL_FIXTURE_LOGS[:: max(1, len(_ALL_FIXTURE_LOGS) // 250)]


@pytest.mark.parametrize("width", WIDTHS)
def test_explain_first_screen_is_headline_your_code_two_fixes_and_one_line_per_victim(
    cli, width: int
) -> None:
    lines = [line.rstrip() for line in shown(cli, "explain", OOM, width=width) if line.strip()]
    assert lines[0] == "rank 3: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.50 GiB."
    assert lines[2] == "your code       /home/alice/proj/train.py:54 in main  loss = model(batch).mean()"
    fixes = [line for line in lines if re.match(r"\d+\. ", line)]
    assert [fix[:3] for fix in fixes] == ["1. ", "2. "]
    victims = lines[lines.index("Other ranks") + 1 : -1]
    # The agent's SIGTERM to the workers left is its collateral action: not a victim line of its own.
    assert [v.split(":")[0] for v in victims] == ["• rank 0", "• rank 1", "• rank 2"]
    assert all(len(v) <= width and "victim" in v for v in victims)
    assert lines[-1] == "More: --full (chain, every reason and solution, example fix)."
    full = shown(cli, "explain", OOM, "--full", width=width)
    assert "Example fix" in full and any(line.startswith("3. ") for line in full)


def test_victims_of_no_known_rank_that_failed_alike_are_one_line_on_the_first_screen(cli) -> None:
    # A committed eval job's output: eight model-parallel ranks, six tracebacks cut off with no rank label.
    log = str(
        Path(__file__).parent
        / "fixtures"
        / "logs"
        / "blind-b80-glm130b-eval-mp8-allgather-oom-every-rank.log"
    )
    cut = "rank ?: victim, user_code - traceback cut off"
    first = shown(cli, "explain", log, width=120)
    full = shown(cli, "explain", log, "--full", width=120)
    assert sum(cut in line for line in first) == 1
    assert sum(cut in line for line in full) >= 5
    listed = sum(line.startswith("• rank ") for line in first)
    hidden = next(
        int(m.group(1)) for line in first if (m := re.search(r"\.\.\. and (\d+) more \(--full\)", line))
    )
    assert listed + hidden == sum(line.startswith("• rank ") for line in full)


def test_a_typical_diagnosis_fits_in_about_40_lines_at_80_columns(cli) -> None:
    counts = sorted(len(shown(cli, "explain", str(log), width=80)) for log in FIXTURE_LOGS)
    assert len(counts) >= 100
    # The longest: five other ranks listed under a file name long enough to wrap the `where` line. The median
    # moves with the split's mix (31 at the sixty-fourth session's logs, for its code and the start commit's alike).
    assert counts[len(counts) // 2] <= 32 and counts[int(len(counts) * 0.9)] <= 40 and counts[-1] <= 46


PAGES = {
    "env": ("env",),
    "check": ("check", "--devices", "0,0,1", "--min-free", "79GiB", "--inventory", "builtin:default"),
    "check --list": ("check", "--list"),
    "kb show": ("kb", "show", "nccl-duplicate-gpu"),
    "kb search": ("kb", "search", "Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000"),
    "reproduce --list": ("reproduce", "--list"),
}


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("page", list(PAGES))
def test_every_page_fits_the_terminal(cli, page: str, width: int) -> None:
    lines = shown(cli, *PAGES[page], width=width)
    assert lines and max(len(line) for line in lines) <= width
