"""Text for the training-script hooks: what `guard` prints on a failure (plain lines, no typer or rich).

The failing rank gets at most six lines (the error, the knowledge-base entry, the user's frame or
where it was raised, two fixes, the report); a victim gets one line naming the culprit; an error
that is not a known multi-device failure gets one line, so the traceback after it stays the first
thing to read. Text from outside (messages, paths) is shown with control characters escaped.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ddpdoctor.hooks import GuardNotice

_SUMMARY_CHARS = 200
_CULPRIT_SUMMARY_CHARS = 100
_SOLUTION_CHARS = 200
_SHOWN_SOLUTIONS = 2
_PATH_CHARS = 400


def _clean(text: str, limit: int) -> str:
    """One line of `text`: control characters escaped, whitespace runs joined, cut near `limit` at a space."""
    flat = " ".join(text.split())
    shown = "".join(
        char if char.isprintable() else ascii(char)[1:-1] for char in flat[: limit + 1]
    )  # isprintable() is False for C0/C1 controls, DEL and format characters
    if len(flat) <= limit:
        return shown
    cut = shown[:limit]
    word_end = cut.rfind(" ")
    return (cut[:word_end] if word_end > limit // 2 else cut).rstrip() + " ..."


def _path(path: Path) -> str:
    return _clean(str(path), _PATH_CHARS)


def _headline(notice: GuardNotice, text: str) -> str:
    return f"ddpdoctor: {notice.who}: {text}" if notice.who else f"ddpdoctor: {text}"


def _where(root: dict[str, Any] | None) -> str | None:
    """`your code: file:line in function` when explain found the user's frame, else `raised at: ...`."""
    if root is None:
        return None
    user = root.get("user_frame")
    if isinstance(user, dict) and user.get("file"):
        where = f"{user['file']}:{user.get('line')} in {user.get('function')}"
        return f"your code: {_clean(where, _SUMMARY_CHARS)}"
    frame = root.get("frame")
    return f"raised at: {_clean(frame, _SUMMARY_CHARS)}" if isinstance(frame, str) and frame else None


def _report_tail(notice: GuardNotice) -> str:
    if notice.report is None or notice.folder is None:
        return ""
    return f"report: {_path(notice.report)}; every rank: ddpdoctor explain {_path(notice.folder)}"


def _victim_line(notice: GuardNotice) -> str:
    culprit = notice.culprit
    if culprit is not None:
        whose = f"rank {culprit.rank}'s" if culprit.rank is not None else "another rank's"
        cause = f" ({_clean(culprit.summary, _CULPRIT_SUMMARY_CHARS)})" if culprit.summary else ""
        return _headline(notice, f"victim of {whose} failure{cause}, see {_path(culprit.report)}")
    summary = _clean(notice.summary, _SUMMARY_CHARS)
    if notice.folder is None:
        where = "run `ddpdoctor explain` on every rank's log to find the first failure"
    else:
        where = (
            f"no rank reported a cause in {_path(notice.folder)} within {notice.peer_wait:g}s "
            "(the culprit may have hung or been killed: read the launcher's summary)"
        )
    return _headline(notice, f"{summary}: a consequence of another rank's failure; {where}")


def guard_lines(notice: GuardNotice) -> list[str]:
    """The lines `guard` prints for one failure."""
    if notice.role == "victim":
        return [_victim_line(notice)]
    root = notice.root_cause
    summary = _clean(notice.summary, _SUMMARY_CHARS)
    where = _where(root)
    entry = root.get("entry") if root is not None else None
    if not entry:
        at = f" ({where})" if where else ""
        tail = _report_tail(notice)
        return [
            _headline(
                notice, f"{summary}{at} is not a known multi-device failure" + (f"; {tail}" if tail else "")
            )
        ]
    assert root is not None
    lines = [
        _headline(notice, summary),
        f"  known failure: {entry} ({root.get('category', 'other')}); all of it: ddpdoctor kb show {entry}",
    ]
    if where:
        lines.append(f"  {where}")
    solutions = [s for s in root.get("solutions") or () if isinstance(s, str)][:_SHOWN_SOLUTIONS]
    for number, solution in enumerate(solutions, 1):
        lines.append(f"  fix {number}: {_clean(solution, _SOLUTION_CHARS)}")
    tail = _report_tail(notice)
    if tail:
        lines.append(f"  {tail}")
    return lines
