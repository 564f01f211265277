"""The device-probe seam: sizes, inventory files, CUDA_VISIBLE_DEVICES, and the real probe on this machine."""

from __future__ import annotations

import json

import pytest

from ddpdoctor.devices import (
    ENV_INVENTORY,
    GIB,
    Gpu,
    Inventory,
    SimulatedProbe,
    TorchProbe,
    default_simulated_inventory,
    format_size,
    inventory_from_dict,
    load_inventory,
    parse_size,
    probe_from_spec,
    visible_mapping,
)
from ddpdoctor.errors import InputError


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("80GiB", 80 * GIB),
        ("80 GiB", 80 * GIB),
        ("1.5G", int(1.5 * GIB)),
        ("512MiB", 512 * 1024**2),
        ("10GB", 10 * 1000**3),
        ("4096B", 4096),
        ("2t", 2 * 1024**4),
    ],
)
def test_parse_size(text: str, expected: int) -> None:
    assert parse_size(text) == expected


@pytest.mark.parametrize("text", ["10", "lots", "GiB", "-3GiB", ""])
def test_parse_size_rejects_numbers_without_units_and_garbage(text: str) -> None:
    with pytest.raises(InputError, match="cannot read size"):
        parse_size(text)


def test_format_size() -> None:
    assert format_size(75 * GIB) == "75.0 GiB"
    assert format_size(512) == "512 B"
    assert format_size(None) == "unknown"


def test_default_inventory_is_the_plan_reference_machine() -> None:
    inv = default_simulated_inventory()
    assert len(inv.gpus) == 4
    assert all(g.memory_total == 80 * GIB and g.memory_free == 75 * GIB for g in inv.gpus)
    assert all(g.compute_mode == "default" and not g.processes for g in inv.gpus)
    assert len({g.uuid for g in inv.gpus}) == 4 and len({g.pci_bus_id for g in inv.gpus}) == 4
    assert inv.simulated and inv.env == {} and "nccl" in inv.backends


def test_inventory_round_trips_through_its_dict() -> None:
    inv = default_simulated_inventory()
    again = inventory_from_dict(json.loads(json.dumps(inv.to_dict())))
    assert again.gpus == inv.gpus
    assert again.cpu_count == inv.cpu_count and again.backends == inv.backends


def test_inventory_file_yaml_with_count_and_processes(tmp_path) -> None:
    path = tmp_path / "node.yaml"
    path.write_text(
        "gpus:\n"
        "  - {name: H100, count: 2, memory_total: 80GiB, memory_free: 70GiB}\n"
        "  - name: H100\n"
        "    memory_total: 80GiB\n"
        "    memory_free: 10GiB\n"
        "    compute_mode: exclusive-process\n"
        "    processes: [{pid: 4242, name: python, used_memory: 60GiB}]\n"
        "cpu_count: 16\n"
        "shm_total: 64MiB\n"
        "env: {CUDA_VISIBLE_DEVICES: '1,2'}\n",
        encoding="utf-8",
    )
    inv = load_inventory(str(path))
    assert [g.index for g in inv.gpus] == [0, 1, 2]
    assert inv.gpus[2].processes[0].used_memory == 60 * GIB
    assert inv.gpus[2].compute_mode == "exclusive-process"
    assert inv.shm_total == inv.shm_free == 64 * 1024**2
    assert inv.source == f"file:{path}"
    mapping = visible_mapping(inv, inv.environ({}))
    assert mapping.ordinals == (1, 2)


def test_inventory_accepts_env_command_json(tmp_path) -> None:
    path = tmp_path / "env.json"
    path.write_text(
        json.dumps({"schema": "ddpdoctor.env/1", "inventory": default_simulated_inventory().to_dict()})
    )
    assert len(load_inventory(str(path)).gpus) == 4


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("gpus: [{name: x}]", "gpus[0].memory_total: is missing"),
        ("gpus: [{memory_total: lots}]", "is not a size"),
        ("gpus: [{memory_total: 1GiB, compute_mode: shared}]", "compute_mode"),
        ("gpus: [{memory_total: 1GiB, colour: red}]", "gpus[0].colour: unknown key"),
        ("gpu: []", "gpu: unknown key"),
        ("[1, 2]", "is not a mapping"),
        ("gpus: [{memory_total: 1GiB, index: 0}, {memory_total: 1GiB, index: 0}]", "same index"),
        ("gpus: {", "invalid YAML/JSON"),
    ],
)
def test_bad_inventory_files_give_one_line_errors(tmp_path, content: str, message: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_inventory(str(path))
    assert message in str(info.value)
    assert str(path) in str(info.value)


def test_missing_inventory_file_and_unknown_builtin() -> None:
    with pytest.raises(InputError, match="cannot read inventory file"):
        load_inventory("/nonexistent/inventory.yaml")
    with pytest.raises(InputError, match="no built-in inventory 'huge'"):
        load_inventory("builtin:huge")


def _inv(n: int = 4) -> Inventory:
    return Inventory(
        source="test",
        gpus=tuple(Gpu(i, "G", f"GPU-aaaa{i}-0000", f"0000:0{i}:00.0", GIB, GIB) for i in range(n)),
    )


@pytest.mark.parametrize(
    ("value", "ordinals", "problem"),
    [
        (None, (0, 1, 2, 3), None),
        ("2,3", (2, 3), None),
        ("3,0", (3, 0), None),
        ("1,7,2", (1,), "GPU 7 does not exist"),
        ("1,x,2", (1,), "not a GPU index"),
        ("GPU-aaaa2,GPU-aaaa0", (2, 0), None),
        ("GPU-aaaa2,1", (2,), "matches no GPU UUID"),
        ("GPU-aaaa", (), "matches several GPU UUIDs"),
        ("", (), "not a GPU index"),
    ],
)
def test_visible_mapping_follows_cuda_rules(value, ordinals, problem) -> None:
    env = {} if value is None else {"CUDA_VISIBLE_DEVICES": value}
    mapping = visible_mapping(_inv(), env)
    assert mapping.ordinals == ordinals
    if problem is None:
        assert mapping.problems == ()
    else:
        assert any(problem in p for p in mapping.problems)


def test_repeated_visible_entry_hides_every_gpu() -> None:
    mapping = visible_mapping(_inv(), {"CUDA_VISIBLE_DEVICES": "0,1,0"})
    assert mapping.ordinals == () and mapping.repeated == "0"


def test_measured_visible_list_wins_over_the_variable() -> None:
    inv = Inventory(source="t", gpus=_inv().gpus, visible=(3, 1))
    assert visible_mapping(inv, {"CUDA_VISIBLE_DEVICES": "0"}).ordinals == (3, 1)


def test_probe_from_spec_reads_the_environment_variable() -> None:
    probe = probe_from_spec(None, {ENV_INVENTORY: "builtin:default"})
    assert isinstance(probe, SimulatedProbe) and len(probe.inventory().gpus) == 4
    assert isinstance(probe_from_spec(None, {}), TorchProbe)


def test_real_probe_on_this_machine() -> None:
    """CI has no GPU: the real probe must still describe the host without touching CUDA."""
    inv = TorchProbe().inventory()
    assert inv.cpu_count >= 1
    assert "gloo" in inv.backends
    assert not inv.simulated
    if not inv.cuda_available:
        assert inv.gpus == () or inv.source == "torch+nvml"
