"""The hardware seam: sizes, inventory files (with hostile ones), CUDA_VISIBLE_DEVICES, topology, the real probe."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from ddpdoctor.errors import InputError
from ddpdoctor.hardware.inventory import (
    Gpu,
    Inventory,
    SimulatedProbe,
    default_simulated_inventory,
    visible_mapping,
)
from ddpdoctor.hardware.inventory_file import MAX_FILE_BYTES, inventory_from_dict, load_inventory
from ddpdoctor.hardware.probes import ENV_INVENTORY, TorchProbe, probe_from_spec, read_system, read_topology
from ddpdoctor.units import GIB, MAX_SIZE, SizeError, format_bytes, format_size, parse_size, parse_user_size


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
    assert parse_user_size(text) == expected


@pytest.mark.parametrize("text", ["10", "lots", "GiB", "-3GiB", "", "1" * 5000 + "GiB", "²GiB"])
def test_parse_size_rejects_numbers_without_units_and_garbage(text: str) -> None:
    with pytest.raises(SizeError, match="cannot read size"):
        parse_user_size(text)


def test_parse_size_refuses_sizes_past_an_exbibyte() -> None:
    assert parse_user_size("1024PiB") == MAX_SIZE
    with pytest.raises(SizeError, match="larger than 1 EiB"):
        parse_user_size("99999999999999999999PiB")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2.00 GiB", 2.0 * GIB),
        ("336 MiB", 336.0 * 1024**2),
        ("1024", 1024.0),
        ("12 bytes", 12.0),
        ("lots", None),
    ],
)
def test_sizes_in_logs_are_read_leniently(text: str, expected: float | None) -> None:
    assert parse_size(text) == expected


def test_format_size() -> None:
    assert format_size(75 * GIB) == "75.0 GiB"
    assert format_size(int(2.5 * GIB), digits=2) == "2.50 GiB"
    assert format_size(64 * 1024, digits=0) == "64 KiB"
    assert format_size(512) == "512 B"
    assert format_size(-3 * GIB) == "-3.0 GiB"
    assert format_size(None) == "unknown"
    assert format_size(float("nan")) == "unknown"
    assert format_bytes(1.5 * GIB) == "1.50 GiB"


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


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[" * 5000 + "]" * 5000, "nested too deeply"),
        ('{"gpus": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
        ("gpus: [{memory_total: 1GiB, count: 100000000000}]", "gpus[0].count"),
        (
            "gpus: [{memory_total: 1GiB, count: 4000}, {memory_total: 1GiB, count: 4000}]",
            "more than 4096 GPUs",
        ),
        ("gpus: [{memory_total: " + "9" * 5000 + "}]", "cannot be read"),
        ("gpus: [{memory_total: " + "9" * 30 + "}]", "between 0 and 1 EiB"),
        ("cpu_count: 100000000000", "cpu_count"),
        ("gpus: [{memory_total: 1GiB, processes: [{pid: -1}]}]", "pid"),
        ("gpus: [{memory_total: 1GiB, name: [a, b]}]", "gpus[0].name: must be a plain value"),
        ("env: {A: {B: C}}", "env.A: must be a plain value"),
        ("visible: [0, 0, 0]", "visible"),
        ("\xff\xfe", "not UTF-8"),
    ],
)
def test_hostile_inventory_files_end_in_one_input_error(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "hostile.yaml"
    path.write_bytes(content.encode("latin-1") if content.startswith("\xff") else content.encode())
    if content.startswith("\xff"):
        path.write_bytes(b"\xff\xfe gpus")
    with pytest.raises(InputError) as info:
        load_inventory(str(path))
    assert message in str(info.value)


def test_a_huge_inventory_file_is_refused_without_reading_it_all(tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    with path.open("wb") as handle:
        handle.truncate(MAX_FILE_BYTES * 50)
    with pytest.raises(InputError, match="larger than 4 MiB"):
        load_inventory(str(path))


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_device_file_is_not_an_inventory(device: str) -> None:
    if not Path(device).exists():
        pytest.skip(f"{device} does not exist here")
    with pytest.raises(InputError, match="is not a regular file"):
        load_inventory(device)


def test_a_fifo_without_a_writer_is_refused_not_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "inventory.fifo"
    os.mkfifo(fifo)
    outcome: list[BaseException] = []
    reader = threading.Thread(target=lambda: _catch(outcome, str(fifo)), daemon=True)
    reader.start()
    reader.join(30)
    assert not reader.is_alive(), "reading a FIFO inventory blocked"
    assert isinstance(outcome[0], InputError) and "is not a regular file" in str(outcome[0])


def _catch(into: list[BaseException], path: str) -> None:
    try:
        load_inventory(path)
    except BaseException as exc:
        into.append(exc)


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


@pytest.mark.parametrize(
    ("value", "ordinals"),
    [("9" * 5000, ()), ("1" + "0" * 40, ()), ("²", ())],
)
def test_visible_devices_with_absurd_numbers_hide_gpus_without_failing(
    value: str, ordinals: tuple[int, ...]
) -> None:
    mapping = visible_mapping(_inv(), {"CUDA_VISIBLE_DEVICES": value})
    assert mapping.ordinals == ordinals and mapping.problems


NVLINK_MATRIX = """\
\tGPU0\tGPU1\tNIC0\tCPU Affinity
GPU0\t X \tNV12\tSYS\t0-31
GPU1\tNV12\t X \tSYS\t0-31
"""
PCIE_MATRIX = "\tGPU0\tGPU1\nGPU0\t X \tPHB\nGPU1\tPHB\t X \n"


def test_topology_reads_the_matrix_nvlink_and_infiniband(tmp_path: Path) -> None:
    (tmp_path / "class" / "infiniband" / "mlx5_0").mkdir(parents=True)
    topo = read_topology(lambda command: NVLINK_MATRIX, sys_root=tmp_path)
    assert topo.nvlink is True and topo.infiniband == ("mlx5_0",) and "NV12" in (topo.gpu_matrix or "")
    assert read_topology(lambda command: PCIE_MATRIX, sys_root=tmp_path / "none").nvlink is False
    unknown = read_topology(lambda command: None, sys_root=tmp_path / "none")
    assert unknown.to_dict() == {"gpu_matrix": None, "nvlink": None, "infiniband": []}


def test_system_facts_name_the_cpu_from_cpuinfo(tmp_path: Path) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nmodel name\t: Example CPU 9000 @ 3.00GHz\n", encoding="utf-8")
    facts = read_system(cpuinfo)
    assert facts.cpu_model == "Example CPU 9000 @ 3.00GHz"
    assert facts.cpu_count >= facts.cpu_usable >= 1 and facts.os and facts.kernel


def test_real_probe_on_this_machine() -> None:
    """CI has no GPU: the real probe must still describe the host without touching CUDA."""
    inv = TorchProbe().inventory()
    assert inv.cpu_count >= 1
    assert "gloo" in inv.backends
    assert not inv.simulated
    if not inv.cuda_available:
        assert inv.gpus == () or inv.source == "torch+nvml"
