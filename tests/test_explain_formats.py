"""`explain` on synthetic multi-rank logs, one per format it must understand.

The logs live in tests/fixtures/explain/ (written for these tests, assembled from the formats in
the reference notes): torchrun's failure table with rank prefixes, Burn panics and worker
numbering, watchdog victims, SIGKILL without an error, chained tracebacks, torchrun --log-dir
layouts with error.json, srun / mpirun / torchrun-role labels, DeepSpeed and Accelerate launchers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ddpdoctor.explain import SCHEMA, ExplainOptions, explain_paths, explain_text
from ddpdoctor.present.explain import explain_document
from ddpdoctor.present.render import render_text

SAMPLES = Path(__file__).resolve().parent / "fixtures" / "explain"


def explain(name: str) -> dict[str, Any]:
    return explain_paths([str(SAMPLES / name)]).to_dict()


# name -> (entry, category, rank, kind)
EXPECTED = {
    "torchrun_oom_table.log": ("cuda-out-of-memory", "oom_gpu", 3, "root"),
    "burn_worker_oom.log": ("burn-cubecl-out-of-device-memory", "oom_gpu", 1, "root"),
    "burn_metric_panic.log": (None, "other", None, "unknown"),
    "burn_svd_main.log": ("burn-svd-fallback-failed", "user_code", 0, "root"),
    "burn_legacy_tch.log": ("cuda-out-of-memory", "oom_gpu", None, "root"),
    "rust_old_panic.log": ("rust-index-out-of-bounds", "other", 0, "root"),
    "watchdog_silent_rank.log": ("nccl-watchdog-timeout", "collective_timeout", 2, "straggler"),
    "sigkill_no_error.log": ("torchelastic-signal-sigkill", "oom_host", 0, "host-kill"),
    "chained_user_error.log": (None, "user_code", 2, "unknown"),
    "torchrun_logdir": ("cuda-illegal-memory-access", "cuda_error", 1, "root"),
    "srun_labels.log": ("cuda-invalid-device-ordinal", "invalid_device", 1, "root"),
    "mpirun_labels.log": ("nccl-duplicate-gpu", "duplicate_device", None, "root"),
    "default_role_deepspeed.log": ("deepspeed-launcher-exit-code", "oom_host", 1, "host-kill"),
    "accelerate_launch.log": ("tensor-device-mismatch", "user_code", 1, "root"),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_root_cause(name: str) -> None:
    entry, category, rank, kind = EXPECTED[name]
    root = explain(name)["root_cause"]
    assert root is not None
    assert (root["entry"], root["category"], root["rank"], root["kind"]) == (entry, category, rank, kind)


def test_contract_keys_and_types() -> None:
    data = explain("torchrun_oom_table.log")
    assert list(data) == ["schema", "ok", "inputs", "root_cause", "victims", "findings", "stats"]
    assert data["schema"] == SCHEMA and data["ok"] is False
    root = data["root_cause"]
    for key in ("entry", "category", "rank", "file", "line", "text", "chain", "solutions"):
        assert key in root
    assert isinstance(root["line"], int) and root["file"].endswith("torchrun_oom_table.log")
    assert all(set(link) >= {"entry", "text"} for link in root["chain"])
    for victim in data["victims"]:
        assert set(victim) >= {"rank", "category", "entry", "line"}
    json.dumps(data)  # serialisable as is


def test_torchrun_chain_is_outermost_first_and_victims_are_the_waiting_ranks() -> None:
    data = explain("torchrun_oom_table.log")
    root = data["root_cause"]
    chain = [link["entry"] for link in root["chain"]]
    assert chain[0] == "torchelastic-child-failed" and chain[-1] == "cuda-out-of-memory"
    victims = {v["rank"]: v for v in data["victims"] if v["rank"] is not None}
    assert set(victims) == {0, 1, 2}
    assert all(v["category"] == "collective_timeout" and v["role"] == "victim" for v in victims.values())


def test_oom_numbers_become_advice() -> None:
    advice = " ".join(explain("torchrun_oom_table.log")["root_cause"]["advice"])
    assert "2.50 GiB" in advice and "1.20 GiB free of 79.15 GiB" in advice
    assert "expandable_segments" in advice  # 6.31 GiB reserved but unallocated > the request
    assert "rank(s) 0, 1, 2" in advice


def test_burn_worker_numbering_is_stated() -> None:
    root = explain("burn_worker_oom.log")["root_cause"]
    assert root["rank"] == 1
    assert "worker 0 runs on devices[1]" in root["rank_note"]
    assert root["chain"][0]["entry"] == "burn-ddp-worker-failed"
    assert any("experiment.log" in line for line in root["advice"])
    # the location is the worker's own panic, which printed first
    assert root["line"] == 7


def test_burn_shared_thread_panic_is_the_cause_and_the_workers_are_victims() -> None:
    data = explain("burn_metric_panic.log")
    assert "accuracy metric" in data["root_cause"]["text"]
    victims = {v["entry"]: v for v in data["victims"]}
    assert victims["burn-event-processor-send-error"]["rank"] == 2


def test_watchdog_names_the_silent_rank() -> None:
    root = explain("watchdog_silent_rank.log")["root_cause"]
    assert root["suspect_ranks"] == [2]
    advice = " ".join(root["advice"])
    assert "ALLREDUCE (SeqNum 88)" in advice and "1800000 ms" in advice
    assert "rank(s) 2" in advice and any("never reported it" in why for why in root["why"])
    assert root["confidence"] == "medium"


def test_sigkill_without_python_error_is_a_host_kill() -> None:
    root = explain("sigkill_no_error.log")["root_cause"]
    assert root["category"] == "oom_host"
    assert "dmesg" in " ".join(root["advice"])


def test_chained_exception_reports_the_first_cause_raised_by_user_code() -> None:
    root = explain("chained_user_error.log")["root_cause"]
    assert root["text"] == "KeyError: 'label'"
    assert [link["text"] for link in root["chain"]] == ["ValueError: bad row 1288", "KeyError: 'label'"]
    assert root["frame"] == "/home/bob/data/loader.py:40 in load_row"
    assert root["user_frame"]["file"] == "/home/bob/data/loader.py" and root["user_frame"]["line"] == 40
    assert root["confidence"] == "high"


def test_error_json_gives_the_local_rank_from_the_folder() -> None:
    data = explain("torchrun_logdir")
    root = data["root_cause"]
    assert root["file"].endswith("attempt_0/1/error.json")
    assert root["rank_source"] == "torchrun log folder (local rank)"
    kinds = {Path(i["path"]).name: i["kind"] for i in data["inputs"]}
    assert kinds["error.json"] == "error-file" and kinds["stdout.log"] == "file"


def test_duplicate_device_names_both_ranks() -> None:
    root = explain("mpirun_labels.log")["root_cause"]
    assert [link["entry"] for link in root["chain"]][-1] == "nccl-duplicate-gpu"
    assert "Ranks 0 and 2 both use CUDA device 1000" in " ".join(root["advice"])


def test_no_failure_means_no_root_cause_and_exit_zero() -> None:
    report = explain_text("[rank0]: step 1 loss 2.0\n[rank1]: step 1 loss 2.1\n")
    assert report.root_cause is None and report.victims == []
    assert int(report.exit_code()) == 0


def test_unknown_error_still_gets_line_rank_and_category_other() -> None:
    text = '[rank5]: Traceback (most recent call last):\n[rank5]:   File "/x/site-packages/lib.py", line 3, in f\n[rank5]: ZorkError: the flux capacitor is empty\n'
    root = explain_text(text).root_cause
    assert root is not None
    assert (root.entry, root.category, root.rank, root.line) == (None, "other", 5, 3)
    assert root.text == "ZorkError: the flux capacitor is empty"
    assert root.headline == "rank 5: ZorkError: the flux capacitor is empty"
    assert any("report it" in line for line in root.advice)


def test_timestamps_pick_the_earliest_failure_across_files(tmp_path: Path) -> None:
    (tmp_path / "rank0.log").write_text(
        "[2026-11-29 10:00:09,000] INFO start\nRuntimeError: CUDA error: an illegal memory access was encountered\n"
    )
    (tmp_path / "rank1.log").write_text(
        "[2026-11-29 10:00:05,000] INFO start\nRuntimeError: CUDA error: device-side assert triggered\n"
    )
    root = explain_paths([str(tmp_path)]).root_cause
    assert root is not None and root.rank == 1 and root.entry == "cuda-device-side-assert"


def test_engines_agree_on_every_sample() -> None:
    for name in sorted(EXPECTED):
        path = str(SAMPLES / name)
        fast = explain_paths([path], ExplainOptions(engine="hyperscan")).to_dict()
        slow = explain_paths([path], ExplainOptions(engine="python")).to_dict()
        fast["stats"].pop("engine")
        slow["stats"].pop("engine")
        assert fast == slow, name


def test_experimental_entries_are_labelled(kb) -> None:
    """House style: a diagnosis that rests on an experimental entry says so."""
    entry = kb.get("burn-ddp-empty-device-list")
    assert entry.status == "experimental"
    report = explain_text(entry.samples_match[0].text)
    assert report.root_cause is not None and report.root_cause.entry == entry.id
    assert report.root_cause.status == "experimental"
    assert "entry status:" in render_text(explain_document(report))
    stable = explain_text("[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.")
    assert stable.root_cause is not None and stable.root_cause.status == "stable"
    assert "entry status:" not in render_text(explain_document(stable))
