"""dataloader.*: real DataLoaders that fail, hang, crash or work, loaded in a child process."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import pytest

from ddpdoctor.check.base import CheckContext
from ddpdoctor.check.dataloader import _split_counts, check_open_files, check_shm
from ddpdoctor.check.loader_probe import LoaderFacts, LoaderRun, run_in_child, run_in_thread
from ddpdoctor.check.runner import CheckOptions, CheckReport, run_checks
from ddpdoctor.errors import InputError
from ddpdoctor.findings import Severity
from ddpdoctor.hardware.inventory import (
    Inventory,
    SimulatedProbe,
    VisibleMapping,
    default_simulated_inventory,
)
from ddpdoctor.supervise.procfs import alive
from ddpdoctor.units import GIB

HELPERS = Path(__file__).resolve().parent / "check_helpers"
pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def in_helpers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(HELPERS)
    monkeypatch.syspath_prepend(str(HELPERS))


def run(
    factory: str, devices: str = "cuda:0,cuda:1", inventory: Inventory | None = None, **options
) -> CheckReport:
    probe = SimulatedProbe(inventory or default_simulated_inventory())
    opts = CheckOptions(
        devices=devices, dataloader=f"ddpd_loaders:{factory}", environ={}, link_kb=False, **options
    )
    return run_checks(opts, probe)


def of(report: CheckReport, check_id: str, *severities: Severity) -> list:
    return [f for f in report.findings if f.id == check_id and (not severities or f.severity in severities)]


def test_missing_shard_in_a_worker_is_one_readable_finding() -> None:
    report = run("missing_shard_in_worker", timeout=30)
    errors = of(report, "dataloader.first-batch", Severity.ERROR)
    assert len(errors) == 1
    error = errors[0]
    assert error.title.startswith(
        "the data loader failed: FileNotFoundError: [Errno 2] No such file or directory"
    )
    assert "shard-00000.bin" in error.title and "DataLoader worker process 0" in error.message
    assert error.evidence[0].file and error.evidence[0].file.endswith("ddpd_loaders.py")
    assert error.data["worker"] == 0 and error.entry == "dataloader-worker-exception"
    assert not of(report, "dataloader.timeout", Severity.ERROR)


def test_missing_shard_in_the_main_process() -> None:
    error = of(run("missing_shard_in_main", timeout=30), "dataloader.first-batch", Severity.ERROR)[0]
    assert "in the main process" in error.message and error.data["worker"] is None


def test_a_hang_is_killed_within_the_timeout_and_names_the_line() -> None:
    start = time.monotonic()
    report = run("hangs_in_main", timeout=3)
    assert time.monotonic() - start < 30
    error = of(report, "dataloader.timeout", Severity.ERROR)[0]
    assert "no result within 3 s" in error.title
    assert any("time.sleep(600)" in e.text for e in error.evidence)


def test_a_hang_in_a_worker_says_the_main_process_was_waiting() -> None:
    error = of(run("hangs_in_worker", timeout=3), "dataloader.timeout", Severity.ERROR)[0]
    assert "waiting for DataLoader workers" in error.message


def test_a_crash_is_reported_with_the_signal() -> None:
    error = of(run("crashes", timeout=30), "dataloader.first-batch", Severity.ERROR)[0]
    assert "SIGSEGV" in error.title and error.entry == "dataloader-worker-segfault"
    assert any("os.kill" in e.text for e in error.evidence)


def test_a_factory_exception_is_a_finding() -> None:
    error = of(run("factory_raises", timeout=30), "dataloader.first-batch", Severity.ERROR)[0]
    assert "ValueError: dataset root /data/imagenet is not configured" in error.title
    assert error.data["stage"] == "build"


def test_unimportable_factory_is_a_usage_error() -> None:
    with pytest.raises(InputError, match="has no attribute 'nope'"):
        run_in_child("ddpd_loaders:nope", timeout=30)


def test_a_working_loader_passes_and_ignores_user_prints() -> None:
    report = run("prints_noise", devices="cuda:0", timeout=30)
    assert report.ok and not report.has_warnings()
    ok = of(report, "dataloader.first-batch", Severity.OK)[0]
    assert "2 batch(es) loaded" in ok.title


def test_uneven_split_suggests_drop_last_or_distributed_sampler() -> None:
    warning = of(run("uneven", timeout=30), "dataloader.uneven-batches", Severity.WARNING)[0]
    assert warning.data["counts"] == [1, 2]
    assert any("drop_last" in s for s in warning.solutions)
    assert any("DistributedSampler" in s for s in warning.solutions)


def uneven_verdict(factory: str, ranks: int) -> Severity:
    """The uneven-batches verdict for a loader's own facts, without a child process."""
    import ddpd_loaders

    from ddpdoctor.check.dataloader import check_uneven_batches
    from ddpdoctor.check.devices import parse_device_list, resolve_devices
    from ddpdoctor.check.loader_probe import loader_facts

    inv = default_simulated_inventory()
    mapping = VisibleMapping(None, (0, 1, 2, 3))
    devices = resolve_devices(parse_device_list(",".join(f"cuda:{i}" for i in range(ranks))), inv, mapping)
    loaded = LoaderRun(facts=loader_facts(getattr(ddpd_loaders, factory)()))
    ctx = CheckContext(inv, {}, mapping, devices, loader=loaded)
    return check_uneven_batches(ctx)[0].severity


def test_drop_last_and_distributed_sampler_even_the_split() -> None:
    assert uneven_verdict("uneven", 2) is Severity.WARNING
    assert uneven_verdict("uneven_drop_last", 2) is Severity.OK
    assert uneven_verdict("distributed_sampler", 2) is Severity.OK
    assert uneven_verdict("distributed_sampler", 3) is Severity.WARNING


def test_workers_against_cpus_and_shm() -> None:
    small = replace(default_simulated_inventory(), cpu_count=4, shm_total=1 * 1024**2, shm_free=1 * 1024**2)
    report = run("big_batches", devices="0,1,2,3", inventory=small, timeout=60)
    workers = of(report, "dataloader.num-workers", Severity.WARNING)[0]
    assert workers.data == {"num_workers": 2, "ranks": 4, "cpus": 4}
    shm = of(report, "dataloader.shm", Severity.ERROR)[0]
    assert shm.data["batch_bytes"] == 1024**2 and shm.data["need"] == 16 * 1024**2


def test_roomy_shm_passes_and_small_shm_warns() -> None:
    facts = LoaderFacts("DataLoader", num_workers=2, batch_size=4)
    loaded = LoaderRun(facts=facts, batch_seconds=[0.1], batch_bytes=[1024])

    def verdict(shm: int) -> Severity:
        inv = replace(default_simulated_inventory(), shm_total=shm, shm_free=shm)
        ctx = CheckContext(inv, {}, VisibleMapping(None, (0,)), (), loader=loaded)
        return check_shm(ctx)[0].severity

    assert verdict(8 * GIB) is Severity.OK
    assert verdict(64 * 1024**2) is Severity.WARNING


def test_open_files_limit_against_the_batches_in_flight() -> None:
    resource = pytest.importorskip("resource")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 4096:
        pytest.skip(f"the hard open-files limit {hard} is too low to try a roomy one")

    def verdict(limit: int, workers: int):
        loaded = LoaderRun(facts=LoaderFacts("DataLoader", num_workers=workers, prefetch_factor=2))
        ctx = CheckContext(default_simulated_inventory(), {}, VisibleMapping(None, (0,)), (), loader=loaded)
        # The check reads this process's real limit; lowering the soft limit needs no privilege.
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))
        try:
            return check_open_files(ctx)
        finally:
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

    (tight,) = verdict(1024, workers=8)
    assert tight.severity is Severity.WARNING and "~64 descriptors per batch" in tight.title
    assert tight.data == {"soft_limit": 1024, "hard_limit": hard, "batches_in_flight": 16}
    assert tight.entry == "dataloader-too-many-open-files" and "ulimit -n" in tight.solutions[0]
    assert [f.severity for f in verdict(4096, workers=8)] == [Severity.OK]
    assert verdict(1024, workers=0) == []


def test_split_counts_mirror_a_contiguous_split() -> None:
    assert _split_counts(11, 2, 5, False) == [1, 2]
    assert _split_counts(11, 2, 5, True) == [1, 1]
    assert _split_counts(16, 4, 4, False) == [1, 1, 1, 1]


def test_in_thread_runs_for_preflight() -> None:
    import ddpd_loaders

    fine = run_in_thread(ddpd_loaders.fine(), batches=2, timeout=10)
    assert fine.error is None and len(fine.batch_seconds) == 2 and fine.facts and fine.facts.batch_size == 4
    broken = run_in_thread(ddpd_loaders.missing_shard_in_main(), timeout=10)
    assert broken.error is not None and broken.error.type == "FileNotFoundError"
    stuck = run_in_thread(ddpd_loaders.hangs_in_main(), timeout=1)
    assert stuck.timed_out == "batches" and "time.sleep(600)" in stuck.stack


# --- loaders that misbehave: each class of failure is reported as what it is ----------------------


def test_a_loader_that_ends_its_process_does_not_pass() -> None:
    report = run("exits_early", devices="cuda:0", timeout=30)
    error = of(report, "dataloader.first-batch", Severity.ERROR)[0]
    assert "exit code 0" in error.title and not report.ok
    assert not of(report, "dataloader.first-batch", Severity.OK)


def test_a_loader_property_that_raises_is_reported_as_that_exception() -> None:
    error = of(
        run("property_raises", devices="cuda:0", timeout=30), "dataloader.first-batch", Severity.ERROR
    )[0]
    assert "RuntimeError: the loader's settings cannot be read" in error.title
    assert "SIGKILL" not in error.title + error.message and error.data["stage"] == "build"


def test_a_50_mb_exception_message_is_reported_not_taken_for_a_hang() -> None:
    report = run("loud", devices="cuda:0", timeout=60)
    error = of(report, "dataloader.first-batch", Severity.ERROR)[0]
    assert "ValueError: corrupt record: xxx" in error.title and len(error.title) <= 400
    assert not of(report, "dataloader.timeout", Severity.ERROR)


def test_a_loader_past_the_memory_cap_is_a_clear_finding() -> None:
    report = run("hungry", devices="cuda:0", timeout=60, loader_memory="512MiB")
    error = of(report, "dataloader.first-batch", Severity.ERROR)[0]
    assert error.data["memory_limit"] == 512 * 1024**2
    assert "memory cap of 512.0 MiB" in error.message
    assert error.category == "oom_host" or error.data.get("crash")


def test_a_worker_killed_by_a_signal_names_the_signal_and_the_dataset_line() -> None:
    error = of(
        run("crashes_in_worker", devices="cuda:0", timeout=60), "dataloader.first-batch", Severity.ERROR
    )[0]
    assert "SIGSEGV" in error.title and error.data["worker"] is True
    assert any("ddpd_loaders.py" in (e.file or "") and "os.kill" in e.text for e in error.evidence), (
        error.evidence
    )


def test_probe_children_die_with_ddpdoctor_on_sigterm(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys

    pids = tmp_path / "pids"
    code = (
        "import sys; from ddpdoctor.check.loader_probe import run_in_child; "
        "run_in_child('ddpd_loaders:spawns_and_hangs', timeout=300)"
    )
    env = {
        **os.environ,
        "DDPD_HELPER_PID_FILE": str(pids),
        "PYTHONPATH": f"{HELPERS}{os.pathsep}{Path.cwd()}",
    }
    parent = subprocess.Popen([sys.executable, "-c", code], env=env, cwd=HELPERS)
    try:
        deadline = time.monotonic() + 60
        while not (pids.exists() and pids.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.2)
        child, helper = map(int, pids.read_text().split())
        parent.send_signal(signal.SIGTERM)
        parent.wait(timeout=30)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and alive([child, helper]):
            time.sleep(0.2)
        assert not alive([child, helper])
    finally:
        parent.kill()
        parent.wait()
