"""check --distributed, in-process: launch variables, templates, rank-0 analysis, store coordination."""

from __future__ import annotations

import json
import socket
import time
from dataclasses import replace

import pytest

from ddpdoctor.check.base import finding
from ddpdoctor.check.grouping import rank_list
from ddpdoctor.check.registry import all_checks
from ddpdoctor.distributed.analysis import (
    analyse,
    duplicate_devices,
    env_mismatches,
    memory_imbalance,
    version_mismatches,
    world_size,
)
from ddpdoctor.distributed.collectives import (
    BandwidthRow,
    CollectiveResult,
    bus_bandwidth,
    check_barrier,
    monitored_barrier_ranks,
)
from ddpdoctor.distributed.facts import JobFacts, RankFacts
from ddpdoctor.distributed.launch import LaunchInfo, expand_device_template, launch_from_env
from ddpdoctor.distributed.rendezvous import Coordinator, StoreUnavailable, open_store
from ddpdoctor.distributed.report import DistributedCheckReport
from ddpdoctor.distributed.runner import collective_findings, drop_superseded_passes, merge_rank_findings
from ddpdoctor.errors import InputError
from ddpdoctor.findings import Severity
from ddpdoctor.kb.loader import load_categories
from ddpdoctor.units import GIB

LAUNCH = {
    "RANK": "1",
    "WORLD_SIZE": "4",
    "LOCAL_RANK": "1",
    "MASTER_ADDR": "127.0.0.1",
    "MASTER_PORT": "29500",
}
VERSIONS = {"torch": "2.5.1", "cuda": "12.4", "nccl": "2.21.5", "python": "3.11.7", "ddpdoctor": "0.1.0"}


def facts(rank: int, **changes: object) -> RankFacts:
    """A GPU rank on host `a`: rank r on cuda:r with its own UUID and 70 GiB free."""
    base = RankFacts(
        rank=rank,
        local_rank=rank,
        world_size=4,
        local_world_size=4,
        node_rank=0,
        host="a",
        pid=1000 + rank,
        device=f"cuda:{rank}",
        device_type="cuda",
        gpu={
            "index": rank,
            "name": "A100",
            "uuid": f"GPU-{rank}",
            "pci_bus_id": f"0000:{rank:02X}:00.0",
            "memory_total": 80 * GIB,
            "memory_free": 70 * GIB,
        },
        versions=dict(VERSIONS),
        env={"NCCL_DEBUG": "WARN"},
        inventory="test",
    )
    return replace(base, **changes)  # type: ignore[arg-type]


def job(ranks: list[RankFacts], world_size: int = 4) -> JobFacts:
    return JobFacts(tuple(ranks), world_size)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# --- launch variables and device templates ---------------------------------------------------


def test_launch_reads_torchrun_variables() -> None:
    launch = launch_from_env(
        {**LAUNCH, "LOCAL_WORLD_SIZE": "2", "GROUP_RANK": "0", "TORCHELASTIC_RUN_ID": "x"}
    )
    assert (launch.rank, launch.world_size, launch.local_rank, launch.local_world_size) == (1, 4, 1, 2)
    assert launch.launcher == "torchrun" and launch.master_port == 29500


def test_launch_falls_back_to_slurm_variables() -> None:
    env = {"SLURM_PROCID": "5", "SLURM_NTASKS": "8", "SLURM_LOCALID": "1", "SLURM_NTASKS_PER_NODE": "4(x2)"}
    launch = launch_from_env({**env, "MASTER_ADDR": "node1", "MASTER_PORT": "29500"})
    assert (launch.rank, launch.world_size, launch.local_rank, launch.local_world_size) == (5, 8, 1, 4)
    assert launch.launcher == "slurm"


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"RANK": None}, "RANK is not set"),
        ({"MASTER_PORT": None}, "MASTER_PORT"),
        ({"RANK": "4"}, "RANK=4 is not below WORLD_SIZE=4"),
        ({"WORLD_SIZE": "four"}, "WORLD_SIZE='four'"),
        ({"MASTER_PORT": "70000"}, "MASTER_PORT='70000' is not a whole number from 0 to 65535"),
        ({"MASTER_PORT": "0"}, "not a port number"),
        ({"RANK": "²"}, "RANK='²' is not a whole number"),
        (
            {"WORLD_SIZE": "1000000000000"},
            "WORLD_SIZE='1000000000000' is not a whole number from 1 to 1048576",
        ),
        ({"WORLD_SIZE": "9" * 5000}, "WORLD_SIZE='99999"),
        ({"LOCAL_RANK": "٣"}, "LOCAL_RANK='٣'"),
        ({"LOCAL_WORLD_SIZE": "1"}, "LOCAL_RANK=1 is not below LOCAL_WORLD_SIZE=1"),
    ],
)
def test_launch_rejects_bad_variables(change: dict[str, str | None], needle: str) -> None:
    env = {**LAUNCH, **change}
    with pytest.raises(InputError, match=needle.replace("(", r"\(")):
        launch_from_env({k: v for k, v in env.items() if v is not None})


def test_device_template_expands_fields() -> None:
    launch = launch_from_env({**LAUNCH, "RANK": "3", "LOCAL_RANK": "1"})
    assert expand_device_template("cuda:{local_rank}", launch) == "cuda:1"
    assert expand_device_template("cuda:{rank}", launch) == "cuda:3"
    assert expand_device_template("cpu", launch) == "cpu"
    with pytest.raises(InputError, match="unknown field"):
        expand_device_template("cuda:{gpu}", launch)
    with pytest.raises(InputError, match="cannot read"):
        expand_device_template("cuda:{local_rank", launch)


# --- rank-0 analysis ----------------------------------------------------------------------------


def test_two_ranks_on_one_gpu_are_a_duplicate_across_ranks() -> None:
    ranks = [facts(0), facts(1, gpu={**facts(0).gpu, "memory_free": 70 * GIB}, device="cuda:0"), facts(2)]  # type: ignore[dict-item]
    found = duplicate_devices(job(ranks))
    assert [(f.id, f.severity, f.rank) for f in found] == [("device.duplicate", Severity.ERROR, 1)]
    assert found[0].data["ranks"] == [0, 1] and found[0].category == "duplicate_device"


def test_same_uuid_on_two_hosts_is_not_a_duplicate() -> None:
    ranks = [facts(0), facts(1, host="b", gpu=facts(0).gpu)]
    assert [f.severity for f in duplicate_devices(job(ranks))] == [Severity.OK]


def test_version_mismatch_is_an_error_for_nccl_and_a_warning_for_python() -> None:
    ranks = [
        facts(0),
        facts(1),
        facts(2, versions={**VERSIONS, "nccl": "2.18.1"}),
        facts(3, versions={**VERSIONS, "python": "3.10.4"}),
    ]
    found = {f.data["component"]: f for f in version_mismatches(job(ranks))}
    assert found["nccl"].severity is Severity.ERROR and found["nccl"].rank == 2
    assert "2.18.1 on rank 2" in found["nccl"].message
    assert found["python"].severity is Severity.WARNING and found["python"].rank == 3
    assert [f.severity for f in version_mismatches(job([facts(0), facts(1)]))] == [Severity.OK]


def test_world_size_against_nodes_and_local_ranks() -> None:
    good = [facts(r, host="ab"[r // 2], local_rank=r % 2, local_world_size=2) for r in range(4)]
    assert [(f.severity, f.data.get("nodes")) for f in world_size(job(good))] == [(Severity.OK, 2)]
    clash = [*good[:3], replace(good[3], local_rank=0)]
    assert any("same LOCAL_RANK" in f.title for f in world_size(job(clash)))
    declared = [replace(f, local_world_size=4) for f in good]
    assert any("LOCAL_WORLD_SIZE says 4" in f.title for f in world_size(job(declared)))
    uneven = [*good[:3], replace(good[3], host="c", local_rank=0, local_world_size=1)]
    assert any(f.severity is Severity.WARNING for f in world_size(job(uneven)))
    assert world_size(job(good[:3])) == []


def test_env_mismatch_and_memory_imbalance() -> None:
    ranks = [facts(0), facts(1, env={"NCCL_DEBUG": "INFO"}), facts(2, env={})]
    (mismatch,) = env_mismatches(job(ranks))
    assert mismatch.severity is Severity.WARNING and "NCCL_DEBUG" in mismatch.data
    poor = facts(2, gpu={**facts(2).gpu, "memory_free": 40 * GIB})  # type: ignore[dict-item]
    (imbalance,) = memory_imbalance(job([facts(0), facts(1), poor]))
    assert imbalance.severity is Severity.WARNING and imbalance.rank == 2
    assert memory_imbalance(job([facts(0), facts(1)]))[0].severity is Severity.OK


def test_analyse_healthy_job_has_no_problem() -> None:
    found = analyse([facts(r) for r in range(4)], 4)
    assert [(f.id, f.severity) for f in found] == [
        ("device.duplicate", Severity.OK),
        ("dist.versions", Severity.OK),
        ("dist.world-size", Severity.OK),
        ("dist.memory-imbalance", Severity.OK),
    ]


def test_catalog_categories_are_from_the_closed_list() -> None:
    categories = set(load_categories())
    assert {c.category for c in all_checks()} <= categories
    assert rank_list([0, 1, 2, 5, 7, 8]) == "0-2, 5, 7, 8"


# --- merging and collective results ----------------------------------------------------------


def test_rank_findings_fold_passes_and_identical_problems() -> None:
    ok = [finding("device.unavailable", Severity.OK, "fine", rank=r) for r in range(3)]
    warn = [finding("dist.env-mismatch", Severity.WARNING, "same", rank=r) for r in (1, 2)]
    ranks = [facts(r, findings=(ok[r], *([warn[r - 1]] if r else []))) for r in range(3)]
    merged = merge_rank_findings(ranks)
    assert [(f.id, f.rank, f.data.get("ranks")) for f in merged] == [
        ("device.unavailable", None, [0, 1, 2]),
        ("dist.env-mismatch", 1, [1, 2]),
    ]
    assert "(on ranks 1, 2)" in merged[1].message
    flagged = [*merged, finding("device.unavailable", Severity.ERROR, "gone")]
    assert [f.severity for f in drop_superseded_passes(flagged)] == [Severity.WARNING, Severity.ERROR]


def _results(failed: dict[str, CollectiveResult] | None = None) -> list[CollectiveResult]:
    failed = failed or {}
    return [
        failed.get(t, CollectiveResult(t, "ok"))
        for t in ("process_group", "barrier", "all_reduce", "broadcast")
    ]


def test_collective_findings_pass_and_name_failures() -> None:
    row = BandwidthRow(1024, 256, "float32", 10, 100.0, 0.01024, bus_bandwidth(0.01024, 4))
    found = collective_findings({r: _results() for r in range(4)}, [], [row], backend="gloo", timeout=5)
    ids = {f.id: f.severity for f in found}
    assert ids["collective.all_reduce"] is Severity.OK and ids["collective.bandwidth"] is Severity.INFO
    barrier = CollectiveResult(
        "barrier", "failed", "Ranks 2 failed to pass monitoredBarrier", {"missing": [2]}
    )
    failing = collective_findings(
        {0: _results({"barrier": barrier}), 1: _results()}, [3], [], backend="gloo", timeout=5
    )
    errors = {f.id: f for f in failing if f.severity is Severity.ERROR}
    assert errors["collective.barrier"].title == "rank 2 never reached the barrier"
    assert errors["dist.rank-lost"].rank == 3


def test_bus_bandwidth_and_monitored_barrier_message() -> None:
    assert bus_bandwidth(10.0, 4) == pytest.approx(15.0)
    assert bus_bandwidth(10.0, 2) == pytest.approx(10.0)
    assert bus_bandwidth(10.0, 1) == 0.0
    assert monitored_barrier_ranks("[Rank 0]: Ranks 1, 2 failed to pass monitoredBarrier in 2000 ms") == [
        1,
        2,
    ]
    assert monitored_barrier_ranks("[Rank 0]: Rank 3 failed to pass monitoredBarrier in 5000 ms") == [3]


def test_report_json_has_ranks_and_nonzero_rank_follows_verdict() -> None:
    ranks = [facts(0), facts(1)]
    report = DistributedCheckReport(schema="ddpdoctor.check/1", world_size=2, backend="nccl", ranks=ranks)
    data = json.loads(json.dumps(report.to_dict()))
    assert list(data) == [
        "schema",
        "ok",
        "findings",
        "devices",
        "inventory",
        "rank",
        "world_size",
        "backend",
        "timeout_s",
        "ranks",
        "bandwidth",
    ]
    assert data["schema"] == "ddpdoctor.check/1" and data["ok"] is True and data["inventory"] is None
    assert report.summary() == "all checks passed; 2 of 2 rank(s) reported"
    assert [r["rank"] for r in data["ranks"]] == [0, 1] and data["devices"][1]["device"] == "cuda:1"
    follower = DistributedCheckReport(schema="ddpdoctor.check/1", rank=1, job_ok=False)
    assert follower.ok and int(follower.exit_code()) == 1
    assert RankFacts.from_json(facts(1).to_json()) == facts(1)


# --- store coordination (a real TCPStore) ----------------------------------------------------


def _launch(rank: int, port: int, world: int) -> LaunchInfo:
    return LaunchInfo(rank, world, rank, world, 0, "127.0.0.1", port, "env", run_id="test")


def test_gather_names_ranks_that_never_publish() -> None:
    port = free_port()
    server = open_store(_launch(0, port, 3), 5)
    client = open_store(_launch(2, port, 3), 5)
    lead, other = Coordinator(server, 0, 3), Coordinator(client, 2, 3)
    lead.publish("facts", "zero")
    other.publish("facts", "two")
    start = time.monotonic()
    gathered = lead.gather("facts", 0.5)
    assert time.monotonic() - start < 3
    assert gathered.missing == [1] and gathered.payloads == {0: "zero", 2: "two"}
    lead.announce("verdict", "stop")
    assert other.await_announcement("verdict", 2) == "stop"
    with pytest.raises(StoreUnavailable, match="did not announce 'closed'"):
        other.await_announcement("closed", 0.3)


def test_unreachable_store_is_reported_within_the_timeout() -> None:
    start = time.monotonic()
    with pytest.raises(StoreUnavailable, match="could not reach the rendezvous store"):
        open_store(_launch(1, free_port(), 2), 1)
    assert time.monotonic() - start < 10


def test_store_barrier_names_the_rank_that_never_arrives() -> None:
    port = free_port()
    lead = Coordinator(open_store(_launch(0, port, 2), 5), 0, 2)
    follower = Coordinator(open_store(_launch(1, port, 2), 5), 1, 2)
    # The store check runs before any collective, so no process group is needed when a rank is missing.
    result = check_barrier(None, "nccl", lead, 0.5, None)
    assert (result.status, result.data["missing"]) == ("failed", [1])
    assert follower.await_announcement("barrier", 1) == "1"
    lonely = Coordinator(open_store(_launch(1, port, 2), 5), 1, 2)
    lonely.store.delete_key("announce/barrier")
    late = check_barrier(None, "nccl", lonely, 0.3, None)
    assert late.status == "failed" and late.data["missing"] == [0]


# --- the CLI's usage errors ------------------------------------------------------------------

NO_LAUNCH = dict.fromkeys(["RANK", "WORLD_SIZE", "LOCAL_RANK", "SLURM_PROCID", "SLURM_NTASKS"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--distributed",), "--distributed needs a launcher: RANK is not set"),
        (("--device", "cpu"), "--device needs --distributed"),
        (("--distributed", "--devices", "cuda:0"), "--devices cannot be combined with --distributed"),
    ],
)
def test_distributed_usage_errors_exit_2(cli, args: tuple[str, ...], message: str) -> None:
    result = cli("check", *args, env=NO_LAUNCH)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"ddpdoctor: error: {message}")
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"WORLD_SIZE": str(10**12)}, "WORLD_SIZE='1000000000000' is not a whole number from 1 to 1048576"),
        ({"RANK": "²"}, "RANK='²' is not a whole number"),
    ],
)
def test_absurd_launch_variables_fail_fast_with_one_line(cli, change: dict[str, str], message: str) -> None:
    result = cli("check", "--distributed", "--device", "cpu", env={**LAUNCH, **change})
    assert result.exit_code == 2 and result.stderr.startswith(f"ddpdoctor: error: {message}")


@pytest.mark.parametrize("timeout", ["nan", "inf", "0"])
def test_distributed_timeout_must_be_a_finite_positive_number(cli, timeout: str) -> None:
    result = cli("check", "--distributed", "--device", "cpu", "--timeout", timeout, env=LAUNCH)
    assert result.exit_code == 2 and "is not a usable number of seconds" in result.stderr


def test_device_template_must_name_one_device(cli) -> None:
    env = {**LAUNCH, "RANK": "0", "LOCAL_RANK": "0"}
    result = cli("check", "--distributed", "--device", "cpu,cpu", env=env)
    assert result.exit_code == 2 and "not one device" in result.stderr
