"""The backtracking probe: time each pattern on adversarial lines in a child process.

Python's `re` backtracks: a pattern such as `(a+)+$` or `(\\w+\\s?)+$` takes exponential time on a
line that almost matches, and cannot be stopped from another thread. So patterns are tried in a
child process (which dies with ddpdoctor) on lines built to provoke that: long repetitions of the
entry's own samples, and short near-misses (a sample followed by a run of one character class and
a character that makes the match fail). A pattern still running after KILL_AFTER_S is killed.

`kb lint` reports every pattern over the CPU budget. Loading a team knowledge base rejects the
patterns that had to be killed (see :func:`backtracking_problems`); the verdicts are cached by
pattern and samples in the cache folder, so a team entry is probed once, not on every run.
"""

from __future__ import annotations

import hashlib
import json
import os
import selectors
import subprocess
import sys
from collections.abc import Sequence

from ddpdoctor.kb.matching import MAX_MATCH_CHARS, split_lines
from ddpdoctor.kb.schema import Entry

# CPU budget for one pattern over all its adversarial lines; a linear pattern needs a few ms.
PATTERN_BUDGET_S = 0.5
# Wall-clock time after which a pattern counts as hanging and its child is killed.
KILL_AFTER_S = 3.0
_NEAR_MISS_RUN = 28  # exponential backtracking over this many characters takes hours
_FILLERS = ("a", "a ", " ", "0", "0.", ":", "a-", "\t")
_CACHE_FILE = "pattern-probe.json"
_CACHE_ENTRIES = 4096

Job = tuple[str, int, str, list[str]]  # (file label, pattern index, regex, seed lines)


def seed_lines(entry: Entry) -> list[str]:
    """The last lines of the entry's first match samples: material for adversarial input."""
    return [line for sample in entry.samples_match[:3] for _, line in list(split_lines(sample.text))[-2:]]


def adversarial_lines(seeds: Sequence[str], size: int = MAX_MATCH_CHARS) -> list[str]:
    """Lines that make backtracking patterns slow: repeated seeds, cut seeds, repeated characters, near misses."""
    lines: list[str] = []
    for line in seeds:
        lines.append(((line + " ") * (size // (len(line) + 1) + 1))[:size])
        cut = line[: max(1, len(line) * 4 // 5)]
        lines.append((cut * (size // len(cut) + 1))[:size])
    lines += [ch * size for ch in "a :0.\t/"]
    for line in [*seeds[:3], ""]:
        for filler in _FILLERS:
            lines.append(line + filler * (_NEAR_MISS_RUN // len(filler)) + "\x00")
    return lines


_SPEED_PROBE = """
import json, re, sys, time
from ddpdoctor.children import die_with_parent
die_with_parent(int(sys.argv[1]))
from ddpdoctor.kb.probe import adversarial_lines
for raw in sys.stdin:
    source, seeds = json.loads(raw)
    regex = re.compile(source)
    lines = adversarial_lines(seeds)
    start = time.process_time()
    for line in lines:
        regex.search(line)
    print(json.dumps(time.process_time() - start), flush=True)
"""


def timed_patterns(jobs: Sequence[Job]) -> list[tuple[str, int, str, float | None]]:
    """Time each (path, pattern index, regex, seed lines) job in a child process; return those over budget.

    A pattern still running after KILL_AFTER_S is killed and reported with seconds=None; the
    child is then restarted for the remaining jobs.
    """
    slow: list[tuple[str, int, str, float | None]] = []
    pending = list(jobs)
    while pending:
        proc = subprocess.Popen(
            [sys.executable, "-c", _SPEED_PROBE, str(os.getpid())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert proc.stdin is not None and proc.stdout is not None
        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ)
        done = 0
        try:
            for path, index, source, seeds in pending:
                proc.stdin.write(json.dumps([source, seeds]) + "\n")
                proc.stdin.flush()
                done += 1
                if not sel.select(timeout=KILL_AFTER_S):
                    slow.append((path, index, source, None))
                    break
                seconds = json.loads(proc.stdout.readline())
                if seconds > PATTERN_BUDGET_S:
                    slow.append((path, index, source, seconds))
        finally:
            sel.close()
            proc.kill()
            proc.wait()
        pending = pending[done:]
    return slow


def hanging_patterns(jobs: Sequence[Job]) -> set[tuple[str, int]]:
    """(file label, pattern index) of the jobs whose pattern had to be killed; verdicts cached by pattern and seeds."""
    cache = _read_cache()
    keys = {(path, index): _key(source, seeds) for path, index, source, seeds in jobs}
    unknown = [job for job in jobs if keys[(job[0], job[1])] not in cache]
    if unknown:
        killed = {
            (path, index) for path, index, _source, seconds in timed_patterns(unknown) if seconds is None
        }
        for path, index, _source, _seeds in unknown:
            cache[keys[(path, index)]] = (path, index) not in killed
        _write_cache(cache)
    return {where for where, key in keys.items() if not cache[key]}


def _key(source: str, seeds: Sequence[str]) -> str:
    text = json.dumps([source, list(seeds), _NEAR_MISS_RUN, _FILLERS])
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _cache_path() -> str:
    from ddpdoctor.explain.index import cache_dir

    return os.path.join(cache_dir(), _CACHE_FILE)


def _read_cache() -> dict[str, bool]:
    try:
        with open(_cache_path(), encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError, RecursionError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, bool)}


def _write_cache(cache: dict[str, bool]) -> None:
    path = _cache_path()
    kept = dict(list(cache.items())[-_CACHE_ENTRIES:])
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(kept, fh)
        os.replace(tmp, path)
    except OSError:
        return  # a read-only cache folder: the probe simply runs again next time
