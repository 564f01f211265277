"""Device lists: every spelling, and the device.* checks on simulated machines."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ddpdoctor.check.base import DeviceSpec
from ddpdoctor.check.devices import parse_device_list, split_top_level
from ddpdoctor.check.runner import CheckOptions, CheckReport, run_checks
from ddpdoctor.errors import DeviceError
from ddpdoctor.findings import Severity
from ddpdoctor.hardware.inventory import (
    Gpu,
    GpuProcess,
    Inventory,
    SimulatedProbe,
    default_simulated_inventory,
)
from ddpdoctor.units import GIB


def run(
    devices, inventory: Inventory | None = None, env: dict[str, str] | None = None, **options
) -> CheckReport:
    probe = SimulatedProbe(inventory or default_simulated_inventory())
    return run_checks(CheckOptions(devices=devices, environ=env or {}, link_kb=False, **options), probe)


def problems(report: CheckReport, check_id: str) -> list:
    return [
        f for f in report.findings if f.id == check_id and f.severity in (Severity.ERROR, Severity.WARNING)
    ]


def labels(text: str) -> list[tuple[str, int | None, bool]]:
    return [(s.type, s.index, s.burn) for s in parse_device_list(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("cuda:0,cuda:1", [("cuda", 0, False), ("cuda", 1, False)]),
        ("cuda", [("cuda", None, False)]),
        ("CUDA:3", [("cuda", 3, False)]),
        ("gpu:1", [("cuda", 1, False)]),
        ("cpu", [("cpu", None, False)]),
        ("mps", [("mps", None, False)]),
        ("xpu:0", [("xpu", 0, False)]),
        ("0,1", [("cuda", 0, False), ("cuda", 1, False)]),
        ("0-2", [("cuda", 0, False), ("cuda", 1, False), ("cuda", 2, False)]),
        ("cuda:1-2", [("cuda", 1, False), ("cuda", 2, False)]),
        ("[0, 1]", [("cuda", 0, False), ("cuda", 1, False)]),
        ("['cuda:0', 'cuda:1']", [("cuda", 0, False), ("cuda", 1, False)]),
        ("device(type='cuda', index=2)", [("cuda", 2, False)]),
        ("all", [("all", None, False)]),
        ("Cuda(0),Cuda(1)", [("cuda", 0, True), ("cuda", 1, True)]),
        ("Cuda(CudaDevice { index: 3 })", [("cuda", 3, True)]),
        ("CudaDevice { index: 1 }", [("cuda", 1, True)]),
        ("Device<Cuda(CudaDevice { index: 2 })>", [("cuda", 2, True)]),
        ("Autodiff { device: Cuda(CudaDevice { index: 1 }), checkpointing: None }", [("cuda", 1, True)]),
        ("LibTorch(Cuda(0)), LibTorch(Cpu)", [("cuda", 0, True), ("cpu", None, True)]),
        ("Cpu", [("cpu", None, True)]),
        ("NdArray(Cpu)", [("cpu", None, True)]),
        ("Cpu(CpuDevice)", [("cpu", None, True)]),
        ("Wgpu(DiscreteGpu(0))", [("wgpu", 0, True)]),
        ("Vulkan(IntegratedGpu(1))", [("vulkan", 1, True)]),
        ("Wgpu(Cpu)", [("cpu", None, True)]),
        ("Wgpu(DefaultDevice)", [("wgpu", None, True)]),
        ("Rocm(RocmDevice { index: 0 })", [("rocm", 0, True)]),
        ("LibTorch(Mps)", [("mps", None, True)]),
    ],
)
def test_parse_every_spelling(text: str, expected) -> None:
    assert labels(text) == expected


def test_split_keeps_commas_inside_burn_structs() -> None:
    text = "Autodiff { device: Cuda(0), checkpointing: None },Cpu"
    assert split_top_level(text) == ["Autodiff { device: Cuda(0), checkpointing: None }", "Cpu"]


def test_sequences_of_objects_are_read_one_entry_each() -> None:
    assert [(s.type, s.index) for s in parse_device_list([0, "cuda:1", "Cuda(2)"])] == [
        ("cuda", 0),
        ("cuda", 1),
        ("cuda", 2),
    ]


@pytest.mark.parametrize(
    "token", ["cuda:x", "tpu:0", "Cuda(a)", "Wgpu(Banana(0))", "3-1", "cuda:", "Device<>"]
)
def test_unreadable_token_names_it_and_the_accepted_forms(token: str) -> None:
    with pytest.raises(DeviceError) as info:
        parse_device_list(f"cuda:0,{token}")
    assert repr(token) in info.value.message
    assert "accepted forms" in (info.value.hint or "")
    assert "Cuda(0)" in (info.value.hint or "")


@pytest.mark.parametrize(
    ("token", "why"), [("3-1", "write the lower bound first"), ("0-5000", "it names more than 4096 devices")]
)
def test_unreadable_range_says_what_is_wrong(token: str, why: str) -> None:
    with pytest.raises(DeviceError, match=f"cannot read device range '{token}': {why}"):
        parse_device_list(token)


def test_empty_list_is_a_usage_error() -> None:
    with pytest.raises(DeviceError, match="empty"):
        parse_device_list(" ")


def test_spec_labels() -> None:
    assert DeviceSpec("Wgpu(DiscreteGpu(1))", "wgpu", 1, True, "discrete").label == "wgpu:discrete:1"


# --- duplicates ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "devices",
    ["cuda:0,cuda:0", "cuda,cuda:0", "0,cuda:0", "Cuda(0),Cuda(0)", "cuda:0,cuda:1,cuda:1", "Cuda(1),1"],
)
def test_duplicates_through_aliases(devices: str) -> None:
    report = run(devices)
    found = problems(report, "device.duplicate")
    assert len(found) == 1 and found[0].severity is Severity.ERROR
    assert found[0].rank is not None and found[0].rank > 0
    assert not report.ok


def test_distinct_devices_pass() -> None:
    report = run("cuda:0,cuda:1,cuda:2,cuda:3")
    assert report.ok and not report.has_warnings()
    assert any(f.id == "device.duplicate" and f.severity is Severity.OK for f in report.findings)


def test_duplicate_suggestion_keeps_the_count() -> None:
    found = problems(run("cuda:0,cuda:0"), "device.duplicate")[0]
    assert "--devices cuda:0,cuda:1" in found.solutions[0]


def test_two_ordinals_of_one_physical_gpu_through_uuid_prefixes() -> None:
    inv = default_simulated_inventory()
    uuid = inv.gpus[2].uuid
    env = {"CUDA_VISIBLE_DEVICES": f"{uuid[:8]},{uuid}"}
    found = problems(run("cuda:0,cuda:1", inv, env), "device.duplicate")
    assert len(found) == 1
    assert "one physical GPU" in found[0].message and uuid in found[0].message


def test_same_uuid_listed_twice_in_the_inventory() -> None:
    inv = default_simulated_inventory()
    twin = replace(inv.gpus[1], index=7)
    inv = replace(inv, gpus=(inv.gpus[0], inv.gpus[1], twin))
    assert len(problems(run("cuda:1,cuda:2", inv), "device.duplicate")) == 1


def test_repeated_cuda_visible_devices_entry() -> None:
    report = run("cuda:0,cuda:1", env={"CUDA_VISIBLE_DEVICES": "0,0"})
    duplicate = problems(report, "device.duplicate")
    assert duplicate and "CUDA_VISIBLE_DEVICES" in duplicate[0].title
    unavailable = problems(report, "device.unavailable")
    assert unavailable and "hides every GPU" in unavailable[0].message


# --- CPU ordinals: logical device slots, any ordinal valid, the same slot twice a duplicate ------


def test_a_cpu_slot_listed_twice_is_a_duplicate_and_not_out_of_range() -> None:
    report = run("cpu:0,cpu:1,cpu:1")
    errors = [(f.id, f.title) for f in report.findings if f.severity is Severity.ERROR]
    assert errors == [("device.duplicate", "cpu:1 is listed twice")]
    duplicate = problems(report, "device.duplicate")[0]
    assert duplicate.rank == 2 and "--devices cpu:0,cpu:1,cpu:2" in duplicate.solutions[0]


@pytest.mark.parametrize("devices", ["cpu,cpu", "cpu,cpu:0", "Cpu,NdArray(Cpu)"])
def test_bare_cpu_is_slot_0(devices: str) -> None:
    assert len(problems(run(devices), "device.duplicate")) == 1


@pytest.mark.parametrize("devices", ["cpu:0,cpu:1,cpu:2", "cpu:0,cpu:7", "cpu:999999"])
def test_every_cpu_slot_exists(devices: str) -> None:
    assert run(devices).ok


def test_no_gpu_and_no_device_list_says_it_checked_the_cpu() -> None:
    report = run(None, Inventory(source="cpu", simulated=True))
    note = [f for f in report.findings if f.id == "device.unavailable" and f.severity is Severity.INFO]
    assert [f.title for f in note] == ["no GPU found: checked cpu"]
    assert "no GPU was found on this machine" in note[0].message and report.ok


# --- hostile device lists ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "devices",
    [
        "cuda:" + "9" * 5000,
        "9" * 5000,
        "Cuda(" + "9" * 5000 + ")",
        "Device<" * 5000 + "Cpu" + ">" * 5000,
        "cuda:²",
    ],
)
def test_absurd_device_texts_are_one_device_error(devices: str) -> None:
    with pytest.raises(DeviceError):
        run(devices)


def test_absurd_ordinals_in_a_sequence_are_one_device_error() -> None:
    with pytest.raises(DeviceError, match="larger than"):
        run([10**5000])


# --- availability, range, types ----------------------------------------------------------------


def test_cuda_on_a_cpu_only_torch_build() -> None:
    inv = Inventory(source="cpu-only", cuda=False, cuda_available=False, simulated=True)
    found = problems(run("cuda:0,cuda:1", inv), "device.unavailable")
    assert len(found) == 1 and "no CUDA support" in found[0].message
    assert found[0].entry == "torch-not-compiled-with-cuda"


def test_cuda_with_no_gpu_and_mps_off_linux() -> None:
    inv = Inventory(source="no-gpu", simulated=True)
    report = run("cuda:0,mps", inv)
    types = {f.data["type"] for f in problems(report, "device.unavailable")}
    assert types == {"cuda", "mps"}


def test_all_means_every_visible_gpu() -> None:
    report = run("all", env={"CUDA_VISIBLE_DEVICES": "1,3"})
    assert [d.label for d in report.devices] == ["cuda:0", "cuda:1"]
    assert [d.gpu.index for d in report.devices if d.gpu] == [1, 3]
    assert report.ok


def test_all_without_gpus_is_the_cpu() -> None:
    report = run("all", Inventory(source="cpu", simulated=True))
    assert [d.label for d in report.devices] == ["cpu"] and report.ok


def test_out_of_range_ordinal() -> None:
    report = run("cuda:0,cuda:4")
    found = problems(report, "device.out-of-range")
    assert len(found) == 1 and found[0].device == "cuda:4" and found[0].rank == 1
    assert "cuda:0..cuda:3" in found[0].message


def test_out_of_range_counts_visible_devices_not_physical_ones() -> None:
    found = problems(run("cuda:2", env={"CUDA_VISIBLE_DEVICES": "2,3"}), "device.out-of-range")
    assert found and "CUDA_VISIBLE_DEVICES=2,3" in found[0].message


def test_mixed_types() -> None:
    found = problems(run("cuda:0,cpu"), "device.mixed-types")
    assert len(found) == 1 and "cuda and cpu" in found[0].title
    burn = problems(run("Cuda(0),Wgpu(DiscreteGpu(1))"), "device.mixed-types")
    assert burn and "same variant" in burn[0].message


# --- processes, compute modes, mapping ---------------------------------------------------------


def _with_gpu(index: int, **changes) -> Inventory:
    inv = default_simulated_inventory()
    gpus = list(inv.gpus)
    gpus[index] = replace(gpus[index], **changes)
    return replace(inv, gpus=tuple(gpus))


def test_busy_gpu_is_a_warning() -> None:
    inv = _with_gpu(1, processes=(GpuProcess(4242, "python", 12 * GIB),))
    report = run("cuda:0,cuda:1", inv)
    found = problems(report, "device.busy")
    assert len(found) == 1 and found[0].severity is Severity.WARNING and "pid 4242" in found[0].message
    assert report.ok and report.exit_code(strict=True) == 1


def test_exclusive_process_gpu_in_use_is_an_error() -> None:
    inv = _with_gpu(1, compute_mode="exclusive-process", processes=(GpuProcess(99, "trainer"),))
    found = problems(run("cuda:0,cuda:1", inv), "device.exclusive-mode")
    assert len(found) == 1 and found[0].severity is Severity.ERROR


def test_exclusive_idle_gpu_and_prohibited_gpu() -> None:
    assert not problems(
        run("cuda:0", _with_gpu(0, compute_mode="exclusive-process")), "device.exclusive-mode"
    )
    assert problems(run("cuda:0", _with_gpu(0, compute_mode="prohibited")), "device.exclusive-mode")


def test_without_process_information_the_busy_check_says_so() -> None:
    inv = replace(default_simulated_inventory(), process_info=False)
    notes = [f for f in run("cuda:0", inv).findings if f.id == "device.busy"]
    assert notes and notes[0].severity is Severity.INFO and "nvidia-ml-py" in notes[0].message


def test_visible_mapping_is_shown() -> None:
    report = run("cuda:0,cuda:1", env={"CUDA_VISIBLE_DEVICES": "2,3"})
    info = [f for f in report.findings if f.id == "device.visible-mapping"]
    assert info and info[0].severity is Severity.INFO
    assert "cuda:0 -> GPU 2" in info[0].message and "cuda:1 -> GPU 3" in info[0].message
    assert [row["gpu"] for row in info[0].data["visible"]] == [2, 3]


def test_unreadable_visible_entry_is_a_warning() -> None:
    report = run("cuda:0", env={"CUDA_VISIBLE_DEVICES": "1,banana,2"})
    info = [f for f in report.findings if f.id == "device.visible-mapping"]
    assert info[0].severity is Severity.WARNING and "banana" in info[0].message


def test_wgpu_adapters_address_the_gpu_list() -> None:
    report = run("Wgpu(DiscreteGpu(0)),Wgpu(DiscreteGpu(1))")
    assert [d.gpu.index for d in report.devices if d.gpu] == [0, 1]
    assert not problems(report, "device.duplicate")


def test_gpu_without_free_memory_reading() -> None:
    inv = replace(
        default_simulated_inventory(), gpus=(Gpu(0, "G", "GPU-x", "0:0", 8 * GIB, None),), process_info=False
    )
    assert run("cuda:0", inv, min_free=GIB).ok


def test_repeated_entry_when_torch_itself_could_not_start_cuda() -> None:
    """Real CUDA refuses CUDA_VISIBLE_DEVICES=0,0 at init (error 101); the cause must still be named."""
    inv = replace(default_simulated_inventory(), cuda_available=False)
    report = run("cuda:0", inv, env={"CUDA_VISIBLE_DEVICES": "0,0"})
    assert problems(report, "device.duplicate")
    unavailable = problems(report, "device.unavailable")[0]
    assert "repeats '0'" in unavailable.message and unavailable.entry == "cuda-no-gpus-available"


def test_cuda_that_will_not_start_is_blamed_on_the_driver() -> None:
    inv = replace(default_simulated_inventory(), cuda_available=False)
    unavailable = problems(run("cuda:0", inv), "device.unavailable")[0]
    assert unavailable.entry == "cuda-driver-insufficient"


# --- the runner: a crashing check is a finding; preflight's numbers are checked --------------------


def test_a_check_that_raises_becomes_an_error_finding_and_the_others_still_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from ddpdoctor.check import registry

    def broken(ctx: object) -> list:
        raise ZeroDivisionError("division by zero\nsecond line")

    spec = registry.get("device.mixed-types")
    monkeypatch.setitem(registry._SPECS, spec.id, replace(spec, run=broken))
    report = run("cuda:0,cuda:1")
    crashed = [f for f in report.findings if f.id == "device.mixed-types"]
    assert [(f.severity, f.title) for f in crashed] == [
        (Severity.ERROR, "the check device.mixed-types crashed: ZeroDivisionError: division by zero")
    ]
    assert crashed[0].category == "other" and not report.ok
    assert {"device.duplicate", "device.visible-mapping", "memory.main-device-headroom"} <= {
        f.id for f in report.findings
    }


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"timeout": float("nan")}, "--timeout nan is not a usable number of seconds"),
        ({"timeout": float("inf")}, "--timeout inf is not a usable number of seconds"),
        ({"min_free": 10**5000}, "--min-free must be a whole number"),
        ({"min_free": "1" * 5000 + "GiB"}, "cannot read size"),
        ({"batch_size": -1, "model": "m:f"}, "--batch-size must be a whole number"),
        ({"batches": 10**9}, "--batches must be a whole number"),
    ],
)
def test_preflight_refuses_unusable_numbers_with_an_input_error(options: dict, message: str) -> None:
    import ddpdoctor
    from ddpdoctor.errors import InputError

    with pytest.raises(InputError, match=message):
        ddpdoctor.preflight(devices="cpu", inventory=default_simulated_inventory(), **options)


def test_preflight_refuses_an_absurd_device_ordinal() -> None:
    import ddpdoctor

    with pytest.raises(DeviceError, match="larger than"):
        ddpdoctor.preflight(devices=[10**5000], inventory=default_simulated_inventory())


def test_check_the_runtime_and_the_kb_agree_on_every_scenarios_device_list(kb) -> None:
    """A scenario's --devices list is a duplicate for check exactly when the runtime's failure on it is
    a duplicate-device entry, and that entry names the check that catches it."""
    from ddpdoctor.scenarios.catalog import SCENARIOS

    with_devices = [s for s in SCENARIOS.values() if "--devices" in s.args]
    lists = [s.args[s.args.index("--devices") + 1] for s in with_devices]
    assert "cpu:0,cpu:1,cpu:1" in lists and "cpu:0,cpu:1,cpu:2" in lists
    for scenario, devices in zip(with_devices, lists, strict=True):
        if not devices:  # the empty list Burn refuses: check refuses it too
            with pytest.raises(DeviceError, match="empty"):
                run(devices)
            continue
        duplicate = scenario.category == "duplicate_device"
        report = run(devices)
        assert bool(problems(report, "device.duplicate")) == duplicate, (scenario.name, devices)
        assert not problems(report, "device.out-of-range"), (scenario.name, devices)
        if duplicate:
            assert scenario.entry is not None and "device.duplicate" in kb.get(scenario.entry).checks
