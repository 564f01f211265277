"""Team knowledge-base patterns run under CPU-time limits: a bad one can slow a scan, never hang it.

Python's `re` backtracks, and the probe that loading runs (:mod:`ddpdoctor.kb.probe`) can only try
the lines it builds; a team pattern such as `(x+x+)+y` may still meet a log line that keeps it busy
for hours. So every search by a team pattern (from `--kb` or DDPDOCTOR_KB_PATH) runs under a
CPU-time interval timer: `re` checks for signals while it backtracks, and the timer's signal stops
the search. A pattern that needs more than LINE_LIMIT_S for one line is dropped for the rest of
the run; once team patterns together have used TEAM_BUDGET_S, all of them are. Each input read
without some of them carries a note that says so. Signals can only be handled on the main thread:
elsewhere team patterns are not run, with the same kind of note. Bundled patterns are linted by
`kb lint` and run untimed.
"""

from __future__ import annotations

import re
import signal
import threading
from types import FrameType

LINE_LIMIT_S = 0.5
TEAM_BUDGET_S = 5.0
_TIMER_SIGNAL = getattr(signal, "SIGVTALRM", None)


class _OutOfTime(Exception):
    """A limit ran out during a search."""


class PatternBudget:
    """The CPU time team patterns may still use in one run, the patterns dropped, and why."""

    def __init__(self, line_limit: float = LINE_LIMIT_S, total: float = TEAM_BUDGET_S) -> None:
        self.line_limit = line_limit
        self.total = total
        self.left = total
        self.dropped: set[str] = set()
        self.notes: list[str] = []  # why patterns were dropped, in order
        self._armed = False

    def _on_timer(self, _signum: int, _frame: FrameType | None) -> None:
        if self._armed:  # a signal handled after the search ended stops nothing
            raise _OutOfTime

    def _drop(self, owner: str, note: str) -> None:
        self.dropped.add(owner)
        self.notes.append(note)

    def search(self, regex: re.Pattern[str], text: str, owner: str) -> re.Match[str] | None:
        """`regex.search(text)` within the limits; None once the pattern `owner` (entry id and
        pattern index, named in the note) or all team patterns have been dropped."""
        if owner in self.dropped or self.left <= 0:
            return None
        if _TIMER_SIGNAL is None or threading.current_thread() is not threading.main_thread():
            self.left = 0.0
            self._drop(
                owner,
                "team knowledge-base patterns were not used: they run only on the main thread of a "
                "process that can time them (Linux or macOS)",
            )
            return None
        limit = min(self.line_limit, self.left)
        previous = signal.signal(_TIMER_SIGNAL, self._on_timer)
        try:
            self._armed = True
            signal.setitimer(signal.ITIMER_VIRTUAL, max(limit, 1e-3))
            try:
                return regex.search(text)
            finally:
                self._armed = False
                self.left -= limit - signal.setitimer(signal.ITIMER_VIRTUAL, 0)[0]
        except _OutOfTime:
            if self.left <= 0:
                self._drop(
                    owner,
                    f"team knowledge-base patterns were stopped after {self.total:g} s of CPU time in all "
                    f"(during {owner}): the rest was matched without them",
                )
            else:
                self._drop(
                    owner,
                    f"{owner} was dropped: it searched one line for more than {self.line_limit:g} s of CPU "
                    "time (it backtracks); the rest was matched without it",
                )
            return None
        finally:
            # The default action of the timer's signal ends the process: keep the disarmed handler then.
            if previous not in (signal.SIG_DFL, None):
                signal.signal(_TIMER_SIGNAL, previous)
