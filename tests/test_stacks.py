"""The hang report's parts: merging stacks, naming suspects, the signal fallback, `stacks` usage."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ddpdoctor.frames import is_user_frame
from ddpdoctor.kb import KnowledgeBase
from ddpdoctor.present.run import hang_document
from ddpdoctor.supervise.analysis import KB_LINKS, analyse, member_ranks, ranks_label
from ddpdoctor.supervise.instrument import HOOK_DIR
from ddpdoctor.supervise.procfs import RankProcess, rank_processes
from ddpdoctor.supervise.report import STACKS_SCHEMA, HangReport
from ddpdoctor.supervise.stacks import (
    Frame,
    ProcessStacks,
    ThreadStack,
    parse_faulthandler,
    parse_py_spy_json,
    process_stacks,
)

SITE = "/venv/lib/python3.11/site-packages/torch/distributed"


def _rank(rank: int, *frames: Frame, world: int = 8) -> ProcessStacks:
    process = RankProcess(1000 + rank, rank, rank, world, "python train.py", local_world_size=world)
    thread = ThreadStack("MainThread", 1000 + rank, tuple(reversed(frames)), main=True)
    return ProcessStacks(process, (thread,), "py-spy")


MODULE = Frame("<module>", "/home/u/train.py", 80)
MAIN = Frame("main", "/home/u/train.py", 70)
STEP = Frame("train_step", "/home/u/train.py", 57)
WRAPPER = Frame("_exception_logger.<locals>.wrapper", f"{SITE}/c10d_logger.py", 83)
ALL_REDUCE = Frame("all_reduce", f"{SITE}/distributed_c10d.py", 3252)
BARRIER = Frame("barrier", f"{SITE}/distributed_c10d.py", 5356)
SAVE = Frame("save_checkpoint", "/home/u/train.py", 90)


def _in_all_reduce(rank: int, world: int = 8) -> ProcessStacks:
    return _rank(rank, MODULE, MAIN, STEP, WRAPPER, ALL_REDUCE, world=world)


def test_ranks_label() -> None:
    assert (
        ranks_label(["rank 7", "rank 0", "rank 1", "rank 2", "rank 4", "rank 5", "rank 6"])
        == "ranks 0-2, 4-7"
    )
    assert ranks_label(["rank 3"]) == "rank 3"
    assert ranks_label(["rank 1", "rank 3", "rank 5", "pid 42"]) == "ranks 1, 3, 5, pid 42"
    assert ranks_label(["rank 4", "rank 5"]) == "ranks 4-5"
    assert member_ranks(["rank 2", "pid 42", "rank 10"]) == [2, 10]


def test_is_user_frame_is_the_shared_rule() -> None:
    assert is_user_frame("/home/u/train.py")
    assert is_user_frame("C:\\Users\\u\\proj\\src\\main.rs")
    for path in (
        f"{SITE}/c10d_logger.py",
        "/usr/lib/python3.11/threading.py",
        "<frozen runpy>",
        "C:\\Python311\\Lib\\site-packages\\torch\\nn\\modules\\module.py",
        "C:\\Users\\u\\.cargo\\registry\\src\\index.crates.io-6f17d22bba15001f\\wgpu-23.0.1\\src\\lib.rs",
    ):
        assert not is_user_frame(path)


def test_eight_ranks_one_outside_the_collective() -> None:
    stacks = [_in_all_reduce(r) for r in (0, 1, 2, 4, 5, 6, 7)]
    stacks.append(_rank(3, MODULE, MAIN, SAVE))
    analysis = analyse(stacks)
    assert [(c.label, c.summary) for c in analysis.classes] == [
        ("ranks 0-2, 4-7", "all_reduce in train.py:57 train_step"),
        ("rank 3", "in train.py:90 save_checkpoint"),
    ]
    (suspect,) = analysis.suspects
    assert suspect.members == ("rank 3",) and suspect.reason == "not-in-collective"
    assert suspect.user == SAVE and suspect.entries == KB_LINKS["not-in-collective"]
    assert analysis.gone == ()
    # The prefix tree: one root for everyone, branching at main().
    (root,) = analysis.tree
    assert root.frame == MODULE and len(root.members) == 8
    (main,) = root.children
    assert sorted(len(c.members) for c in main.children) == [1, 7]


def test_a_rank_that_is_gone_and_a_minority_collective() -> None:
    stacks = [_in_all_reduce(r, world=4) for r in (0, 1)]
    stacks.append(_rank(2, MODULE, MAIN, WRAPPER, ALL_REDUCE, world=4))
    analysis = analyse(stacks)
    reasons = {s.reason: s.members for s in analysis.suspects}
    assert reasons == {"minority": ("rank 2",), "gone": ("rank 3",)}
    assert analysis.gone == (3,)


def test_barrier_against_all_reduce_means_a_rank_left_the_loop() -> None:
    stacks = [_in_all_reduce(0, world=2), _rank(1, MODULE, MAIN, WRAPPER, BARRIER, world=2)]
    (suspect,) = analyse(stacks).suspects
    assert (suspect.members, suspect.reason) == (("rank 1",), "left-loop")
    assert "left the loop early" in suspect.message


def test_same_collective_everywhere_has_no_suspect_but_a_note() -> None:
    report = HangReport(schema=STACKS_SCHEMA, analysis=analyse([_in_all_reduce(r, 2) for r in (0, 1)]))
    assert report.analysis is not None and report.analysis.suspects == ()
    text = "\n".join(getattr(block, "text", "") for block in hang_document(report))
    assert "No rank stands out." in text


def test_kb_links_name_existing_entries(kb: KnowledgeBase) -> None:
    for situation, ids in KB_LINKS.items():
        for entry_id in ids:
            assert entry_id in kb.by_id, f"{situation}: {entry_id}"


def test_py_spy_json_is_read() -> None:
    data = [
        {
            "os_thread_id": 42,
            "thread_name": "MainThread",
            "frames": [
                {"name": "all_reduce", "filename": f"{SITE}/distributed_c10d.py", "line": 3252},
                {"name": "step", "filename": "/home/u/train.py", "line": 57},
            ],
        },
        {
            "os_thread_id": 43,
            "thread_name": "pin",
            "frames": [{"name": "poll", "filename": "libc.so.6", "line": 0}],
        },
    ]
    main, other = parse_py_spy_json(json.dumps(data), 42)
    assert main.main and not other.main
    assert main.frames[1] == Frame("step", "/home/u/train.py", 57)
    assert other.frames[0].native and other.frames[0].line is None


def _child_with_hook(tmp_path: Path, script: str) -> subprocess.Popen[bytes]:
    (tmp_path / "stacks").mkdir()
    env = {
        **os.environ,
        "PYTHONPATH": str(HOOK_DIR),
        "DDPDOCTOR_RUN_DIR": str(tmp_path),
        "DDPDOCTOR_STACK_DIR": str(tmp_path / "stacks"),
        "RANK": "0",
        "WORLD_SIZE": "1",
    }
    env.pop("DDPDOCTOR_RUN_SOCKET", None)
    child = subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE)
    assert child.stdout is not None and child.stdout.readline() == b"ready\n"
    return child


def test_signal_fallback_reads_the_hooks_fault_handler_dump(tmp_path: Path) -> None:
    script = (
        "import threading, time\n"
        "def stuck():\n"
        "    time.sleep(60)\n"
        "threading.Thread(target=lambda: time.sleep(60), daemon=True).start()\n"
        "print('ready', flush=True)\n"
        "stuck()\n"
    )
    child = _child_with_hook(tmp_path, script)
    try:
        time.sleep(0.2)
        (process,) = rank_processes([child.pid])
        stacks = process_stacks(process, py_spy=None)
    finally:
        child.kill()
        child.wait()
    assert stacks.method == "signal", stacks.error
    main = stacks.main_thread
    assert main is not None and len(stacks.threads) == 2
    assert (main.frames[0].function, main.frames[0].line) == ("stuck", 3)
    assert parse_faulthandler((tmp_path / "stacks" / f"pid{child.pid}.stack").read_text()) == stacks.threads


def test_stacks_usage_errors(cli) -> None:
    result = cli("stacks")
    assert result.exit_code == 2
    assert result.stderr.startswith("ddpdoctor: error: name what to inspect: rank pids, --job PID or --all")
    result = cli("stacks", "--job", "999999999")
    assert (result.exit_code, result.stderr.splitlines()[0]) == (2, "ddpdoctor: error: no process 999999999")
    result = cli("stacks", "1", "--all")
    assert result.exit_code == 2 and "Traceback" not in result.stderr


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs Linux /proc")
def test_stacks_on_a_plain_process_prints_its_stack(cli, tmp_path: Path) -> None:
    script = tmp_path / "idle.py"
    script.write_text("import time\nprint('ready', flush=True)\ntime.sleep(60)\n", encoding="utf-8")
    child = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None and child.stdout.readline() == b"ready\n"
        result = cli("stacks", str(child.pid), "--format", "json")
        native = cli("stacks", str(child.pid), "--native", "--format", "json")
        shown = {fmt: cli("stacks", str(child.pid), "--format", fmt) for fmt in ("text", "markdown")}
    finally:
        child.kill()
        child.wait()
    data = json.loads(result.stdout)
    assert result.exit_code == 0, result.stderr
    assert data["schema"] == STACKS_SCHEMA
    assert [p["pid"] for p in data["processes"]] == [child.pid]
    assert data["classes"][0]["members"] == [f"pid {child.pid}"]
    assert data["classes"][0]["user_frame"]["line"] == 3
    assert not any(f["native"] for t in data["processes"][0]["threads"] for f in t["frames"])
    # --native adds the C frames (the sleep in the interpreter) and keeps the user's frame.
    with_native = json.loads(native.stdout)
    assert native.exit_code == 0, native.stderr
    frames = with_native["processes"][0]["threads"][0]["frames"]
    assert frames[0]["native"] and any(f["function"] == "<module>" and f["line"] == 3 for f in frames)
    assert with_native["classes"][0]["user_frame"]["line"] == 3
    # --format like every other command: the same class in text and in Markdown, no JSON.
    for fmt, printed in shown.items():
        assert printed.exit_code == 0, (fmt, printed.stderr)
        assert f"pid {child.pid}" in printed.stdout and "idle.py:3" in printed.stdout, (fmt, printed.stdout)
        assert not printed.stdout.lstrip().startswith("{")
    assert shown["markdown"].stdout.lstrip().startswith("#")


def test_a_socket_recv_is_not_a_collective() -> None:
    recv = Frame("SSLSocket.recv", "/usr/lib/python3.11/ssl.py", 1296)
    fetch = Frame("fetch_shard", "/home/u/data.py", 12)
    analysis = analyse([_in_all_reduce(0, world=2), _rank(1, MODULE, MAIN, fetch, recv, world=2)])
    (suspect,) = analysis.suspects
    assert (suspect.members, suspect.reason, suspect.user) == (("rank 1",), "not-in-collective", fetch)
