"""The Burn-model runtime, piece by piece, in-process: real threads, real tensors, exact texts."""

from __future__ import annotations

import io
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest

from ddpdoctor.errors import InputError
from ddpdoctor.runtime import (
    BurnVersion,
    DdpRuntime,
    Fault,
    FaultKind,
    RuntimeConfig,
    RustPanic,
    RustStyle,
    run,
)
from ddpdoctor.runtime.collective import Participant, stall_report
from ddpdoctor.runtime.model import TinyRegression, batches_of, split_items
from ddpdoctor.runtime.panic import (
    BACKTRACE_NOTE,
    UNKNOWN_PANIC,
    Location,
    PanicHook,
    panic_message,
)
from ddpdoctor.runtime.sync import Halted

torch = pytest.importorskip("torch")

OUTER = "Distributed data parallel"


@pytest.fixture(autouse=True)
def no_thread_left_behind() -> Iterator[None]:
    """Every test must end with exactly the threads it started with."""
    before = set(threading.enumerate())
    yield
    deadline = time.monotonic() + 5
    while set(threading.enumerate()) - before and time.monotonic() < deadline:
        time.sleep(0.02)
    left = [t.name for t in set(threading.enumerate()) - before]
    assert not left, f"threads left behind: {left}"


def config(*faults: str, devices: str = "cpu:0,cpu:1,cpu:2", **kwargs: object) -> RuntimeConfig:
    return RuntimeConfig(
        devices=tuple(devices.split(",")) if devices else (),
        faults=tuple(Fault.parse(f) for f in faults),
        items=kwargs.pop("items", 24),  # type: ignore[arg-type]
        **kwargs,  # type: ignore[arg-type]
    )


def outer_line(text: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(OUTER))


# --- panic format ----------------------------------------------------------------------------


def test_panic_message_keeps_strings_and_falls_back_for_other_payloads() -> None:
    assert panic_message("boom") == "boom"
    assert panic_message("line one\nline two") == "line one\nline two"
    assert panic_message(("a tuple", 1)) == UNKNOWN_PANIC
    assert panic_message(42) == "unknown panic in distributed data parallel worker"


@pytest.mark.parametrize(
    ("style", "expected"),
    [
        (RustStyle.MODERN_TID, "\nthread '<unnamed>' (7) panicked at src/x.rs:1:2:\nboom\n"),
        (RustStyle.MODERN, "\nthread '<unnamed>' panicked at src/x.rs:1:2:\nboom\n"),
        (RustStyle.LEGACY, "thread '<unnamed>' panicked at 'boom', src/x.rs:1:2\n"),
    ],
)
def test_panic_block_in_each_rust_format(style: RustStyle, expected: str) -> None:
    hook = PanicHook(io.StringIO(), style=style)
    assert hook.format_block("<unnamed>", 7, Location("src/x.rs", 1, 2), "boom") == expected


def test_backtrace_note_only_after_the_first_panic_and_banner_before_each(tmp_path) -> None:
    stream = io.StringIO()
    hook = PanicHook(stream, experiment_log=tmp_path / "experiment.log")
    hook.emit("<unnamed>", 11, Location("a.rs", 1, 1), "first")
    hook.emit("main", 10, Location("b.rs", 2, 2), ("not", "a string"))
    text = stream.getvalue()
    assert text.count(BACKTRACE_NOTE) == 1
    assert text.index(BACKTRACE_NOTE) < text.index("thread 'main' (10)")
    assert text.count("=== PANIC ===") == 2
    assert text.startswith(
        "=== PANIC ===\nA fatal error happened, you can check the experiment logs here => '"
    )
    assert "\nBox<dyn Any>\n" in text
    assert "PANIC => panicked at a.rs:1:1:\nfirst" in (tmp_path / "experiment.log").read_text()


# --- data split and fault specs --------------------------------------------------------------


def test_split_gives_the_last_device_the_remainder() -> None:
    assert [len(s) for s in split_items(50, 3)] == [16, 16, 18]
    assert split_items(50, 3)[2] == range(32, 50)
    assert split_items(7, 1) == [range(7)]
    assert [len(b) for b in batches_of(range(32, 50), 4)] == [4, 4, 4, 4, 2]


def test_fault_specs_round_trip_and_reject_bad_input() -> None:
    fault = Fault.parse("oom@2:3")
    assert (fault.kind, fault.device, fault.step) == (FaultKind.OOM, 2, 3)
    assert Fault.parse("delay@0:1=0.25").seconds == 0.25
    assert Fault.parse("panic@1:2=custom text").text == "custom text"
    for spec in ("oom@2", "explode@0:1", "oom@0:0", "delay@0:1=soon"):
        with pytest.raises(InputError):
            Fault.parse(spec)
    assert Fault.parse("stall@1:2").spec() == "stall@1:2"


def test_config_rejects_a_fault_on_a_missing_device() -> None:
    with pytest.raises(InputError, match=r"devices\[5\]"):
        config("oom@5:1")


# --- training for real -------------------------------------------------------------------------


def test_healthy_run_averages_real_gradients_like_one_big_batch() -> None:
    cfg = config(devices="cpu:0,cpu:1", items=16, batch_size=4)
    result, failure, runtime = run(cfg, io.StringIO())
    assert failure is None and result is not None
    assert result.steps == {0: 2, 1: 2} and result.reduced_rounds == 2
    assert result.items_seen == {0: 8, 1: 8} and result.checkpoints == [1]
    # The same two steps on one model, each on the union of both devices' batches.
    data = TinyRegression(20, cfg.seed)
    reference = data.fork()
    slices = split_items(16, 2)
    for step in range(2):
        items = [batches_of(s, 4)[step] for s in slices]
        inputs = torch.cat([data.batch(i).inputs for i in items])
        targets = torch.cat([data.batch(i).targets for i in items])
        loss = torch.nn.functional.mse_loss(reference(inputs), targets)
        torch.autograd.backward([loss])
        with torch.no_grad():
            for param in reference.parameters():
                param -= 0.05 * param.grad
                param.grad = None
    for ours, theirs in zip(result.model.parameters(), reference.parameters(), strict=True):
        assert torch.allclose(ours, theirs, atol=1e-6)
    assert runtime.scope.alive() == []


@pytest.mark.parametrize(
    ("device", "expected"), [(0, "main worker failed"), (1, "worker 0 failed"), (2, "worker 1 failed")]
)
def test_worker_numbering_starts_at_zero_after_the_main_device(device: int, expected: str) -> None:
    stream = io.StringIO()
    _, failure, _ = run(config(f"panic@{device}:2=boom on devices[{device}]"), stream)
    assert failure is not None
    assert outer_line(stream.getvalue()) == f"{OUTER} {expected}: boom on devices[{device}]"


def test_reports_in_completion_order_not_list_order() -> None:
    # devices[1] fails late, devices[2] early: the first failure to complete is reported.
    stream = io.StringIO()
    _, failure, _ = run(config("delay@1:1=0.6", "panic@1:1=late", "panic@2:1=early"), stream)
    assert failure is not None
    assert outer_line(stream.getvalue()) == f"{OUTER} worker 1 failed: early"


def test_inner_panic_is_printed_before_the_outer_one_on_main() -> None:
    stream = io.StringIO()
    _, failure, _ = run(config("oom@2:2"), stream)
    text = stream.getvalue()
    inner = text.index("thread '<unnamed>' (")
    outer = text.index("thread 'main' (")
    assert inner < outer
    assert text.count(BACKTRACE_NOTE) == 1 and inner < text.index(BACKTRACE_NOTE) < outer
    assert "strategy.rs:163:25:\n" in text
    assert re.search(
        r"failed to reserve \d+ bytes of device memory: out of device memory allocating \d+ bytes", text
    )
    assert isinstance(failure, RustPanic)


def test_non_string_payload_gets_the_fallback_message() -> None:
    stream = io.StringIO()
    run(config("panic-any@0:1"), stream)
    text = stream.getvalue()
    assert "\nBox<dyn Any>\n" in text
    assert outer_line(text) == f"{OUTER} main worker failed: {UNKNOWN_PANIC}"


def test_empty_devices_list_panics_in_the_strategy() -> None:
    stream = io.StringIO()
    _, failure, _ = run(config(devices=""), stream)
    assert failure is not None
    assert "strategy.rs:75:48:\ncalled `Option::unwrap()` on a `None` value\n" in stream.getvalue()


def test_default_mode_stops_the_others_within_a_second() -> None:
    runtime = DdpRuntime(config("oom@1:2"), io.StringIO())
    with runtime, pytest.raises(RustPanic):
        runtime.fit()
    report = runtime.scope.first("report")
    stopped = runtime.scope.first("others stopped")
    assert report is not None and stopped is not None
    assert stopped - report < 1.0
    assert runtime.still_running == []


def test_faithful_mode_leaves_the_others_blocked_until_the_process_ends() -> None:
    runtime = DdpRuntime(config("oom@1:2", faithful=True), io.StringIO())
    with runtime:
        with pytest.raises(RustPanic):
            runtime.fit()
        time.sleep(0.5)
        blocked = [name for name in runtime.scope.alive() if name.startswith("ddp-worker-")]
        assert blocked == ["ddp-worker-0", "ddp-worker-2"]
    assert runtime.scope.alive() == []


def test_stall_is_reported_after_the_timeout_and_names_the_stalled_worker() -> None:
    stream = io.StringIO()
    runtime = DdpRuntime(config("stall@1:2", timeout=1.0), stream)
    with runtime, pytest.raises(RustPanic):
        runtime.fit()
    fault, report = runtime.scope.first("fault stall"), runtime.scope.first("report")
    assert fault is not None and report is not None
    assert 1.0 <= report - fault < 2.0
    expected = stall_report(1.0, 2, [Participant(1, "cpu:1")])
    assert expected in outer_line(stream.getvalue())
    assert runtime.still_running == ["worker 0 (devices[1] = cpu:1)"]
    assert "still running 1 s after the failure: worker 0 (devices[1] = cpu:1)" in stream.getvalue()


def test_dataloader_error_stops_training_without_a_panic_in_default_mode() -> None:
    stream = io.StringIO()
    result, failure, _ = run(config("dataloader@0:2", devices="cpu:0,cpu:1"), stream)
    assert failure is None and result is not None
    assert result.interrupted is not None
    assert result.interrupted.startswith("dataset error during training: I/O error: `failed to read item 4:")
    assert (
        "WARN burn_train::learner::supervised::strategies::ddp::strategy: Training interrupted: dataset"
        in (stream.getvalue())
    )


def test_metric_panic_on_the_event_thread_surfaces_as_send_error_and_poison() -> None:
    stream = io.StringIO()
    _, failure, _ = run(config("metric@0:1"), stream)
    text = stream.getvalue()
    assert failure is not None
    first = text.index("thread 'train-worker' (")
    assert first < text.index(
        "async_wrapper.rs:109:58:\ncalled `Result::unwrap()` on an `Err` value: SendError(..)"
    )
    assert (
        "assertion `left == right` failed: the metric expects one target per prediction\n  left: 4\n right: 3"
        in text
    )
    assert outer_line(text).endswith(("SendError(..)", "PoisonError { .. }")), (
        "the supervisor reports a symptom, not the metric's panic"
    )


def test_duplicate_device_drops_a_callback_in_the_sync_server() -> None:
    stream = io.StringIO()
    _, failure, _ = run(config("delay@0:1=0.8", "delay@2:1=0.3", devices="cpu:0,cpu:1,cpu:1"), stream)
    text = stream.getvalue()
    assert failure is not None
    assert "client.rs:67:30:\nCan receive callback: RecvError\n" in text
    assert outer_line(text) == f"{OUTER} worker 0 failed: Can receive callback: RecvError"


# --- legacy (Burn <= 0.21) ---------------------------------------------------------------------


def test_legacy_reports_any_when_the_first_joined_worker_fails() -> None:
    stream = io.StringIO()
    _, failure, _ = run(
        config("oom@1:2", devices="cpu:0,cpu:1", burn=BurnVersion.LEGACY, faithful=True), stream
    )
    text = stream.getvalue()
    assert failure is not None
    assert "thread 'main' panicked at " in text and "burn-train-0.20.1/" in text
    assert "strategy.rs:118:18:\nDistributed data parallel worker failed: Any { .. }\n" in text
    assert 'Torch("CUDA out of memory. Tried to allocate 1.00 GiB. GPU 1 has a total capacity' in text


def test_legacy_in_order_join_hangs_when_an_earlier_worker_is_blocked() -> None:
    stream = io.StringIO()
    runtime = DdpRuntime(config("oom@2:2", burn=BurnVersion.LEGACY, faithful=True), stream)
    outcome: list[BaseException | None] = []

    def fit() -> None:
        try:
            runtime.fit()
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)

    watched = threading.Thread(target=fit, name="legacy-fit")
    watched.start()
    watched.join(timeout=3.0)
    hung = watched.is_alive()
    left = runtime.close()
    watched.join(timeout=5.0)
    assert hung, "the legacy supervisor should block on worker 0, which waits for the dead worker 1"
    assert left == []
    assert len(outcome) == 1 and isinstance(outcome[0], Halted), "fit unwinds only when the run is closed"
    assert OUTER not in stream.getvalue()
    assert stream.getvalue().count("panicked at") == 1


# --- the runtime as a process ------------------------------------------------------------------


def test_runtime_process_exit_codes() -> None:
    def status(*args: str) -> tuple[int, str]:
        proc = subprocess.run(
            [sys.executable, "-m", "ddpdoctor.runtime", *args], capture_output=True, text=True, timeout=60
        )
        return proc.returncode, proc.stderr

    code, err = status("--fault", "nonsense")
    assert code == 2 and "bad fault spec" in err
    code, err = status("--devices", "cpu:0,cpu:1", "--items", "8")
    assert code == 0 and err == ""
    code, err = status("--devices", "cpu:0,cpu:1", "--fault", "panic@1:1=boom")
    assert code == 101 and err.endswith(f"{OUTER} worker 0 failed: boom\n")
