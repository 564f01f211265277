"""Mutated real logs under a 2 GiB address-space limit: exit 0, 1 or 2, bounded time and output.

Every fixture log in tests/fixtures/logs holds a failure. Each test mutates those logs in one
class of ways an attacker or a dying job produces (numbers, rank prefixes, structure), writes the
results to files and runs `ddpdoctor explain` on them in one child process whose address space is
capped with RLIMIT_AS, so a structure that grows with the input shows up as a MemoryError (exit 3)
instead of a machine swapping. The child reports, per input, the exit code and the size of the
output; a child that dies or stalls names the input it was reading.

The seeds are fixed, so a failure is reproducible: rerun the test and read the named input. The
random prefix mutations put a tab inside a `[rankN]:` label in a few of their 200 cases; the
systematic test puts one kind of each odd space at every place of every rank label style, so a bug
like the issue's (a tab inside `[rank3]:` made a run grow past 24 GB) fails it whatever the seeds.
A bug planted that way (a 24 GB allocation on a tab inside a rank label) fails both tests.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest


def _failing_logs() -> list[Path]:
    """The fixture logs that hold a failure explain finds (not the known misses moved from the blind split)."""
    logs = sorted((Path(__file__).resolve().parent / "fixtures" / "logs").glob("*.log"))
    return [log for log in logs if "known_miss:" not in log.with_suffix(".yaml").read_text(encoding="utf-8")]


LOGS = _failing_logs()
ADDRESS_SPACE = 2 * 1024**3
MAX_OUTPUT = 200 * 1024
CASE_SECONDS = 30
MAX_MUTATED_BYTES = 4 * 1024 * 1024

_CHILD = """
import contextlib, io, json, resource, signal, sys
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
from ddpdoctor.cli import main

def stalled(_signum, _frame):
    raise TimeoutError("stalled")

signal.signal(signal.SIGALRM, stalled)
for number, line in enumerate(sys.stdin):
    path, fmt = json.loads(line)
    sys.stderr.write(f"reading {{path}}\\n")
    sys.stderr.flush()
    out, err = io.StringIO(), io.StringIO()
    signal.alarm({seconds})
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["explain", "-f", fmt, path])
    except TimeoutError:
        code = "stalled"
    finally:
        signal.alarm(0)
    print(json.dumps([path, code, len(out.getvalue()), err.getvalue()[-400:]]), flush=True)
"""

DIGITS = re.compile(rb"\d+")
PREFIX = re.compile(
    rb"\[rank\d+\]:|\[RANK \d+\]|\[\d+,\d+\]<std(?:out|err)>:|\[rank: ?\d+\]|\[default\d+\]:|^\d{1,5}: ",
    re.MULTILINE,
)
ODD_SPACE = (b"\t", b"\x0b", b"\x0c", b"\xc2\xa0", b"\xe3\x80\x80", b"\xc2\x85", b"  ", b"\t\t", b"\r")
HUGE_NUMBERS = (
    b"9" * 4400,  # past Python's int-from-string limit
    b"9" * 20_000,
    b"-" + b"9" * 5000,
    b"1" + b"0" * 26,  # a rank that no list may be sized by
    b"4294967296",
    b"18446744073709551616",
    b"\xc2\xb2",  # a Unicode digit that int() rejects
    b"1e309",
)


def mutate_numbers(rng: random.Random, data: bytearray) -> None:
    """Replace one digit run (a rank, an exit code, a timestamp part, a pid) by an absurd number."""
    found = list(DIGITS.finditer(data))
    if found:
        m = rng.choice(found)
        data[m.start() : m.end()] = rng.choice(HUGE_NUMBERS)


def mutate_prefix(rng: random.Random, data: bytearray) -> None:
    """Insert or substitute odd whitespace inside a rank label such as `[rank3]:`."""
    found = list(PREFIX.finditer(data))
    if found:
        m = rng.choice(found)
        at = rng.randint(m.start(), m.end())
        data[at : at + rng.randint(0, 1)] = rng.choice(ODD_SPACE)


def mutate_structure(rng: random.Random, data: bytearray) -> None:
    """Repeat a line or a block many times, nest traceback heads, or glue copies of a line together."""
    lines = bytes(data).split(b"\n")
    i = rng.randrange(len(lines))
    kind = rng.randrange(4)
    if kind == 0:
        lines[i : i + 1] = [lines[i]] * rng.choice([100, 3000])
    elif kind == 1:
        j = min(len(lines), i + rng.randint(2, 30))
        lines[i:j] = lines[i:j] * rng.choice([10, 200])
    elif kind == 2:
        lines[i] = b"Traceback (most recent call last):\n" * rng.choice([50, 2000]) + lines[i]
    else:
        lines[i] = lines[i] * rng.choice([20, 500])
    data[:] = b"\n".join(lines)


def mutated(rng: random.Random, mutate: Callable[[random.Random, bytearray], None], rounds: int) -> bytes:
    data = bytearray(LOGS[rng.randrange(len(LOGS))].read_bytes())
    for _ in range(rounds):
        before = bytes(data)
        mutate(rng, data)
        if len(data) > MAX_MUTATED_BYTES:
            data[:] = before  # too big: keep the log whole (cutting it could cut the failure off)
    return bytes(data)


def run_explain_capped(paths: list[Path], fmt: str = "text") -> list[tuple[str, object, int, str]]:
    """Explain each path in one child under RLIMIT_AS; (path, exit code, output size, stderr tail) per path.

    Crash reports of the child go next to the inputs, not into the user's state folder.
    """
    child = _CHILD.format(limit=ADDRESS_SPACE, seconds=CASE_SECONDS)
    feed = "".join(json.dumps([str(p), fmt]) + "\n" for p in paths)
    proc = subprocess.run(
        [sys.executable, "-c", child],
        input=feed,
        capture_output=True,
        text=True,
        timeout=CASE_SECONDS * len(paths) + 60,
        env={**os.environ, "XDG_STATE_HOME": str(paths[0].parent / "state")},
    )
    results = [tuple(json.loads(line)) for line in proc.stdout.splitlines()]
    if proc.returncode != 0 or len(results) != len(paths):
        reading = [line for line in proc.stderr.splitlines() if line.startswith("reading ")]
        last = reading[-1] if reading else "before the first input"
        pytest.fail(f"the explain child ended with {proc.returncode} while {last}:\n{proc.stderr[-2000:]}")
    return results  # type: ignore[return-value]


def check_cases(tmp_path: Path, name: str, seeds: range, make: Callable[[random.Random], bytes]) -> list:
    paths = []
    for seed in seeds:
        path = tmp_path / f"{name}-{seed}.log"
        path.write_bytes(make(random.Random(seed)))
        paths.append(path)
    results = run_explain_capped(paths)
    bad = [(Path(p).name, code, size, err) for p, code, size, err in results if code not in (0, 1, 2)]
    big = [(Path(p).name, size) for p, _code, size, _err in results if size > MAX_OUTPUT]
    assert not bad, f"explain failed on mutated logs (exit code, output size, stderr): {bad[:5]}"
    assert not big, f"explain printed more than {MAX_OUTPUT} bytes: {big[:5]}"
    return results


def test_unmutated_fixtures_fail_under_the_limit(tmp_path: Path) -> None:
    # About 400 of them, evenly spread: tests/test_explain_fixtures.py explains every one in-process.
    logs = LOGS[:: max(1, len(LOGS) // 400)]
    results = run_explain_capped(logs)
    assert [(Path(p).name, code) for p, code, _size, _err in results] == [(p.name, 1) for p in logs]


def test_odd_whitespace_in_rank_prefixes(tmp_path: Path) -> None:
    check_cases(tmp_path, "prefix", range(200), lambda rng: mutated(rng, mutate_prefix, rng.randint(1, 4)))


# One label of every prefix style the PREFIX pattern covers, in front of a failure.
RANK_LABELS = (b"[rank3]:", b"[RANK 3] ", b"[1,3]<stderr>:", b"[rank: 3] ", b"[default3]:", b"3: ")
FAILURE = b"RuntimeError: CUDA error: device-side assert triggered"
LABEL_SPACES = (b"\t", b"\x0b", b"\xc2\xa0", b"\r")  # one of each kind: ASCII, Unicode, line-breaking


def test_every_odd_space_at_every_place_of_every_rank_label(tmp_path: Path) -> None:
    """Systematic where the fuzz is random: the issue's 24 GB log had a tab inside `[rank3]:`."""
    cases = []
    for label in RANK_LABELS:
        for at in range(len(label) + 1):
            cases += [label[:at] + space + label[at:] for space in LABEL_SPACES]  # inserted
            if at < len(label):
                cases.append(label[:at] + b"\t" + label[at + 1 :])  # replacing a character
    paths = []
    for number, label in enumerate(cases):
        path = tmp_path / f"label-{number}.log"
        path.write_bytes(b"".join(label + line + b"\n" for line in (b"epoch 1", FAILURE)))
        paths.append(path)
    results = run_explain_capped(paths)
    bad = [(Path(p).read_bytes()[:24], code, err) for p, code, _size, err in results if code != 1]
    assert not bad, f"a failure behind an odd rank label was not found (label, exit, stderr): {bad[:5]}"


def test_repeated_and_nested_structures_still_fail(tmp_path: Path) -> None:
    results = check_cases(
        tmp_path, "structure", range(80), lambda rng: mutated(rng, mutate_structure, rng.randint(1, 3))
    )
    missed = [Path(p).name for p, code, _size, _err in results if code != 1]
    assert not missed, f"the failure in these logs was no longer found: {missed}"


def test_absurd_numbers_in_every_position(tmp_path: Path) -> None:
    check_cases(tmp_path, "number", range(240), lambda rng: mutated(rng, mutate_numbers, rng.randint(1, 4)))
