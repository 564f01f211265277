"""Hostile input: `explain` never crashes, stays bounded in time and memory, and keeps its exit codes."""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ddpdoctor.errors import InputError
from ddpdoctor.explain import explain_paths, explain_text
from ddpdoctor.kb import KnowledgeBase

LOGS = Path(__file__).resolve().parent / "fixtures" / "logs"
SAMPLES = Path(__file__).resolve().parent / "fixtures" / "explain"
REAL_LOGS = sorted(LOGS.glob("*.log")) + sorted(SAMPLES.glob("*.log"))


def check_report(data: dict, kb: KnowledgeBase) -> None:
    """The contract holds whatever the input was."""
    json.dumps(data)
    assert data["schema"] == "ddpdoctor.explain/1"
    root = data["root_cause"]
    if root is not None:
        assert root["category"] in kb.categories
        assert root["entry"] is None or root["entry"] in {e.id for e in kb.entries}
        assert isinstance(root["line"], int) and root["line"] >= 1
        assert len(root["chain"]) <= 40
    for victim in data["victims"]:
        assert victim["category"] in kb.categories


def test_empty_file_is_an_input_error_not_a_healthy_log(tmp_path: Path) -> None:
    path = tmp_path / "empty.log"
    path.write_bytes(b"")
    with pytest.raises(InputError, match="nothing to read"):
        explain_paths([str(path)])


def test_an_empty_file_beside_a_real_log_is_read_as_empty(tmp_path: Path, kb: KnowledgeBase) -> None:
    (tmp_path / "rank0.log").write_bytes(b"")
    (tmp_path / "rank1.log").write_bytes(b"[rank1]: step 1 loss 2.0\n")
    report = explain_paths([str(tmp_path)])
    assert report.root_cause is None and int(report.exit_code()) == 0
    assert sorted(i["lines"] for i in report.inputs) == [0, 1]
    check_report(report.to_dict(), kb)


def test_binary_and_nul_runs(tmp_path: Path, kb: KnowledgeBase) -> None:
    rng = random.Random(7)
    path = tmp_path / "core.out"
    path.write_bytes(bytes(rng.getrandbits(8) for _ in range(300_000)) + b"\0" * 2_000_000 + b"\n")
    check_report(explain_paths([str(path)]).to_dict(), kb)


def test_broken_utf8_around_an_error(kb: KnowledgeBase) -> None:
    data = (
        b"\xff\xfe\xfa junk \xc3\n[rank2]: RuntimeError: CUDA error: device-side assert triggered \xe2\x82\n"
    )
    report = explain_text(data.decode("utf-8", "surrogateescape"))
    assert report.root_cause is not None and report.root_cause.rank == 2
    assert report.root_cause.entry == "cuda-device-side-assert"
    check_report(report.to_dict(), kb)


def test_twenty_thousand_nested_wrappers(kb: KnowledgeBase) -> None:
    line = "Distributed data parallel worker 0 failed: " * 20_000 + "boom"
    start = time.monotonic()
    report = explain_text(f"thread 'main' (1) panicked at src/main.rs:1:1:\n{line}\n")
    assert time.monotonic() - start < 20
    root = report.root_cause
    assert root is not None and root.rank == 1
    assert 1 < len(root.chain) <= 18
    check_report(report.to_dict(), kb)


def test_many_failures_stay_bounded(kb: KnowledgeBase) -> None:
    block = "[rank{r}]: RuntimeError: CUDA error: an illegal memory access was encountered {i}\n"
    text = "".join(block.format(r=i % 64, i=i) for i in range(20_000))
    report = explain_text(text)
    # Every one of the 64 ranks raised it: no single rank is named, all are suspects.
    assert report.root_cause is not None and report.root_cause.rank is None
    assert report.root_cause.suspect_ranks == tuple(range(64))
    assert len(report.findings) <= 5000
    check_report(report.to_dict(), kb)


@pytest.mark.slow
def test_a_200_mb_line_in_bounded_time_and_memory(tmp_path: Path) -> None:
    path = tmp_path / "huge.log"
    chunk = b"x" * (1 << 20)
    with open(path, "wb") as fh:
        fh.write(b"[rank1]: Traceback (most recent call last):\n")
        for _ in range(200):
            fh.write(chunk)
        fh.write(b"\n[rank1]: RuntimeError: CUDA error: device-side assert triggered\n")
    # VmHWM is this process's own peak; ru_maxrss would carry over the (large) pytest parent's
    # peak across fork+exec on Linux.
    probe = (
        "import sys, json\n"
        "from ddpdoctor.explain import explain_paths\n"
        "r = explain_paths([sys.argv[1]]).to_dict()\n"
        "hwm = [int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM:')][0]\n"
        "print(json.dumps([r['root_cause']['entry'], r['root_cause']['rank'], hwm]))\n"
    )
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-c", probe, str(path)], capture_output=True, text=True, timeout=300
    )
    elapsed = time.monotonic() - start
    assert proc.returncode == 0, proc.stderr
    entry, rank, rss_kib = json.loads(proc.stdout)
    assert (entry, rank) == ("cuda-device-side-assert", 1)
    assert rss_kib < 256 * 1024
    assert elapsed < 120


def mutate(rng: random.Random, data: bytes) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        op = rng.randrange(5)
        at = rng.randrange(len(out) + 1)
        if op == 0 and out:
            del out[at : at + rng.randint(1, 200)]
        elif op == 1:
            out[at:at] = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 50)))
        elif op == 2:
            out[at:at] = rng.choice(
                [
                    b"\r",
                    b"\x1b[31m",
                    b"\0\0\0",
                    b"\n\n",
                    b"[rank7]: ",
                    b"Traceback (most recent call last):\n",
                ]
            )
        elif op == 3 and out:
            start = rng.randrange(len(out))
            out[at:at] = out[start : start + rng.randint(1, 400)]
        else:
            out[at:at] = b"\xff\xfe\xc3"
    return bytes(out)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), which=st.integers(0, 10_000))
def test_mutated_real_logs_never_crash(seed: int, which: int, kb: KnowledgeBase) -> None:
    rng = random.Random(seed)
    data = mutate(rng, REAL_LOGS[which % len(REAL_LOGS)].read_bytes())
    report = explain_text(data.decode("utf-8", "surrogateescape"), name="mutated.log")
    check_report(report.to_dict(), kb)


@settings(max_examples=60, deadline=None)
@given(data=st.binary(max_size=3000))
def test_arbitrary_bytes_never_crash(data: bytes, kb: KnowledgeBase) -> None:
    check_report(explain_text(data.decode("utf-8", "surrogateescape")).to_dict(), kb)


def test_internal_error_is_exit_3_with_a_crash_report(
    cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import ddpdoctor.explain.api as api

    def broken(*_args: object, **_kwargs: object) -> None:
        raise ZeroDivisionError("simulated bug")

    monkeypatch.setattr(api, "diagnose", broken)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    result = cli("explain", str(SAMPLES / "srun_labels.log"))
    assert result.exit_code == 3 and result.stdout == ""
    assert result.stderr.startswith("ddpdoctor: error: internal error (ZeroDivisionError: simulated bug)")
    assert "Traceback" not in result.stderr
    assert list(tmp_path.rglob("crash-*.log"))


def test_fast_path_internal_error_is_exit_3_with_a_crash_report(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import ddpdoctor.explain.api as api
    from ddpdoctor.cli.explain_fast import fast_main

    def broken(*_args: object, **_kwargs: object) -> None:
        raise ZeroDivisionError("simulated bug")

    monkeypatch.setattr(api, "diagnose", broken)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.delenv("DDPDOCTOR_DEBUG", raising=False)
    assert fast_main(["explain", str(SAMPLES / "srun_labels.log"), "-f", "json"]) == 3
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    assert err.startswith("ddpdoctor: error: internal error (ZeroDivisionError: simulated bug)")
    assert list(tmp_path.rglob("crash-*.log"))


def test_memory_does_not_grow_with_many_files(tmp_path: Path) -> None:
    for i in range(40):
        (tmp_path / f"rank{i}.log").write_text("step 1 loss 1.0\n" * 2000)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    report = explain_paths([str(tmp_path)])
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert report.root_cause is None and len(report.inputs) == 40
    assert after - before < 200 * 1024  # KiB: buffers are sized to the files, not to 8 MiB chunks


def test_a_fifo_inside_a_folder_is_skipped(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.log")
    (tmp_path / "rank1.log").write_text("[rank1]: RuntimeError: CUDA error: device-side assert triggered\n")
    report = explain_paths([str(tmp_path)])
    assert [(Path(i["path"]).name, i.get("skipped")) for i in report.inputs] == [
        ("pipe.log", "not read: a FIFO (named pipe)"),
        ("rank1.log", None),
    ]
    assert report.root_cause is not None and report.root_cause.rank == 1
