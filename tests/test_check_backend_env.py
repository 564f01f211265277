"""backend.* and env.*: the process-group backend and the launch variables."""

from __future__ import annotations

import socket
from dataclasses import replace

import pytest

from ddpdoctor.check.runner import CheckOptions, CheckReport, run_checks
from ddpdoctor.findings import Severity
from ddpdoctor.hardware.inventory import Inventory, SimulatedProbe, default_simulated_inventory


def run(
    devices: str, env: dict[str, str] | None = None, inventory: Inventory | None = None, **options
) -> CheckReport:
    probe = SimulatedProbe(inventory or default_simulated_inventory())
    return run_checks(CheckOptions(devices=devices, environ=env or {}, link_kb=False, **options), probe)


def verdicts(report: CheckReport, prefix: str) -> dict[str, list[Severity]]:
    out: dict[str, list[Severity]] = {}
    for f in report.findings:
        if f.id.startswith(prefix):
            out.setdefault(f.id, []).append(f.severity)
    return out


def test_cuda_gets_nccl_by_default() -> None:
    assert verdicts(run("cuda:0,cuda:1"), "backend.") == {
        "backend.nccl-for-cuda": [Severity.OK],
        "backend.unavailable": [Severity.OK],
    }


def test_gloo_for_cuda_is_a_warning_and_nccl_for_cpu_an_error() -> None:
    assert verdicts(run("cuda:0,cuda:1", backend="gloo"), "backend.")["backend.nccl-for-cuda"] == [
        Severity.WARNING
    ]
    cpu = run("cpu,cpu", backend="nccl")
    assert verdicts(cpu, "backend.")["backend.gloo-for-cpu"] == [Severity.ERROR]


def test_nccl_missing_from_the_build() -> None:
    inv = replace(default_simulated_inventory(), backends=("gloo",))
    found = [f for f in run("cuda:0,cuda:1", inventory=inv).findings if f.id == "backend.unavailable"]
    assert found[0].severity is Severity.ERROR and "no NCCL" in found[0].message
    assert "--backend gloo" in found[0].solutions[0]


def test_no_torch_distributed_at_all() -> None:
    inv = replace(default_simulated_inventory(), backends=())
    found = [f for f in run("cuda:0,cuda:1", inventory=inv).findings if f.id == "backend.unavailable"]
    assert found[-1].severity is Severity.ERROR and "torch.distributed" in found[-1].title


def test_single_device_needs_no_backend() -> None:
    assert verdicts(run("cuda:0"), "backend.") == {}


def test_burn_ddp_on_wgpu_warns() -> None:
    found = [
        f for f in run("Wgpu(DiscreteGpu(0)),Wgpu(DiscreteGpu(1))").findings if f.id == "backend.unavailable"
    ]
    assert found[0].severity is Severity.WARNING and found[0].entry == "burn-distributed-unsupported-device"


# --- env ----------------------------------------------------------------------------------------


def test_no_launch_variables_no_env_findings() -> None:
    assert verdicts(run("cuda:0,cuda:1"), "env.") == {}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def launch(**changes: str) -> dict[str, str]:
    env = {
        "RANK": "0",
        "LOCAL_RANK": "0",
        "WORLD_SIZE": "8",
        "LOCAL_WORLD_SIZE": "4",
        "MASTER_ADDR": "127.0.0.1",
        "MASTER_PORT": str(free_port()),
    }
    env.update(changes)
    return {k: v for k, v in env.items() if v != "-"}


def test_a_consistent_torchrun_environment_passes() -> None:
    report = run("cuda:0", launch())
    assert report.ok and not report.has_warnings()
    assert set(verdicts(report, "env.")) == {
        "env.master-addr",
        "env.master-port",
        "env.rank-consistency",
        "env.world-size",
    }


def test_master_port_in_use_on_rank_0() -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        found = [
            f for f in run("cuda:0", launch(MASTER_PORT=str(port))).findings if f.id == "env.master-port"
        ]
    assert found[0].severity is Severity.ERROR and "already in use" in found[0].title
    assert found[0].entry == "address-already-in-use"


def test_port_in_use_is_expected_under_the_torchrun_agent() -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        env = launch(MASTER_PORT=str(holder.getsockname()[1]), TORCHELASTIC_USE_AGENT_STORE="True")
        assert run("cuda:0", env).ok


@pytest.mark.parametrize(
    ("changes", "check_id", "text"),
    [
        ({"MASTER_ADDR": "-"}, "env.master-addr", "MASTER_ADDR is not set"),
        ({"MASTER_ADDR": "no-such-host.invalid"}, "env.master-addr", "does not resolve"),
        ({"MASTER_PORT": "-"}, "env.master-port", "MASTER_PORT is not set"),
        ({"MASTER_PORT": "70000"}, "env.master-port", "is not a port number"),
        ({"RANK": "8"}, "env.rank-consistency", "RANK=8 is not below WORLD_SIZE=8"),
        ({"RANK": "one"}, "env.rank-consistency", "RANK='one'"),
        ({"LOCAL_RANK": "4"}, "env.rank-consistency", "LOCAL_RANK=4 is not below LOCAL_WORLD_SIZE=4"),
        ({"RANK": "1", "LOCAL_RANK": "2"}, "env.rank-consistency", "larger than RANK"),
        ({"WORLD_SIZE": "-"}, "env.world-size", "WORLD_SIZE is not set"),
        ({"WORLD_SIZE": "0"}, "env.world-size", "WORLD_SIZE='0'"),
        ({"LOCAL_WORLD_SIZE": "8", "WORLD_SIZE": "8"}, "env.world-size", "only 4 visible GPU(s)"),
    ],
)
def test_launch_mistakes(changes: dict[str, str], check_id: str, text: str) -> None:
    report = run("cuda:0", launch(**changes))
    errors = [f for f in report.findings if f.id == check_id and f.severity is Severity.ERROR]
    assert errors and any(text in f.title for f in errors), [f.title for f in report.findings]


def test_world_size_not_a_multiple_of_the_local_size_warns() -> None:
    report = run("cuda:0", launch(WORLD_SIZE="6"))
    assert verdicts(report, "env.world-size")["env.world-size"] == [Severity.WARNING]


def test_local_rank_without_a_gpu() -> None:
    env = launch(LOCAL_RANK="3", RANK="3", CUDA_VISIBLE_DEVICES="0,1", LOCAL_WORLD_SIZE="-")
    errors = [f for f in run("cuda:0", env).findings if f.id == "env.rank-consistency"]
    assert errors[0].severity is Severity.ERROR and "has no GPU" in errors[0].title
