"""When a line was printed: timestamps in the forms logs use, on comparable clocks.

Three clocks appear in data-parallel logs and they are not interchangeable:

- `wall`: a calendar date with its year (ISO 8601 `2026-11-29 13:00:01`, torchrun's table
  `2026-11-29_13:00:01`), in the job machine's local time;
- `glog`: glog/c10 stamps (`E1129 13:00:01.000000`, `[E626 06:24:44.9]`) with a month and day but no
  year; a reader that sees the month go from December to January moves on a year;
- `epoch`: torchelastic error files' Unix times, in UTC.

Readings of the same clock compare directly; `wall` and `glog` compare on their month, day and
time (same year assumed); `epoch` compares with nothing but `epoch`, because the logs' time zone is
unknown. Every number is read with a bounded number of digits and range-checked.
"""

from __future__ import annotations

import math

from ddpdoctor.matching import LazyRegex

_GLOG = LazyRegex(r"\[?([IWEF])(\d{1,2})(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?\b")
_ISO = LazyRegex(r"\b(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:[.,](\d{1,9}))?")
_TORCHRUN = LazyRegex(r"\b(\d{4})-(\d\d)-(\d\d)_(\d\d):(\d\d):(\d\d)\b")
# A 'year' of 12 months of 31 days: month and day map to seconds without a calendar.
_YEAR_SECONDS = 372 * 86400
# Unix times ddpdoctor accepts from error files: 2001 to 2100.
_EPOCH_RANGE = (1.0e9, 4.1e9)


class Stamp:
    """A clock reading: `value` seconds on `clock` (wall, glog or epoch)."""

    __slots__ = ("clock", "value")

    def __init__(self, clock: str, value: float) -> None:
        self.clock = clock
        self.value = value

    def in_year(self) -> float:
        """Seconds since the start of the year (what a `wall` and a `glog` reading share)."""
        return self.value % _YEAR_SECONDS if self.clock in ("wall", "glog") else self.value

    def __repr__(self) -> str:
        return f"Stamp({self.clock!r}, {self.value!r})"


def comparable(stamps: list[Stamp]) -> list[float] | None:
    """The readings as numbers that order correctly, or None when they are on incompatible clocks."""
    clocks = {s.clock for s in stamps}
    if len(clocks) == 1:
        return [s.value for s in stamps]
    if clocks <= {"wall", "glog"}:
        return [s.in_year() for s in stamps]
    return None


def _day_seconds(month: int, day: int, hour: int, minute: int, second: int, frac: str | None) -> float | None:
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour < 24 and minute < 60 and second < 61):
        return None
    value = ((month - 1) * 31 + day - 1) * 86400 + hour * 3600 + minute * 60 + second
    return value + (float("0." + frac) if frac else 0.0)


def _wall(year: int, rest: float | None) -> Stamp | None:
    if rest is None or not 1970 <= year <= 2200:
        return None
    return Stamp("wall", (year - 1970) * _YEAR_SECONDS + rest)


def find_stamp(text: str) -> Stamp | None:
    """The timestamp at (or near) the start of a line, if any."""
    head = text[:80]
    m = _GLOG.match(head)
    if m:
        _level, month, day, hour, minute, second, frac = m.groups()
        value = _day_seconds(int(month), int(day), int(hour), int(minute), int(second), frac)
        return Stamp("glog", value) if value is not None else None
    m = _ISO.search(head)
    if m:
        year, month, day, hour, minute, second, frac = m.groups()
        return _wall(int(year), _day_seconds(int(month), int(day), int(hour), int(minute), int(second), frac))
    return None


def torchrun_stamp(text: str) -> Stamp | None:
    """The reading of torchrun's failure-table field `time : 2026-11-29_13:00:01`."""
    m = _TORCHRUN.search(text)
    if not m:
        return None
    year, month, day, hour, minute, second = (int(g) for g in m.groups())
    return _wall(year, _day_seconds(month, day, hour, minute, second, None))


def epoch_stamp(value: object) -> Stamp | None:
    """An error file's Unix time (seconds, or the microseconds some versions write), range-checked."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        value = value.strip()
        if not value or len(value) > 32:
            return None
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return None
    if not math.isfinite(number):
        return None
    for scale in (1.0, 1e-3, 1e-6):
        scaled = number * scale
        if _EPOCH_RANGE[0] <= scaled <= _EPOCH_RANGE[1]:
            return Stamp("epoch", scaled)
    return None


class YearTracker:
    """Moves `glog` readings of one stream on a year when the month wraps from December to January."""

    __slots__ = ("_last", "_offset")

    def __init__(self) -> None:
        self._last: float | None = None
        self._offset = 0.0

    def place(self, stamp: Stamp) -> Stamp:
        """The reading on a continuous clock (glog readings only; others pass through)."""
        if stamp.clock != "glog":
            return stamp
        if self._last is not None and stamp.value + 180 * 86400 < self._last:
            self._offset += _YEAR_SECONDS
        self._last = stamp.value
        return Stamp("glog", stamp.value + self._offset) if self._offset else stamp
