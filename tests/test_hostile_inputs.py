"""Hostile input around explain's parser: reading, worker processes and signals, team knowledge
folders, the index cache and crash reports. Real files, real FIFOs, real signals, real children."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml

from ddpdoctor.errors import InputError
from ddpdoctor.explain import ExplainOptions, explain_paths
from ddpdoctor.explain.sources import ENV_GZIP_MAX_BYTES, ENV_GZIP_MAX_RATIO
from ddpdoctor.supervise.procfs import alive

ERROR = "[rank1]: RuntimeError: CUDA error: device-side assert triggered\n"
LOGS = Path(__file__).resolve().parent / "fixtures" / "logs"


def ddpdoctor(
    *args: str, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess:
    """The real command in a child process."""
    return subprocess.run(
        [sys.executable, "-m", "ddpdoctor", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


def assert_found(report_dict: dict) -> None:
    root = report_dict["root_cause"]
    assert root is not None and (root["entry"], root["rank"]) == ("cuda-device-side-assert", 1)


# --- reading -------------------------------------------------------------------------------------


def test_a_gzip_bomb_stops_at_the_ratio_limit(tmp_path: Path) -> None:
    bomb = tmp_path / "rank1.log.gz"
    with gzip.open(bomb, "wb", compresslevel=9) as fh:
        zeros = b"\0" * (1 << 20)
        for _ in range(80):  # 80 MiB of zeros in about 80 KB
            fh.write(zeros)
    result = ddpdoctor("explain", str(bomb))
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(f"ddpdoctor: error: {bomb}: the gzip data expands more than 100 times")
    assert ENV_GZIP_MAX_RATIO in result.stderr


def test_the_gzip_limits_can_be_raised_or_lowered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "rank1.log.gz"
    path.write_bytes(gzip.compress(("step 1 loss 1.0\n" * 5000 + ERROR).encode()))
    assert_found(explain_paths([str(path)]).to_dict())
    monkeypatch.setenv(ENV_GZIP_MAX_BYTES, "1000")
    with pytest.raises(InputError, match=r"expands to more than 1000 bytes") as info:
        explain_paths([str(path)])
    assert info.value.hint is not None and ENV_GZIP_MAX_BYTES in info.value.hint
    monkeypatch.setenv(ENV_GZIP_MAX_BYTES, "lots")
    with pytest.raises(InputError, match="is not a positive whole number"):
        explain_paths([str(path)])


@pytest.mark.parametrize("damage", ["corrupt", "truncated"])
def test_damaged_gzip_is_an_input_error(tmp_path: Path, damage: str) -> None:
    data = bytearray(gzip.compress(os.urandom(4000).hex().encode()))
    if damage == "corrupt":
        for i in range(20, 60):
            data[i] ^= 0x55  # inside the deflate stream: zlib.error, not a CRC mismatch
    else:
        del data[len(data) // 2 :]
    path = tmp_path / "rank0.log.gz"
    path.write_bytes(bytes(data))
    result = ddpdoctor("explain", str(path))
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(f"ddpdoctor: error: cannot read {path}: ")
    assert "internal error" not in result.stderr


@pytest.mark.parametrize(
    ("encoding", "expected"),
    [("utf-16", "utf-16-le"), ("utf-16-be", "utf-16-be"), ("utf-16-le", "utf-16-le")],
)
def test_utf16_logs_are_diagnosed(tmp_path: Path, encoding: str, expected: str) -> None:
    # "utf-16" writes a byte-order mark; the explicit-endian codecs write none (NULs between ASCII).
    path = tmp_path / "train.log"
    path.write_bytes(("epoch 1\n" + ERROR).encode(encoding))
    report = explain_paths([str(path)]).to_dict()
    assert_found(report)
    assert report["inputs"][0]["encoding"] == expected


def test_a_gzipped_utf16_log_is_diagnosed(tmp_path: Path) -> None:
    path = tmp_path / "train.log.gz"
    path.write_bytes(gzip.compress(("epoch 1\n" + ERROR).encode("utf-16")))
    assert_found(explain_paths([str(path)]).to_dict())


def test_a_fifo_named_explicitly_is_read(tmp_path: Path) -> None:
    fifo = tmp_path / "live.log"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "w") as fh:
            fh.write(ERROR)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        assert_found(explain_paths([str(fifo)]).to_dict())
    finally:
        writer.join(timeout=30)


def test_a_ten_megabyte_line_full_of_matches_is_scanned_once(tmp_path: Path) -> None:
    # Each hit used to search the whole line again for its carriage returns: minutes for 10 MB.
    path = tmp_path / "bar.log"
    message = b"RuntimeError: CUDA error: out of memory "
    path.write_bytes(message * (10_000_000 // len(message)) + b"\n")
    result = ddpdoctor("explain", "-f", "json", str(path), timeout=300)
    assert result.returncode == 1, result.stderr
    assert json.loads(result.stdout)["root_cause"]["entry"] == "cuda-out-of-memory"


def test_a_line_of_100000_nested_wrappers_stays_in_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "panic.log"
    line = "Distributed data parallel worker 0 failed: " * 100_000 + "boom"
    path.write_text(f"thread 'main' (1) panicked at src/main.rs:1:1:\n{line}\n")
    probe = (
        "import json, sys\n"
        "from ddpdoctor.explain import explain_paths\n"
        "root = explain_paths([sys.argv[1]]).to_dict()['root_cause']\n"
        "hwm = [int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM:')][0]\n"
        "print(json.dumps([root['rank'], len(root['chain']), hwm]))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe, str(path)], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    rank, links, peak_kib = json.loads(proc.stdout)
    assert rank == 1 and 1 < links <= 18
    assert peak_kib < 200 * 1024  # every offset of the line used to be kept as a hit: 470 MB


def test_jobs_beyond_the_cpus_is_a_usage_error(tmp_path: Path) -> None:
    from ddpdoctor.children import usable_cpus

    path = tmp_path / "rank1.log"
    path.write_text(ERROR)
    too_many = usable_cpus() + 1
    with pytest.raises(InputError, match=rf"--jobs {too_many} is more than the {usable_cpus()} CPU"):
        explain_paths([str(path)], ExplainOptions(jobs=too_many))
    result = ddpdoctor("explain", "--jobs", "300", str(path))
    assert result.returncode == 2 and "--jobs 300 is more than" in result.stderr


def test_a_flood_of_distinct_known_warnings_does_not_hide_the_error(tmp_path: Path) -> None:
    warning = (
        "[rank{r}]:[W207 22:21:42.712978449 ProcessGroupNCCL.cpp:4115] [PG ID 0 PG GUID 0 Rank {r}]  using GPU "
        "{g} to perform barrier as devices used by this process are currently unknown.\n"
    )
    path = tmp_path / "flood.log"
    path.write_text("".join(warning.format(r=i % 1000, g=i) for i in range(3000)) + ERROR)
    result = ddpdoctor("explain", str(path))
    assert result.returncode == 1, result.stdout[:500]


def test_a_rank_of_27_digits_does_not_size_a_list(tmp_path: Path) -> None:
    text = (Path(__file__).resolve().parent / "fixtures" / "explain" / "watchdog_silent_rank.log").read_text()
    path = tmp_path / "watchdog.log"
    path.write_text(text.replace("[rank3]", "[rank" + "1" + "0" * 26 + "]"))
    limited = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
        "from ddpdoctor.cli import main\n"
        "sys.exit(main(['explain', sys.argv[1]]))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", limited, str(path)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode in (0, 1, 2), proc.stderr[-500:]


# --- worker processes and signals ----------------------------------------------------------------

# Forked scan workers that block on FIFOs with no writer: the worst case for a signal to arrive in.
_BLOCKED_SCAN = """
import sys
import ddpdoctor.explain.api as api
api.PROCESS_MIN_BYTES = 0
listed = api.discover
def discover(paths):
    sources = listed(paths)
    for source in sources:
        source.size = 0  # FIFOs have no size; pretend, so that the forked workers are used
    return sources
api.discover = discover
from ddpdoctor.cli import main
sys.exit(main(["explain", "--jobs", "2", *sys.argv[1:]]))
"""


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            return [int(x) for x in fh.read().split()]
    except OSError:
        return []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forked workers and /proc are Linux-only")
@pytest.mark.parametrize(
    ("signum", "returncode"),
    [
        (signal.SIGTERM, -signal.SIGTERM),
        (signal.SIGHUP, -signal.SIGHUP),
        (signal.SIGINT, 130),
        (signal.SIGKILL, -signal.SIGKILL),  # no handler runs: the parent-death signal ends the workers
    ],
)
def test_a_signal_ends_ddpdoctor_and_its_blocked_workers(
    tmp_path: Path, signum: int, returncode: int
) -> None:
    fifos = [tmp_path / f"rank{i}.log" for i in range(3)]
    for fifo in fifos:
        os.mkfifo(fifo)
    proc = subprocess.Popen(
        [sys.executable, "-c", _BLOCKED_SCAN, *map(str, fifos)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while len(_children(proc.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        workers = _children(proc.pid)
        assert len(workers) == 2, "the forked workers did not start"
        proc.send_signal(signum)
        _out, err = proc.communicate(timeout=30)  # not the 90 s a queued pool used to wait
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == returncode, err
    deadline = time.monotonic() + 10
    while alive(workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(workers)
    if signum == signal.SIGINT:
        assert err == "ddpdoctor: interrupted\n"


# --- team knowledge folders ----------------------------------------------------------------------

ENTRY = {
    "id": "team-widget-crash",
    "title": "Widget crash",
    "framework": "pytorch",
    "category": "other",
    "kind": "root",
    "status": "experimental",
    "patterns": ["WIDGETCRASH (?P<what>\\w+)"],
    "meaning": "A test entry.",
    "triggers": ["A test."],
    "situations": ["A test."],
    "solutions": ["Fix the widget."],
    "example_fix": {"language": "shell", "before": "a\n", "after": "b\n"},
    "sources": [{"docs": "https://example.com/widget"}],
    "false_positives": ["None known."],
    "samples": {"match": [{"text": "WIDGETCRASH gears"}], "no_match": [{"text": "nothing"}]},
}


def team_folder(tmp_path: Path, **changes: object) -> Path:
    folder = tmp_path / "team"
    (folder / "pytorch").mkdir(parents=True)
    doc = {**ENTRY, **changes}
    (folder / "pytorch" / "team-widget-crash.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    return folder


def team_problems(folder: Path) -> list[str]:
    """The problems of loading a team folder alone (the bundled entries are not needed for them)."""
    from ddpdoctor.kb.loader import load_entries

    return [problem.problem for problem in load_entries([folder], include_bundled=False).problems]


def test_a_team_entry_loads_and_matches(tmp_path: Path) -> None:
    folder = team_folder(tmp_path)
    log = tmp_path / "run.log"
    log.write_text("WIDGETCRASH gears\n")
    report = explain_paths([str(log)], ExplainOptions(kb_dirs=(str(folder),))).to_dict()
    assert report["root_cause"]["entry"] == "team-widget-crash"


@pytest.mark.parametrize("pattern", [r"WIDGETCRASH (\w+\s?)+$", r"WIDGETCRASH (a+)+$"])
def test_a_catastrophically_backtracking_pattern_is_refused_not_run(tmp_path: Path, pattern: str) -> None:
    folder = team_folder(
        tmp_path,
        patterns=[pattern],
        samples={"match": [{"text": "WIDGETCRASH aaa"}], "no_match": [{"text": "x"}]},
    )
    log = tmp_path / "run.log"
    log.write_text("WIDGETCRASH " + "a" * 40 + "!\n")  # hours of backtracking for the pattern
    env = {"DDPDOCTOR_CACHE_DIR": str(tmp_path / "cache")}
    result = ddpdoctor("explain", "--kb", str(folder), str(log), env=env, timeout=120)
    assert result.returncode == 2, result.stderr
    assert "patterns[0]: backtracks catastrophically" in result.stderr
    verdicts = json.loads((tmp_path / "cache" / "pattern-probe.json").read_text())
    assert list(verdicts.values()) == [False]  # cached: the next run does not probe again


# Patterns the load-time probe lets through (its lines do not provoke them) that backtrack on one
# crafted log line: exponentially, and polynomially with a high degree.
SCAN_TIME_BACKTRACKERS = [
    (r"WIDGETCRASH (x+x+)+y", "WIDGETCRASH xxy", "WIDGETCRASH " + "x" * 34 + "z y"),
    (r"WIDGETCRASH " + r"\d*" * 8 + "x", "WIDGETCRASH 1x", "WIDGETCRASH " + "1" * 3000 + "!"),
]


@pytest.mark.parametrize(
    ("pattern", "sample", "line"), SCAN_TIME_BACKTRACKERS, ids=["exponential", "polynomial"]
)
def test_a_team_pattern_that_backtracks_at_scan_time_is_dropped_with_a_note(
    tmp_path: Path, pattern: str, sample: str, line: str
) -> None:
    folder = team_folder(
        tmp_path, patterns=[pattern], samples={"match": [{"text": sample}], "no_match": [{"text": "nothing"}]}
    )
    log = tmp_path / "run.log"
    log.write_text(f"{line}\n{ERROR}WIDGETCRASH xxy\n")
    env = {"DDPDOCTOR_CACHE_DIR": str(tmp_path / "cache")}
    result = ddpdoctor("explain", "--kb", str(folder), str(log), env=env, timeout=120)
    assert result.returncode == 1, result.stderr
    note = "team-widget-crash patterns[0] was dropped: it searched one line for more than 0.5 s of CPU time"
    assert "Notes" in result.stdout and note in result.stdout
    report = json.loads(ddpdoctor("explain", "-f", "json", "--kb", str(folder), str(log), env=env).stdout)
    assert_found(report)
    assert report["inputs"][0]["notes"][0].startswith(note)


def test_the_pattern_budget_stops_a_search_and_every_pattern_once_spent() -> None:
    import re

    from ddpdoctor.explain.budget import PatternBudget

    budget = PatternBudget(line_limit=0.2, total=0.3)
    fast = re.compile(r"WIDGETCRASH (\w+)")
    assert budget.search(fast, "WIDGETCRASH gears", "fast") is not None
    assert budget.search(re.compile(r"(a+)+$"), "a" * 40 + "!", "slow") is None
    assert budget.dropped == {"slow"} and budget.notes[0].startswith("slow was dropped")
    assert budget.search(re.compile(r"(b+)+$"), "b" * 40 + "!", "slower") is None
    assert "stopped after 0.3 s of CPU time in all (during slower)" in budget.notes[1]
    assert budget.search(fast, "WIDGETCRASH gears", "fast") is None  # the budget is spent


def test_team_patterns_are_not_run_off_the_main_thread() -> None:
    import re

    from ddpdoctor.explain.budget import PatternBudget

    budget = PatternBudget()
    found: list[object] = []
    worker = threading.Thread(target=lambda: found.append(budget.search(re.compile("x"), "x", "p")))
    worker.start()
    worker.join(timeout=30)
    assert found == [None] and "were not used" in budget.notes[0]


def _link(folder: Path, target: str) -> None:
    (folder / "pytorch" / "team-linked.yaml").symlink_to(target)


@pytest.mark.parametrize(
    ("make", "problem"),
    [
        (lambda f, t: _link(f, "/dev/zero"), "cannot be read: it links to a file outside the folder"),
        (lambda f, t: _link(f, str(t)), "cannot be read: it links to a file outside the folder"),
        (lambda f, t: os.mkfifo(f / "pytorch" / "team-pipe.yaml"), "cannot be read: not a regular file"),
        (
            lambda f, t: (f / "pytorch" / "team-big.yaml").write_text("# " + "x" * 2_000_000),
            "cannot be read: larger than 1048576 bytes",
        ),
        (
            lambda f, t: (f / "pytorch" / "team-deep.yaml").write_text("id: " + "[" * 50_000 + "]" * 50_000),
            "invalid YAML at line 1: nested more than 40 levels deep",
        ),
        (
            lambda f, t: (f / "pytorch" / "team-num.yaml").write_text("id: " + "9" * 5000),
            "invalid YAML at line 1: a number has more than 40 digits",
        ),
        (
            lambda f, t: (f / "pytorch" / "team-sur.yaml").write_text('id: "\\ud800"\n'),
            "invalid YAML at line 1: a string holds a lone surrogate",
        ),
        (
            lambda f, t: (f / "pytorch" / "team-alias.yaml").write_text("a: &x [1]\nb: *x\n"),
            "invalid YAML at line 2: aliases (*name) are not allowed",
        ),
    ],
    ids=["dev-zero", "outside-secret", "fifo", "huge", "deep", "long-number", "surrogate", "alias"],
)
def test_unsafe_team_files_are_kb_problems(tmp_path: Path, make, problem: str) -> None:
    secret = tmp_path / "shadow"
    secret.write_text("root:$6$SECRETHASH:19000:0:99999:7:::\n")
    folder = team_folder(tmp_path)
    make(folder, secret)
    problems = team_problems(folder)
    assert len(problems) == 1 and problems[0].startswith(problem)
    assert "SECRETHASH" not in problems[0]


def test_an_unsafe_team_file_is_a_one_line_error(tmp_path: Path, cli) -> None:
    folder = team_folder(tmp_path)
    _link(folder, "/dev/zero")
    result = cli("kb", "list", "--kb", str(folder))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"ddpdoctor: error: {folder}/pytorch/team-linked.yaml: cannot be read: ")


def test_kb_lint_lists_an_unsafe_file_without_quoting_it(tmp_path: Path) -> None:
    secret = tmp_path / "shadow"
    secret.write_text("root:$6$SECRETHASH:19000:0:99999:7:::\n")
    folder = team_folder(tmp_path)
    _link(folder, str(secret))
    result = ddpdoctor("kb", "lint", "--kb", str(folder), "--no-speed", "-f", "json", timeout=120)
    assert result.returncode == 1, result.stderr
    assert "it links to a file outside the folder" in result.stdout
    assert "SECRETHASH" not in result.stdout + result.stderr


def test_a_link_loop_in_a_team_folder_is_walked_once(tmp_path: Path) -> None:
    from ddpdoctor.kb import load_knowledge_base

    folder = team_folder(tmp_path)
    (folder / "pytorch" / "loop").symlink_to("..")
    (folder / "pytorch" / "again").symlink_to("../pytorch")
    kb = load_knowledge_base([folder])
    assert kb.get("team-widget-crash").title == "Widget crash"
    log = tmp_path / "run.log"
    log.write_text("WIDGETCRASH gears\n")
    result = ddpdoctor("explain", "--kb", str(folder), str(log), timeout=120)
    assert result.returncode == 1, result.stderr


# --- the index cache -----------------------------------------------------------------------------


def test_a_damaged_index_cache_is_rebuilt(tmp_path: Path) -> None:
    from ddpdoctor.explain.index import cache_dir, load_index

    load_index()  # the session's cache holds the current index
    log = tmp_path / "rank1.log"
    log.write_text(ERROR)
    cache = tmp_path / "cache"
    cache.mkdir()
    damaged = {}
    for index in Path(cache_dir()).glob("kb-*.idx"):
        data = bytearray(index.read_bytes())
        for at in range(len(data) // 2, len(data) // 2 + 64):
            data[at] ^= 0xFF  # inside the hyperscan database or the entries
        (cache / index.name).write_bytes(bytes(data))
        damaged[index.name] = bytes(data)
    env = {"DDPDOCTOR_CACHE_DIR": str(cache)}
    result = ddpdoctor("explain", str(log), env=env)
    assert result.returncode == 1, result.stderr
    rebuilt = [name for name, data in damaged.items() if (cache / name).read_bytes() != data]
    assert len(rebuilt) == 1
    intact = (cache / rebuilt[0]).read_bytes()
    assert ddpdoctor("explain", str(log), env=env).returncode == 1
    assert (cache / rebuilt[0]).read_bytes() == intact  # used as it is, not rebuilt again


# --- crash reports and exit codes ----------------------------------------------------------------


def test_a_flood_of_crash_reports_is_rotated_and_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ddpdoctor.cli.common import KEEP_CRASH_REPORTS, MAX_CRASH_REPORT_CHARS, write_crash_report

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    written = []
    for i in range(KEEP_CRASH_REPORTS + 15):
        try:
            raise RuntimeError("x" * (MAX_CRASH_REPORT_CHARS * 4) if i == 0 else f"bug {i}")
        except RuntimeError as exc:
            written.append(write_crash_report(exc))
        assert written[-1].stat().st_size <= MAX_CRASH_REPORT_CHARS + 200  # the first one is cut
        os.utime(written[-1], ns=(i * 10**9, i * 10**9))  # distinct ages even within one second
    kept = sorted((tmp_path / "ddpdoctor").glob("crash-*.log"))
    assert len(kept) <= KEEP_CRASH_REPORTS
    assert written[-1] in kept and written[0] not in kept


@pytest.mark.parametrize("value", ["nan", "inf", "-1"])
def test_an_unusable_timeout_is_a_usage_error(cli, value: str) -> None:
    result = cli("check", "--timeout", value)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"ddpdoctor: error: --timeout {float(value)} is not a usable number")
