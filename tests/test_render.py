"""The renderers: the same document in rich, plain text and Markdown; JSON straight from reports."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from ddpdoctor.findings import Evidence, Finding, Report, Severity
from ddpdoctor.present.document import Bullets, Code, Fields, Heading, Table, Text
from ddpdoctor.present.findings import finding_blocks, report_document
from ddpdoctor.present.render import (
    ColorMode,
    OutputFormat,
    View,
    emit,
    formatter_for,
    render_markdown,
    render_text,
    resolve_format,
)

DOC = [
    Heading("Title [bold]not markup[/bold]", level=1),
    Text("A paragraph.", tone="error"),
    Bullets(("first", "second\nwith a second line"), ordered=True),
    Code("line with ``` fences\nsecond", title="evidence"),
    Fields((("rank", "3"), ("device", "cuda:1"))),
    Table(("a", "b"), (("x|y", "z"),)),
]


def test_plain_text_keeps_text_verbatim_and_has_no_escape_codes() -> None:
    out = render_text(DOC)
    assert "\x1b" not in out
    assert "Title [bold]not markup[/bold]" in out
    assert "1. first\n2. second\n   with a second line" in out
    assert "    line with ``` fences" in out
    assert "rank:   3" in out


def test_markdown_fences_survive_backticks_and_tables_escape_pipes() -> None:
    out = render_markdown(DOC)
    assert "# Title" in out
    assert "**A paragraph.**" in out
    assert "1. first\n2. second\n   with a second line" in out
    assert "- **rank:** 3\n- **device:** cuda:1" in out
    assert "````\nline with ``` fences\nsecond\n````" in out
    assert "| x\\|y | z |" in out


def test_auto_format_is_plain_for_pipes_and_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert resolve_format(OutputFormat.AUTO, ColorMode.AUTO, io.StringIO()) is OutputFormat.TEXT
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert resolve_format(OutputFormat.AUTO, ColorMode.AUTO, Tty()) is OutputFormat.RICH
    monkeypatch.setenv("NO_COLOR", "1")
    assert resolve_format(OutputFormat.AUTO, ColorMode.AUTO, Tty()) is OutputFormat.TEXT
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("TERM", "dumb")
    assert resolve_format(OutputFormat.AUTO, ColorMode.AUTO, Tty()) is OutputFormat.TEXT
    assert resolve_format(OutputFormat.AUTO, ColorMode.ALWAYS, io.StringIO()) is OutputFormat.RICH


def test_color_never_wins_over_format_rich_and_text_is_never_markup() -> None:
    buf = io.StringIO()
    emit(DOC, {}, OutputFormat.RICH, color=ColorMode.NEVER, stream=buf)
    assert "\x1b[" not in buf.getvalue() and "A paragraph." in buf.getvalue()
    assert "Title [bold]not markup[/bold]" in buf.getvalue()


def test_color_always_emits_ansi_codes() -> None:
    buf = io.StringIO()
    emit(DOC, {}, OutputFormat.AUTO, color=ColorMode.ALWAYS, stream=buf)
    assert "\x1b[" in buf.getvalue()


def test_json_is_the_report_dict_and_reports_sort_errors_first() -> None:
    report = Report(
        schema="ddpdoctor.test/1",
        findings=[
            Finding("b", Severity.OK, "other", "fine", "fine"),
            Finding(
                "a",
                Severity.ERROR,
                "oom_gpu",
                "boom",
                "CUDA out of memory",
                rank=2,
                evidence=(Evidence("x", "f.log", 3),),
            ),
        ],
    )
    buf = io.StringIO()
    emit(report_document(report), report.to_dict(), OutputFormat.JSON, stream=buf)
    data = json.loads(buf.getvalue())
    assert data["schema"] == "ddpdoctor.test/1" and data["ok"] is False
    assert [f["id"] for f in data["findings"]] == ["a", "b"]
    assert data["findings"][0]["evidence"] == [{"text": "x", "file": "f.log", "line": 3}]
    assert report.exit_code() == 1


def test_exit_code_strict_turns_warnings_into_problems() -> None:
    report = Report(schema="s", findings=[Finding("w", Severity.WARNING, "other", "t", "m")])
    assert report.exit_code() == 0 and report.exit_code(strict=True) == 1


def test_finding_blocks_show_location_and_solutions() -> None:
    f = Finding(
        "x",
        Severity.ERROR,
        "oom_gpu",
        "t",
        "m",
        rank=1,
        evidence=(Evidence("line", "r1.log", 9),),
        solutions=("do this",),
    )
    text = render_text(finding_blocks(f))
    assert "r1.log:9: line" in text and "1. do this" in text and "rank:" in text


def test_json_output_is_exactly_the_reports_dict() -> None:
    report = Report(
        schema="ddpdoctor.test/1",
        findings=[Finding(id="a", severity=Severity.ERROR, category="other", title="ü ✓", message="m")],
    )
    buf = io.StringIO()
    emit([], report.to_dict(), OutputFormat.JSON, stream=buf)
    assert buf.getvalue() == json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("fmt", [f for f in OutputFormat if f is not OutputFormat.AUTO])
def test_every_output_format_has_its_own_formatter(fmt: OutputFormat) -> None:
    formatter = formatter_for(fmt, ColorMode.NEVER, io.StringIO())
    others = {
        type(formatter_for(f, ColorMode.NEVER, io.StringIO()))
        for f in OutputFormat
        if f not in (fmt, OutputFormat.AUTO)
    }
    assert type(formatter) not in others
    buf = io.StringIO()
    formatter.write(View(DOC, {"schema": "ddpdoctor.test/1"}), buf)
    assert buf.getvalue().strip()


def test_github_format_annotates_each_problem_and_quotes_logs_with_commands_off() -> None:
    report = Report(
        schema="ddpdoctor.test/1",
        findings=[
            Finding(
                id="explain.root-cause",
                severity=Severity.ERROR,
                category="oom_gpu",
                title="rank 1: CUDA out of memory",
                message="50% used\nsecond line",
                evidence=(Evidence("frame", "train.py", 3), Evidence("::add-mask::x", "logs/a,b:1.log", 7)),
                entry="cuda-out-of-memory",
            ),
            Finding(id="w", severity=Severity.WARNING, category="other", title="no place", message=""),
            Finding(id="i", severity=Severity.INFO, category="other", title="note", message="m"),
            Finding(id="ok", severity=Severity.OK, category="other", title="fine", message=""),
        ],
    )
    doc = [Code("::add-mask::x"), Text("after")]
    buf = io.StringIO()
    emit(doc, report.to_dict(), OutputFormat.GITHUB, stream=buf)
    lines = buf.getvalue().splitlines()
    assert lines[:3] == [
        "::error file=logs/a%2Cb%3A1.log,line=7,title=ddpdoctor explain.root-cause%3A rank 1%3A CUDA out of memory"
        "::50%25 used%0Asecond line%0Aknowledge base: ddpdoctor kb show cuda-out-of-memory",
        "::warning title=ddpdoctor w%3A no place::no place",
        "::notice title=ddpdoctor i%3A note::m",
    ]
    # The quoted log line starting with `::` sits between stop-commands and its random token.
    stop, token = lines[3].rsplit("::", 1)
    assert stop == "::stop-commands" and len(token) == 32
    assert lines[4:] == ["    ::add-mask::x", "", "after", f"::{token}::"]


def test_github_format_through_explain_points_at_the_root_cause_line(cli) -> None:
    log = str(Path(__file__).parent / "fixtures" / "logs" / "accelerate-four-procs-one-gpu-duplicate.log")
    result = cli("explain", log, "--format", "github")
    assert result.exit_code == 1
    first = result.stdout.splitlines()[0]
    assert first.startswith(f"::error file={log},line=36,title=ddpdoctor explain.root-cause%3A ")
    assert first.endswith("%0Aknowledge base: ddpdoctor kb show nccl-duplicate-gpu")
