"""`ddpdoctor check` and `ddpdoctor env` on the command line: JSON, exit codes, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ddpdoctor.check.registry import CHECK_ID_RE, all_checks, check_ids
from ddpdoctor.hardware.inventory_file import inventory_from_dict
from ddpdoctor.kb.loader import load_entries

SIM = {"DDPDOCTOR_INVENTORY": "builtin:default"}
HELPERS = Path(__file__).resolve().parent / "check_helpers"


def run_json(cli, *args: str, env: dict[str, str] | None = None):
    result = cli("check", *args, "--format", "json", env={**SIM, **(env or {})})
    return result, (json.loads(result.stdout) if result.stdout.strip() else None)


def test_healthy_devices_exit_0_with_the_schema(cli) -> None:
    result, data = run_json(cli, "--devices", "cuda:0,cuda:1")
    assert result.exit_code == 0
    assert data["schema"] == "ddpdoctor.check/1" and data["ok"] is True
    assert {"id", "severity", "category", "title", "message", "entry", "solutions", "rank", "device"} <= set(
        data["findings"][0]
    )
    assert [d["device"] for d in data["devices"]] == ["cuda:0", "cuda:1"]
    assert data["inventory"] == {"source": "builtin:default", "simulated": True}


def test_duplicate_exits_1_and_links_the_knowledge_base(cli, kb) -> None:
    result, data = run_json(cli, "--devices", "cuda:0,cuda:0")
    assert result.exit_code == 1 and data["ok"] is False
    errors = [f for f in data["findings"] if f["severity"] == "error"]
    assert [f["id"] for f in errors] == ["device.duplicate"]
    assert errors[0]["entry"] in kb.by_id
    assert len(errors[0]["solutions"]) > 2


def test_burn_spelling_links_burn_entries(cli, kb) -> None:
    _, data = run_json(cli, "--devices", "Cuda(0),Cuda(0)")
    error = next(f for f in data["findings"] if f["severity"] == "error")
    assert kb.get(error["entry"]).framework == "burn"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--devices", "cuda:0,tpu:1"], "cannot read device 'tpu:1'"),
        (["--devices", "cuda:0", "--min-free", "10"], "--min-free: cannot read size '10'"),
        (["--devices", "cuda:0", "--timeout", "nan"], "--timeout nan is not a usable number of seconds"),
        (["--devices", "cuda:0", "--timeout", "inf"], "--timeout inf is not a usable number of seconds"),
        (["--devices", "cuda:0", "--timeout", "-1"], "--timeout -1.0 is not a usable number of seconds"),
        (["--devices", "cuda:" + "9" * 4400], "cannot read device"),
        (["--devices", "cpu", "--loader-memory", "lots"], "--loader-memory: cannot read size"),
        (["--inventory", "/dev/zero"], "inventory file /dev/zero is not a regular file"),
        (["--backend", "carrier-pigeon"], "unknown backend 'carrier-pigeon'"),
        (["--env", "NOEQUALS"], "cannot read --env 'NOEQUALS'"),
        (["--inventory", "/nonexistent/node.yaml"], "cannot read inventory file"),
        (["--model", "ddpd_models:mlp"], "--model needs --batch-size"),
        (
            ["--dataloader", "no_such_module_for_ddpdoctor:make", "--devices", "cpu"],
            "cannot import dataloader module",
        ),
    ],
)
def test_unusable_input_is_one_line_and_exit_2(cli, args: list[str], message: str) -> None:
    result = cli("check", *args, env=SIM)
    assert result.exit_code == 2, result.stdout
    assert f"ddpdoctor: error: {message}" in result.stderr
    assert "Traceback" not in result.stderr


def test_unreadable_token_hint_lists_the_accepted_forms(cli) -> None:
    result = cli("check", "--devices", "Cuda[0]", env=SIM)
    assert result.exit_code == 2
    assert "ddpdoctor: hint: accepted forms:" in result.stderr and "Wgpu(DiscreteGpu(0))" in result.stderr


@pytest.mark.parametrize(
    "assignment", ["RANK=²", "WORLD_SIZE=" + "9" * 5000, "WORLD_SIZE=1000000000000", "MASTER_PORT=٣"]
)
def test_odd_launch_variables_are_findings_not_crashes(cli, assignment: str) -> None:
    result, data = run_json(cli, "--devices", "cuda:0", "--env", assignment, "--env", "MASTER_ADDR=127.0.0.1")
    assert result.exit_code == 1, result.stderr
    name = assignment.split("=")[0]
    errors = [f for f in data["findings"] if f["severity"] == "error"]
    assert any(f["id"].startswith("env.") and f["title"].startswith(name) for f in errors), errors


def test_warnings_pass_unless_strict(cli, tmp_path: Path) -> None:
    node = tmp_path / "node.yaml"
    node.write_text(
        "gpus:\n  - {name: A100, memory_total: 80GiB, memory_free: 70GiB}\n"
        "  - {name: A100, memory_total: 80GiB, memory_free: 70GiB, processes: [{pid: 1, name: jupyter}]}\n",
        encoding="utf-8",
    )
    assert cli("check", "--inventory", str(node), "--devices", "0,1").exit_code == 0
    strict = cli("check", "--inventory", str(node), "--devices", "0,1", "--strict")
    assert strict.exit_code == 1 and "device.busy" in strict.stdout


def test_env_option_reaches_the_checks(cli) -> None:
    result, data = run_json(cli, "--devices", "cuda:0", "--env", "RANK=5", "--env", "WORLD_SIZE=4")
    assert result.exit_code == 1
    assert any(f["id"] == "env.rank-consistency" and f["severity"] == "error" for f in data["findings"])


def test_dataloader_from_the_command_line(cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(HELPERS)
    result, data = run_json(
        cli, "--devices", "cuda:0,cuda:1", "--dataloader", "ddpd_loaders:missing_shard_in_main"
    )
    assert result.exit_code == 1
    error = next(f for f in data["findings"] if f["severity"] == "error")
    assert error["id"] == "dataloader.first-batch" and "shard-00000.bin" in error["title"]


@pytest.mark.parametrize("fmt", ["text", "markdown", "rich"])
def test_human_formats_show_the_devices_and_the_finding(cli, fmt: str) -> None:
    result = cli("check", "--devices", "cuda:0,cuda:0", "--format", fmt, env=SIM)
    assert result.exit_code == 1
    assert "device.duplicate" in result.stdout and "cuda:0 is listed twice" in result.stdout
    assert "1 error(s), 0 warning(s) on 2 device(s)" in result.stdout


def test_list_shows_every_check(cli) -> None:
    text = cli("check", "--list")
    assert text.exit_code == 0 and all(c.id in text.stdout for c in all_checks())
    data = json.loads(cli("check", "--list", "--format", "json").stdout)
    assert data["schema"] == "ddpdoctor.check-list/1"
    assert {c["id"] for c in data["checks"]} == set(check_ids())
    duplicate = next(c for c in data["checks"] if c["id"] == "device.duplicate")
    assert duplicate["entries"][0] == "nccl-duplicate-gpu" and duplicate["area"] == "device"


def test_registry_ids_are_namespaced_and_listed_in_the_plan_areas() -> None:
    areas = ("device", "memory", "dataloader", "backend", "env", "dist", "collective")
    checks = all_checks()
    assert {check.area for check in checks} == set(areas)
    assert len(check_ids()) == len(checks)
    assert all(CHECK_ID_RE.match(c.id) for c in checks)
    for required in (
        "device.duplicate",
        "device.unavailable",
        "dataloader.first-batch",
        "dataloader.timeout",
        "dataloader.num-workers",
    ):
        assert required in check_ids()


def test_registry_does_not_import_torch() -> None:
    import subprocess
    import sys

    code = (
        "import sys, ddpdoctor.check.registry as r, ddpdoctor.cli.check, ddpdoctor.kb.schema; "
        "r.all_checks(); print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr


def test_env_command(cli) -> None:
    result = cli("env", "--format", "json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["schema"] == "ddpdoctor.env/2"
    versions = data["versions"]
    assert versions["python"] and versions["torch"] and not any(" " in key for key in versions)
    assert {
        "cuda",
        "hip",
        "cudnn",
        "nccl",
        "driver",
        "numpy",
        "accelerate",
        "lightning",
        "deepspeed",
        "transformers",
    } <= set(versions)
    assert {"os", "distribution", "kernel", "glibc", "cpu_model", "cpu_count", "cpu_usable"} <= set(
        data["system"]
    )
    assert set(data["topology"]) == {"gpu_matrix", "nvlink", "infiniband"}
    replay = inventory_from_dict(data)
    assert replay.cpu_count >= 1 and "gloo" in replay.backends
    text = cli("env", "--format", "text")
    assert (
        text.exit_code == 0
        and "Versions" in text.stdout
        and "torch" in text.stdout
        and "System" in text.stdout
    )


def test_env_report_shows_a_simulated_gpu_topology() -> None:
    from ddpdoctor.environment import collect_environment
    from ddpdoctor.hardware.inventory import SimulatedProbe, default_simulated_inventory
    from ddpdoctor.hardware.probes import SystemFacts, Topology
    from ddpdoctor.present.env import env_document

    matrix = "\tGPU0\tGPU1\nGPU0\t X \tNV12\nGPU1\tNV12\t X "
    report = collect_environment(
        {},
        probe=SimulatedProbe(default_simulated_inventory()),
        topology=lambda: Topology(matrix, True, ("mlx5_0", "mlx5_1")),
        system=lambda: SystemFacts("Linux", "Ubuntu 22.04.4 LTS", "6.5.0", "2.35", "AMD EPYC 7763", 128, 64),
    )
    data = report.to_dict()
    assert data["topology"] == {"gpu_matrix": matrix, "nvlink": True, "infiniband": ["mlx5_0", "mlx5_1"]}
    assert data["system"]["distribution"] == "Ubuntu 22.04.4 LTS" and data["system"]["glibc"] == "2.35"
    assert len(data["inventory"]["gpus"]) == 4
    texts = [getattr(block, "text", "") for block in env_document(report)]
    assert matrix in texts


def test_env_shows_only_relevant_variables(cli) -> None:
    result = cli("env", "--format", "json", env={"NCCL_DEBUG": "INFO", "MY_API_TOKEN": "secret"})
    variables = json.loads(result.stdout)["variables"]
    assert variables.get("NCCL_DEBUG") == "INFO" and "MY_API_TOKEN" not in variables


def test_kb_lint_knows_the_check_ids(cli, tmp_path: Path) -> None:
    source = next(e for e in load_entries().entries if e.checks)
    text = Path(
        str(Path(__file__).resolve().parent.parent / "knowledge" / source.framework / f"{source.id}.yaml")
    )
    team = tmp_path / source.framework
    team.mkdir()
    body = text.read_text(encoding="utf-8").replace(f"id: {source.id}", "id: team-copy-of-entry", 1)
    body = body.replace(f"  - {source.checks[0]}\n", "  - device.teleport\n", 1)
    (team / "team-copy-of-entry.yaml").write_text(body, encoding="utf-8")
    result = cli("kb", "lint", str(tmp_path), "--no-speed", "--format", "json")
    problems = json.loads(result.stdout)["findings"]
    unknown = [p for p in problems if p["id"] == "kb.check-unknown"]
    assert unknown and "device.teleport" in unknown[0]["title"]


def test_env_reports_a_failing_device_probe_instead_of_crashing(cli, monkeypatch) -> None:
    def broken(self, *, cuda_ordinals=None):
        raise RuntimeError("CUDA driver initialization failed, you might not have a CUDA gpu.")

    monkeypatch.setattr("ddpdoctor.hardware.probes.TorchProbe.inventory", broken)
    result = cli("env", "--format", "json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["problems"] == [
        "reading the devices failed: RuntimeError: CUDA driver initialization failed, you might not have a CUDA gpu."
    ]
    assert data["versions"]["torch"]


def test_findings_repeated_per_device_are_grouped_in_text_but_not_in_json(cli) -> None:
    args = ("check", "--devices", "cuda:0,cuda:1,cuda:2,cuda:3", "--min-free", "78GiB")
    text = cli(*args, "--format", "text", env=SIM)
    assert text.exit_code == 1
    assert text.stdout.count("[error] cuda:0-3 has 75.0 GiB free, less than the 78.0 GiB required") == 1
    assert "cuda:1 has" not in text.stdout and "The same holds for cuda:1-3." in text.stdout
    data = json.loads(cli(*args, "--format", "json", env=SIM).stdout)
    per_device = [f["device"] for f in data["findings"] if f["id"] == "memory.free-below-minimum"]
    assert per_device == ["cuda:0", "cuda:1", "cuda:2", "cuda:3"]


def test_every_entry_a_check_names_exists(kb) -> None:
    named = {e for spec in all_checks() for e in (*spec.entries, *spec.burn_entries)}
    assert named and named <= set(kb.by_id), sorted(named - set(kb.by_id))


def test_no_gpu_and_no_device_list_says_so_on_the_command_line(cli, tmp_path: Path) -> None:
    node = tmp_path / "laptop.yaml"
    node.write_text("gpus: []\ncpu_count: 8\n", encoding="utf-8")
    result = cli("check", "--inventory", str(node), "--format", "text")
    assert result.exit_code == 0
    assert "no GPU found: checked cpu" in result.stdout and "on 1 device(s)" in result.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["--devices", "Cuda(0),Cuda(0)"],
        ["--devices", "0,0,9"],
        ["--devices", "0,1", "--min-free", "79GiB", "--env", "WORLD_SIZE=3", "--env", "RANK=5"],
    ],
    ids=["burn", "cuda", "memory-and-env"],
)
def test_solutions_of_a_finding_are_pre_flight_advice_and_never_repeat(cli, kb, args: list[str]) -> None:
    data = json.loads(cli("check", *args, "--inventory", "builtin:default", "-f", "json").stdout)
    linked = [f for f in data["findings"] if f["entry"]]
    assert linked
    for finding in linked:
        entry = kb.get(finding["entry"])
        assert len(set(finding["solutions"])) == len(finding["solutions"]), finding["id"]
        after_a_failure = set(entry.solutions) - set(entry.solutions_for("preflight"))
        assert not after_a_failure & set(finding["solutions"]), finding["id"]
