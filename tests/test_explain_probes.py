"""The classes of logs `explain` used to get wrong (issue 10), each as a test on a realistic log.

Every log here is written the way the real tool prints it (PyTorch 2.x tracebacks, torchrun's
agent and failure table, NCCL's watchdog and desync reports, gloo's errors, kubectl's prefixes), so
each test exercises the real reading path: recognizers, timeline, analysers and verdict.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable
from pathlib import Path

import pytest

from ddpdoctor.explain import explain_paths, explain_text
from ddpdoctor.explain.ranks import named_ranks, split_prefix
from ddpdoctor.explain.report import RootCause
from ddpdoctor.explain.wording import message_category
from ddpdoctor.matching import clean_line, segments

SITE = "/opt/conda/lib/python3.11/site-packages"


def _frames(count: int) -> str:
    return "".join(
        f'  File "{SITE}/torch/_dynamo/symbolic_convert.py", line {100 + i}, in step\n    self.run()\n'
        for i in range(count)
    )


def test_a_250_frame_traceback_with_an_unusual_exception_is_found() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/home/u/train.py", line 88, in <module>\n    out = compiled(x)\n'
        + _frames(250)
        + "torch._dynamo.exc.Unsupported: call_function BuiltinVariable(open) [] {}\n"
    )
    root = explain_text(text).root_cause
    assert root is not None
    assert root.text.startswith("torch._dynamo.exc.Unsupported")
    assert root.user_frame is not None and (root.user_frame.file, root.user_frame.line) == (
        "/home/u/train.py",
        88,
    )


def test_a_traceback_cut_off_before_its_exception_still_gets_a_verdict() -> None:
    text = 'Traceback (most recent call last):\n  File "/home/u/train.py", line 12, in <module>\n    main()\n'
    report = explain_text(text)
    assert report.root_cause is not None and int(report.exit_code()) == 1
    assert "cut off" in report.root_cause.text and report.root_cause.confidence == "low"


def test_an_nccl_warn_line_no_entry_knows_is_an_nccl_error() -> None:
    text = (
        "node7:1234:1290 [3] transport/net_ib.cc:999 NCCL WARN NET/IB : frobnicator rejected the queue pair\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.category == "nccl_error" and root.entry is None


def test_a_user_exception_names_the_users_line() -> None:
    text = (
        "[rank1]: Traceback (most recent call last):\n"
        '[rank1]:   File "/home/u/train.py", line 88, in <module>\n'
        "[rank1]:     check(batch)\n"
        '[rank1]:   File "/home/u/train.py", line 41, in check\n'
        '[rank1]:     raise ValueError("label 12 is outside the 10 classes")\n'
        "[rank1]: ValueError: label 12 is outside the 10 classes\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 1)
    assert root.user_frame is not None and root.user_frame.line == 41
    assert root.user_frame.code == 'raise ValueError("label 12 is outside the 10 classes")'
    assert root.headline == "rank 1: ValueError: label 12 is outside the 10 classes"
    assert root.confidence == "high"


def test_an_attribute_read_through_the_ddp_wrapper_is_the_users_code() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/home/u/train.py", line 57, in <module>\n    dim = model.head_dim\n'
        f'  File "{SITE}/torch/nn/modules/module.py", line 1967, in __getattr__\n'
        "    raise AttributeError(\n"
        "AttributeError: 'DistributedDataParallel' object has no attribute 'head_dim'\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.category == "user_code"
    assert root.user_frame is not None and root.user_frame.where() == "/home/u/train.py:57 in <module>"


def test_a_dataloader_workers_keyerror_is_a_dataloader_failure_at_the_datasets_line() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/home/u/train.py", line 30, in <module>\n    for batch in loader:\n'
        f'  File "{SITE}/torch/_utils.py", line 794, in reraise\n    raise exception\n'
        "KeyError: Caught KeyError in DataLoader worker process 0.\n"
        "Original Traceback (most recent call last):\n"
        f'  File "{SITE}/torch/utils/data/_utils/worker.py", line 349, in _worker_loop\n'
        "    data = fetcher.fetch(index)\n"
        '  File "/home/u/data.py", line 19, in __getitem__\n    return self.table[key]\n'
        "KeyError: 'sample-0042'\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.category == "dataloader"
    assert root.text == "KeyError: 'sample-0042'"
    # The line is where the message that carries the worker's starts: the re-raise's.
    assert root.line == 6
    assert root.user_frame is not None and (root.user_frame.file, root.user_frame.line) == (
        "/home/u/data.py",
        19,
    )


def test_a_traceback_pasted_from_its_frames_keeps_them() -> None:
    text = (
        '  File "/home/u/train.py", line 70, in train_step\n    loss = criterion(out, y)\n'
        f'  File "{SITE}/torch/nn/functional.py", line 3086, in cross_entropy\n    return torch._C._nn.cross_entropy_loss(\n'
        "IndexError: Target 11 is out of bounds.\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.category == "user_code"
    assert root.user_frame is not None and root.user_frame.line == 70


def _watchdog(rank: int, seq: int, op: str, stamp: str = "14:10:02.500000") -> str:
    return (
        f"[rank{rank}]:[E1129 {stamp} ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog caught collective "
        f"operation timeout: WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn=1024, NumelOut=1024, "
        f"Timeout(ms)=600000) ran for 600081 milliseconds before timing out.\n"
    )


def test_a_silent_highest_rank_is_the_straggler_when_the_world_size_is_known() -> None:
    text = "WORLD_SIZE=4 MASTER_ADDR=node0\n" + "".join(_watchdog(r, 88, "ALLREDUCE") for r in range(3))
    root = explain_text(text).root_cause
    assert root is not None and (root.kind, root.rank, root.category) == (
        "straggler",
        3,
        "collective_timeout",
    )
    assert root.confidence == "medium" and any("never reported it" in why for why in root.why)


def test_one_rank_in_another_collective_at_the_same_seq_is_a_mismatch() -> None:
    text = "".join(_watchdog(r, 101, "ALLREDUCE") for r in (0, 1, 3)) + _watchdog(2, 101, "BROADCAST")
    root = explain_text(text).root_cause
    assert root is not None and (root.category, root.rank, root.kind) == (
        "collective_mismatch",
        2,
        "mismatch",
    )


def test_a_desync_report_blames_the_rank_it_names_not_the_printer() -> None:
    text = _watchdog(0, 101, "ALLREDUCE") + (
        "[rank0]:[E1129 14:10:03.000000 ProcessGroupNCCL.cpp:1200] [Rank 0] Desync debug report: "
        "\t - To our best knowledge, ranks [7] are the lagging ranks that caused this timeout. "
        "They never joined any collectives\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and (root.rank, root.kind) == (7, "straggler")


def test_a_gloo_timeout_blames_the_rank_that_never_arrived(tmp_path: Path) -> None:
    text = (
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/home/u/train.py", line 21, in main\n[rank0]:     dist.all_reduce(t)\n'
        "[rank0]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out "
        "waiting 5000ms for recv operation to complete\n"
        "W1130 15:30:43.037000 19807 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process "
        "19940 closing signal SIGTERM\n"
        "E1130 15:30:43.106000 19807 torch/distributed/elastic/multiprocessing/api.py:1002] failed "
        "(exitcode: 1) local_rank: 0 (pid: 19939) of binary: /usr/bin/python\n"
        "Failures:\n[1]:\n  time      : 2026-11-30_15:30:43\n  host      : localhost\n"
        "  rank      : 1 (local_rank: 1)\n  exitcode  : -15 (pid: 19940)\n  error_file: <N/A>\n"
        "  traceback : Signal 15 (SIGTERM) received by PID 19940\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and (root.rank, root.kind, root.category) == (
        1,
        "straggler",
        "collective_timeout",
    )


def test_per_rank_files_without_times_still_find_the_rank_that_died(tmp_path: Path) -> None:
    """torchrun --log-dir: the survivor's "Connection closed by peer" is not the cause; rank 1 exited."""
    run = tmp_path / "run" / "attempt_0"
    (run / "0").mkdir(parents=True)
    (run / "1").mkdir(parents=True)
    (run / "0" / "stderr.log").write_text(
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/home/u/train.py", line 30, in main\n[rank0]:     dist.all_reduce(t)\n'
        "[rank0]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer "
        "[127.0.0.1]:1236. This is typically caused by a remote worker crashing.\n"
    )
    (run / "1" / "stdout.log").write_text("rank 1 step 1 loss 0.77\nrank 1 step 2 loss 1.00\n")
    (run / "1" / "stderr.log").write_text("")
    root = explain_paths([str(tmp_path)]).root_cause
    assert root is not None and root.rank == 1 and root.kind == "lost-peer"


def test_kubectl_prefixes_name_the_rank() -> None:
    text = (
        "[pod/train-master-0/pytorch] step 10 loss 1.2\n"
        "[pod/train-worker-2/pytorch] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. "
        "GPU 0 has a total capacity of 79.15 GiB of which 1.00 GiB is free.\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and (root.entry, root.rank) == ("cuda-out-of-memory", 3)


def test_a_rank_label_inside_a_pods_prefix_names_the_rank() -> None:
    """A pod runs one rank per GPU: its index is its node, the program's `[rankN]:` says which rank."""
    lines = ["Traceback (most recent call last):", '  File "/app/train.py", line 7, in <module>']
    lines += ["    batch = shards[step]", "KeyError: 12"]
    text = "".join(f"[pod/train-worker-1/pytorch] [rank5]: {line}\n" for line in lines)
    root = explain_text(text).root_cause
    assert root is not None and (root.rank, root.category) == (5, "user_code")


def test_a_knowledge_base_pattern_anchored_at_the_start_matches_behind_a_rank_label() -> None:
    """`^` in an entry's pattern is the start of the message, not of the line the launcher labelled."""
    for label in ("", "[rank3]: ", "3: [rank3]: "):
        root = explain_text(f"{label}NCCL failure common.cu:908 'unhandled system error'\n").root_cause
        assert root is not None and root.entry == "nccl-tests-failure"
        assert root.rank == (3 if label else None)


LOGGER_FORMATS = {
    "python logging": "2024-01-01 10:00:00,123 - [rank 3] - {}",
    "loguru": "2024-01-01 10:00:00.123 | ERROR    | rank 3 | {}",
    "hydra": "[2024-01-01 10:00:00,123][__main__][ERROR] - [rank 3] {}",
    "host and rank": "[node1:rank3]: {}",
    "ray actor": "(TrainWorker rank=3 pid=12) {}",
    "bare": "Rank 3: {}",
    "world": "[RANK 3/8] {}",
    "angle": "<rank 3> {}",
    "torch-style tag first": "[Rank 3] {}",
    "glued": "rank3: {}",
}


@pytest.mark.parametrize("fmt", LOGGER_FORMATS.values(), ids=list(LOGGER_FORMATS))
def test_a_loggers_rank_field_names_the_rank_and_keeps_the_traceback(fmt: str) -> None:
    lines = ["Traceback (most recent call last):", '  File "/home/u/train.py", line 10, in <module>']
    lines += ["    main()", "ValueError: bad batch"]
    root = explain_text("".join(fmt.format(line) + "\n" for line in lines)).root_cause
    assert root is not None and (root.rank, root.category) == (3, "user_code")
    assert root.user_frame is not None and root.user_frame.line == 10


def test_a_rank_named_inside_a_message_is_not_its_printer() -> None:
    for line in ("ValueError: rank 3: bad batch\n", "rank 3 failed to join the group: ValueError: x\n"):
        root = explain_text(line).root_cause
        assert root is not None and root.rank is None, line


def test_glog_times_across_new_year_keep_their_order(tmp_path: Path) -> None:
    (tmp_path / "rank0.log").write_text(
        "[E1231 23:59:58.000000 ProcessGroupNCCL.cpp:1] step\n"
        "RuntimeError: CUDA error: an illegal memory access was encountered\n"
        "[E0101 00:00:05.000000 ProcessGroupNCCL.cpp:1] later\n"
    )
    (tmp_path / "rank1.log").write_text(
        "[E1231 23:59:50.000000 ProcessGroupNCCL.cpp:1] step\n"
        "[E0101 00:00:01.000000 ProcessGroupNCCL.cpp:1] new year\n"
        "RuntimeError: CUDA error: device-side assert triggered\n"
    )
    root = explain_paths([str(tmp_path)]).root_cause
    assert root is not None and (root.rank, root.entry) == (0, "cuda-illegal-memory-access")


def test_error_file_times_are_not_compared_with_log_times(tmp_path: Path) -> None:
    """An error file's Unix time (UTC) says nothing about a log line's local time: order falls back."""
    logdir = tmp_path / "attempt_0"
    (logdir / "0").mkdir(parents=True)
    (logdir / "1").mkdir(parents=True)
    (logdir / "0" / "stderr.log").write_text(
        "[2026-11-29 10:00:05,000] INFO start\nRuntimeError: CUDA error: an illegal memory access was encountered\n"
    )
    message = {
        "message": "RuntimeError: CUDA error: device-side assert triggered",
        "extraInfo": {"timestamp": "1764410400"},
    }
    (logdir / "1" / "error.json").write_text(json.dumps({"message": message}))
    report = explain_paths([str(tmp_path)])
    assert report.root_cause is not None
    assert any("no comparable times" in why for why in report.root_cause.why)


def test_a_sigkill_without_error_is_likely_the_oom_killer_and_the_headline_says_so() -> None:
    text = (
        "[rank0]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:537] Read error "
        "[127.0.0.1]:44428: Connection reset by peer\n"
        "E1130 15:31:38.356000 21493 torch/distributed/elastic/multiprocessing/api.py:1002] failed "
        "(exitcode: -9) local_rank: 1 (pid: 21520) of binary: /usr/bin/python\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and (root.rank, root.category, root.kind) == (1, "oom_host", "host-kill")
    assert root.headline == "rank 1 was killed by SIGKILL (exit -9)"
    assert any("likely" in line and "dmesg" in line for line in root.advice)


def test_record_is_not_advised_when_an_error_file_was_written() -> None:
    table = (
        "Root Cause (first observed failure):\n[0]:\n  time      : 2026-11-29_18:39:38\n  host      : localhost\n"
        "  rank      : 1 (local_rank: 1)\n  exitcode  : 3 (pid: 14528)\n  error_file: {error_file}\n"
        "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n"
    )
    without = explain_text(table.format(error_file="<N/A>")).root_cause
    with_file = explain_text(table.format(error_file="/tmp/torchelastic_x/error.json")).root_cause
    assert without is not None and with_file is not None
    assert any("record" in line for line in without.advice)
    assert not any("record" in line for line in with_file.advice)


def test_a_gzipped_console_log_gives_the_same_answer(tmp_path: Path) -> None:
    text = "[rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB.\n"
    (tmp_path / "plain.log").write_text(text)
    (tmp_path / "packed.log.gz").write_bytes(gzip.compress(text.encode()))
    plain = explain_paths([str(tmp_path / "plain.log")]).root_cause
    packed = explain_paths([str(tmp_path / "packed.log.gz")]).root_cause
    assert plain is not None and packed is not None
    assert (plain.entry, plain.rank) == (packed.entry, packed.rank) == ("cuda-out-of-memory", 2)


def _announcements(ranks: list[int], world: int) -> str:
    return "".join(f"initializing ddp: GLOBAL_RANK: {r}, MEMBER: {r + 1}/{world}\n" for r in ranks)


def test_global_ranks_claimed_twice_while_others_are_missing_is_a_rendezvous_fault() -> None:
    report = explain_text("GPU available: True, used: True\n" + _announcements([0, 1, 0, 1], 4))
    root = report.root_cause
    assert root is not None and root.category == "rendezvous" and root.rank is None
    assert "claimed" in root.headline and "2, 3" in root.headline
    assert int(report.exit_code()) == 1


def test_every_rank_announced_once_or_again_after_a_restart_is_no_conflict() -> None:
    registered = "All distributed processes registered. Starting with 4 processes\nepoch 0 loss 1.0\n"
    for ranks in ([0, 1, 2, 3], [0, 1, 2, 3, 0, 1, 2, 3]):
        report = explain_text(_announcements(ranks, 4) + registered)
        assert report.root_cause is None and int(report.exit_code()) == 0
        # Output that stops right there is a group that never finished forming, not a conflict.
        stopped = explain_text(_announcements(ranks, 4)).root_cause
        assert stopped is not None and stopped.kind == "stall" and "claimed" not in stopped.headline


def test_an_abort_without_an_error_of_its_own_is_a_victim_of_the_ranks_exception() -> None:
    # gloo aborts rank 0 (a C++ exception, then `Fatal Python error: Aborted`) once rank 1 raised.
    text = (
        "[rank0]:Fatal Python error: Aborted\n"
        "[rank1]:Traceback (most recent call last):\n"
        '[rank1]:  File "/home/u/train.py", line 12, in <module>\n'
        '[rank1]:    raise ValueError("bad batch")\n'
        "[rank1]:ValueError: bad batch\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 1)
    alone = explain_text("[rank0]:Fatal Python error: Aborted\n").root_cause
    assert alone is not None and alone.rank == 0  # alone, the abort is still the verdict


def test_an_nccl_record_takes_the_rank_its_process_set_up_with() -> None:
    """NCCL labels records `host:pid:tid [device]`; the communicator's set-up line of the same process
    says its rank. The device index alone is only local and names no rank."""
    text = (
        "node7:4411:4411 [0] NCCL INFO ncclCommInitRank comm 0x55d0 rank 0 nranks 4 cudaDev 0 busId 1b000\n"
        "node7:4412:4412 [1] NCCL INFO comm 0x5601 rank 3 nRanks 4 nNodes 2 localRanks 2 localRank 1\n"
        "node7:4412:4530 [1] enqueue.cc:47 NCCL WARN Cuda failure 'invalid argument'\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.rank == 3 and root.category == "nccl_error"
    alone = explain_text(text.split("\n", 2)[2]).root_cause
    assert alone is not None and alone.rank is None


def _same_error_on(ranks: range, message: str) -> str:
    return "".join(
        f"[rank{r}]: Traceback (most recent call last):\n"
        f'[rank{r}]:   File "/home/u/train.py", line 40, in <module>\n[rank{r}]:     main()\n'
        f"[rank{r}]: {message}\n"
        for r in ranks
    )


def test_an_error_every_rank_raises_names_no_rank() -> None:
    message = "RuntimeError: expected scalar type Float but found BFloat16"
    root = explain_text(_same_error_on(range(3), message)).root_cause
    assert root is not None and root.rank is None and root.suspect_ranks == (0, 1, 2)
    assert root.category == "user_code"
    # Two of a job of three ranks: not every rank, so the first one is named.
    some = explain_text("[rank2]: step 5\n" + _same_error_on(range(2), message)).root_cause
    assert some is not None and some.rank == 0


def test_a_code_fence_opened_after_a_rank_label_keeps_the_rank() -> None:
    text = "[rank1]:` RuntimeError: CUDA error: an illegal memory access was encountered\n"
    root = explain_text(text).root_cause
    assert root is not None and (root.rank, root.entry) == (1, "cuda-illegal-memory-access")


def test_launchers_that_report_a_rank_and_an_exit_code() -> None:
    """horovodrun's, Open MPI's and Composer's exit reports name the rank; 128+N is signal N."""
    horovod = explain_text("Process 0 exit with status code 137.\n").root_cause
    assert horovod is not None and (horovod.rank, horovod.category) == (0, "oom_host")
    mpi = explain_text(
        "mpirun detected that one or more processes exited with non-zero status, thus causing\n"
        "the job to be terminated. The first process to do so was:\n\n"
        "  Process name: [[50371,1],3]\n  Exit code:    1\n"
    ).root_cause
    assert mpi is not None and mpi.rank == 3 and "Process name" in mpi.text
    composer = explain_text("ERROR:composer.cli.launcher:Rank 2 crashed with exit code -7.\n").root_cause
    assert composer is not None and (composer.rank, composer.category) == (2, "oom_host")


def test_native_crash_reports_are_never_silent() -> None:
    glog = "W1212 04:02:33.403934 24044 init.cc:205] *** SIGSEGV (@0x0) received by PID 24044 (TID 0x7f64) from PID 0; stack trace: ***\n"
    panic = "panicked at C:\\Users\\u\\.cargo\\registry\\src\\wgpu-23.0.1\\src\\lib.rs:1613:18:\n\nthread panicked while processing panic. aborting.\n"
    onnx = "2020-11-24 20:31:45.932 [E:onnxruntime:Default, cuda_call.cc:119 CudaCall] NCCL failure 5: invalid usage ; GPU=0\n"
    expected = {glog: ("other", "SIGSEGV"), panic: ("other", "wgpu"), onnx: ("nccl_error", "invalid usage")}
    for text, (category, said) in expected.items():
        root = explain_text(text).root_cause
        assert root is not None and root.category == category and said in root.text, text


def test_a_traceback_indented_as_a_whole_keeps_its_exception_line() -> None:
    """torchrun's failure table indents the error file's traceback; its exception line is less indented."""
    text = (
        "traceback : Traceback (most recent call last):\n"
        '    File "/home/u/train.py", line 162, in main\n'
        "      torch.cuda.set_device(device)\n"
        '    File "/opt/conda/lib/python3.11/site-packages/torch/cuda/__init__.py", line 470, in set_device\n'
        "      torch._C._cuda_setDevice(device)\n"
        "  RuntimeError: CUDA error: invalid device ordinal\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.entry == "cuda-invalid-device-ordinal"


def test_a_failed_cpp_check_before_an_abort_is_the_root_and_the_abort_its_consequence() -> None:
    check = "[/src/third_party/gloo/gloo/transport/uv/libuv.h:596] uv_accept: invalid argument\n"
    abort = "*** SIGABRT received at time=1734086759 on cpu 3 ***\nPC: @  0x19ea96600  (unknown)  __pthread_kill\n"
    root = explain_text(check + abort).root_cause
    assert root is not None and "uv_accept: invalid argument" in root.text
    # Alone, the abort is still a verdict; a glog warning record before it is not taken as the check.
    alone = explain_text("W1212 04:02:33.40 24044 init.cc:205] PC: @ 0x0 (unknown)\n" + abort).root_cause
    assert alone is not None and "SIGABRT" in alone.text


def test_retries_at_their_limit_are_a_failure_and_earlier_retries_are_not() -> None:
    line = "host:1183664:1184669 [0] NCCL INFO socketPollConnect: connect returned No route to host, retrying ({}/34)\n"
    # Below its limit the retry goes on: not a failure of its own, only where the output stops (NCCL's set-up).
    retrying = explain_text(line.format(3) + line.format(4)).root_cause
    assert retrying is not None and (retrying.kind, retrying.confidence) == ("stall", "low")
    root = explain_text(line.format(33) + line.format(34)).root_cause
    assert root is not None and root.category == "nccl_error" and "(34/34)" in root.text


def test_a_warning_that_something_failed_is_a_verdict_only_as_the_logs_last_words() -> None:
    warning = (
        "[W socket.cpp:663] [c10d] The client socket has failed to connect to [localhost]:55292 (errno: 99 -"
        " Cannot assign requested address).\n"
    )
    root = explain_text(warning).root_cause
    assert root is not None and root.category == "rendezvous" and root.confidence == "low"
    assert explain_text(warning + "step 1 loss 2.30\n").root_cause is None  # the retry succeeded
    # NCCL's INFO lines are not errors: output that stops at one is where a job stopped, no more.
    info = explain_text("host:1:2 [0] NCCL INFO Failed to open libibverbs.so[.1]\n").root_cause
    assert info is not None and (info.kind, info.confidence) == ("stall", "low")


def test_a_flattened_traceback_keeps_each_frames_code_apart_from_the_exception_glued_to_it() -> None:
    root = explain_text(
        'Traceback (most recent call last): File "/env/lib/python3.6/runpy.py", line 193, in _run_module_as_main'
        ' "__main__", mod_spec) File "/env/lib/python3.6/site-packages/torch/distributed/launch.py", line 218,'
        " inmain cmd=process.args) subprocess.CalledProcessError: Command '['python', 'train.py',"
        " '--local_rank=0']' died with <Signals.SIGSEGV: 11>.\n"
    ).root_cause
    assert root is not None and root.text.startswith("subprocess.CalledProcessError: Command '['python'")
    assert root.frame == "/env/lib/python3.6/site-packages/torch/distributed/launch.py:218 in main"
    assert root.rank == 0


def test_a_log_that_ends_saying_something_failed_gets_a_low_confidence_verdict() -> None:
    steps = "".join(f"step {i} loss 0.{i}\n" for i in range(60))
    ending = "launching workers on node2\nssh: connect to host node2 port 2222: Connection timed out\n"
    root = explain_text(steps + ending).root_cause
    assert root is not None and "Connection timed out" in root.text and root.confidence == "low"
    # The same words early in a log that goes on are a healthy start-up, and NCCL's INFO lines are not errors.
    healthy = "Model weights not found in cache, downloading\n" + steps
    assert explain_text(healthy).root_cause is None
    assert (
        explain_text("host:1:2 [0] NCCL INFO Failed to open libibverbs.so[.1]\n" + steps).root_cause is None
    )
    # Any real error outranks such a line.
    real = explain_text(steps + "ValueError: bad shape\n" + ending).root_cause
    assert real is not None and "ValueError" in real.text


def test_the_rank_with_fewest_collectives_enqueued_is_behind_and_a_lone_heartbeat_names_no_rank() -> None:
    line = (
        "[rank{r}]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank {r}] Heartbeat monitor timed out! Process will be"
        " terminated after dumping debug info. workMetaList_.size()={n}\n"
    )
    root = explain_text("".join(line.format(r=r, n=n) for r, n in ((0, 103), (1, 103), (2, 84)))).root_cause
    assert root is not None and root.rank == 2 and "size()=84" in root.text
    alone = explain_text(line.format(r=5, n=1)).root_cause
    assert alone is not None and alone.category == "collective_timeout" and alone.rank is None


def test_ranks_out_of_step_are_a_hang_with_the_ranks_behind_as_suspects() -> None:
    text = _watchdog(0, 1516, "ALLREDUCE") + _watchdog(1, 1517, "ALLREDUCE")
    root = explain_text(text).root_cause
    assert root is not None and (root.category, root.rank, root.suspect_ranks) == (
        "collective_timeout",
        None,
        (0,),
    )
    assert "SeqNum=1516" in root.text


def test_the_advice_states_each_collective_the_ranks_timed_out_in() -> None:
    text = "".join(_watchdog(r, 15173, "ALLREDUCE") for r in range(4)) + "".join(
        _watchdog(r, 15170, "BROADCAST") for r in (6, 7)
    )
    root = explain_text(text).root_cause
    assert root is not None
    assert (
        "ALLREDUCE (SeqNum 15173) timed out on rank(s) 0, 1, 2, 3; BROADCAST (SeqNum 15170) on rank(s) 6, 7"
        in " ".join(root.advice)
    )


def test_a_fatal_abort_is_the_error_of_the_rank_that_died_of_sigabrt_not_of_the_rank_that_exited() -> None:
    # A live capture of the sys-exit probe in which rank 0, having lost its peer, aborted before the
    # agent saw rank 1's exit: torchrun's table calls rank 0's SIGABRT the first failure.
    text = (
        "[rank0]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed"
        " by peer [127.0.0.1]:48353\n"
        "terminate called without an active exception\n"
        "Fatal Python error: Aborted\n\n"
        "Thread 0x00007f9b647cbb80 (most recent call first):\n  <no Python frame>\n\n"
        "E1201 13:25:58.288000 1822 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -6)"
        " local_rank: 0 (pid: 1830) of binary: /usr/bin/python\n"
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
        "============================================================\n"
        "probes/sys_exit.py FAILED\n"
        "------------------------------------------------------------\n"
        "Failures:\n[1]:\n  time      : 2026-12-01_13:25:58\n  host      : localhost\n"
        "  rank      : 1 (local_rank: 1)\n  exitcode  : 3 (pid: 1831)\n  error_file: <N/A>\n"
        "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n"
        "------------------------------------------------------------\n"
        "Root Cause (first observed failure):\n[0]:\n  time      : 2026-12-01_13:25:58\n"
        "  host      : localhost\n  rank      : 0 (local_rank: 0)\n  exitcode  : -6 (pid: 1830)  (SIGABRT)\n"
        "  error_file: <N/A>\n"
        "============================================================\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and (root.rank, root.exit_code) == (1, 3)


def test_nccl_on_the_loopback_is_no_finding_while_the_connections_work() -> None:
    report = explain_text(
        "node1:1:1 [0] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>\nepoch 1 loss 0.5\nepoch 2 loss 0.4\n"
    )
    assert report.root_cause is None and not report.findings


def _collective_traceback(rank: int, op: str) -> str:
    lines = [
        "Traceback (most recent call last):",
        '  File "/home/u/train.py", line 40, in <module>',
        f"    dist.{op}(metric)",
        '  File "/usr/lib/python3.11/site-packages/torch/distributed/c10d_logger.py", line 81, in wrapper',
        "    return func(*args, **kwargs)",
        f'  File "/usr/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 2800, in {op}',
        "    work.wait()",
        "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [127.0.0.1]:1",
    ]
    return "".join(f"[rank{rank}]: {line}\n" for line in lines)


def test_tracebacks_that_stop_in_different_collectives_are_a_mismatch() -> None:
    root = explain_text(
        _collective_traceback(0, "all_reduce") + _collective_traceback(1, "broadcast")
    ).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", None)
    same = explain_text(
        _collective_traceback(0, "all_reduce") + _collective_traceback(1, "all_reduce")
    ).root_cause
    assert same is not None and same.category != "collective_mismatch"


def test_pastes_that_lost_their_shape_still_give_the_exception() -> None:
    unindented = (
        'File "a.py", line 5, in f\n\nFile "b.py", line 7, in g\nassert x, "boom"\nAssertionError: boom\n'
    )
    root = explain_text(unindented).root_cause
    assert root is not None and root.text == "AssertionError: boom" and root.user_frame is not None
    quoted = explain_text(
        '"ValueError: You set `strategy=ddp` but it is not supported here. Either\n'
    ).root_cause
    assert quoted is not None and quoted.text.startswith("ValueError: You set")
    columns = "  File \"m.py\", line 198, in mask\n    x = f(dtype=inputs.dtype)      AttributeError: 'NoneType' object\n"
    glued = explain_text(columns).root_cause
    assert glued is not None and glued.text.startswith("AttributeError: 'NoneType'")


@pytest.mark.parametrize(
    ("message", "category"),
    [
        ("RuntimeError indice_cuda.cu 124 cuda execution failed with error 2", "oom_gpu"),
        ("RuntimeError: CUDA error 101 when calling cudaSetDevice", "invalid_device"),
        ("OSError: (External) CUDA error(2), out of memory.", "oom_gpu"),
        (
            "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory allocating 17179869184",
            "oom_gpu",
        ),
        ("RuntimeError: CUDNN_STATUS_MAPPING_ERROR in conv2d backward", "cuda_error"),
        ("ConnectionError: [Errno -2] Name or service not known: 'trainer-0.svc'", "rendezvous"),
        ("OSError: [Errno 12] Cannot allocate memory", "oom_host"),
        (
            "OSError: libcudart.so.11.0: cannot open shared object file: No such file or directory",
            "version_mismatch",
        ),
        ("RuntimeError: Ninja is required to load C++ extensions", "version_mismatch"),
        ("dgl._ffi.base.DGLError: socket_communicator.cc:197: Cannot bind to 10.0.0.7:3026", "rendezvous"),
        (
            "2024-07-29 17:14:59.920189: E external/xla/xla/service/rendezvous.cc:38] Expected 8 threads to"
            " join the rendezvous, but not all of them arrived on time.",
            "collective_timeout",
        ),
        ("RuntimeError: No rendezvous handler for tcp://", "backend_unsupported"),
        (
            "RuntimeError: the distributed NCCL backend is not available; try to recompile",
            "backend_unsupported",
        ),
        (
            "NotImplementedError: Using RTX 4000 series doesn't support faster communication broadband via P2P or IB.",
            "backend_unsupported",
        ),
        ("/usr/bin/python3.10: No module named torch.distributed", "version_mismatch"),
        (
            "RuntimeError: Unable to initialize backend 'cuda': FAILED_PRECONDITION: No visible GPU devices.",
            "invalid_device",
        ),
        ("RuntimeError: HcclAllReduce failed, error code is 4", "nccl_error"),
        (
            "RuntimeError: Getting socket times out. Reason: Remote Rank did not send the data in time.",
            "collective_timeout",
        ),
        (
            "tensorflow.python.framework.errors_impl.CancelledError: [_Derived_]RecvAsync is cancelled.",
            "collective_timeout",
        ),
        ("RuntimeError: DataLoader 1 workers exit unexpectedly, pids: 6581", "dataloader"),
        ("AssertionError: MPI world size 16 does not match torch world size 8", "rendezvous"),
        (
            "MXNetError: [22:00:27] src/kvstore/kvstore.cc:41: compile with USE_DIST_KVSTORE=1 to use dist_sync",
            "backend_unsupported",
        ),
        (
            "Collective ops is aborted by: Shape mismatch in the collective instance 100.",
            "collective_mismatch",
        ),
        ("EE1002: Stream synchronize timeout. rtDeviceSynchronize execute failed", "collective_timeout"),
        ("torch.AcceleratorError: XPU error: device lost", "cuda_error"),
        (
            "tensorflow.python.framework.errors_impl.OutOfRangeError:  [_Derived_]End of sequence",
            "dataloader",
        ),
        ("Stopping coordination service as cluster registration failed.", "rendezvous"),
        (
            "Exception in device=TPU:6: mesh_service.cc:294 : Failed to meet rendezvous 'loss_reduce': Socket closed (14)",
            "collective_timeout",
        ),
        ("报错：RuntimeError: Maybe you are trying to call 'init()' without using 'mpirun'", "rendezvous"),
        (
            "NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:272, unhanled system error",
            "nccl_error",
        ),
        ("RuntimeError: Malloc device memory failed, size[2147483648], ret[2], Device[0]", "oom_gpu"),
        (
            "OSError: (External) Nccl error, unhandled system error  (at collective_helper.cc:103)",
            "nccl_error",
        ),
        (
            "XlaRuntimeError: INTERNAL: nccl_utils.cc:297: NCCL operation ncclCommInitRank(&comm, nranks,"
            " id, rank) failed: unhandled cuda error",
            "nccl_error",
        ),
        ("XlaRuntimeError: INTERNAL: during context [pre-optimization]: RET_CHECK failure", "other"),
        (
            "tensorflow.python.framework.errors_impl.InvalidArgumentError: Incompatible shapes: [32] vs. [64]",
            "user_code",
        ),
        (
            "XlaRuntimeError: UNIMPLEMENTED: AllToAll is not implemented on this backend",
            "backend_unsupported",
        ),
        ("XlaRuntimeError: DEADLINE_EXCEEDED: GetKeyValue() timed out with key: gemm", "collective_timeout"),
        (
            "myhost:12:34 [3] NCCL INFO socketPollConnect: connect returned No route to host, retrying (9/9)",
            "nccl_error",
        ),
    ],
)
def test_an_unknown_message_is_classified_by_its_own_words(message: str, category: str) -> None:
    root = explain_text(message + "\n").root_cause
    assert root is not None and root.entry is None and root.category == category, root


def test_a_gloo_store_wait_names_the_rank_whose_address_never_came() -> None:
    text = (
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/w/train.py", line 9, in <module>\n'
        "[rank0]:     dist.init_process_group('gloo')\n"
        "[rank0]: torch.distributed.DistStoreError: wait timeout after 5000ms, keys: /default_pg/0//cpu//0/3\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and (root.category, root.rank) == ("rendezvous", 3)
    other_key = explain_text(text.replace("//cpu//0/3", "/store_based_barrier_key")).root_cause
    assert other_key is not None and other_key.rank is None


def test_a_failed_check_before_the_shells_abort_report_is_the_cause() -> None:
    text = (
        "2023-05-04 10:11:12.100000: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1635] Created device\n"
        "2023-05-04 10:11:41.000001: F tensorflow/core/kernels/collective_nccl.cc:89] Check failed:"
        " status.ok() Non-OK-status: INTERNAL: NCCL: unhandled system error\n"
        "Aborted (core dumped)\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.category == "nccl_error" and "Check failed" in root.text
    alone = explain_text(
        "epoch 3 step 120\nbash: line 1: 4242 Aborted (core dumped) python train.py\n"
    ).root_cause
    assert alone is not None and "Aborted" in alone.text


def _py_spy(rank: int, frames: list[str]) -> str:
    lines = [f'Thread {100 + rank} (idle): "MainThread"', *(f"    {frame}" for frame in frames)]
    lines.insert(2, "        Arguments:")  # `--locals` lines under a frame
    return "".join(f"[rank{rank}]: {line}\n" for line in lines)


_IN_ALL_REDUCE = [
    "all_reduce (torch/distributed/distributed_c10d.py:2050)",
    "wrapper (torch/distributed/c10d_logger.py:75)",
    "train_step (train.py:55)",
    "<module> (train.py:99)",
]


def test_py_spy_dumps_name_the_rank_outside_the_collective_the_others_wait_in() -> None:
    loading = [
        "_next_data (torch/utils/data/dataloader.py:1300)",
        "train_step (train.py:50)",
        "<module> (train.py:99)",
    ]
    text = _py_spy(0, _IN_ALL_REDUCE) + _py_spy(1, loading) + _py_spy(2, _IN_ALL_REDUCE)
    root = explain_text(text).root_cause
    assert root is not None and (root.category, root.rank) == ("dataloader", 1)
    assert root.user_frame is not None and (root.user_frame.file, root.user_frame.line) == ("train.py", 50)
    alone = explain_text(_py_spy(0, _IN_ALL_REDUCE)).root_cause
    assert alone is not None and (alone.category, alone.rank) == ("collective_timeout", None)
    assert alone.text == "all_reduce (torch/distributed/distributed_c10d.py:2050)"  # where it waits
    assert alone.user_frame is not None and (alone.user_frame.file, alone.user_frame.line) == ("train.py", 55)


def test_faulthandler_dumps_give_a_crash_its_stack_and_a_timeout_its_hang() -> None:
    crash = (
        "Fatal Python error: Segmentation fault\n\n"
        "Thread 0x00007f8b2c7fe700 (most recent call first):\n"
        '  File "/usr/lib/python3.8/threading.py", line 306 in wait\n\n'
        "Current thread 0x00007f8b3d9c4740 (most recent call first):\n"
        '  File "/opt/conda/lib/python3.8/site-packages/torch/nn/functional.py", line 2044 in embedding\n'
        '  File "/home/u/model.py", line 88 in forward\n'
        '  File "/home/u/train.py", line 120 in <module>\n'
    )
    root = explain_text(crash).root_cause
    assert root is not None and root.text == "Fatal Python error: Segmentation fault"
    assert root.user_frame is not None and root.user_frame.line == 88 and root.category == "other"
    timeout = (
        "Timeout (0:05:00)!\n"
        "Thread 0x00007f8b3d9c4740 (most recent call first):\n"
        '  File "/opt/conda/lib/python3.8/site-packages/torch/distributed/distributed_c10d.py", line 3685 in barrier\n'
        '  File "/home/u/train.py", line 88 in train\n'
        '  File "/home/u/train.py", line 120 in <module>\n'
    )
    hang = explain_text(timeout).root_cause
    assert hang is not None and hang.category == "collective_timeout" and "line 3685 in barrier" in hang.text
    assert hang.user_frame is not None and hang.user_frame.line == 88
    # A Windows install's standard library (`C:\\Python311\\Lib\\threading.py`) is read past the same way.
    windows = (
        "Timeout (0:05:00)!\n"
        "Thread 0x00001a2c (most recent call first):\n"
        '  File "C:\\Python311\\Lib\\threading.py", line 320 in wait\n'
        '  File "C:\\Python311\\Lib\\site-packages\\torch\\distributed\\distributed_c10d.py", line 3685 in barrier\n'
        '  File "C:\\work\\train.py", line 88 in train\n'
        '  File "C:\\work\\train.py", line 120 in <module>\n'
    )
    hang = explain_text(windows).root_cause
    assert hang is not None and "line 3685 in barrier" in hang.text


def test_a_failure_warning_repeated_until_the_end_is_a_verdict_and_a_retry_that_recovers_is_not() -> None:
    warning = (
        "[W socket.cpp:601] [c10d] The client socket has failed to connect to [node-0.cluster]:29500"
        " (errno: 110 - Connection timed out).\n"
    )
    root = explain_text(warning * 3).root_cause
    assert root is not None and root.category == "rendezvous" and root.confidence == "low"
    recovered = warning * 3 + "".join(f"epoch {i} loss 0.{i}\n" for i in range(6))
    assert explain_text(recovered).root_cause is None
    assert explain_text(warning + "epoch 0 loss 0.0\n").root_cause is None  # one retry is not a failure


def test_slurm_error_records_are_not_usage_errors_and_argparse_rejections_are() -> None:
    slurm = explain_text(
        "srun: error: Unable to create step for job 4242: Memory required by task\n"
    ).root_cause
    assert slurm is not None and not any("command line" in reason for reason in slurm.why)
    usage = explain_text("train.py: error: unrecognized arguments: --gpus [2,3]\n").root_cause
    assert usage is not None and usage.category == "other"  # the launch command, not the training code
    assert any("rejected its command line" in reason for reason in usage.why)
    # The launcher's --local_rank that an old script does not take is a version mismatch (an entry).
    local_rank = explain_text("train.py: error: unrecognized arguments: --local-rank=3\n").root_cause
    assert local_rank is not None and local_rank.category == "version_mismatch"


def test_a_boxed_tool_message_is_reported_by_its_headline() -> None:
    box = (
        "-" * 74 + "\nORTE has lost communication with a remote daemon.\n\n"
        "This is usually due to either a failure of the TCP network\n"
        "connection to the node, or possibly an internal failure of\n"
        "the daemon itself. We cannot recover from this failure, and\n"
        "therefore will terminate the job.\n" + "-" * 74 + "\n"
    )
    root = explain_text(box).root_cause
    assert root is not None and root.text == "ORTE has lost communication with a remote daemon."


def test_an_argument_a_library_passed_on_and_its_installed_version_refuses_is_a_version_mismatch() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/home/u/train.py", line 40, in <module>\n'
        "    model = AutoModelForCausalLM.from_pretrained(path, use_flash_attention_2=True)\n"
        '  File "/usr/lib/python3.10/site-packages/transformers/modeling_utils.py", line 3850, in from_pretrained\n'
        "    model = cls(config, *model_args, **model_kwargs)\n"
        "TypeError: LlamaForCausalLM.__init__() got an unexpected keyword argument 'use_flash_attention_2'\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.category == "version_mismatch"
    # Only a keyword the callee does not take reads as another version: any other TypeError of a call
    # made in the user's code is the user's.
    missing = text.replace(
        "got an unexpected keyword argument 'use_flash_attention_2'",
        "missing 1 required positional argument: 'config'",
    ).replace("/usr/lib/python3.10/site-packages/transformers/", "/home/u/")
    mine = explain_text(missing).root_cause
    assert mine is not None and mine.category == "user_code"


def test_a_dataparallel_replicas_error_is_the_models_not_a_dataloader_workers() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 120, in <module>\n'
        "    out = model(x)\n"
        '  File "/usr/lib/python3.10/site-packages/torch/_utils.py", line 694, in reraise\n'
        "    raise exception\n"
        "RuntimeError: Caught RuntimeError in replica 1 on device 1.\n"
        "Original Traceback (most recent call last):\n"
        '  File "/usr/lib/python3.10/site-packages/torch/nn/parallel/parallel_apply.py", line 85, in _worker\n'
        "    output = module(*input, **kwargs)\n"
        '  File "/home/u/model.py", line 40, in forward\n'
        "    x = self.fc(x.view(-1, 512))\n"
        "RuntimeError: shape '[-1, 512]' is invalid for input of size 1000\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.category == "user_code"
    assert root.user_frame is not None and root.user_frame.line == 40
    worker = text.replace("in replica 1 on device 1", "in DataLoader worker process 1")
    loader = explain_text(worker).root_cause
    assert loader is not None and loader.category == "dataloader"


def test_a_notebooks_traceback_keeps_its_cell_as_the_users_frame() -> None:
    text = (
        "-" * 75 + "\n"
        "ValueError                                Traceback (most recent call last)\n"
        "Cell In[3], line 5\n"
        "      3 model = Net()\n"
        "      4 trainer = Trainer(devices=2)\n"
        "----> 5 trainer.fit(model, dm)\n\n"
        "File /usr/local/lib/python3.10/dist-packages/mylib/trainer.py:544, in Trainer.fit(self, model, dm)\n"
        "    542 self.state = 1\n"
        "--> 544 self._check(dm)\n\n"
        "ValueError: the datamodule yields no batches\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.text == "ValueError: the datamodule yields no batches"
    assert root.user_frame is not None
    assert (root.user_frame.file, root.user_frame.line, root.user_frame.code) == (
        "Cell In[3]",
        5,
        "trainer.fit(model, dm)",
    )
    assert root.frame is not None and root.frame.endswith("trainer.py:544 in Trainer.fit")


def test_colour_codes_that_lost_their_escape_character_do_not_hide_the_exception() -> None:
    text = (
        "[31mTraceback (most recent call last):[0m\n"
        '  File "/home/u/train.py", line 3, in <module>\n'
        "    main()\n"
        "[1;31mValueError[0m: bad value here [10m] left as is\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.text == "ValueError: bad value here [10m] left as is"
    assert clean_line("[W ops.cc:588] x [missing ranks: 1] [0m") == "[W ops.cc:588] x [missing ranks: 1]"


def test_a_cpp_terminate_without_its_what_line_is_still_a_failure() -> None:
    text = "terminate called after throwing an instance of 'gloo::EnforceNotMet'\n" + "step 5\n" * 3
    root = explain_text(text).root_cause
    assert root is not None and "gloo::EnforceNotMet" in root.text


def test_a_log_that_stops_after_half_the_group_announced_itself_is_a_rendezvous() -> None:
    members = "".join(f"initializing ddp: GLOBAL_RANK: {r}, MEMBER: {r + 1}/8\n" for r in (1, 2, 0, 3))
    root = explain_text("GPU available: True, used: True\n" + members).root_cause
    assert root is not None and root.category == "rendezvous" and root.confidence == "low"
    bars = [f"Epoch 0: {i}%|...| {i}/100 [00:0{i % 10}<00:10]" for i in range(0, 101, 10)]
    assert explain_text(members + "\n".join(bars) + "\n").root_cause is None
    cut = explain_text(members + "\n".join(bars[:5]) + "\n").root_cause
    assert cut is not None and (cut.kind, cut.category, cut.text) == ("stall", "collective_timeout", bars[4])


def test_a_log_recorded_as_json_lines_is_read_by_its_text() -> None:
    records = [
        '{"log": "[rank1]: Traceback (most recent call last):\\n", "stream": "stderr"}',
        '{"log": "[rank1]:   File \\"/home/u/train.py\\", line 9, in <module>\\n", "stream": "stderr"}',
        '{"event": "line", "data": "[rank1]: torch.AcceleratorError: HIP error: unspecified launch failure\\n"}',
    ]
    root = explain_text("\n".join(records) + "\n").root_cause
    assert root is not None and (root.category, root.rank) == ("cuda_error", 1)
    assert root.text == "torch.AcceleratorError: HIP error: unspecified launch failure"


def test_label_forms_met_in_pastes_keep_the_rank() -> None:
    ticked = explain_text("`[rank4]: KeyError: Parameter containing:\n").root_cause
    assert ticked is not None and ticked.rank == 4
    stamped = explain_text("2021-03-10T13:22:37.443Z: [1,3]<stderr>:ValueError: bad batch size\n").root_cause
    assert stamped is not None and stamped.rank == 3
    dated = explain_text("Wed Sep 20 23:55:19 2017[1,68]<stderr>:ValueError: bad batch size\n").root_cause
    assert dated is not None and dated.rank == 68


def test_an_nccl_error_takes_the_category_of_nccls_own_known_report() -> None:
    text = (
        "host:4005:4041 [0] init.cc:521 NCCL WARN Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 40\n"
        "[rank0]: torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, invalid usage"
        " (run with NCCL_DEBUG=WARN for details), NCCL version 2.20.5\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.category == "duplicate_device"


def test_a_port_that_cannot_be_opened_is_a_rendezvous_failure() -> None:
    line = (
        "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address."
        " The server socket has failed to bind to [::]:98 (errno: 13 - Permission denied).\n"
    )
    root = explain_text(line).root_cause
    assert root is not None and root.category == "rendezvous"


def test_a_key_the_data_lacks_is_the_programs_even_when_a_library_raised_it() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3.11/site-packages/transformers/trainer.py", line 5265, in <listcomp>\n'
        '    labels = [x["labels"] for x in batch]\n'
        "KeyError: 'labels'\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.category == "user_code"
    bug = explain_text(
        text.replace("KeyError: 'labels'", "NameError: name 'kill_cmd' is not defined")
    ).root_cause
    assert bug is not None and bug.category == "other"


@pytest.mark.parametrize(
    ("line", "code"),
    [
        ("Process finished with exit code 137", 137),
        ("error: process exited with code 1", 1),
        ("make: *** [Makefile:12: train] Error 2", 2),
        ("rank 3 exited with code 1", 1),
    ],
)
def test_any_tools_report_of_a_non_zero_exit_is_a_verdict(line: str, code: int) -> None:
    root = explain_text(line + "\n").root_cause
    assert root is not None and root.exit_code == code
    assert explain_text(line.replace(str(code), "0") + "\n").root_cause is None


def test_a_coordination_service_naming_a_dead_task_names_its_rank() -> None:
    line = (
        "2022-11-15 16:03:15.140058: E coordination_service.cc:954] /job:jax_worker/replica:0/task:37"
        " has been set to ERROR in coordination service: UNAVAILABLE: Task heartbeat timeout\n"
    )
    root = explain_text(line).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 37)


def test_a_lone_dump_waiting_for_its_input_is_a_data_pipeline_hang() -> None:
    frames = [
        "__next__ (fairseq/data/iterators.py:648)",
        "train (fairseq_cli/train.py:291)",
        "<module> (train.py:9)",
    ]
    root = explain_text(_py_spy(0, frames)).root_cause
    assert root is not None and root.category == "dataloader"
    idle = explain_text(_py_spy(0, ["step (optim.py:40)", "<module> (train.py:9)"])).root_cause
    assert idle is None  # a dump of a process that is not waiting for anything is not a failure


def test_an_exception_that_mentions_an_exit_code_stays_the_exception() -> None:
    line = "RuntimeError: DataLoader worker exited unexpectedly with exit code 1.\n"
    root = explain_text(line).root_cause
    assert root is not None and root.category == "dataloader" and root.text == line.strip()
    init = "Exception in device=TPU:0: mesh_service.cc:243 : Failed to meet rendezvous 'init': Socket closed (14)\n"
    start = explain_text(init).root_cause
    assert start is not None and start.category == "rendezvous"


def test_rocm_reporting_a_kernels_bad_address_is_a_device_error() -> None:
    line = "Memory access fault by GPU node-4 (Agent handle: 0xb26d7b0) on address 0x7f2900ffc000. Reason: Unknown\n"
    root = explain_text(line + "step 3\n").root_cause
    assert root is not None and root.category == "cuda_error"


def test_blank_lines_after_the_last_words_do_not_move_the_logs_end(tmp_path: Path) -> None:
    members = "".join(f"initializing ddp: GLOBAL_RANK: {r}, MEMBER: {r + 1}/8\n" for r in range(4))
    log = tmp_path / "stuck.log"
    log.write_text(members + "\n" * 100)
    root = explain_paths([str(log)]).root_cause
    assert root is not None and root.category == "rendezvous"


def test_a_traceback_broken_off_by_another_one_or_by_the_end_still_counts() -> None:
    glued = (
        'File "/w/model/attn.py", line 198, in _prepare\n'
        "x = f(dtype=inputs_embeds.dtype)      AttributeError: 'NoneType' object has no attribute 'dtype'\n"
    )
    root = explain_text(glued + "Traceback (most recent call last):\n" * 50).root_cause
    assert root is not None and root.text.startswith("AttributeError: 'NoneType'")
    head = explain_text("epoch 3\nTraceback (most recent call last):\n").root_cause
    assert head is not None and head.text == "Traceback (most recent call last):"
    named = "RuntimeError indice_cuda.cu 124 cuda execution failed with error 2\n"
    late = explain_text(named + "Traceback (most recent call last):\n" * 600).root_cause
    assert late is not None and late.category == "oom_gpu"


# --- paste shapes and rules added with batches b18-b21 ---------------------------------------------

_USER_TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "/home/u/train.py", line 88, in <module>\n'
    "    main()\n"
    '  File "/home/u/train.py", line 40, in main\n'
    "    loss = compute(batch)\n"
    "ValueError: bad batch shape (3, 4)\n"
)


@pytest.mark.parametrize(
    "margin",
    [
        "2024-05-01 10:00:02,123 - ERROR - ",
        "    ",
        "[stderr] ",
        "2024-05-01T10:00:02.123456789Z ",
        "trainer-1  | ",
    ],
)
def test_a_margin_before_every_traceback_line_is_not_part_of_the_traceback(margin: str) -> None:
    text = "".join(margin + line + "\n" for line in _USER_TRACEBACK.splitlines())
    root = explain_text(text).root_cause
    assert root is not None and root.category == "user_code"
    assert root.text == "ValueError: bad batch shape (3, 4)"
    assert root.user_frame is not None and root.user_frame.line == 40


def test_a_collectors_time_before_each_line_still_orders_and_reads_the_lines() -> None:
    lines = ["rank 0 step 1", "Aborted (core dumped)"]
    text = "".join(f"2019-01-09T01:54:1{i}.26Z {line}\n" for i, line in enumerate(lines))
    root = explain_text(text).root_cause
    assert root is not None and root.text.startswith("Aborted")


def test_horovods_stall_list_names_the_rank_the_others_wait_for() -> None:
    warning = (
        "[1,0]<stderr>:[2019-10-09 15:36:43.594972: W horovod/common/stall_inspector.cc:105] One or more "
        "tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting "
        "for remainder of ranks for more than 60 seconds. This may indicate that different ranks are trying "
        "to submit different tensors or that only subset of ranks is submitting tensors, which will cause "
        "deadlock.\n"
    )
    listing = (
        "[1,0]<stderr>:Stalled ranks:\n[1,0]<stderr>:6: [horovod_allreduce.0, horovod_allreduce.1 ...]\n"
    )
    root = explain_text(warning + listing).root_cause
    assert root is not None and root.category == "collective_timeout" and root.rank == 6
    assert root.entry == "horovod-stalled-tensors" and root.line == 3
    both = listing.replace("6: [", "2: [x]\n[1,0]<stderr>:6: [")
    assert explain_text(warning + both).root_cause.rank is None  # type: ignore[union-attr]


def test_a_stall_whose_ranks_lack_different_kinds_of_collective_is_a_mismatch() -> None:
    # Rank 0 has not submitted the broadcast the others did, rank 1 the allreduce: neither will ever
    # join the other's collective. The second minute's warning lists both; the first only rank 0.
    warning = (
        "[0]<stderr>:[2020-12-29 16:50:57.724380: W horovod/common/stall_inspector.cc:105] One or more "
        "tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting "
        "for remainder of ranks for more than 60 seconds.\n"
    )
    first = "[0]<stderr>:Missing ranks:\n[0]<stderr>:0: [broadcast.bool.sz]\n"
    second = first + "[0]<stderr>:1: [allreduce.c_d1.bias, allreduce.c_d1.weight ...]\n"
    root = explain_text(warning + first + warning.replace("50:57", "51:57") + second).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", None), root
    assert "rank 0 has not joined broadcast, rank 1 has not joined allreduce" in " ".join(root.why)
    same = second.replace("broadcast.bool.sz", "allreduce.c_d0.bias")
    root = explain_text(warning + same).root_cause
    assert root is not None and root.category == "collective_timeout", root


def test_an_outer_exception_that_says_what_the_inner_one_means_is_the_root() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/site-packages/fairseq/distributed_utils.py", line 177, in all_gather_list\n'
        "    result.append(pickle.loads(buf))\n"
        "_pickle.UnpicklingError: invalid load key, '\\xe2'.\n\n"
        "During handling of the above exception, another exception occurred:\n\n"
        "Traceback (most recent call last):\n"
        '  File "/site-packages/fairseq/distributed_utils.py", line 180, in all_gather_list\n'
        "    raise Exception(\n"
        "Exception: Unable to unpickle data from other workers. all_gather_list requires all workers to "
        "enter the function together, so this error usually indicates that the workers have fallen out of "
        "sync somehow.\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.category == "collective_mismatch"
    assert root.text.startswith("Exception: Unable to unpickle")


def test_an_exception_reporting_a_childs_exit_defers_to_the_childs_signal() -> None:
    text = (
        "[launch.py:428:sigkill_handler] ['python', 'main.py'] exits with return code = -9\n"
        "Traceback (most recent call last):\n"
        '  File "/home/u/DeepSpeed-Chat/train.py", line 175, in launch_cmd\n'
        "    raise RuntimeError('\\n\\n'.join((\n"
        "RuntimeError: Step 2 exited with non-zero status 247\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.category == "oom_host" and "-9" in root.text
    loader = explain_text(
        "RuntimeError: DataLoader worker exited unexpectedly with exit code 1.\n"
    ).root_cause
    assert loader is not None and loader.category == "dataloader"


def test_a_note_appended_to_a_cuda_error_is_not_the_root() -> None:
    text = (
        "RuntimeError: CUDA error: peer mapping resources exhausted\n"
        "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace "
        "below might be incorrect.\n"
        "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.category == "cuda_error" and root.line == 1
    assert root.text.startswith("RuntimeError: CUDA error: peer mapping") and root.confidence == "high"


def test_a_known_message_wrapped_onto_the_next_line_is_recognised() -> None:
    text = (
        "ValueError: DistributedDataParallel device_ids and output_device arguments only work with "
        "single-device/multiple-device GPU modules or CPU\n"
        "modules, but got device_ids [0], output_device 0, and module parameters {device(type='cuda', "
        "index=0), device(type='cuda', index=1)}.\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.entry == "ddp-device-ids-module-mismatch" and root.line == 1


@pytest.mark.parametrize(
    ("line", "category"),
    [
        (
            "AttributeError: 'MMDistributedDataParallel' object has no attribute '_use_replicated_tensor_module'",
            "version_mismatch",
        ),
        ("AssertionError: FlashAttention maximum version 2.5.8 is supported.", "version_mismatch"),
        (
            "RuntimeError: CUDASymmetricMemoryAllocator::rendezvous: detected allocations from overlapping devices from different ranks.",
            "duplicate_device",
        ),
        (
            "_pickle.PicklingError: Can't pickle <class 'torch._C._VariableFunctions'>: it's not the same object",
            "user_code",
        ),
        (
            "RuntimeError: Timed out initializing process group in store based barrier on rank 2 # for all rank",
            "rendezvous",
        ),
        ("ssh: Could not resolve hostname node0: Name or service not known", "rendezvous"),
    ],
)
def test_what_an_unknown_or_cut_message_says_decides_its_category(line: str, category: str) -> None:
    root = explain_text(line + "\n").root_cause
    assert root is not None and root.category == category


def test_an_indented_exception_line_on_its_own_is_found() -> None:
    root = explain_text(
        "Which results in:\n\n    ValueError: You have to specify the number of GPUs\n"
    ).root_cause
    assert root is not None and root.text.startswith("ValueError: You have to specify")


def test_a_glog_check_before_its_stack_trace_and_abort_is_the_error() -> None:
    text = (
        "F0109 01:54:12.263927 148 grpc_client.cc:357] GetRPC name:[w_0], ep:[192.168.1.1:7164] meets grpc "
        "error, error_code:14 error_message:Socket closed\n"
        "*** Check failure stack trace: ***\n"
        "@ 0x7f95c029ea6d google::LogMessage::Fail()\n"
        "@ (nil) (unknown)\n"
        "Aborted (core dumped)\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.line == 1 and root.category == "collective_timeout"


def test_a_desync_report_where_every_rank_joined_names_no_straggler() -> None:
    text = (
        "[rank0]:[E1115 16:42:37.78 ProcessGroupNCCL.cpp:2168] [PG ID 1 PG GUID 1 Rank 0]  failure detected "
        "by watchdog at work sequence id: 730 PG status: last enqueued work: 730, last completed work: 729\n"
        "[rank2]:[E1115 16:42:37.78 ProcessGroupNCCL.cpp:1936] Rank 2\n"
        "\t - [2] Timeout at collective: ALLREDUCE, #730\n"
        "\t - To our best knowledge, the lagging/dead/mismatched ranks that caused the desync are:\n"
        "\t   - [0, 1, 2, 3] joined but didn't finish collective #730 (count from 1)\n"
        "[rank2]:[E1115 16:42:37.78 ProcessGroupNCCL.cpp:2168] [PG ID 1 PG GUID 1 Rank 2]  failure detected "
        "by watchdog at work sequence id: 730 PG status: last enqueued work: 730, last completed work: 729\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.category == "collective_timeout" and root.rank is None


# --- rules added with batches b22-b25 ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "category"),
    [
        (
            "enqueue.cc:373 NCCL WARN Error : mixing different streams within a group call is not supported.",
            "nccl_error",
        ),
        (
            "ConnectionError: Tried to launch distributed communication on port `29500`, but another process is utilizing it.",
            "rendezvous",
        ),
        (
            "ImportError: cannot import name 'Store' from 'torch.distributed' (/x/torch/distributed/__init__.py)",
            "backend_unsupported",
        ),
        (
            "AttributeError: 'DistributedDataParallel' object has no attribute '_set_static_graph'",
            "version_mismatch",
        ),
        (
            "host:1:2 [0] transport/net_socket.cc:200 NCCL WARN NET/Socket : message truncated : receiving 696320 bytes instead of 32768",
            "collective_mismatch",
        ),
        (
            "accelerate.utils.operations.DistributedOperationException: Impossible to apply the desired operation due to inadequate shapes. All shapes on the devices must be valid.",
            "collective_mismatch",
        ),
        (
            "Refer to the documentation on how to address the out of memory issue: https://docs.ray.io/en/latest/ray-core/scheduling/ray-oom-prevention.html.",
            "oom_host",
        ),
        ("An error occurred: UnboundLocalError – local variable 't7' referenced before assignment", "other"),
        ('I got an error "rank 8 and rank 0 both on CUDA device d000"', "duplicate_device"),
        # batches b30-b33
        (
            "InvalidArgumentError: Cannot assign a device for operation L2Loss: node L2Loss was explicitly "
            "assigned to /device:GPU:0 but available devices are [ /job:localhost/replica:0/task:0/device:CPU:0 ].",
            "invalid_device",
        ),
        (
            "InvalidArgumentError: Cannot assign a device to node 'save/RestoreV2_26': Could not satisfy explicit "
            "device specification '/job:ps/task:4/device:CPU:0' because no devices matching that specification "
            "are registered in this process",
            "rendezvous",
        ),
        (
            "Exception: Timed out waiting for tasks to start. Please check connectivity between servers.",
            "rendezvous",
        ),
        ("host:25:25 [0] init.cc:981 NCCL WARN Invalid rank requested : 2/2", "rendezvous"),
        # batches b34-b37
        (
            "RuntimeError: replicas_[0].size() == rebuilt_param_indices_.size() INTERNAL ASSERT FAILED at "
            '"/pytorch/torch/csrc/distributed/c10d/reducer.cpp":1326, please report a bug to PyTorch.',
            "other",
        ),
        (
            "RuntimeError: Function argument device_ids not supported for the selected backend gloo",
            "backend_unsupported",
        ),
        ("ValueError: No slot '4' specified on host 'localhost'", "invalid_device"),
    ],
)
def test_more_wordings_decide_the_category(line: str, category: str) -> None:
    root = explain_text(line + "\n").root_cause
    assert root is not None and root.category == category


# Shapes met in batches b22-b25: the log, and what the verdict must say of it.
def _watchdog_reports(reports: Iterable[tuple[int, int, int]], *, labelled: bool) -> str:
    """NCCL watchdog timeouts of an all-reduce, one line per (rank, sequence number, element count),
    with torchrun's `[rankN]:` label or without it."""
    return "".join(
        (f"[rank{rank}]:" if labelled else "")
        + f"[E ProcessGroupNCCL.cpp:475] [Rank {rank}] Watchdog caught collective operation timeout:"
        f" WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn={numel}, NumelOut={numel}, Timeout(ms)=1800000)"
        " ran for 1800221 milliseconds before timing out.\n"
        for rank, seq, numel in reports
    )


# torch.multiprocessing.spawn's report of process 1, its traceback cut off before the exception line.
_SPAWNED_CUT_OFF = (
    "-- Process 1 terminated with the following error:\n"
    "Traceback (most recent call last):\n"
    '  File "/env/lib/python3.8/site-packages/torch/multiprocessing/spawn.py", line 19, in _wrap\n'
    "    fn(i, *args)\n"
    '  File "/work/train_net.py", line 150, in main\n'
    "    return trainer.train()\n"
)


# c10d's store client logging its failed connection at each of five retries, each record with its C++ stack.
_RETRIED_CONNECT = "".join(
    f"[E1202 04:16:1{attempt}.999053794 socket.cpp:1028] [c10d] The client socket has timed out after 15000ms"
    " while trying to connect to (127.0.0.1, 23456).\n"
    "Exception raised from throwTimeoutError at /pytorch/torch/csrc/distributed/c10d/socket.cpp:1030 (most"
    " recent call first):\n"
    + "".join(f"frame #{k}: c10::Error::Error(c10::SourceLocation) + 0x9d\n" for k in range(14))
    for attempt in range(5)
)


def _table_entry(index: int, rank: int) -> str:
    """One entry of torchrun's failure table: rank `rank` exited with code 1, no error file."""
    return (
        f"[{index}]:\n"
        "  time      : 2026-12-02_03:00:38\n"
        "  host      : localhost\n"
        f"  rank      : {rank} (local_rank: {rank})\n"
        f"  exitcode  : 1 (pid: {21089 + rank})\n"
        "  error_file: <N/A>\n"
        "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n"
    )


_SHAPES: dict[str, tuple[str, dict[str, object]]] = {
    "a message wrapped over lines is read whole for its category": (
        "Exception: Unable to unpickle data from other workers. all_gather_list requires all\n"
        "workers to enter the function together, so this error usually indicates that the\n"
        "workers have fallen out of sync somehow.\n",
        {"category": "collective_mismatch", "line": 1},
    ),
    "a traceback after 'Exception ignored in' is not the failure": (
        "Exception: process 0 terminated with signal SIGKILL\n"
        "Exception ignored in: <function COCODataset.__del__ at 0x7effec4f4b80>\n"
        "Traceback (most recent call last):\n"
        '  File "/home/u/yolox/data/datasets/coco.py", line 62, in __del__\n'
        "    del self.imgs\n"
        "AttributeError: imgs\n",
        {"category": "oom_host", "rank": 0},
    ),
    "a bare error heading is not the failure": (
        "Error:\n"
        "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 1 (pid: 1168) "
        "of binary: /opt/conda/bin/python\n",
        {"category": "oom_host", "rank": 1},
    ),
    "the user's sentence quoting an error gives way to the logged line": (
        "When training the model, I caught a `CUDA error: unspecified launch failure`. It confused me.\n"
        "[rank9]:[E113 11:43:02.241 ProcessGroupNCCL.cpp:1899] [PG ID 5 PG GUID 55 Rank 1] Process group "
        "watchdog thread terminated with exception: CUDA error: unspecified launch failure\n",
        {"rank": 9, "line": 2},
    ),
    "an agent's SIGTERM is the scheduler's, not the cause": (
        "Traceback (most recent call last):\n"
        '  File "/env/site-packages/torch/distributed/elastic/rendezvous/dynamic_rendezvous.py", line 635, in run\n'
        "    raise RendezvousClosedError()\n"
        "torch.distributed.elastic.rendezvous.api.RendezvousClosedError\n"
        "srun: error: cdr2596: task 1: Exited with exit code 1\n"
        "WARNING:torch.distributed.elastic.agent.server.api:Received 15 death signal, shutting down workers\n",
        {"category": "rendezvous", "line": 4},
    ),
    "dividing by a GPU count of zero is no visible device": (
        "Traceback (most recent call last):\n"
        '  File "/site-packages/mmdet/apis/env.py", line 29, in _init_dist_pytorch\n'
        "    torch.cuda.set_device(rank % num_gpus)\n"
        "ZeroDivisionError: integer division or modulo by zero\n",
        {"category": "invalid_device"},
    ),
    "a lookup error in a library's collator while the DataLoader fetches a batch is the data pipeline's": (
        "Traceback (most recent call last):\n"
        '  File "/site-packages/torch/utils/data/_utils/fetch.py", line 55, in fetch\n'
        "    return self.collate_fn(data)\n"
        '  File "/site-packages/trl/trainer/sft_trainer.py", line 344, in torch_call\n'
        '    images = [example["images"] for example in examples]\n'
        "KeyError: 'images'\n",
        {"category": "dataloader"},
    ),
    "a store key naming a rank no log shows, above those that do, is the job's configuration": (
        "[rank0]: torch.distributed.DistStoreError: wait timeout after 5000ms, keys: /default_pg/0//cpu//0/2\n"
        "[rank1]: torch.distributed.DistStoreError: wait timeout after 5000ms, keys: /default_pg/0//cpu//0/2\n",
        {"category": "rendezvous", "rank": None},
    ),
    "the same key with the world size in the logs names the rank that did not arrive": (
        "WORLD_SIZE=3\n"
        "[rank0]: torch.distributed.DistStoreError: wait timeout after 5000ms, keys: /default_pg/0//cpu//0/2\n"
        "[rank1]: torch.distributed.DistStoreError: wait timeout after 5000ms, keys: /default_pg/0//cpu//0/2\n",
        {"rank": 2},
    ),
    "CUDA set up before a fork is a CUDA error": (
        "RuntimeError: The cuda env is set before the forked thread starts. Please do not use any cuda "
        "function or variable before forking\n",
        {"category": "cuda_error"},
    ),
    "Determined's trial prefix is peeled and the MPI label read": (
        "13047a84-9fa2-4afe-b5b4-6475139b76b3 || Tue Jan 21 03:44:56 2020[3]<stdout>:"
        "host:352:1198 [3] enqueue.cc:195 NCCL WARN Cuda failure 'an illegal memory access was encountered'\n",
        {"category": "cuda_error", "rank": 3},
    ),
    # ... and in batches b26-b29
    "an error type run into its message is still an error": (
        " RuntimeErrorstill have inflight params [{'id': 292, 'status': 'AVAILABLE'}]\n",
        {"category": "other", "line": 1},
    ),
    "a logger's error record beats a traceback cut off before its exception": (
        "2025-05-22 03:33:36 - [ERROR] - An error occurred during training: World size 2 must be divisible "
        "by the product of all parallel degrees and data parallel shards.\n"
        "2025-05-22 03:33:36 - [ERROR] - Traceback (most recent call last):\n"
        '2025-05-22 03:33:36 - [ERROR] -   File "/home/u/finetrainers/trainer.py", line 35, in __init__\n'
        "2025-05-22 03:33:36 - [ERROR] -     super().__init__(args)\n",
        {"category": "other", "line": 1},
    ),
    "a rank's own DataLoader error beats the launcher's SIGTERM to the others": (
        "[rank0]: RuntimeError: DataLoader worker (pid(s) 8864) exited unexpectedly\n"
        "W0617 03:17:51.687000 140319081027392 torch/distributed/elastic/multiprocessing/api.py:858] "
        "Sending process 44 closing signal SIGTERM\n",
        {"category": "dataloader", "rank": 0},
    ),
    "a worker's own crash beats Ray's report that the worker died": (
        "(pid=399214) Fatal Python error: Segmentation fault\n"
        "(raylet) A worker died or was killed while executing a task by an unexpected system error. To "
        "troubleshoot the problem, check the logs for the dead worker.\n",
        {"category": "other", "line": 1},
    ),
    "a lost store while NCCL sets up is a rendezvous failure": (
        "torch.distributed.DistBackendError: [15] is setting up NCCL communicator and retrieving ncclUniqueId "
        "from [0] via c10d key-value store by key '0', but store->get('0') got error: Connection reset by peer\n",
        {"category": "rendezvous"},
    ),
    "XLA's status says little, the line under it says the cause": (
        "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to execute XLA Runtime executable: run time "
        "error: custom call 'xla.gpu.all_reduce' failed:\n"
        "external/xla/xla/service/gpu/nccl_utils.cc:133: NCCL operation ncclGetUniqueId(&id) failed: Unable "
        "to load NCCL library. Multi-GPU collectives will not work.;\n",
        {"category": "version_mismatch"},
    ),
    "nccl-tests' early wording and its CUDA failures": (
        "$ ./build/all_reduce_perf -b 8 -e 128M -f 2 -g 4\nNCCL failure common.cu:908 'unhandled cuda error'.\n",
        {"category": "nccl_error"},
    ),
    "a CUDA failure inside nccl-tests is the CUDA error's": (
        "host: Test CUDA failure common.cu:253 'no kernel image is available for execution on the device'\n",
        {"category": "version_mismatch"},
    ),
    "TensorFlow's collective group joined by another device type is a mismatch": (
        "tensorflow.python.framework.errors_impl.InternalError: Collective ops is aborted by: Device "
        "/job:worker/replica:0/task:0/device:GPU:0 is joining a group with incompatible device typeCPU "
        "(group_key=3)\n",
        {"category": "collective_mismatch"},
    ),
    # ... and in batches b30-b33
    "a status printed on its own is an error, and NCCL_DEBUG=INFO in a message is not its level": (
        "host:1:2 [3] NCCL INFO init.cc:1641 -> 2\n"
        "2024-07-30 01:35:14.107390: W external/xla/xla/service/gpu/runtime/support.cc:58] Intercepted XLA "
        "runtime error:\n"
        "INTERNAL: external/xla/xla/service/gpu/nccl_utils.cc:305: NCCL operation ncclCommInitRank(&comm, "
        "nranks, id, rank) failed: unhandled system error (run with NCCL_DEBUG=INFO for details).\n",
        {"category": "nccl_error", "line": 3},
    ),
    "an exception line with nothing after its colon takes its message from the line under it": (
        "Error Message Summary:\n----------------------\nResourceExhaustedError: \n\n"
        "Out of memory error on GPU 0. Cannot allocate 172.000000MB memory on GPU 0.\n\n"
        "Please check whether there is any other process using GPU 0.\n",
        {"category": "oom_gpu", "line": 5},
    ),
    "a kernel's assertion without a rank label is the rank's whose watchdog reports the CUDA error": (
        "Indexing.cu:1289: indexSelectLargeIndex: block: [257,0,0], thread: [31,0,0] Assertion "
        "`srcIndex < srcSelectDimSize` failed.\n"
        "[rank6]:[E410 09:24:27.054 ProcessGroupNCCL.cpp:1430] [PG 0 Rank 6] Process group watchdog thread "
        "terminated with exception: CUDA error: device-side assert triggered\n",
        {"category": "cuda_error", "rank": 6, "line": 1},
    ),
    "TorchX's replica label and local rank are peeled and read": (
        "trainer/0 [1]:Traceback (most recent call last):\n"
        'trainer/0 [1]:  File "/home/u/train.py", line 12, in <module>\n'
        "trainer/0 [1]:    check(batch)\n"
        "trainer/0 [1]:ValueError: batch 7 has no labels\n",
        {"category": "user_code", "rank": 1},
    ),
    "ranks waiting at different sequence numbers are out of step, whatever collective each waits in": (
        "[rank0]:[E1122 06:40:00.504 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=122, OpType=_REDUCE_SCATTER_BASE, NumelIn=10, NumelOut=5, "
        "Timeout(ms)=600000) ran for 600009 milliseconds before timing out.\n"
        "[rank1]:[E1122 06:40:00.504 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=126, OpType=_ALLGATHER_BASE, NumelIn=5, NumelOut=10, "
        "Timeout(ms)=600000) ran for 600009 milliseconds before timing out.\n",
        {"category": "collective_timeout", "rank": None, "suspect_ranks": (0,)},
    ),
    "an extension's op missing from torch.ops is a version mismatch, which names no rank": (
        "trainer/0 [1]:Traceback (most recent call last):\n"
        'trainer/0 [1]:  File "/usr/lib/python3/site-packages/fbgemm_gpu/docs.py", line 12, in <module>\n'
        "trainer/0 [1]:    torch.ops.fbgemm.jagged_2d_to_dense,\n"
        "trainer/0 [1]:AttributeError: '_OpNamespace' 'fbgemm' object has no attribute 'jagged_2d_to_dense'\n",
        {"category": "version_mismatch", "rank": None},
    ),
    "a version mismatch on a rank whose peers got further (they wait for it) keeps its rank": (
        "[rank1]: Traceback (most recent call last):\n"
        '[rank1]:   File "/home/u/train.py", line 3, in <module>\n'
        "[rank1]:     import flash_attn\n"
        "[rank1]: ModuleNotFoundError: No module named 'flash_attn'\n"
        "[rank0]:[E1122 06:40:00.504 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=10, NumelOut=10, "
        "Timeout(ms)=600000) ran for 600009 milliseconds before timing out.\n",
        {"category": "version_mismatch", "rank": 1},
    ),
    "ranks one place apart in different collectives wait in one stuck collective, seen from both sides": (
        "[E ProcessGroupNCCL.cpp:821] [Rank 1] Watchdog caught collective operation timeout: "
        "WorkNCCL(SeqNum=1, OpType=BROADCAST, Timeout(ms)=1800000) ran for 1808182 milliseconds before timing out.\n"
        "[E ProcessGroupNCCL.cpp:821] [Rank 0] Watchdog caught collective operation timeout: "
        "WorkNCCL(SeqNum=2, OpType=ALLGATHER, Timeout(ms)=1800000) ran for 1808116 milliseconds before timing out.\n",
        {"category": "collective_timeout"},
    ),
    "a store wait inside a collective that runs over the store is a collective timeout of a victim": (
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/home/u/vllm_client.py", line 200, in update_named_param\n'
        "[rank0]:     self.pynccl_comm.group.barrier()\n"
        '[rank0]:   File "/env/site-packages/vllm/distributed/utils.py", line 216, in barrier\n'
        "[rank0]:     self.broadcast_obj(None, src=i)\n"
        '[rank0]:   File "/env/site-packages/vllm/distributed/utils.py", line 197, in broadcast_obj\n'
        "[rank0]:     recv_obj = pickle.loads(self.store.get(key))\n"
        "[rank0]: torch.distributed.DistStoreError: wait timeout after 300000ms, keys: /broadcast_from/0/75465\n",
        {"category": "collective_timeout", "rank": None},
    ),
    "Python's dump of an exception object it could not print is that exception": (
        "Original exception was:\nTraceback (most recent call last):\n"
        "object address  : 0x7f6344f282e0\nobject type name: IndexError\n"
        "object repr     : IndexError('Caught IndexError in DataLoader worker process 0.\\nOriginal "
        'Traceback (most recent call last):\\n  File "/env/torch/utils/data/_utils/worker.py", line 308\')\n',
        {"category": "dataloader", "line": 5},
    ),
    "a traceback's raise statement pasted alone says what the exception said": (
        'raise RuntimeError("Distributed package doesn\'t have NCCL " "built in")\nwith one gpu works ok.\n',
        {"category": "backend_unsupported", "line": 1},
    ),
    "a record glued after a progress bar's end is read from its own rank label": (
        "Epoch 1: 100%|##########| 16/16 [00:25<00:00, 1.48s/it][rank3]: torch.OutOfMemoryError: CUDA out of "
        "memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 79.10 GiB\n",
        {"category": "oom_gpu", "rank": 3},
    ),
    "a paste indented as a whole keeps its records apart from the exception's message": (
        "    [rank1]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out "
        "waiting 5000ms for recv operation to complete\n"
        "    W1130 15:31:38.356000 21493 torch/distributed/elastic/multiprocessing/api.py:900] Sending "
        "process 21500 closing signal SIGTERM\n"
        "    E1130 15:31:38.356000 21493 torch/distributed/elastic/multiprocessing/api.py:1002] failed "
        "(exitcode: 1) local_rank: 1 (pid: 21501) of binary: /usr/bin/python\n",
        {"category": "collective_timeout", "line": 1},
    ),
    "frames that lost their indentation, then indented as a whole, keep their exception line": (
        '    File "/env/site-packages/torch/distributed/distributed_c10d.py", line 1432, in all_gather\n'
        "        work = _default_pg.allgather([tensor_list], [tensor])\n"
        "    RuntimeError: CUDA out of memory. Tried to allocate 274.00 MiB (GPU 1; 23.70 GiB total capacity)\n",
        {"category": "oom_gpu", "line": 3},
    ),
    # ... and in batches b34-b37
    "the WARN of NCCL before 2.5 (no NCCL in the line) is an NCCL error": (
        "ml-gpu-ser015:2123:2230 [3] include/socket.h:194 WARN Call to recv failed : Connection reset by peer\n"
        "ml-gpu-ser015:2123:2230 [3] INFO transport/net_ib.cu:555 -> 2\n",
        {"category": "nccl_error", "line": 1},
    ),
    "a platform's [stderr] label glued to the text is peeled": (
        "[stderr]    from torch.utils.tensorboard import SummaryWriter\n"
        '[stderr]  File "/opt/conda/lib/python3.7/site-packages/torch/utils/tensorboard/__init__.py", line 1, in <module>\n'
        "[stderr]    import tensorboard\n"
        "[stderr]ModuleNotFoundError: No module named 'tensorboard'\n",
        {"category": "version_mismatch", "line": 4},
    ),
    "torch's rank label after srun's task label names the rank": (
        "0: [rank3]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
        "NCCLUtils.hpp:328, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.23.4\n",
        {"category": "nccl_error", "rank": 3},
    ),
    "an exception line in Markdown bold after the rank label; a layout check names no rank": (
        "[rank1]:     raise RuntimeError(\n"
        "[rank1]: **RuntimeError: world_size (8) is not equal to tensor_model_parallel_size (4) x "
        "pipeline_model_parallel_size (1)**\n",
        {"category": "other", "rank": None, "line": 2},
    ),
    "TensorFlow's op failure at warning level is the cause of the ring's cancellation": (
        "2019-11-11 11:45:07.181990: E tensorflow/core/common_runtime/ring_alg.cc:279] Aborting RingReduce "
        "with Cancelled: [_Derived_]Cancelled\n"
        "2019-11-11 11:45:07.182077: W tensorflow/core/framework/op_kernel.cc:1655] OP_REQUIRES failed at "
        "collective_ops.cc:253 : Invalid argument: Shape mismatch in the collective instance 106. Op at "
        "device /job:worker/replica:0/task:1/device:CPU:0 expected shape [49] but another member in the "
        "group expected shape [64].\n",
        {"category": "collective_mismatch", "line": 2},
    ),
    "an unpickling failure inside an object collective is a mismatch, not the printer's": (
        "-- Process 2 terminated with the following error:\n"
        "Traceback (most recent call last):\n"
        '  File "/work/fairseq/distributed_utils.py", line 169, in all_gather_list\n'
        "    pickle.loads(bytes(out_buffer[2 : size + 2].tolist()))\n"
        "_pickle.UnpicklingError: could not find MARK\n",
        {"category": "collective_mismatch", "rank": None},
    ),
    "a backend the build lacks is every rank's, not the printer's": (
        "[rank0]: RuntimeError: Distributed package doesn't have NCCL built in\n",
        {"category": "backend_unsupported", "rank": None},
    ),
    "a rank's error keeps its place when torchrun's table quotes it and the rank then aborts": (
        "[default1]:[rank1]: Traceback (most recent call last):\n"
        '[default1]:[rank1]:   File "/home/u/train.py", line 31, in <module>\n'
        "[default1]:[rank1]:     main()\n"
        '[default1]:[rank1]:   File "/env/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 367, in wrapper\n'
        "[default1]:[rank1]:     return f(*args, **kwargs)\n"
        "[default1]:[rank1]:            ^^^^^^^^^^^^^^^^^^\n"
        '[default1]:[rank1]:   File "/home/u/train.py", line 24, in main\n'
        '[default1]:[rank1]:     raise ValueError(f"loss is NaN at step {step}")\n'
        "[default1]:[rank1]: ValueError: loss is NaN at step 3\n"
        "[default1]:Fatal Python error: Aborted\n"
        "Root Cause (first observed failure):\n"
        "[0]:\n"
        "  time      : 2026-12-01_10:36:29\n"
        "  host      : localhost\n"
        "  rank      : 1 (local_rank: 1)\n"
        "  exitcode  : 1 (pid: 3364) \n"
        "  error_file: /tmp/run/attempt_0/1/error.json\n"
        "  traceback : Traceback (most recent call last):\n"
        '    File "/env/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 367, in wrapper\n'
        "      return f(*args, **kwargs)\n"
        "             ^^^^^^^^^^^^^^^^^^\n"
        '    File "/home/u/train.py", line 24, in main\n'
        '      raise ValueError(f"loss is NaN at step {step}")\n'
        "  ValueError: loss is NaN at step 3\n"
        "  \n"
        "============================================================\n",
        {"category": "user_code", "rank": 1, "line": 9},
    ),
    "a DataLoader worker's exit, read as an exit report, is the data loader's": (
        "here is the error: **RuntimeError: DataLoader worker (pid 7948) exited unexpectedly with exit code 1\n",
        {"category": "dataloader"},
    ),
    # ... and in batches b46-b51
    "an exception quoted in a code span inside a sentence is read": (
        "I am getting the following error: `TypeError: forward() missing 3 required positional arguments: "
        "'max_seq_len', 'seq_offsets', and 'num_targets'` \n",
        {
            "category": "user_code",
            "text": "TypeError: forward() missing 3 required positional arguments: "
            "'max_seq_len', 'seq_offsets', and 'num_targets'",
        },
    ),
    "a sentence quoting an error gives way to the log's own line of it": (
        "It told me that `ModuleNotFoundError: No module named 'tensorboard'`, but it is installed.\n"
        "```\n"
        "[stderr]    import tensorboard\n"
        "[stderr]ModuleNotFoundError: No module named 'tensorboard'\n",
        {"category": "version_mismatch", "line": 4},
    ),
    "a check that the ranks agree, failing, is a mismatch": (
        "[rank1]: RuntimeError: Forward order differs across ranks: rank 0 is all-gathering 1 parameters while"
        " rank 1 is all-gathering 0 parameters\n",
        {"category": "collective_mismatch"},
    ),
    "TensorFlow's collective joining a group of another size is a mismatch": (
        "Collective ops is aborted by: Device /job:localhost/replica:0/task:0/device:GPU:1 is joining a group"
        " with size2, but that group has size 3 (group_key=1)\n"
        "RuntimeError: Collective ops is aborted by: Device /job:localhost/replica:0/task:0/device:GPU:1 is"
        " joining a group with size2, but that group has size 3 (group_key=1)\n",
        {"category": "collective_mismatch"},
    ),
    "a CUDA driver error is a CUDA error": (
        "[rank0]: RuntimeError: CUDA driver error: invalid argument\n",
        {"category": "cuda_error"},
    ),
    "an Intel GPU's lost device is a device error, its memory running out is memory": (
        "RuntimeError: level_zero backend failed with error: 20 (UR_RESULT_ERROR_DEVICE_LOST)\n",
        {"category": "cuda_error"},
    ),
    "oneCCL's error level is an error, and Level Zero's out of device memory is memory": (
        "2024:05:29-19:16:18:(202165) |CCL_ERROR| worker.cpp:338 ccl_worker_func: worker 0 caught internal"
        " exception: oneCCL: ze_call.cpp:28 do_call: EXCEPTION: ze error at zeCommandQueueExecuteCommandLists,"
        " code: ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY\n",
        {"category": "oom_gpu"},
    ),
    "more processes on a node than devices is a device fault": (
        "RuntimeError: The number of node-local MPI processes 8cannot be larger than the device count 4\n",
        {"category": "invalid_device"},
    ),
    "a legacy launcher's command names its last child, not the failed one": (
        "subprocess.CalledProcessError: Command '['/usr/bin/python3', '-u', 'main.py', '--local_rank=3', "
        "'--cfg', 'a.yaml']' died with <Signals.SIGKILL: 9>.\n",
        {"category": "oom_host", "rank": None},
    ),
    "... unless it is local rank 0, the only child": (
        "subprocess.CalledProcessError: Command '['/usr/bin/python3', '-u', 'main.py', '--local_rank=0']' "
        "returned non-zero exit status 1.\n",
        {"rank": 0},
    ),
    # Batches b52-b57's session (the dev split's silent logs).
    "an old IPython traceback cut off in its frames is a failure, its lines read from the markers": (
        "---------------------------------------------------------------------------\n"
        "Exception                                 Traceback (most recent call last)\n"
        "<ipython-input-7-3f2a> in <module>\n"
        "----> 1 xmp.spawn(_mp_fn, nprocs=8, start_method='fork')\n"
        "\n"
        "/opt/conda/lib/python3.6/site-packages/torch/multiprocessing/spawn.py in start_processes(fn, args)\n"
        "    156\n"
        "--> 157     while not context.join():\n",
        {
            "text": "traceback cut off after /opt/conda/lib/python3.6/site-packages/torch/multiprocessing/spawn.py:157"
            " in start_processes: while not context.join():",
            "line": 8,
        },
    ),
    "TensorFlow's collective abort at warning level is a failure, told without its record header": (
        "2019-11-04 16:59:38.489335: W tensorflow/core/common_runtime/base_collective_executor.cc:216]"
        " BaseCollectiveExecutor::StartAbort Internal: Collective Op  has group_size 8 and group_key2 but that"
        " group has size 4\n",
        {
            "category": "collective_mismatch",
            "headline": "BaseCollectiveExecutor::StartAbort Internal: Collective Op  has group_size 8 and"
            " group_key2 but that group has size 4",
        },
    ),
    "a CUDA driver error code at info level is a failure": (
        "2020-05-03 02:06:12.462209: I tensorflow/stream_executor/cuda/cuda_driver.cc:764] failed to allocate"
        " 2.2K (2304 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory\n",
        {"category": "oom_gpu"},
    ),
    "XLA's missing op kernel pasted alone is a failure": (
        "while/NcclAllReduce_271: unsupported op: No registered 'NcclAllReduce' OpKernel for XLA_GPU_JIT"
        " devices compatible with node {{node while/NcclAllReduce_271}}\n",
        {"category": "backend_unsupported"},
    ),
    "a built-in exception retyped in lower case is an exception": (
        "When I was training, I encountered this problem:\n\n"
        "    assertionerror: loss log variables are different across gpus!\n",
        {"category": "collective_mismatch", "line": 3},
    ),
    "a sentence quoting the failure in a code span gives way to the line it quotes": (
        "One of them fails with an `Collective ops is aborted by: ...` error.\n\n"
        "The reproducer attached to this issue produces the following error:\n"
        "Collective ops is aborted by: Device /job:localhost/replica:0/task:0/device:GPU:1 is joining a group"
        " with size2, but that group has size 3 (group_key=1)\n",
        {"category": "collective_mismatch", "line": 4},
    ),
    "the Windows interpreter refusing a module is a missing install": (
        "`D:\\Anaconda3\\python.exe No module named torch.distributed.run`\n",
        {"category": "version_mismatch", "line": 1},
    ),
    "a store client's retries until the log ends are a rendezvous failure, told without the record header": (
        "I1127 21:31:55.544849 3935673 tcp_utils.cc:181] The server starts to listen on IP_ANY:63314\n"
        + "I1127 21:34:05.015228 3935673 tcp_utils.cc:107] Retry to connect to 10.1.68.146:63314 while the"
        " server is not yet listening.\n" * 3,
        {
            "category": "rendezvous",
            "headline": "Retry to connect to 10.1.68.146:63314 while the server is not yet listening.",
        },
    ),
    "a CUDA failure NCCL reports for a driver too old is a version mismatch": (
        "node1:4242:4301 [0] include/alloc.h:48 NCCL WARN Cuda failure 'API call is not supported in the"
        " installed CUDA driver'\n"
        "RuntimeError: NCCL error in: ../torch/lib/c10d/ProcessGroupNCCL.cpp:825, unhandled cuda error, NCCL"
        " version 2.7.8\n",
        {"category": "version_mismatch"},
    ),
    "a platform's 'User program failed' gives way to the program's own error": (
        "UserError: User program failed with SystemExit: 2\n\n"
        "usage: pytorch_mnist.py [-h] [--rank RANK]\n"
        "pytorch_mnist.py: error: argument --rank: invalid int value: ''\n",
        {"line": 4},
    ),
    "a Python interpreter missing on another host is a missing install": (
        "bash: /home/u/.pyenv/versions/3.7.2/bin/python3.7: No such file or directory\n",
        {"category": "version_mismatch"},
    ),
    "an error line naming a cause outranks the shutdown it caused": (
        "E tensorflow/stream_executor/cuda/cuda_driver.cc:806] failed to allocate 512.00M (536870912 bytes)"
        " from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory\n"
        "AbortedError (see above for traceback): Horovod has been shut down. This was caused by an exception"
        " on one of the ranks or an attempt to allreduce, allgather or broadcast a tensor after one of the"
        " ranks finished execution.\n",
        {
            "category": "oom_gpu",
            "line": 1,
            "headline": "failed to allocate 512.00M (536870912 bytes) from device:"
            " CUDA_ERROR_OUT_OF_MEMORY: out of memory",
        },
    ),
    "'CUDA Error' in capitals is a CUDA error": (
        "RuntimeError: /opt/te/userbuffers-host.cpp:208 in function create_communicator_grouped2: CUDA Error:"
        " operation not supported\n",
        {"category": "cuda_error"},
    ),
    "NCCL on the loopback interface is why its connections are refused": (
        "GPU9:10330:10330 [0] NCCL INFO Bootstrap : Using [0]lo:127.0.0.1<0>\n"
        "GPU9:10330:10330 [0] NCCL INFO Using network Socket\n"
        + "GPU9:10330:10399 [0] NCCL INFO Call to connect returned Connection refused, retrying\n"
        * 3,
        {"category": "nccl_error", "kind": "interface", "line": 1},
    ),
    "a crash the process's own signal handler reported is stated by that report, not by the shell's": (
        '*** Aborted at 1557498358 (unix time) try "date -d @1557498358" if you are using GNU date ***\n'
        "PC: @     0x7fc2583d1a2f (unknown)\n"
        "*** SIGSEGV (@0x0) received by PID 24365 (TID 0x7fc258781dc0) from PID 0; stack trace: ***\n"
        "    @     0x7fc2583d1a2f (unknown)\n"
        "Segmentation fault (core dumped)\n",
        {"line": 3},
    ),
    "a backend named by its class that lacks an operation is unsupported": (
        "RuntimeError: DataChannelNccl does not support barrier\n",
        {"category": "backend_unsupported"},
    ),
    "CUDA set up before a notebook launcher forks is a CUDA error": (
        "RuntimeError: CUDA has been initialized before notebook_launcher() could create a forked subprocess."
        " This likely stems from an outside import causing issues once the notebook_launcher() is called.\n",
        {"category": "cuda_error"},
    ),
    "a stall report naming several missing ranks names no culprit": (
        "HorovodAllgather_grad_concat_0 [missing ranks: 25, 27, 60, 67, 103, 115]\n",
        {"category": "collective_timeout", "rank": None},
    ),
    "a version requirement on its own is a version mismatch": (
        "I encountered an error while running a multi-GPU training program.\n\n"
        "Native multi-GPU training requires pytorch>=1.9.1\n",
        {"category": "version_mismatch", "line": 3},
    ),
    "an Ascend error code is an error, and its words say what timed out": (
        "[W VariableFallbackKernel.cpp:51] Warning: CAUTION: The operator 'aten::isin' is not currently"
        " supported on the NPU backend and will fall back to run on the CPU.\n"
        "EI0006: 2024-08-05-18:15:21.270.506 Getting socket times out. Reason: Remote Rank did not send the"
        " data in time. Please check the reason for the rank being stuck\n",
        {"category": "collective_timeout", "line": 2},
    ),
    "an Ascend error code under a torch_npu call says why the call failed": (
        "".join(
            "(VllmWorker rank=3 pid=112081) ERROR 07-17 08:06:53 [multiproc_executor.py:487] " + line + "\n"
            for line in (
                '  File "/venvs/vllm/lib/python3.11/site-packages/torch_npu/npu/utils.py", line 80, in set_device',
                "    torch_npu._C._npu_setDevice(device_id)",
                "RuntimeError: init:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:292 NPU function error:"
                " aclrtGetDeviceCount(&device_count), error code is 207004",
                "[ERROR] 2025-07-17-08:06:53 (PID:112081, Device:-1, RankID:-1) ERR00100 PTA call acl api failed",
                "[Error]: The device is unavailable.",
                "        Check whether the device is running properly.",
                "EE1001: [PID: 112081] 2025-07-17-08:06:53.296.370 The argument is invalid.Reason: set"
                " ASCEND_RT_VISIBLE_DEVICES:0,2,4,6,1,3,5,7 error, it must be configured in ascending order",
            )
        ),
        {"category": "invalid_device"},
    ),
    "ROCm's hardware exception is a device fault, the abort after it its consequence": (
        "HW Exception by GPU node-9 (Agent handle: 0x64ff272d8ab0) reason :GPU Hang\nAborted (core dumped)\n",
        {"category": "cuda_error", "line": 1},
    ),
    "a backend the device has not is unsupported": (
        "ValueError: Your assigned backend nccl is not avaliable, please use hccl\n",
        {"category": "backend_unsupported"},
    ),
    "a data type the collective library cannot move is unsupported": (
        "terminate called after throwing an instance of 'std::runtime_error'\n"
        "  what():  Getting size for given data type is not supported: 0\n",
        {"category": "backend_unsupported"},
    ),
    "an unlabelled refusal to start is the exiting rank's own error": (
        "/usr/bin/python3: No module named run\n"
        "/usr/bin/python3: No module named run\n"
        "--------------------------------------------------------------------------\n"
        "mpirun detected that one or more processes exited with non-zero status, thus causing\n"
        "the job to be terminated. The first process to do so was:\n\n"
        "  Process name: [[47051,1],1]\n"
        "  Exit code:    1\n",
        {"category": "version_mismatch", "line": 1},
    ),
    "torch's check of a device index is an invalid device": (
        'RuntimeError: device >= 0 && device < num_gpus INTERNAL ASSERT FAILED at "../aten/src/ATen/cuda/'
        'CUDAContext.cpp":49, please report a bug to PyTorch. device=7, num_gpus=4\n',
        {"category": "invalid_device"},
    ),
    "CUDA's missing kernel symbol is a build without this GPU's kernels": (
        "e54db9740f9d:228664:229081 [1] enqueue.cc:42 NCCL WARN Cuda failure 'named symbol not found'\n",
        {"category": "version_mismatch"},
    ),
    "a thread the system would not start is a resource limit": (
        "Traceback (most recent call last):\n"
        '  File "speakerlab/bin/train.py", line 159, in train\n'
        "    writer = SummaryWriter(tensorboard_dir)\n"
        '  File "/envs/lid/lib/python3.8/site-packages/tensorboardX/event_file_writer.py", line 113, in __init__\n'
        "    self._worker.start()\n"
        '  File "/envs/lid/lib/python3.8/threading.py", line 852, in start\n'
        "    _start_new_thread(self._bootstrap, ())\n"
        "RuntimeError: can't start new thread\n",
        {"category": "other"},
    ),
    "a record header repeated on each line of a traceback does not hide it": (
        "(VllmWorkerProcess pid=1775) ERROR 09-23 10:49:22 multiproc_worker_utils.py:226] Exception in worker"
        " VllmWorkerProcess while processing method init_device: NCCL error: internal error - please report"
        " this issue to the NCCL developers, Traceback (most recent call last):\n"
        '(VllmWorkerProcess pid=1775) ERROR 09-23 10:49:22 multiproc_worker_utils.py:226]   File "/opt/conda/'
        'lib/python3.11/site-packages/vllm/worker/worker.py", line 176, in init_device\n'
        "(VllmWorkerProcess pid=1775) ERROR 09-23 10:49:22 multiproc_worker_utils.py:226]    "
        " init_worker_distributed_environment(self.parallel_config, self.rank,\n",
        {"category": "nccl_error", "line": 1},
    ),
    "Open MPI's error record is an error, and an unpacking past the buffer is releases that differ": (
        "[ip-hostname3:14313] [[44845,0],2] ORTE_ERROR_LOG: Data unpack would read past end of buffer in"
        " file grpcomm_direct.c at line 355\n",
        {"category": "version_mismatch"},
    ),
    "a build without a feature, in MXNet's words, is unsupported": (
        "[08:41:20] /mxnet/dmlc-core/include/dmlc/./logging.h:300: [08:41:20] src/kvstore/kvstore.cc:37:"
        " compile with USE_DIST_KVSTORE=1 to use dist_sync\n\n"
        "Stack trace returned 10 entries:\n",
        {"category": "backend_unsupported", "line": 1},
    ),
    "a JAX task that restarted and joined again is a rendezvous failure": (
        "2025-04-05 18:39:10.837611: E external/xla/xla/tsl/distributed_runtime/coordination/"
        "coordination_service.cc:962] /job:jax_worker/replica:0/task:1 unexpectedly tried to connect with a"
        " different incarnation. It has likely restarted.\n",
        {"category": "rendezvous"},
    ),
    "a ring collective given other shapes by its peers is a mismatch": (
        "2019-10-14 22:36:01.352450: E tensorflow/core/common_runtime/ring_alg.cc:279] Aborting RingReduce"
        " with Internal: Inconsistent output shapes, got [4], but expected is [2].\n",
        {"category": "collective_mismatch"},
    ),
    "Ray's memory monitor killing workers is the host's memory": (
        "(raylet) node_manager.cc:3007: 2 Workers (tasks /\n"  # wrapped by the user's terminal
        " actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID:"
        " abd406d4, IP: 10.0.167.26)\n",
        {"category": "oom_host"},
    ),
    "Paddle's invalid place is an invalid device, its termination report a consequence": (
        "FatalError: `Termination signal` is detected by the operating system.\n"
        "  [SignalInfo: *** SIGTERM (@0x3ed000036e1) received by PID 14294 (TID 0x7f80502a82c0) from PID"
        " 14049 ***]\n\n"
        "E0902 16:14:06.490722 61197 pybind.cc:2330] Invalid CUDAPlace(1), must inside [0, 1), because GPU"
        " number on your machine is 1\n",
        {"category": "invalid_device", "line": 4},
    ),
    "the interpreter's refusal behind pdsh's host label outranks ssh passing on its exit code": (
        "host-1: /usr/bin/python: No module named deepspeed.pt\n"
        "pdsh@id: host-1: ssh exited with exit code 1\n",
        {"category": "version_mismatch", "line": 1},
    ),
    "a device assert cut at the terminal's edge is a device assert": (
        "../aten/src/ATen/native/cuda/IndexKernel.cu:93: operator(): block: [0,0,0], thread: [0,0,0]"
        " Assertion `-sizes[i] <= index && index < size$\n"
        '[i] && "index out of bounds"` failed.\n',
        {"category": "cuda_error", "line": 1},
    ),
    "a distributed sampler's own check is the data pipeline's": (
        '  File "/envs/ts/lib/python3.10/site-packages/pytorch_lightning/overrides/distributed.py", line 213,'
        " in __init__\n"
        "    assert self.num_samples >= 1 or self.total_size == 0\n"
        "AssertionError\n",
        {"category": "dataloader"},
    ),
    "CUDA's system not ready under NCCL's last error is the machine's, not a rank's": (
        "[rank0]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
        "NCCLUtils.cpp:77, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.25.1\n"
        "[rank0]: ncclUnhandledCudaError: Call to CUDA function failed.\n"
        "[rank0]: Last error:\n"
        "[rank0]: Cuda failure 802 'system not yet initialized'\n",
        {"category": "cuda_error", "rank": None},
    ),
    "an exception behind a host's label seen on one line is still read (HIP's out of memory)": (
        "c05r2n11: RuntimeError: HIP out of memory. Tried to allocate 576.00 MiB (GPU 3; 15.98 GiB total"
        " capacity; 15.83 GiB already allocated; 0 bytes free; 15.84 GiB reserved in total by PyTorch)\n",
        {"category": "oom_gpu", "entry": "cuda-out-of-memory", "line": 1},
    ),
    "TensorFlow's 'Resource exhausted' status is memory, at any log level": (
        "2020-10-22 02:48:58 10.128.0.33 [3]   (1) Resource exhausted: Attempting to allocate 180.59M. That"
        " was not possible. There are 142.58M free.; (0x3x0_HBM1)\n",
        {"category": "oom_gpu", "line": 1},
    ),
    "a launcher's argparse rejection is the launch command's, not the training code's": (
        "launch.py: error: argument --nproc_per_node: invalid int value: ''\n",
        {"category": "other", "line": 1},
    ),
    "more ranks than pipeline stages is the job's layout": (
        "RuntimeError: Number of ranks is larger than number of stages, some ranks are unused\n",
        {"category": "other", "rank": None},
    ),
    "xformers finding no kernel for the inputs is the device lacking the operation": (
        "NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:\n"
        "     query       : shape=(1, 2048, 32, 128) (torch.bfloat16)\n",
        {"category": "backend_unsupported", "line": 1},
    ),
    "a framework that does not see the accelerator it was told to use is an invalid device": (
        "lightning.fabric.utilities.exceptions.MisconfigurationException: `TPUAccelerator` can not run on"
        " your system since the accelerator is not available.\n",
        {"category": "invalid_device"},
    ),
    "fewer devices than the job replicates over is an invalid device": (
        "RuntimeError: Cannot replicate if number of devices (1) is different from 8\n",
        {"category": "invalid_device"},
    ),
    "two NCCL libraries: the older one rejects the newer's unset blocking value": (
        "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:219,"
        " invalid argument, NCCL version 2.14.3\n"
        "ncclInvalidArgument: Invalid value for an argument.\nLast error:\n"
        "Invalid config blocking attribute value -2147483648\n",
        {"category": "version_mismatch", "entry": "nccl-version-mismatch"},
    ),
    "a line that ends where its detail starts is stated by the detail, printed by the rank of the line": (
        "[rank0] :UNAVAILABLE:failed to connect to all addresses; last error: UNKNOWN:\n"
        "ipv4:10.186.213.145:13305: Failed to connect to remote host: Connection refused\n",
        # a start-up failure names no rank: the job as a whole could not assemble
        {
            "category": "rendezvous",
            "rank": None,
            "rank_note": "printed by rank 0; the job as a whole could not assemble",
            "line": 2,
        },
    ),
    "an error record that ends with a colon is stated with the line that completes it": (
        "2024-01-01 10:00:00,000 - ERROR - worker could not start:\n"
        "CUDA out of memory while creating the context\n",
        {"category": "oom_gpu", "line": 1},
    ),
    "torchrun's agent line broken before its local rank takes the rank from the next line": (
        "[ ] 0/6019, elapsed: 0s, ETA:ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode:"
        " -9) local_rank: \n"
        "0 (pid: 1801442) of binary: /home/u/envs/bev/bin/python\n",
        {"category": "oom_host", "rank": 0, "line": 1},
    ),
    "a known message after a frame is not taken for the frame's code": (
        '  File "/envs/h/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1518, in _wrapped_call\n'
        "../aten/src/ATen/native/cuda/Indexing.cu:1292: indexSelectLargeIndex: block: [234,0,0], thread:"
        " [54,0,0] Assertion `srcIndex < srcSelectDimSize` failed.\n"
        "../aten/src/ATen/native/cuda/Indexing.cu:1292: indexSelectLargeIndex: block: [234,0,0], thread:"
        " [55,0,0] Assertion `srcIndex < srcSelectDimSize` failed.\n",
        {"category": "cuda_error", "line": 2},
    ),
    "a runtime's failure report cut at the terminal's edge still states a failure": (
        "           8             2   float     sumhost-1: Test CUDA failure common.cu:253 'no kernel image is"
        " available f\n",
        {"category": "version_mismatch", "line": 1},
    ),
    "an operator with no kernel for the data type is the device lacking the operation": (
        "[rank1]: RuntimeError: \"addmm_impl_cpu_\" not implemented for 'Half'\n",
        {"category": "backend_unsupported", "rank": None},  # the build lacks it on every rank
    ),
    "an operator with no kernel for the device's backend is the device lacking the operation": (
        "NotImplementedError: Could not run 'aten::empty_strided' with arguments from the 'CUDA' backend.\n",
        {"category": "backend_unsupported"},
    ),
    "a kernel built only for newer GPUs is the device lacking the operation": (
        "Traceback (most recent call last):\n"
        '  File "/home/u/train.py", line 40, in <module>\n'
        "    model = build(cfg)\n"
        "RuntimeError: FlashAttention only supports Ampere GPUs or newer.\n",
        {"category": "backend_unsupported", "line": 4},
    ),
    "a data loader's re-raise that itself failed is still the worker's error": (
        "Traceback (most recent call last):\n"
        '  File "/home/u/train.py", line 225, in train\n'
        "    for i, batch in enumerate(loader):\n"
        '  File "/usr/lib/python3.8/site-packages/torch/utils/data/dataloader.py", line 1111, in _process_data\n'
        "    data.reraise()\n"
        '  File "/usr/lib/python3.8/site-packages/torch/_utils.py", line 428, in reraise\n'
        "    raise self.exc_type(msg)\n"
        "TypeError: __init__() missing 2 required positional arguments: 'stdout' and 'stderr'\n",
        {"category": "dataloader", "line": 8},
    ),
    "ranks timing out in one all-reduce with different sizes ran different code": (
        "[rank0]:[E ProcessGroupNCCL.cpp:563] [Rank 0] Watchdog caught collective operation timeout:"
        " WorkNCCL(SeqNum=3437, OpType=ALLREDUCE, NumelIn=4311252, NumelOut=4311252, Timeout(ms)=600000)"
        " ran for 600057 milliseconds before timing out.\n"
        "[rank1]:[E ProcessGroupNCCL.cpp:563] [Rank 1] Watchdog caught collective operation timeout:"
        " WorkNCCL(SeqNum=3437, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000)"
        " ran for 600076 milliseconds before timing out.\n",
        {"category": "collective_mismatch", "rank": None},
    ),
    "an all-to-all whose ranks send different sizes at one sequence number is no mismatch": (
        "[rank0]:[E ProcessGroupNCCL.cpp:563] [Rank 0] Watchdog caught collective operation timeout:"
        " WorkNCCL(SeqNum=77, OpType=ALLTOALL_BASE, NumelIn=4096, NumelOut=4096, Timeout(ms)=600000)"
        " ran for 600057 milliseconds before timing out.\n"
        "[rank1]:[E ProcessGroupNCCL.cpp:563] [Rank 1] Watchdog caught collective operation timeout:"
        " WorkNCCL(SeqNum=77, OpType=ALLTOALL_BASE, NumelIn=2048, NumelOut=2048, Timeout(ms)=600000)"
        " ran for 600057 milliseconds before timing out.\n",
        {"category": "collective_timeout"},
    ),
    "all-reduces of different sizes in two process groups at one sequence number are no mismatch": (
        "[rank0]:[E ProcessGroupNCCL.cpp:563] [PG ID 0 PG GUID 0 Rank 0] [Rank 0] Watchdog caught collective"
        " operation timeout: WorkNCCL(SeqNum=77, OpType=ALLREDUCE, NumelIn=4096, NumelOut=4096,"
        " Timeout(ms)=600000) ran for 600057 milliseconds before timing out.\n"
        "[rank1]:[E ProcessGroupNCCL.cpp:563] [PG ID 3 PG GUID 3 Rank 1] [Rank 1] Watchdog caught collective"
        " operation timeout: WorkNCCL(SeqNum=77, OpType=ALLREDUCE, NumelIn=2048, NumelOut=2048,"
        " Timeout(ms)=600000) ran for 600057 milliseconds before timing out.\n",
        {"category": "collective_timeout"},
    ),
    "glibc's heap check before a SIGABRT is the cause of the abort": (
        "free(): corrupted unsorted chunks\n"
        "W0410 08:46:30.320000 292734 torch/distributed/elastic/multiprocessing/api.py:900] Sending process"
        " 293010 closing signal SIGTERM\n"
        "E0410 08:46:30.329000 292734 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode:"
        " -6) local_rank: 0 (pid: 293009) of binary: /usr/bin/python\n",
        {"category": "other", "entry": "glibc-heap-corruption", "line": 1},
    ),
    "a runtime's status by name with no level is not silent": (
        "[torch_memory_saver.cpp] cudaError error: 1 (invalid argument) file=csrc/core.cpp func=pause line=133\n",
        {"category": "cuda_error", "line": 1},
    ),
    "a launcher that cannot find the device it was given is an invalid device": (
        "LAUNCH ERROR 2024-10-23 18:26:56,091 Device not found 1 from 0,1,2,3 for setting ['0']\n",
        {"category": "invalid_device"},
    ),
    "a launcher tearing the job down with no error and no exit code is likely host memory": (
        "[2023-11-21 20:42:18,931] [INFO] [comm.py:637:init_distributed] cdb=None\n"
        "[2023-11-21 20:42:22,682] [INFO] [launch.py:315:sigkill_handler] Killing subprocess 156890\n"
        "[2023-11-21 20:42:22,704] [INFO] [launch.py:315:sigkill_handler] Killing subprocess 156891\n",
        {"category": "oom_host", "rank": None, "line": 2},
    ),
    "a failure table whose ranks all got SIGTERM is a job stopped from outside, not a silent death": (
        "[1]:\n"
        "  time      : 2023-06-14_22:36:10\n"
        "  host      : node-3\n"
        "  rank      : 1 (local_rank: 1)\n"
        "  exitcode  : -15 (pid: 2385923)\n"
        "  error_file: <N/A>\n"
        "  traceback : Signal 15 (SIGTERM) received by PID 2385923\n",
        {"category": "other"},
    ),
    "a keyword the called function does not take is code written for another version": (
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/home/u/grpo.py", line 88, in <module>\n'
        "[rank0]:     trainer = Trainer(model=model, processing_class=tokenizer)\n"
        "[rank0]: TypeError: Trainer.__init__() got an unexpected keyword argument 'processing_class'\n",
        {"category": "version_mismatch"},
    ),
    "argparse's rejection under a program name with spaces is not silent": (
        "> usage: SimMIM pre-training script --cfg FILE [--opts OPTS [OPTS ...]]\n"
        ">                                   --local_rank LOCAL_RANK\n"
        "> SimMIM pre-training script: error: the following arguments are required: --local_rank\n",
        {"category": "version_mismatch", "entry": "torch-launch-local-rank-argument", "line": 3},
    ),
    "Ray's C++ error record is an error line": (
        "(RayTrainWorker pid=19045) [2023-11-02 13:17:59,227 E 19045 21937] logging.cc:97: Unhandled exception:"
        " N3c105ErrorE. what(): Collective call returned error\n",
        {"category": "nccl_error", "line": 1},
    ),
    "processes that must equal the world size are the job's layout": (
        "ValueError: ('The number of process requires to run all replicas (8)', 'must be equal to the world"
        " size (4).')\n",
        {"category": "other"},
    ),
    # --- batches b75-b78: committed job output --------------------------------------------------
    "a record logged as a warning gives way to the exception that ended the rank": (
        "[2026-06-16 23:42:02,990] [WARNING] [engine.py:1690:_configure_basic_optimizer] FusedAdam CUDA build"
        " failed (Error building extension 'fused_adam': /bin/sh: 1: c++: not found)\n"
        "[rank1]: Traceback (most recent call last):\n"
        '[rank1]:   File "/home/u/train.py", line 88, in <module>\n'
        "[rank1]:     engine.step()\n"
        "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.44 GiB. GPU 1 has a total"
        " capacity of 10.75 GiB of which 748.75 MiB is free.\n",
        {"category": "oom_gpu", "rank": 1, "line": 5},
    ),
    "a record logged as a warning gives way to a rank killed with no error of its own": (
        "[2026-06-16 23:42:02,990] [WARNING] [engine.py:1690:_configure_basic_optimizer] FusedAdam CUDA build"
        " failed (Error building extension 'fused_adam': /bin/sh: 1: c++: not found)\n"
        "E1201 10:00:05.000000 7 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: -9)"
        " local_rank: 1 (pid: 12) of binary: /opt/conda/bin/python\n",
        {"category": "oom_host", "rank": 1, "line": 2},
    ),
    "a record logged as a warning is still read when nothing else failed": (
        "[2026-06-16 23:42:02,990] [WARNING] [engine.py:1690:_configure_basic_optimizer] FusedAdam CUDA build"
        " failed (Error building extension 'fused_adam': /bin/sh: 1: c++: not found)\n",
        {"line": 1},
    ),
    "a shell's report of an abort after a collective timed out is the watchdog's": (
        "[rank2]:[E ProcessGroupNCCL.cpp:1414] [PG 0 Rank 2] Process group watchdog thread terminated with"
        " exception: [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE,"
        " NumelIn=1048576, NumelOut=1048576, Timeout(ms)=120000) ran for 120094 milliseconds before timing out.\n"
        "./launcher.sh: line 14: 191644 Aborted                 (core dumped) $@\n",
        {"category": "collective_timeout", "line": 1},
    ),
    "a shell's report of an abort with nothing else is the failure": (
        "step 10 loss 2.31\n./launcher.sh: line 14: 191644 Aborted                 (core dumped) $@\n",
        {"line": 2},
    ),
    "a process's error record just before its fatal signal says what went wrong": (
        "0: [1579244748.838971] [cgpu12:56309:2]    cuda_ipc_md.c:62   UCX  ERROR cuCtxGetDevice(&cu_device) is"
        " failed. ret:invalid device context\n"
        "0: [cgpu12:56309:2:56362] Caught signal 11 (Segmentation fault: address not mapped to object at address"
        " 0x20)\n"
        "0: ==== backtrace ====\n",
        {"category": "cuda_error", "rank": 0, "line": 1},
    ),
    "a crash handler's own records before the signal's report say nothing of a cause": (
        "(pid=399214) [2026-01-26 04:32:02,497 E 399214 399214] logging.cc:496: *** SIGSEGV received at"
        " time=1769401922 on cpu 33 ***\n"
        "(pid=399214) [2026-01-26 04:32:02,497 E 399214 399214] logging.cc:496: PC: @     0x7f59e8bb20bc "
        " (unknown)  (unknown)\n"
        "(pid=399214) Fatal Python error: Segmentation fault\n",
        {"line": 3},
    ),
    "Slurm's step daemon under a task's label speaks for the job": (
        "20: RANK 20: running step 1/10\n"
        " 3: RANK 3: running step 1/10\n"
        "12: RANK 12: running step 1/10\n"
        " 0: slurmstepd: error: *** STEP 8384637.13 ON nid001044 CANCELLED AT 2023-05-02T03:58:46 DUE TO TIME"
        " LIMIT ***\n",
        {"rank": None, "line": 4},
    ),
    "a runtime's status by name is an error wherever the input goes on after it": (
        "[torch_memory_saver.cpp] cudaError error: 1 (invalid argument) file=csrc/core.cpp func=pause line=133\n"
        + "".join(f"step {i} loss 2.0\n" for i in range(60)),
        {"category": "cuda_error", "line": 1},
    ),
    "a server of the job already listening at the address is a port in use": (
        "ConnectionError: Ray is already running at 100.97.90.35:6888. Please specify a different port using"
        " the `--port` command to `ray start`.\n",
        {"category": "rendezvous", "rank": None},
    ),
    "a tool's error under a label no other line explains is still an error": (
        " 0: slurmstepd: error: *** STEP 8384637.13 ON nid001044 CANCELLED AT 2023-05-02T03:58:46 DUE TO TIME"
        " LIMIT ***\n",
        {"line": 1},
    ),
    # --- batches b81-b84 and probes of torchrun's restarts and outside signals ---------------------
    "a record of Python's logging ends the exception message above it": (
        "RuntimeError: NCCL communicator was aborted on rank 1.  Original reason for failure was: [Rank 1]"
        " Watchdog caught collective operation timeout: WorkNCCL(SeqNum=25, OpType=BROADCAST,"
        " Timeout(ms)=1800000) ran for 1801490 milliseconds before timing out.\n"
        "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 164237 closing signal SIGTERM\n",
        {"category": "collective_timeout", "line": 1},
    ),
    "a cut-off traceback of the user's code is still read": (
        "Traceback (most recent call last):\n"
        '  File "/home/u/train.py", line 48, in main\n'
        "    trainer.fit(model)\n",
        {"line": 3},
    ),
    "a message that a package is required names a missing package": (
        "[rank0]: AssertionError: Ulysses Attention and Ring Attention requires xfuser package.\n",
        {"category": "version_mismatch"},
    ),
    "DeepSpeed's launcher interrupted from outside is the cause, not a silent death": (
        "[2025-02-20 20:27:14,419] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 2606349\n"
        "[2025-02-20 20:27:14,461] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 2606350\n"
        "[2025-02-20 20:27:14,902] [INFO] [launch.py:328:sigkill_handler] Main process received SIGINT, exiting\n",
        {"category": "other", "entry": "deepspeed-launcher-interrupted", "line": 3},
    ),
    "DeepSpeed's launcher stopping its processes with no reason given is a silent death": (
        "[2025-02-20 20:27:14,419] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 2606349\n"
        "[2025-02-20 20:27:14,461] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 2606350\n",
        {"category": "oom_host"},
    ),
    "a rank's SIGTERM that torchrun did not send was a stop from outside": (
        "rank 0 step 1 loss 0.8303\n"
        "W1201 18:23:31.874000 31919 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 31956"
        " closing signal SIGTERM\n"
        "E1201 18:23:31.938000 31919 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -15)"
        " local_rank: 1 (pid: 31957) of binary: /usr/bin/python\n",
        {"category": "other", "rank": 1, "line": 3},
    ),
    "a rank's SIGTERM that torchrun sent is collateral": (
        "[rank1]: ValueError: the batch is empty\n"
        "W1201 18:23:31.874000 31919 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 31956"
        " closing signal SIGTERM\n"
        "E1201 18:23:31.938000 31919 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -15)"
        " local_rank: 0 (pid: 31956) of binary: /usr/bin/python\n",
        {"category": "user_code", "rank": 1, "line": 1},
    ),
    "an exception behind a label no reader knows is still read": (
        "job-7f3a/worker [w2]:RuntimeError: the shard index file is empty\n",
        {"category": "user_code", "line": 1},
    ),
    "an exception named in a sentence is not read as raised": (
        "then I got ValueError: bad shape, but only on the second node\nKeyError: 'labels'\n",
        {"line": 2},
    ),
    "TorchX's replica label with torchrun's role name, then the global rank label": (
        "i.pretrain/0 [default2]:[rank2]: RuntimeError: Rank 2, node n1, device 2, iteration -1: Unexpected"
        " result nan (message='found NaN in local grad norm for bucket #0 in backward pass')\n",
        {"rank": 2, "line": 1},
    ),
    "waiting for NCCL's unique id at a group's first collective is still setting the group up": (
        "[rank1]: Traceback (most recent call last):\n"
        '[rank1]:   File "/usr/lib/python3.12/dist-packages/torch/distributed/distributed_c10d.py", line 2780,'
        " in broadcast\n"
        "[rank1]:     work = group.broadcast([tensor], opts)\n"
        "[rank1]: torch.distributed.DistBackendError: [1] is setting up NCCL communicator and retrieving"
        " ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: wait"
        " timeout after 600000ms, keys: /default_pg/0//cuda//0\n",
        {"category": "rendezvous"},
    ),
    "a failed check that the rank has a GPU is a missing device": (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 543, in <module>\n'
        "    assert torch.cuda.device_count() > opt.local_rank\n"
        "AssertionError\n",
        {"category": "invalid_device", "line": 4},
    ),
    "a rank's traceback before a restart is not outweighed by a later attempt's known error": (
        "[rank1]: Traceback (most recent call last):\n"
        '[rank1]:   File "/home/u/train.py", line 12, in main\n'
        '[rank1]:     raise FloatingPointError(f"loss became nan at step {step}")\n'
        "[rank1]: FloatingPointError: loss became nan at step 2\n"
        "E1201 18:22:49.996000 30336 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1)"
        " local_rank: 1 (pid: 30528) of binary: /usr/bin/python\n"
        "[E1201 18:23:16.075690566 ProcessGroupGloo.cpp:67] Gloo connectFullMesh failed with"
        " [../third_party/gloo/gloo/transport/tcp/pair.h:311] Connect timeout [none]\n",
        {"rank": 1, "line": 4},
    ),
    # --- batches b88-b92 and probes of sys.exit, threads and Lightning's own launcher ---------------
    "a rank's own error line before it ended says why it ended": (
        "rank 0 step 1 loss 0.8303\n"
        "ERROR: shard /data/train-00001.tar is missing; cannot continue\n"
        "[rank0]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer"
        " [127.0.0.1]:24217\n"
        "E1201 19:19:03.156000 3037 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -6)"
        " local_rank: 1 (pid: 3054) of binary: /usr/bin/python\n",
        {"category": "user_code", "rank": 1, "line": 2},
    ),
    "an abort while only its peer lost the connection is the rank's own crash": (
        "[rank0]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer"
        " [127.0.0.1]:24217\n"
        "E1201 19:19:03.156000 3037 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -6)"
        " local_rank: 1 (pid: 3054) of binary: /usr/bin/python\n",
        {"category": "other", "rank": 1, "line": 2},
    ),
    "an abort after a collective timed out is the watchdog's": (
        "[rank1]:[E ProcessGroupNCCL.cpp:632] [Rank 1] Watchdog caught collective operation timeout:"
        " WorkNCCL(SeqNum=7, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600020"
        " milliseconds before timing out.\n"
        "E1201 19:19:03.156000 3037 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -6)"
        " local_rank: 1 (pid: 3054) of binary: /usr/bin/python\n",
        {"category": "collective_timeout"},
    ),
    "Lightning's announcement of each rank gives the world size": (
        "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/2\n"
        "[rank0]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:537] Read error"
        " [127.0.0.1]:30901: Connection reset by peer\n",
        {"category": "other", "rank": 1},
    ),
    "an Original Traceback through the DataLoader's worker loop is the loader's": (
        "Original Traceback (most recent call last):\n"
        '  File "/env/lib/python3.10/site-packages/torch/utils/data/_utils/worker.py", line 308, in _worker_loop\n'
        "    data = fetcher.fetch(index)\n"
        '  File "/env/lib/python3.10/site-packages/torch_geometric/loader/neighbor_loader.py", line 219, in sample\n'
        "    out = self.sampler(index)\n"
        "IndexError: _Map_base::at\n",
        {"category": "dataloader", "line": 6},
    ),
    "torchrun's exit report laid out in columns by a rich log handler": (
        "[01:21:55] ERROR    failed (exitcode: -7) local_rank: 0 (pid:      api.py:672\n"
        "                    2255697) of binary:\n",
        {"category": "oom_host", "rank": 0, "line": 1},
    ),
    "a C assertion in a data loader's own source is the loader's": (
        "train_gpt2cu: llmc/dataloader.h:186: void dataloader_init(DataLoader*, const char*): Assertion"
        " `shard_ntok >= (int64_t) (num_processes * B * T + 1)' failed.\n",
        {"category": "dataloader"},
    ),
    "a C assertion elsewhere is not the loader's": (
        "train_gpt2cu: llmc/attention.cuh:86: void attention_forward(float*): Assertion `T % 64 == 0' failed.\n",
        {"category": "other"},
    ),
    "a kernel not built for this GPU (invalid device function) is a version mismatch": (
        "ubuntu:107848:107848 [0] enqueue.cc:197 NCCL WARN Cuda failure 'invalid device function'\n",
        {"category": "version_mismatch"},
    ),
    "SkyPilot's task label before every line is peeled, each record on its own": (
        "(en-hi-spot, pid=18593) [E ProcessGroupNCCL.cpp:475] [Rank 1] Watchdog caught collective operation"
        " timeout: WorkNCCL(SeqNum=13807, OpType=ALLREDUCE, NumelIn=11274112, NumelOut=11274112,"
        " Timeout(ms)=1800000) ran for 1800221 milliseconds before timing out.\n"
        "(en-hi-spot, pid=18593) [E ProcessGroupNCCL.cpp:475] [Rank 2] Watchdog caught collective operation"
        " timeout: WorkNCCL(SeqNum=13807, OpType=ALLREDUCE, NumelIn=11274112, NumelOut=11274112,"
        " Timeout(ms)=1800000) ran for 1800221 milliseconds before timing out.\n"
        "(en-hi-spot, pid=18593) [E ProcessGroupNCCL.cpp:475] [Rank 3] Watchdog caught collective operation"
        " timeout: WorkNCCL(SeqNum=13807, OpType=ALLREDUCE, NumelIn=10942336, NumelOut=10942336,"
        " Timeout(ms)=1800000) ran for 1800221 milliseconds before timing out.\n",
        {"category": "collective_mismatch", "line": 3},
    ),
    "a size skew reported by half the job's ranks names none of them": (
        _watchdog_reports([(1, 9, 64), (2, 9, 64), (3, 9, 64), (7, 9, 32)], labelled=False),
        {"category": "collective_mismatch", "rank": None},
    ),
    "a size skew reported by every rank names the odd one": (
        _watchdog_reports([(0, 9, 64), (1, 9, 64), (2, 9, 64), (3, 9, 32)], labelled=False),
        {"category": "collective_mismatch", "rank": 3},
    ),
    "the reporter's own heading before a rank label": (
        "报错信息：[rank4]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.40 GiB. GPU 4 has a"
        " total capacity of 44.53 GiB of which 1.29 GiB is free.\n",
        {"category": "oom_gpu", "rank": 4},
    ),
    "DDP's report naming its rank a few lines on is that rank's": (
        "> Expected to have finished reduction in the prior iteration before starting a new one.\n"
        "\n"
        "Parameters which did not receive grad for rank 1:\n"
        "head.proj.weight head.proj.bias\n"
        "Parameter indices which did not receive grad for rank 1: 45 46\n",
        {"category": "unused_parameters", "rank": 1, "line": 1},
    ),
    "a frame wrapped after its line number still starts a traceback excerpt": (
        'Seer-Wan2.1/wan/forwards/xfusers_wan_forward.py", line 51,\n'
        " in xfusers_wan_forward\n"
        "[rank0]:     assert seq_lens.max() <= seq_len\n"
        "[rank0]: AssertionError\n",
        {"category": "user_code"},
    ),
    "a build without the backend's process group lacks the backend": (
        "AttributeError: module 'paddle.base.libpaddle' has no attribute 'ProcessGroupNCCL'\n",
        {"category": "backend_unsupported"},
    ),
    "a storage failure under an ordinary read is not the program's fault": (
        "[rank3]: OSError: [Errno 5] Input/output error: '/mnt/shared/index.npy'\n",
        {"category": "other", "entry": "storage-io-error", "rank": 3},
    ),
    # --- batches b97-b102 ---------------------------------------------------------------------------
    "glog's fatal record with the year in its date is an error": (
        "I20241201 07:29:34.700100  2256 server.cc:30] starting the coordinator\n"
        "F20241201 07:29:34.701110  2256 coordinator.cc:42] Invalid coordinator address: tcp://node0/\n"
        "*** Check failure stack trace: ***\n",
        {"line": 2},
    ),
    "dmlc-core's fatal record is an error": (
        "[07:48:18] src/postoffice.cc:25: Creating Van: zmq\n"
        "[07:48:18] 3rdparty/ps-lite/include/dmlc/logging.h:276: [07:48:18] src/van.cc:121: Reached max retry"
        " for bind: Address already in use. errno = 98\n"
        "Stack trace returned 10 entries:\n",
        {"category": "rendezvous", "line": 2},
    ),
    "a CUDA error torch could only log as a warning is the failure": (
        " 40%|####      | 4/10 [00:02<00:03,  1.90it/s][W CUDAGuardImpl.h:119] Warning: CUDA warning: an illegal"
        " memory access was encountered (function destroyEvent)\n",
        {"category": "cuda_error"},
    ),
    "an interrupt while the processes gathered is a hang of the rendezvous": (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 10, in <module>\n'
        '    dist.init_process_group("nccl")\n'
        '  File "/env/lib/python3.10/site-packages/torch/distributed/distributed_c10d.py", line 900, in'
        " init_process_group\n"
        "    store, rank, world_size = next(rendezvous_iterator)\n"
        "KeyboardInterrupt\n",
        {"category": "rendezvous"},
    ),
    "a traceback after the terminal's ^C is the interrupt's, even cut off": (
        "^CTraceback (most recent call last):\n"
        '  File "train.py", line 20, in <module>\n'
        "    dist.barrier()\n"
        '  File "/env/lib/python3.10/site-packages/torch/distributed/distributed_c10d.py", line 4000, in barrier\n'
        "    work.wait()\n",
        {"category": "collective_timeout"},
    ),
    "an interrupt is the consequence of a rank's own error": (
        "[rank1]: ValueError: the label column is empty\n"
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/env/lib/python3.10/site-packages/torch/distributed/distributed_c10d.py", line 2500, in'
        " all_reduce\n"
        "[rank0]:     work.wait()\n"
        "[rank0]: KeyboardInterrupt\n",
        {"category": "user_code", "rank": 1},
    ),
    "an error from taking a loop's next batch is the data pipeline's": (
        "Traceback (most recent call last):\n"
        '  File "/work/pretrain.py", line 144, in main\n'
        "    for step, batch in enumerate(train_loader):\n"
        "RuntimeError: generator raised StopIteration\n",
        {"category": "dataloader"},
    ),
    "an error in a loop's body stays the code's": (
        "Traceback (most recent call last):\n"
        '  File "/work/pretrain.py", line 145, in main\n'
        "    loss = model(batch).loss / accumulation\n"
        "RuntimeError: generator raised StopIteration\n",
        {"category": "user_code"},
    ),
    "a data library's call into Python's own modules is the library's": (
        "Traceback (most recent call last):\n"
        '  File "/env/lib/python3.11/site-packages/streaming/base/shared/memory.py", line 41, in __init__\n'
        "    shm = BuiltinSharedMemory(name, create, size)\n"
        '  File "/usr/lib/python3.11/multiprocessing/shared_memory.py", line 104, in __init__\n'
        "    self._fd = _posixshmem.shm_open(\n"
        "FileExistsError: [Errno 17] File exists: '/000000_locals'\n",
        {"category": "dataloader"},
    ),
    "two ranks of one communicator on one GPU": (
        "node7:3639:3639 [0] NCCL INFO comm 0x55dda0453c60 rank 0 nranks 2 cudaDev 0 busId 1a000 - Init START\n"
        "node7:3640:3640 [0] NCCL INFO comm 0x564f1c75ca80 rank 1 nranks 2 cudaDev 0 busId 1a000 - Init START\n"
        "[rank1]: RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:219, invalid usage\n",
        {"category": "duplicate_device", "rank": None, "line": 2},
    ),
    "a backend name c10d does not know is a backend it lacks": (
        "[rank0]: AssertionError: Unknown c10d backend type CUDA:NCCL\n",
        {"category": "backend_unsupported"},
    ),
    "a report that points at the error above gives way to it": (
        "(EngineCore_DP0 pid=120) ERROR 03-18 23:23:32 [core.py:1006] ValueError: max_model_len 8192 is longer"
        " than the model's 4096 positions\n"
        "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}\n",
        {"line": 1},
    ),
    "a traceback's head before lines that are neither frames nor an exception is still a failure": (
        "Traceback (most recent call last):\n"
        "    the loss values differ between the GPUs\n"
        "\n"
        "How should I solve it?\n",
        {"line": 1},
    ),
    "SkyPilot's node rank before a process's own label is not the process's rank": (
        "(worker1, rank=1, pid=4455, ip=10.1.0.2) [rank9]: ValueError: the batch is empty\n",
        {"category": "user_code", "rank": 9},
    ),
    # --- session 19 -----------------------------------------------------------------------------------
    "an exception line under its own raise statement says what was raised": (
        '[rank1]:     raise AssertionError(f"Expected TupleStrategy, got {type(spec)}")\n'
        "[rank1]: AssertionError: Expected TupleStrategy, got <class 'list'>\n",
        {"text": "AssertionError: Expected TupleStrategy, got <class 'list'>", "line": 2, "rank": 1},
    ),
    "a raise statement alone says what it raised": (
        '[rank1]:     raise AssertionError("the mesh needs two dimensions")\n',
        {"text": "AssertionError: the mesh needs two dimensions", "line": 1, "rank": 1},
    ),
    "the rank an error's message says it failed on": (
        "torch.distributed.DistBackendError: NCCL error in: NCCLSymmetricMemory.cu:174,\n"
        "invalid argument (run with NCCL_DEBUG=WARN for details), NCCL version 2.29.7\n"
        "Failed to window register segment with ptr 0x7f00, size 20971520 on rank 3\n",
        {"category": "nccl_error", "rank": 3, "line": 1},
    ),
    "a message comparing two ranks names neither as the failing one": (
        "RuntimeError: the parameter on rank 0 has shape [4, 4] but on rank 2 it has shape [4, 8]\n",
        {"rank": None},
    ),
    "a shared-memory segment CUDA could not map is NCCL's failure, not a full /dev/shm": (
        "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275,"
        " unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5\n"
        "ncclUnhandledCudaError: Call to CUDA function failed.\n"
        "Last error:\n"
        "Error while creating shared memory segment /dev/shm/nccl-g0wGsu (size 9637888)\n",
        {"category": "nccl_error"},
    ),
    "a shared-memory segment a system call could not create is a full /dev/shm": (
        "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275,"
        " unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5\n"
        "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.\n"
        "Last error:\n"
        "Error while creating shared memory segment /dev/shm/nccl-g0wGsu (size 9637888)\n",
        {"category": "oom_host"},
    ),
    "an uncaught C++ exception is why the process the launcher saw abort ended": (
        "terminate called after throwing an instance of 'std::runtime_error'\n"
        "*** End of error message ***\n"
        "mpirun noticed that process rank 7 with PID 0 on node gpu-3 exited on signal 6 (Aborted).\n",
        {"line": 1, "rank": 7},
    ),
    "a traceback cut off after spawn's report is that process's": (
        _SPAWNED_CUT_OFF,
        {"rank": 1},
    ),
    "a store timeout in torchelastic's exit barrier is a peer that never finished": (
        "ERROR:torch.distributed.elastic.agent.server.api:Error waiting on exit barrier. Elapsed: 309.2 seconds\n"
        "Traceback (most recent call last):\n"
        '  File "/env/lib/python3.9/site-packages/torch/distributed/elastic/agent/server/api.py", line 906, in'
        " _exit_barrier\n"
        "    store_util.barrier(\n"
        '  File "/env/lib/python3.9/site-packages/torch/distributed/elastic/utils/store.py", line 31, in get_all\n'
        '    data = store.get(f"{prefix}{idx}")\n'
        "RuntimeError: Socket Timeout\n",
        {"category": "collective_timeout"},
    ),
    "a communication backend the engine was built without": (
        "[TM][FATAL] comm/device_comm.cc(28): Check failed: 0 Unknown communication backend: nccl\n",
        {"category": "backend_unsupported"},
    ),
    "a failed check of an NCCL call's result is NCCL's failure": (
        "F1125 15:44:39.266677 200102 nccl_helper.h:62] Check failed: dynload::ncclGroupEnd() == ncclSuccess"
        " (1 vs. 0)\n",
        {"category": "nccl_error"},
    ),
    "MPI's truncated message is a size the ranks disagree on": (
        "mpi4py.MPI.Exception: MPI_ERR_TRUNCATE: message truncated\n",
        {"category": "collective_mismatch"},
    ),
    "a library's NotImplementedError is a case it does not support": (
        "Traceback (most recent call last):\n"
        '  File "/work/serve.py", line 12, in <module>\n'
        "    model = get_model(name, sharded=True)\n"
        '  File "/env/lib/python3.9/site-packages/text_generation_server/models/__init__.py", line 193, in'
        " get_model\n"
        '    raise NotImplementedError(FLASH_ATT_ERROR_MESSAGE.format("Sharded Llama"))\n'
        "NotImplementedError: Sharded Llama requires Flash Attention enabled models.\n",
        {"category": "backend_unsupported"},
    ),
    "the script's own NotImplementedError stays its code's": (
        "Traceback (most recent call last):\n"
        '  File "/work/train.py", line 40, in <module>\n'
        "    loss = criterion(out, y)\n"
        '  File "/work/train.py", line 12, in criterion\n'
        '    raise NotImplementedError("focal loss is not written yet")\n'
        "NotImplementedError: focal loss is not written yet\n",
        {"category": "user_code"},
    ),
    "a signal handler's report is a crash however far the log goes on": (
        "[node1:10948] *** Process received signal ***\n"
        "[node1:10948] Signal: Aborted (6)\n"
        + "[node1:10948] [ 1] /lib/x86_64-linux-gnu/libc.so.6(pthread_kill+0x12c)\n"
        * 60,
        {"line": 2, "exit_code": -6},
    ),
    "a failed C assertion is why its process then reported the abort": (
        "train: llmc/dataloader.h:186: void dataloader_init(DataLoader*): Assertion `shard_ntok >= 1' failed.\n"
        "[node1:10948] *** Process received signal ***\n"
        "[node1:10948] Signal: Aborted (6)\n"
        + "[node1:10948] [ 1] /lib/x86_64-linux-gnu/libc.so.6(pthread_kill+0x12c)\n"
        * 60,
        {"line": 1, "category": "dataloader"},
    ),
    "a node-local label is the global rank the same log gives it": (
        "[default0]:[rank0]: step 10 loss 2.31\n"
        "[default1]:[rank1]: step 10 loss 2.29\n"
        "[default1]: Traceback (most recent call last):\n"
        '[default1]:   File "train.py", line 5, in <module>\n'
        "[default1]:     main()\n"
        "[default1]: ValueError: bad batch\n",
        {"rank": 1, "local_rank": False},
    ),
    "a node-local label two nodes give different ranks stays local": (
        "[default1]:[rank1]: step 10 loss 2.29\n"
        "[default1]:[rank9]: step 10 loss 2.31\n"
        "[default1]: ValueError: bad batch\n",
        {"rank": 1, "local_rank": True},
    ),
    # --- session 20 -----------------------------------------------------------------------------------
    "a CUDA runtime's words an extension printed are the error under a cut-off traceback": (
        "error in deformable_im2col: invalid device function\n" + _SPAWNED_CUT_OFF,
        {"line": 1},
    ),
    "a CUDA runtime's words in an info line are not an error": (
        "[INFO] autotune: too many resources requested for launch, trying a smaller block\n"
        "Traceback (most recent call last):\n"
        '  File "/work/train.py", line 3, in <module>\n'
        "    main()\n"
        "ValueError: bad batch\n",
        {"line": 5},
    ),
    "a CUDA runtime's words alone are a CUDA error": (
        "autotune: too many resources requested for launch\n",
        {"category": "cuda_error"},
    ),
    "a warning that something failed as the log's last words": (
        "[I socket.cpp:420] [c10d] starting the store\n"
        "[W socket.cpp:663] [c10d] The client socket has failed to connect to [localhost]:55292 (errno: 99 -"
        " Cannot assign requested address).\n",
        {"category": "rendezvous", "line": 2},
    ),
    "a CUDA library's failed result is a CUDA error": (
        "RuntimeError: cuFFT error: CUFFT_INTERNAL_ERROR\n",
        {"category": "cuda_error"},
    ),
    "TensorFlow's count of root errors gives way to the first error it lists": (
        "tensorflow.python.framework.errors_impl.InternalError: 5 root error(s) found.\n"
        "  (0) Internal:  Missing 1-th output from node replica_3/sequential/dropout/Dropout\n"
        "  (1) Internal:  Missing 1-th output from node replica_3/sequential/dropout/Dropout\n",
        {"line": 2},
    ),
    "a count of root errors under a status of its own keeps the status": (
        "Exception in device=TPU:6: RESOURCE_EXHAUSTED: From /job:localservice/replica:0/task:0:\n"
        "2 root error(s) found.\n"
        "  (0) RESOURCE_EXHAUSTED: Attempting to reserve 10.51G at the bottom of memory.\n",
        {"line": 1},
    ),
    "a library's own binaries for this CUDA that will not load are a version mismatch": (
        "CUDA Setup failed despite GPU being available. Please run the following command to get more information:\n",
        {"category": "version_mismatch"},
    ),
    "a trainer's data thread that failed is the data loader's": (
        "2024-04-01 10:00:00 CRITICAL Uncaught OLMoThreadError: generator thread data thread 3 failed\n",
        {"category": "dataloader"},
    ),
    "PaddlePaddle's launcher reports the rank it saw killed": (
        "LAUNCH ERROR 2024-03-10 00:35:50,216 Container failed !!!\n"
        "Container rank 1 status failed cmd ['/env/bin/python', '-u', 'tools/train.py', '-c', 'configs/x.yml'']"
        " code -9 log ./debug/workerlog.1\n",
        {"rank": 1, "category": "oom_host", "exit_code": -9},
    ),
    "a line cut at its start gives way to its complete copy below": (
        "operation timeout: WorkNCCL(SeqNum=23360, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1809059 ms\n"
        "[E ProcessGroupNCCL.cpp:821] [Rank 5] Watchdog caught collective operation timeout:"
        " WorkNCCL(SeqNum=23360, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1809070 ms\n",
        {"line": 2},
    ),
    "an operating system's error as Python prints it is an error line": (
        "': [Errno 2] No such file or directoryle '\n"
        "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 2) local_rank: 0 (pid: 4109)"
        " of binary: /env/bin/python\n",
        {"line": 1},
    ),
    "an error in PaddlePaddle's reader process is the data loader's": (
        "Process Process-4:\n"
        "Traceback (most recent call last):\n"
        '  File "/env/lib/python3.7/site-packages/paddle/reader/decorator.py", line 549, in _read_into_queue\n'
        "    for sample in reader():\n"
        '  File "tools/../ppocr/data/rec/dataset_traversal.py", line 241, in get_device_num\n'
        "    gpu_num = len(gpus.split(','))\n"
        "AttributeError: 'int' object has no attribute 'split'\n",
        {"category": "dataloader"},
    ),
    "a refused connection in lower case is still a refused connection": (
        "F0823 23:35:12.819823 46441 LightNetwork.cpp:395] connection refused by pserver, maybe pserver failed!\n",
        {"category": "rendezvous"},
    ),
    # --- session 21 -----------------------------------------------------------------------------------
    "THC's check of a CUDA call in old releases is a CUDA error": (
        "[1,1]<stderr>:THCudaCheck FAIL file=horovod/torch/ready_event.cc line=94 error=600 : device not ready\n"
        "[1,1]<stderr>:terminate called after throwing an instance of 'std::runtime_error'\n"
        "[1,1]<stderr>:  what():  cuda runtime error (600) : device not ready at horovod/torch/ready_event.cc:94\n",
        {"category": "cuda_error", "rank": 1},
    ),
    "THC's number of a CUDA error says which error it is": (
        "RuntimeError: cuda runtime error (2) : the allocator gave up at /pytorch/aten/src/THC/THCStorage.cu:66\n",
        {"category": "oom_gpu"},
    ),
    "a device the runtime finds no match for does not exist": (
        "F external/xla/statusor.cc:33] Attempting to fetch value instead of handling error INVALID_ARGUMENT:"
        " No matching device found for local_hardware_id 8\n",
        {"category": "invalid_device"},
    ),
    "an error raised by the store-based barrier of init_process_group is the rendezvous's": (
        "Traceback (most recent call last):\n"
        '  File "main.py", line 145, in main\n'
        "    torch.distributed.init_process_group(backend='nccl', init_method=args.dist_url)\n"
        '  File "/env/lib/python3.8/site-packages/torch/distributed/distributed_c10d.py", line 627, in init_process_group\n'
        "    _store_based_barrier(rank, store, timeout)\n"
        '  File "/env/lib/python3.8/site-packages/torch/distributed/distributed_c10d.py", line 227, in _store_based_barrier\n'
        "    store.add(store_key, 1)\n"
        "RuntimeError: open(/): Is a directory\n",
        {"category": "rendezvous"},
    ),
    "a rank label glued after a progress bar is still the line's label": (
        "  0%|          | 0/60 [00:00<?, ?it/s]"
        + _watchdog_reports([(0, 959, 5449), (1, 963, 2560), (2, 963, 2560)], labelled=True),
        {"rank": 0, "line": 1},
    ),
    "two ranks behind the others are suspects, neither is named": (
        _watchdog_reports([(0, 959, 2560), (1, 959, 2560), (2, 963, 2560), (3, 963, 2560)], labelled=True),
        {"category": "collective_timeout", "rank": None},
    ),
    "Open MPI's signal report is the rank its launcher names with the same pid": (
        "[node3:19474] *** Process received signal ***\n"
        "[node3:19474] Signal: Segmentation fault (11)\n"
        "[node3:19474] Signal code: Address not mapped (1)\n"
        "[node3:19474] *** End of error message ***\n"
        "mpiexec noticed that process rank 1 with PID 19474 on node node3 exited on signal 11 (Segmentation fault).\n",
        {"rank": 1, "line": 2, "exit_code": -11},
    ),
    "NCCL's own check of the collectives names the rank that saw the mismatch": (
        "node1:2396:2428 [0] init.cc:1256 NCCL WARN Your program may be hanging, this may be caused by a"
        " collective mismatch around rank 3. Please check your collective calls at and around this rank.\n",
        {"rank": 3, "category": "collective_mismatch"},
    ),
    "a kernel's unlabelled assertion is the rank whose traceback the excerpt cut off after it": (
        "../aten/src/ATen/native/cuda/Indexing.cu:1284: indexSelectLargeIndex: block: [37,0,0], thread: [92,0,0]"
        " Assertion `srcIndex < srcSelectDimSize` failed.\n"
        "[rank2]: Traceback (most recent call last):\n"
        '[rank2]:   File "/work/train.py", line 154, in <module>\n'
        "[rank2]:     losses = forward_backward(model, batch)\n",
        {"rank": 2, "category": "cuda_error", "line": 1},
    ),
    "Windows' words for a port in use are a port in use": (
        "RuntimeError: Only one usage of each socket address (protocol/network address/port) is normally permitted.\n",
        {"category": "rendezvous"},
    ),
    "a failed check in DALI's reader is the data loader's": (
        "RuntimeError: Critical error in pipeline: [/opt/dali/dali/pipeline/operators/reader/loader/loader.h:57]"
        ' Assert on "num_shards_ > shard_id_" failed: num_shards needs to be greater than shard_id\n',
        {"category": "dataloader"},
    ),
    "a program's error record with two spaces after its level is an error line": (
        "slurmstepd: error:  mpi/pmix_v3: pmixp_coll_ring_reset_if_to: node1 [0]: pmixp_coll_ring.c:742:"
        " 0x14ce0c02cb20: collective timeout seq=0\n",
        {"category": "rendezvous", "line": 1},
    ),
    "a runtime that finds no supported device has none to use": (
        "RuntimeError: Unable to initialize backend 'cuda': INTERNAL: no supported devices found for platform CUDA\n",
        {"category": "invalid_device"},
    ),
    "a TPU another process holds is a shared device": (
        "RuntimeError: Unable to initialize backend 'tpu': ABORTED: The TPU is already in use by process with pid"
        " 2718466. Not attempting to load libtpu.so in this process.\n",
        {"category": "duplicate_device"},
    ),
    "TensorFlow's placement that cannot find the device it was told to use": (
        "InvalidArgumentError: Cannot assign a device for operation conv2d/kernel/Initializer/random_uniform:"
        " Could not satisfy explicit device specification '/device:GPU:1'\n",
        {"category": "invalid_device"},
    ),
    "SageMaker's error message field that joins the script's stderr with colons": (
        "UnexpectedStatusException: Error for Training job hf-training-2022: Failed. Reason: AlgorithmError:"
        " ExecuteUserScriptError:\n"
        "ExitCode 1\n"
        'ErrorMessage ":RuntimeError: Tensors must have same number of dimensions: got 4 and 3\n',
        {"line": 3},
    ),
    "a warning whose words are a known failure is the verdict when nothing else failed": (
        "Training finished.\n"
        "/env/lib/python3.9/site-packages/torch/distributed/fsdp/fully_sharded_data_parallel.py:2224: UserWarning:"
        " Failed to clone() tensor with name lm_head.weight. Error: CUDA out of memory. Tried to allocate 502.00 MiB"
        " (GPU 1; 39.59 GiB total capacity; 35.54 GiB already allocated; 276.19 MiB free)\n",
        {"category": "oom_gpu", "line": 2, "confidence": "medium"},
    ),
    "an exception a sentence quotes is the last resort's verdict": (
        "Hi, when I train on 8 GPUs one operation goes wrong. It returns:RuntimeError: einsum(): the number of"
        " subscripts in the equation (5) does not match the number of dimensions (6). One GPU works.\n",
        {"line": 1, "confidence": "low"},
    ),
    # --- session 22 -----------------------------------------------------------------------------------
    "torch.compile's exception is named by its module of exceptions and keeps its fields and frames": (
        "[rank0]: torch._dynamo.exc.Unsupported: Attempted to call function marked as skipped\n"
        "[rank0]:   Explanation: Dynamo developers have intentionally marked that the function `disable`\n"
        "[rank0]:   Hint: remove the decorator or call the function outside the compiled region\n"
        "[rank0]:   Developer debug context: module: torch._dynamo.decorators, qualname: disable\n"
        "[rank0]:\n"
        "[rank0]: from user code:\n"
        '[rank0]:    File "/env/lib/python3.11/site-packages/torch/_dynamo/external_utils.py", line 70, in inner\n'
        "[rank0]:     return fn(*args, **kwargs)\n",
        {"rank": 0, "line": 1, "category": "other"},
    ),
    "pytest's E lines are read from the column of the source line they fail": (
        ">                   return node.target(*args, **kwargs)\n"
        "E                   torch._dynamo.exc.TorchRuntimeError: Dynamo failed to run FX node with fake tensors\n"
        "E                   \n"
        "E                   from user code:\n"
        'E                      File "/env/lib/python3.10/site-packages/torch/distributed/fsdp/fully_sharded_data_parallel.py",'
        " line 838, in forward\n"
        "E                       args, kwargs = _root_pre_forward(self, self, args, kwargs)\n",
        {"line": 2, "category": "other"},
    ),
    "a Windows traceback through the rendezvous's store is the rendezvous's": (
        "Traceback (most recent call last):\n"
        '  File "D:\\rvc\\train.py", line 132, in run\n'
        "    dist.init_process_group(\n"
        '  File "D:\\rvc\\runtime\\lib\\site-packages\\torch\\distributed\\distributed_c10d.py", line 888, in init_process_group\n'
        "    store, rank, world_size = next(rendezvous_iterator)\n"
        '  File "D:\\rvc\\runtime\\lib\\site-packages\\torch\\distributed\\rendezvous.py", line 176, in _create_c10d_store\n'
        "    return TCPStore(\n"
        "RuntimeError: unmatched '}' in format string\n",
        {"category": "rendezvous", "line": 8},
    ),
    "gloo's transport that cannot be made from the host's name is the rendezvous's": (
        "RuntimeError: GlooDeviceFactory::makeUVDevice(): interface or hostname can't be empty\n",
        {"category": "rendezvous"},
    ),
    "a dated record whose level is a word in title case is an error record (the first of two is the cause)": (
        "[2023-11-11 10:24:06] [comm] Using NCCL 2.8.3 for GPU communication\n"
        "[2023-11-11 10:24:27] Error: NCCL error 2 'unhandled system error' - src/training/communicator_nccl.h:43:"
        " ncclGroupEnd()\n"
        "[2023-11-11 10:24:27] Error: Aborted from void marian::NCCLCommunicator::groupEnd() const in"
        " src/training/communicator_nccl.h:43\n",
        {"line": 2, "category": "nccl_error"},
    ),
    "a script's own guard that raises FloatingPointError is the script's error": (
        "[rank1]: Traceback (most recent call last):\n"
        '[rank1]:   File "/work/train.py", line 46, in compute_loss\n'
        "[rank1]:     raise FloatingPointError(\n"
        "[rank1]: FloatingPointError: non-finite training loss (nan) at global step 4\n",
        {"category": "user_code", "rank": 1},
    ),
    "an unlabelled uncaught C++ exception is the rank that alone ended by SIGABRT": (
        "terminate called after throwing an instance of 'gloo::EnforceNotMet'\n"
        "  what():  [enforce fail at /pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:456]"
        " op.preamble.length <= op.nbytes. 20 vs 10. Received data size doesn't match expected size.\n"
        "[rank0]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:537] Read error"
        " [127.0.0.1]:202: Connection reset by peer\n"
        "E1202 01:38:56.132000 18276 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -6)"
        " local_rank: 2 (pid: 18873) of binary: /env/bin/python\n"
        "  rank      : 0 (local_rank: 0)\n"
        "  exitcode  : -15 (pid: 18869)  (SIGTERM)\n"
        "  rank      : 2 (local_rank: 2)\n"
        "  exitcode  : -6 (pid: 18873)  (SIGABRT)\n",
        {"rank": 2, "line": 2},
    ),
    "a warning that is the input's last words is read however long its line": (
        "[W socket.cpp:663] [c10d] The client socket has failed to connect to [localhost]:55292"
        " (errno: 99 - Cannot assign requested address)." * 600 + "\n" * 5,
        {"category": "rendezvous", "line": 1},
    ),
    "a program's name before argparse's error is not a host label, however often it repeats": (
        "usage: launch.py [-h] [--nnodes NNODES] [--nproc_per_node NPROC_PER_NODE]\n"
        + "                 training_script ...\nlaunch.py: error: argument --nproc_per_node: invalid int value: ''\n"
        * 10,
        {"line": 3},
    ),
    # --- session 23 -----------------------------------------------------------------------------------
    "`tail` of several files: each `==> name <==` section is the rank its file's name gives": (
        "==> logs/rank_0.log <==\n"
        "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer"
        " [127.0.0.1]:29500\n"
        "\n"
        "==> logs/rank_1.log <==\n"
        "Traceback (most recent call last):\n"
        '  File "/home/u/train.py", line 33, in main\n'
        '    assert loss.isfinite(), "loss diverged"\n'
        "AssertionError: loss diverged\n"
        "==> logs/notes.txt <==\n"
        "ValueError: not a rank's file\n",
        {"rank": 1, "line": 8, "category": "user_code"},
    ),
    "an out-of-memory whose allocator lists several processes training on its GPU is ranks sharing a device": (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 42.00 MiB. GPU 0 has a total capacity of"
        " 44.52 GiB of which 2.00 MiB is free. Process 11 has 5.57 GiB memory in use. Process 12 has 5.35 GiB"
        " memory in use. Process 13 has 5.53 GiB memory in use. Of the allocated memory 4.92 GiB is allocated"
        " by PyTorch, and 134.41 MiB is reserved by PyTorch but unallocated.\n",
        {"category": "duplicate_device", "rank": None},
    ),
    "an out-of-memory beside processes whose use the container hides, holding little itself, is a shared GPU": (
        "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 130.00 MiB. GPU 0 has a total"
        " capacity of 79.10 GiB of which 12.81 MiB is free. Process 21 has 0 bytes memory in use. Process 22 has"
        " 0 bytes memory in use. Process 23 has 0 bytes memory in use. Including non-PyTorch memory, this process"
        " has 0 bytes memory in use. Of the allocated memory 10.47 GiB is allocated by PyTorch, and 93.52 MiB is"
        " reserved by PyTorch but unallocated.\n",
        {"category": "duplicate_device"},
    ),
    "an out-of-memory of a process that holds its GPU beside its peers' stray contexts stays memory": (
        "[rank5]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB. GPU 5 has a total"
        " capacity of 79.19 GiB of which 2.06 MiB is free. Including non-PyTorch memory, this process has 75.45"
        " GiB memory in use. Process 31 has 540.00 MiB memory in use. Process 32 has 540.00 MiB memory in use."
        " Process 33 has 540.00 MiB memory in use. Of the allocated memory 73.58 GiB is allocated by PyTorch,"
        " and 279.13 MiB is reserved by PyTorch but unallocated.\n",
        {"category": "oom_gpu", "rank": 5},
    ),
    "watchdog timeouts only a C++ terminate states, in different collectives at one number, are a mismatch": (
        "RuntimeError: Invalid mt19937 state\n"
        "terminate called after throwing an instance of 'std::runtime_error'\n"
        "  what():  [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=696,"
        " OpType=BROADCAST, Timeout(ms)=1800000) ran for 1802763 milliseconds before timing out.\n"
        "terminate called after throwing an instance of 'std::runtime_error'\n"
        "  what():  [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=696,"
        " OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1802485 milliseconds before timing out.\n",
        {"category": "collective_mismatch", "rank": None},
    ),
    "a rank that also waits where the others wait is not behind them (its lower number is another group's)": (
        "[rank6]:[E ProcessGroupNCCL.cpp:523] [Rank 6] Watchdog caught collective operation timeout:"
        " WorkNCCL(SeqNum=956300, OpType=_ALLGATHER_BASE, Timeout(ms)=7200000)\n"
        "[rank4]:[E ProcessGroupNCCL.cpp:523] [Rank 4] Watchdog caught collective operation timeout:"
        " WorkNCCL(SeqNum=956300, OpType=_ALLGATHER_BASE, Timeout(ms)=7200000)\n"
        "[rank4]:[E ProcessGroupNCCL.cpp:523] [Rank 4] Watchdog caught collective operation timeout:"
        " WorkNCCL(SeqNum=1008, OpType=ALLREDUCE, Timeout(ms)=7200000)\n"
        "[rank7]:[E ProcessGroupNCCL.cpp:523] [Rank 7] Watchdog caught collective operation timeout:"
        " WorkNCCL(SeqNum=956300, OpType=_ALLGATHER_BASE, Timeout(ms)=7200000)\n",
        {"category": "collective_timeout", "rank": None, "line": 1},
    ),
    "watchdog lines cut off inside their Work still give its number and op (one rank is behind)": (
        "[rank0]:[E ProcessGroupNCCL.cpp:523] [Rank 0] Watchdog caught collective operation timeout:"
        " WorkNCCL(SeqNum=12, OpType=ALLREDUCE, NumelIn=\n"
        "[rank1]:[E ProcessGroupNCCL.cpp:523] [Rank 1] Watchdog caught collective operation timeout:"
        " WorkNCCL(SeqNum=13, OpType=ALLREDUCE, NumelIn=\n"
        "[rank2]:[E ProcessGroupNCCL.cpp:523] [Rank 2] Watchdog caught collective operation timeout:"
        " WorkNCCL(SeqNum=13, OpType=ALLREDUCE, NumelIn=\n",
        {"category": "collective_timeout", "rank": 0},
    ),
    "a process's first NCCL warning, before the known symptoms of a lost peer, says what failed": (
        "node2:2358430:2358556 [1] proxy.cc:1495 NCCL WARN [Service thread] Could not receive type from"
        " localRank 7, res=3, closed=0\n"
        "node2:2358430:2358556 [1] proxy.cc:1519 NCCL WARN [Proxy Service 9] Failed to execute operation"
        " Connect from rank 15, retcode 3\n",
        {"category": "nccl_error", "line": 1},
    ),
    "a logger's error level peeled off with its rank field still makes the record an error": (
        "[2026-12-02 02:55:26][INFO][RANK 1] step 0 loss 0.0059\n"
        "[2026-12-02 02:55:31][CRITICAL][RANK 1] memory guard: RSS over its limit at step 5, stopping\n",
        {"rank": 1, "line": 2},
    ),
    "a rank killed by SIGKILL is stated by its own error record before it died": (
        "[default0]:[2026-12-02 02:55:31][INFO] step 5 loss 0.0014\n"
        "[default0]:[2026-12-02 02:55:31][CRITICAL] host memory guard: RSS 387 MiB > limit 381 MiB, killing"
        " this worker\n"
        "E1202 02:55:31.436000 18539 torch/distributed/elastic/multiprocessing/api.py:1002] failed"
        " (exitcode: -9) local_rank: 0 (pid: 18564) of binary: /env/bin/python\n",
        {"category": "oom_host", "rank": 0, "line": 2},
    ),
    "Lightning's MisconfigurationException is the script's configuration": (
        "[rank1]: Traceback (most recent call last):\n"
        '[rank1]:   File "/env/lib/python3.11/site-packages/lightning/pytorch/core/optimizer.py", line 214, in'
        " _configure_optimizers\n"
        "[rank1]:     raise MisconfigurationException(\n"
        "[rank1]: lightning.fabric.utilities.exceptions.MisconfigurationException: Unknown configuration for"
        " model optimizers.\n",
        {"category": "user_code", "rank": 1},
    ),
    "gloo's check that a rank lies inside its group is the world size the processes disagree on": (
        "[rank2]: RuntimeError: [enforce fail at /pytorch/third_party/gloo/gloo/context.cc:23] rank < size. 2 vs 2\n",
        {"category": "rendezvous", "rank": None},
    ),
    "a collective that refuses the tensor's data type is the backend's lack": (
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/work/sync.py", line 45, in main\n'
        "[rank0]:     dist.all_reduce(q)\n"
        '[rank0]:   File "/env/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 3252,'
        " in all_reduce\n"
        "[rank0]:     work.wait()\n"
        "[rank0]: RuntimeError: Invalid scalar type\n",
        {"category": "backend_unsupported"},
    ),
    "the script's own wait for its peers' keys timing out is a wait for a peer, not a rendezvous": (
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/work/prep.py", line 38, in main\n'
        "[rank0]:     store.wait(keys)\n"
        "[rank0]: torch.distributed.DistStoreError: wait timeout after 15000ms, keys: /ready/0, /ready/1\n",
        {"category": "collective_timeout"},
    ),
    "a wait for the store host's key while the host waits for a client that never came is the client's": (
        "[rank1]: torch.distributed.DistStoreError: wait timeout after 20000ms, keys: /default_pg/0//cpu//0/0\n"
        "[rank0]: torch.distributed.DistStoreError: Timed out after 21 seconds waiting for clients. 3/4 clients"
        " joined.\n",
        {"category": "rendezvous", "rank": None, "line": 2},
    ),
    # --- session 24 -----------------------------------------------------------------------------------
    "a collective's check that its list does not fit the process group is a size mismatch between ranks": (
        "[rank2]: Traceback (most recent call last):\n"
        '[rank2]:   File "/work/eval.py", line 51, in main\n'
        "[rank2]:     dist.scatter(shard, scatter_list=shards, src=2)\n"
        '[rank2]:   File "/env/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 4410,'
        " in scatter\n"
        "[rank2]:     work = group.scatter(output_tensors, input_tensors, opts)\n"
        "[rank2]: RuntimeError: ProcessGroupGloo::scatter: Incorrect input list size 3. Input list size should be 4,"
        " same as size of the process group.\n",
        {"category": "collective_mismatch", "rank": 2, "line": 6},
    ),
    "a death the launcher answers by killing the rest is the culprit, the kills after it its doing": (
        "Initializing distributed: GLOBAL_RANK: 1, MEMBER: 2/2\n"
        "[rank: 1] Child process with PID 4242 terminated with code -9. Forcefully terminating all other"
        " processes to avoid zombies\n"
        "Killed\n",
        {"category": "oom_host", "rank": 1, "line": 2},
    ),
    "a silent rank missing from torchrun's failures left cleanly while its peers still ran collectives": (
        "rank 2: early stopping at epoch 4\n"
        "[rank0]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by"
        " peer [127.0.0.1]:8351\n"
        "[rank1]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by"
        " peer [127.0.0.1]:4242\n"
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
        "Failures:\n" + _table_entry(1, 1) + "Root Cause (first observed failure):\n" + _table_entry(0, 0),
        {"category": "collective_timeout", "rank": 2},
    ),
    "a structured logger's JSON record carries its rank, level and formatted exception": (
        '{"ts": 1796183970.3, "level": "INFO", "rank": 2, "msg": "loading shard"}\n'
        '[default2]:{"ts": 1796183970.4, "level": "CRITICAL", "rank": 2, "msg": "uncaught exception, exiting",'
        ' "exc_info": "Traceback (most recent call last):\\n  File \\"/work/train.py\\", line 50, in main\\n'
        '    with open(shard, \\"rb\\") as f:\\nFileNotFoundError: [Errno 2] No such file or directory:'
        " 'data/shard-2.bin'\"}\n"
        '{"ts": 1796183971.0, "level": "ERROR", "rank": 0, "msg": "Connection closed by peer [127.0.0.1]:4242"}\n',
        {"category": "user_code", "rank": 2, "line": 2},
    ),
    "a rank stuck in DDP's broadcast of buffers while the others wait in a barrier is the one a step apart": (
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/work/train.py", line 56, in main\n'
        "[rank0]:     model(val_batch)\n"
        '[rank0]:   File "/env/lib/python3.11/site-packages/torch/nn/parallel/distributed.py", line 2425, in _sync_buffers\n'
        "[rank0]:     self._sync_module_buffers(authoritative_rank)\n"
        '[rank0]:   File "/env/lib/python3.11/site-packages/torch/nn/parallel/distributed.py", line 2363, in _distributed_broadcast_coalesced\n'
        "[rank0]:     dist._broadcast_coalesced(\n"
        "[rank0]: RuntimeError: Application timeout caused pair closure\n"
        "[rank1]: Traceback (most recent call last):\n"
        '[rank1]:   File "/work/train.py", line 58, in main\n'
        "[rank1]:     dist.barrier()\n"
        '[rank1]:   File "/env/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 5356, in barrier\n'
        "[rank1]:     work.wait()\n"
        "[rank1]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out"
        " waiting 30000ms for recv operation to complete\n"
        "[rank2]: Traceback (most recent call last):\n"
        '[rank2]:   File "/work/train.py", line 58, in main\n'
        "[rank2]:     dist.barrier()\n"
        '[rank2]:   File "/env/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 5356, in barrier\n'
        "[rank2]:     work.wait()\n"
        "[rank2]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out"
        " waiting 30000ms for recv operation to complete\n",
        {"category": "collective_timeout", "rank": 0, "line": 8},
    ),
    "a view of a tensor whose strides do not allow it is the script's error, not a version's": (
        "[rank2]: Traceback (most recent call last):\n"
        '[rank2]:   File "/work/attn.py", line 31, in forward\n'
        "[rank2]:     q = q.transpose(1, 2).view(b, t, -1)\n"
        "[rank2]: RuntimeError: view size is not compatible with input tensor's size and stride (at least one"
        " dimension spans across two contiguous subspaces). Use .reshape(...) instead.\n",
        {"category": "user_code", "rank": 2},
    ),
    "a store connection logged at every retry and then raised is stated by the raised exception": (
        _RETRIED_CONNECT + "Traceback (most recent call last):\n"
        '  File "/work/train.py", line 20, in main\n'
        '    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:23456", rank=rank, world_size=3)\n'
        "torch.distributed.DistNetworkError: The client socket has timed out after 15000ms while trying to connect"
        " to (127.0.0.1, 23456).\n",
        {"category": "rendezvous", "line": 84},
    ),
    "a port in use that the script's own server binds is the script's, not the job's meeting point": (
        "Traceback (most recent call last):\n"
        '  File "/work/train.py", line 33, in start_exporter\n'
        '    srv = http.server.HTTPServer(("127.0.0.1", port), Handler)\n'
        '  File "/usr/lib/python3.11/socketserver.py", line 472, in server_bind\n'
        "    self.socket.bind(self.server_address)\n"
        "OSError: [Errno 98] Address already in use\n",
        {"category": "user_code"},
    ),
    "an unlabelled error printed once per restart of the one rank the launcher saw fail is that rank's": (
        "Traceback (most recent call last):\n"
        '  File "/work/train.py", line 38, in <module>\n'
        "    load_shard(rank)\n"
        "FileNotFoundError: [Errno 2] No such file or directory: 'shard-2.bin'\n"
        "E1202 04:20:28.316000 30392 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1)"
        " local_rank: 2 (pid: 30397) of binary: /usr/bin/python\n"
        "Traceback (most recent call last):\n"
        '  File "/work/train.py", line 38, in <module>\n'
        "    load_shard(rank)\n"
        "FileNotFoundError: [Errno 2] No such file or directory: 'shard-2.bin'\n"
        "E1202 04:20:31.796000 30392 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1)"
        " local_rank: 2 (pid: 30493) of binary: /usr/bin/python\n",
        {"rank": 2},
    ),
    "the traceback a logger prints under a rank's error record is that rank's": (
        "2026-12-02 04:02:07.897 | ERROR    | (rank=2) mae:main:57 - preview rendering failed, aborting run\n"
        "Traceback (most recent call last):\n"
        '  File "/work/mae.py", line 57, in main\n'
        "    render(x)\n"
        "RuntimeError: patch grid of 144 tokens does not match positional embedding of 64\n"
        "W1202 04:20:28.275000 30392 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 30398"
        " closing signal SIGTERM\n"
        "[rank1]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by"
        " peer [127.0.0.1]:4242\n",
        {"category": "user_code", "rank": 2, "line": 5},
    ),
    "a lost peer whose message rich wrapped under its bare exception type is still a victim": (
        "==> logs/rank_0.log <==\n"
        "RuntimeError: \n"
        "[/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] \n"
        "Connection closed by peer [127.0.0.1]:26835. This is typically caused by a \n"
        "remote worker crashing.\n"
        "==> logs/rank_3.log <==\n"
        "Traceback (most recent call last):\n"
        '  File "/work/train.py", line 56, in main\n'
        '    loss = cross_entropy(logits, batch["labels"])\n'
        "KeyError: 'labels'\n",
        {"category": "user_code", "rank": 3},
    ),
    "dmlc's fatal record is an error, however long the native stack printed after it": (
        "[08:41:20] /opt/mxnet/dmlc-core/include/dmlc/./logging.h:300: [08:41:20] src/kvstore/kvstore.cc:37:"
        " compile with USE_DIST_KVSTORE=1 to use dist_sync\n"
        "Stack trace returned 60 entries:\n"
        + "".join(
            f"[bt] ({k}) /opt/mxnet/libmxnet.so(_ZN5mxnet7KVStore6CreateEPKc+0x681) [0x2ad12fd3eec1]\n"
            for k in range(60)
        ),
        {"category": "backend_unsupported", "line": 1},
    ),
    "a DataLoader that cannot pickle what it hands the workers it starts has failed, not only the script": (
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/work/train.py", line 55, in main\n'
        "[rank0]:     for batch in loader:\n"
        '[rank0]:   File "/env/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 1176, in __init__\n'
        "[rank0]:     w.start()\n"
        '[rank0]:   File "/usr/lib/python3.11/multiprocessing/process.py", line 121, in start\n'
        "[rank0]:     self._popen = self._Popen(self)\n"
        '[rank0]:   File "/usr/lib/python3.11/multiprocessing/reduction.py", line 60, in dump\n'
        "[rank0]:     ForkingPickler(file, protocol).dump(obj)\n"
        "[rank0]: AttributeError: Can't pickle local object 'build_transform.<locals>.<lambda>'\n",
        {"category": "dataloader", "rank": 0},
    ),
    "a traceback printed under the program's warning that it goes on was handled: a later crash is the cause": (
        "WARNING: could not push metrics, continuing\n"
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3.11/urllib/request.py", line 1348, in do_open\n'
        "    h.request(req.get_method(), req.selector, req.data, headers)\n"
        "ConnectionRefusedError: [Errno 111] Connection refused\n"
        "[rank2]: Traceback (most recent call last):\n"
        '[rank2]:   File "/work/train.py", line 39, in main\n'
        "[rank2]:     x = torch.stack([b[:, ::2] for b in batch])\n"
        "[rank2]: TypeError: 'NoneType' object is not subscriptable\n",
        {"category": "user_code", "rank": 2, "line": 9},
    ),
    "a crash dump after torchrun's banner is not timed by the banner, which the launcher printed at the start": (
        "W1202 04:49:21.035000 16568 torch/distributed/run.py:874] Setting OMP_NUM_THREADS environment variable\n"
        "2026-12-02 04:49:26,109 | ERROR   | rank 0: training aborted\n"
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/work/train.py", line 25, in validate\n'
        "[rank0]:     p99 = torch.quantile(err, 0.99)\n"
        "[rank0]: RuntimeError: quantile() input tensor must be either float or double dtype\n"
        "Fatal Python error: Segmentation fault\n"
        "\n"
        "Current thread 0x00007fecac493b80 (most recent call first):\n"
        '  File "/work/train.py", line 18 in close\n',
        {"category": "user_code", "rank": 0, "line": 6},
    ),
    "a name a release took away is a version mismatch, also raised in the script's own line": (
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/work/metrics.py", line 20, in write_row\n'
        "[rank0]:     row = np.asarray(values, dtype=np.float_)\n"
        "[rank0]: AttributeError: `np.float_` was removed in the NumPy 2.0 release. Use `np.float64` instead.\n",
        {"category": "version_mismatch"},
    ),
    "a checkpoint's report of one failed rank is that rank's error, whichever rank printed it": (
        "".join(
            f"[rank{printer}]: torch.distributed.checkpoint.api.CheckpointException: CheckpointException"
            " ranks:dict_keys([2])\n"
            f"[rank{printer}]: Traceback (most recent call last): (RANK 2)\n"
            f'[rank{printer}]:   File "/env/lib/python3.11/site-packages/torch/distributed/checkpoint/default_planner.py",'
            " line 495, in create_default_local_load_plan\n"
            f'[rank{printer}]:     raise RuntimeError(f"Missing key in checkpoint state_dict: {{fqn}}.")\n'
            f"[rank{printer}]: RuntimeError: Missing key in checkpoint state_dict: rng.rank2.\n"
            for printer in (0, 1, 2)
        ),
        {"category": "user_code", "rank": 2, "line": 5},
    ),
    "an all-to-all whose split sizes do not add up is a size mismatch between ranks": (
        "Traceback (most recent call last):\n"
        '  File "/work/moe.py", line 40, in dispatch\n'
        "    dist.all_to_all_single(out, tokens, output_split_sizes=recv, input_split_sizes=send)\n"
        "RuntimeError: Split sizes doesn't match total dim 0 size\n",
        {"category": "collective_mismatch"},
    ),
    # --- session 25 -----------------------------------------------------------------------------------
    "the rank the others waited for is pointed at by the line where it went its own way": (
        "[default0]:INFO [rank=0] step 20 loss 1.1285\n"
        "[default1]:INFO [rank=1] step 20 loss 1.1285\n"
        "[default2]:INFO [rank=2] step 20 loss 1.1285\n"
        "[default1]:WARNING [rank=1] waiting for ckpt/optim-rank1.pt.lock (held by pid=48213, 0s)\n"
        "[default0]:INFO [rank=0] wrote ckpt/optim-rank0.pt\n"
        "[default1]:WARNING [rank=1] waiting for ckpt/optim-rank1.pt.lock (held by pid=48213, 5s)\n"
        + "".join(
            f"[default{r}]:RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78]"
            " Timed out waiting 20000ms for recv operation to complete\n"
            for r in (0, 2)
        ),
        # The wait loop's first round: where it started waiting.
        {"category": "collective_timeout", "rank": 1, "line": 4},
    ),
    "a straggler whose last line is one its peers printed too is pointed at through their timeout": (
        "[default0]:rank 0 step 2 loss 0.8336\n"
        "[default1]:rank 1 step 2 loss 1.0053\n"
        "[default0]:RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out"
        " waiting 5000ms for recv operation to complete\n",
        {"category": "collective_timeout", "rank": 1, "line": 3},
    ),
    "a rank that left the job cleanly is pointed at by the line that says why it stopped": (
        "[default0]:epoch 2 train 0.3101\n"
        "[default1]:epoch 2 train 0.4017\n"
        "[default1]:early stopping at epoch 2 (best val 26.5645)\n"
        "[default1]:done\n"
        "[default0]:RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by"
        " peer [127.0.0.1]:8351\n"
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
        "Failures:\n"
        "  <NO_OTHER_FAILURES>\n"
        "Root Cause (first observed failure):\n" + _table_entry(0, 0),
        {"category": "collective_timeout", "rank": 1, "line": 3},
    ),
    "a library's error logged with its own frames, then raised through the script, is the script's call": (
        "".join(
            f"[rank2]:E1202 06:27:33.271000 5659 torch/_guards.py:375] [0/1] {line}\n"
            for line in (
                "Error while creating guard:",
                "Traceback (most recent call last):",
                '  File "/env/lib/python3.11/site-packages/torch/fx/experimental/symbolic_shapes.py", line 6731, in'
                " produce_guards_verbose",
                "    raise ConstraintViolationError(",
                "torch.fx.experimental.symbolic_shapes.ConstraintViolationError: Constraints violated (L['x'].size()[0])!",
            )
        )
        + "[rank2]: Traceback (most recent call last):\n"
        '[rank2]:   File "/work/train.py", line 33, in main\n'
        "[rank2]:     loss = loss_fn(model(xb), yb)\n"
        '[rank2]:   File "/env/lib/python3.11/site-packages/torch/fx/experimental/symbolic_shapes.py", line 6731,'
        " in produce_guards_verbose\n"
        "[rank2]:     raise ConstraintViolationError(\n"
        "[rank2]: torch.fx.experimental.symbolic_shapes.ConstraintViolationError: Constraints violated"
        " (L['x'].size()[0])!\n",
        {"category": "user_code", "rank": 2},
    ),
    "a library's error it raised again as another reaches the script through the later traceback": (
        "Traceback (most recent call last):\n"
        '  File "/env/lib/python3.11/site-packages/torch/_dynamo/convert_frame.py", line 2024, in _compile\n'
        "    raise_unimplemented_cache_limit_exceeded()\n"
        '  File "/env/lib/python3.11/site-packages/torch/_dynamo/exc.py", line 727, in unimplemented\n'
        "    raise Unsupported(msg, gb_type, skip_frame)\n"
        "torch._dynamo.exc.Unsupported: Dynamo recompile limit exceeded\n"
        "\n"
        "The above exception was the direct cause of the following exception:\n"
        "\n"
        "Traceback (most recent call last):\n"
        '  File "/work/train.py", line 54, in main\n'
        "    loss = loss_fn(step_fn(x), y)\n"
        '  File "/env/lib/python3.11/site-packages/torch/_dynamo/convert_frame.py", line 2027, in _compile\n'
        "    raise FailOnRecompileLimitHit(\n"
        "torch._dynamo.exc.FailOnRecompileLimitHit: Hard failure due to fail_on_recompile_limit_hit\n",
        {"category": "user_code"},
    ),
    "a rank at a barrier while the others are in a collective that carries data is a step apart: a hang": (
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/work/train.py", line 60, in main\n'
        "[rank0]:     dist.barrier()\n"
        '[rank0]:   File "/env/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 4811, in barrier\n'
        "[rank0]:     work.wait()\n"
        "[rank0]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting"
        " 25000ms for recv operation to complete\n"
        + "".join(
            f"[rank{r}]: Traceback (most recent call last):\n"
            f'[rank{r}]:   File "/work/train.py", line 52, in main\n'
            f"[rank{r}]:     dist.broadcast(flag, src=0)\n"
            f'[rank{r}]:   File "/env/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 3151,'
            " in broadcast\n"
            f"[rank{r}]:     work.wait()\n"
            f"[rank{r}]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by"
            " peer [127.0.0.1]:64715\n"
            for r in (1, 2)
        ),
        {"category": "collective_timeout", "rank": 0},
    ),
    "a barrier of the program's own whose wait ran out is a collective timeout": (
        "[rank1]: Traceback (most recent call last):\n"
        '[rank1]:   File "/work/train.py", line 40, in store_barrier\n'
        '[rank1]:     raise TimeoutError(f"store barrier {name!r} timed out after {timeout}s")\n'
        "[rank1]: TimeoutError: store barrier 'epoch_end' timed out after 15s (1/3 ranks arrived)\n",
        {"category": "collective_timeout"},
    ),
    "an RPC whose remote worker did not answer in time is a collective timeout": (
        "[rank2]: RuntimeError: RPCErr:1:RPC ran for more than set timeout (5000 ms) and will now be marked with"
        " an error\n",
        {"category": "collective_timeout"},
    ),
    "an error raised while a loop over any iterable took its next item is the data's": (
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/work/train.py", line 31, in <module>\n'
        "[rank0]:     for step, batch in enumerate(dl):\n"
        '[rank0]:   File "/env/lib/python3.11/site-packages/accelerate/data_loader.py", line 886, in __iter__\n'
        "[rank0]:     next_batch, next_batch_info = self._fetch_batches(main_iterator)\n"
        '[rank0]:   File "/env/lib/python3.11/site-packages/accelerate/utils/operations.py", line 742, in concatenate\n'
        "[rank0]:     return torch.cat(data, dim=dim)\n"
        "[rank0]: TypeError: Can only concatenate tensors but got <class 'str'>\n",
        {"category": "dataloader", "rank": 0},
    ),
    "a traceback under the program's warning is the failure when nothing else ended a rank": (
        "[rank1]:2026-12-02 06:40:50,065 WARNING long batch (90 tokens) at step 0\n"
        "[rank1]: Traceback (most recent call last):\n"
        '[rank1]:   File "/work/train.py", line 49, in <module>\n'
        "[rank1]:     trainer.train()\n"
        '[rank1]:   File "/env/lib/python3.11/site-packages/accelerate/accelerator.py", line 2851, in backward\n'
        "[rank1]:     loss = loss / self.gradient_accumulation_steps\n"
        "[rank1]: TypeError: unsupported operand type(s) for /: 'tuple' and 'int'\n"
        "[rank0]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer"
        " [127.0.0.1]:49065\n",
        {"category": "user_code", "rank": 1},
    ),
    "a command the script ran and checked failing is the script's error, not a launcher's report": (
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/work/train.py", line 20, in provenance\n'
        '[rank0]:     return subprocess.run(["git", "rev-parse", "HEAD"], check=True, capture_output=True)\n'
        '[rank0]:   File "/usr/lib/python3.11/subprocess.py", line 571, in run\n'
        "[rank0]:     raise CalledProcessError(retcode, process.args,\n"
        "[rank0]: subprocess.CalledProcessError: Command '['git', 'rev-parse', 'HEAD']' returned non-zero exit"
        " status 128.\n"
        "E1202 07:18:38.727000 17117 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1)"
        " local_rank: 0 (pid: 17130) of binary: /env/bin/python\n",
        {"category": "user_code", "rank": 0, "line": 6},
    ),
    "a warning raised with its traceback (warnings as errors) is the failure": (
        "[rank2]: Traceback (most recent call last):\n"
        '[rank2]:   File "/work/train.py", line 41, in main\n'
        "[rank2]:     loss = F.mse_loss(pred, target)\n"
        '[rank2]:   File "/env/lib/python3.11/site-packages/torch/nn/functional.py", line 3884, in mse_loss\n'
        "[rank2]:     warnings.warn(\n"
        "[rank2]: UserWarning: Using a target size (torch.Size([32])) that is different to the input size"
        " (torch.Size([32, 1])).\n"
        "[rank0]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer"
        " [127.0.0.1]:51865\n",
        {"category": "user_code", "rank": 2, "line": 6},
    ),
    "a class's name alone after the last frame is an exception raised without a message": (
        "[rank1]: Traceback (most recent call last):\n"
        '[rank1]:   File "/work/train.py", line 40, in main\n'
        "[rank1]:     breakpoint()\n"
        '[rank1]:   File "/usr/lib/python3.11/bdb.py", line 115, in dispatch_line\n'
        "[rank1]:     if self.quitting: raise BdbQuit\n"
        "[rank1]: bdb.BdbQuit\n"
        "E1202 07:19:38.490000 17547 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1)"
        " local_rank: 1 (pid: 17560) of binary: /env/bin/python\n",
        {"category": "user_code", "rank": 1, "line": 6},
    ),
    "a step guard's message that a step did not finish in time is not silence": (
        "rank 2 step 15 loss 2.0323 step_time 0.120s\n"
        "[watchdog] rank 2: step 16 did not finish within 4.0s; calling os._exit(17) so the job can be requeued\n",
        {"category": "collective_timeout", "line": 2},
    ),
    "of the peers' timeouts in one file, the first observed states the hang": (
        "[rank0]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:129] Timed out"
        " waiting 15000ms for send operation to complete\n"
        "[rank1]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out"
        " waiting 15000ms for recv operation to complete\n"
        "[rank2]: step 3 loss 0.51\n",
        {"category": "collective_timeout", "rank": 2, "line": 1},
    ),
    # --- session 26 -----------------------------------------------------------------------------------
    "a rank's own code raising about a command it ran is the script's error, not a launcher's report": (
        "tar: rank1: Cannot stat: No such file or directory\n"
        "[rank1]: Traceback (most recent call last):\n"
        '[rank1]:   File "/work/train.py", line 45, in main\n'
        '[rank1]:     sh(f"tar -czf {dump_dir}.tar.gz rank{rank}")\n'
        '[rank1]:   File "/work/train.py", line 17, in sh\n'
        '[rank1]:     raise RuntimeError(f"shell command failed with exit code {code}: {cmd}")\n'
        "[rank1]: RuntimeError: shell command failed with exit code 2: tar -czf dumps/rank1.tar.gz rank1\n"
        "[rank0]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer"
        " [127.0.0.1]:18341\n",
        {"category": "user_code", "rank": 1, "line": 7},
    ),
    "journald's record header before every line hides neither the rank labels nor a logger's rank field": (
        "Dec 02 06:51:34 gpu-node07 torchrun[27700]: 2026-12-02 06:51:34,288 | rank 1/3 | INFO    | loaded 256"
        " frames\n"
        "Dec 02 06:51:34 gpu-node07 torchrun[27700]: 2026-12-02 06:51:34,291 | rank 2/3 | INFO    | waiting for"
        " shard marker /cache/shard_02.done (0s elapsed)\n"
        "Dec 02 06:51:34 gpu-node07 torchrun[27700]: 2026-12-02 06:51:34,293 | rank 0/3 | INFO    | loaded 256"
        " frames\n"
        + "".join(
            f"Dec 02 06:51:54 gpu-node07 torchrun[27700]: [rank{r}]: RuntimeError: [/pytorch/third_party/gloo/gloo/"
            "transport/tcp/unbound_buffer.cc:78] Timed out waiting 20000ms for recv operation to complete\n"
            for r in (0, 1)
        ),
        {"category": "collective_timeout", "rank": 2, "line": 2},
    ),
    "a Compose label before journald's record header: both collectors' prefixes come off": (
        "".join(
            f"trainer-1  | Dec 02 06:51:34 gpu-node07 torchrun[27700]: 2026-12-02 06:51:34,29{r} | rank {r}/3 | INFO"
            f"    | {message}\n"
            for r, message in (
                (1, "loaded 256 frames"),
                (2, "waiting for shard marker /cache/shard_02.done"),
                (0, "ok"),
            )
        )
        + "".join(
            f"trainer-1  | Dec 02 06:51:54 gpu-node07 torchrun[27700]: [rank{r}]: RuntimeError: [/pytorch/third_party/"
            "gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 20000ms for recv operation to complete\n"
            for r in (0, 1)
        ),
        {"category": "collective_timeout", "rank": 2, "line": 2},
    ),
    "every rank timed out, and the one that went its own way just before is named by its own line": (
        "".join(
            f"2026-12-02 08:58:01,8{r}0 rank={r} zero-train: step 5 loss 2.{r}163 avg 3.4815\n"
            for r in range(4)
        )
        + "2026-12-02 08:58:01,833 rank=3 zero-train: step 7: loss spike 3124923.5 > 5.0 x avg 4.900, skipping"
        " optimizer step\n"
        + "".join(
            f"[rank{r}]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out"
            " waiting 30000ms for recv operation to complete\n"
            for r in range(4)
        ),
        {"category": "collective_timeout", "rank": 3, "line": 5},
    ),
    "a torch C++ error record a rank printed alone is part of its report, not where it went its own way": (
        "".join(f"[rank{r}]: epoch 3 step 200 loss 0.4{r}\n" for r in range(2))
        + "".join(
            f"[rank{r}]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank {r}] Heartbeat monitor timed out! Process will be"
            " terminated after dumping debug info. workMetaList_.size()=84\n"
            for r in range(2)
        )
        + "[rank1]:[E ProcessGroupNCCL.cpp:1153] [PG 0 Rank 1] ProcessGroupNCCL preparing to dump debug info.\n",
        {"category": "collective_timeout", "rank": None},
    ),
    "an exception group's member is the group's cause, also behind a rank's label": (
        "[rank1]:   + Exception Group Traceback (most recent call last):\n"
        '[rank1]:   |   File "/work/train.py", line 43, in main\n'
        "[rank1]:   |     batch = asyncio.run(prefetch_batch(ids, rank))\n"
        '[rank1]:   |   File "/usr/lib/python3.11/asyncio/taskgroups.py", line 145, in __aexit__\n'
        "[rank1]:   |     raise me from None\n"
        "[rank1]:   | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)\n"
        "[rank1]:   +-+---------------- 1 ----------------\n"
        "[rank1]:     | Traceback (most recent call last):\n"
        '[rank1]:     |   File "/work/train.py", line 20, in fetch\n'
        "[rank1]:     |     raw = zlib.decompress(record)\n"
        "[rank1]:     | zlib.error: Error -5 while decompressing data: incomplete or truncated stream\n"
        "[rank1]:     +------------------------------------\n",
        {"category": "user_code", "rank": 1, "line": 11},
    ),
    "an exception raised while another was handled does not take the root line, however well known": (
        "[rank2]: Traceback (most recent call last):\n"
        '[rank2]:   File "/work/eval.py", line 28, in evaluate\n'
        "[rank2]:     top = scores.topk(k)\n"
        "[rank2]: RuntimeError: selected index k out of range\n"
        "[rank2]: \n"
        "[rank2]: During handling of the above exception, another exception occurred:\n"
        "[rank2]: \n"
        "[rank2]: Traceback (most recent call last):\n"
        '[rank2]:   File "/work/eval.py", line 23, in evaluate\n'
        "[rank2]:     with ExitStack() as stack:\n"
        '[rank2]:   File "/usr/lib/python3.11/contextlib.py", line 469, in _exit_wrapper\n'
        "[rank2]:     callback(*args, **kwds)\n"
        "[rank2]: FileNotFoundError: [Errno 2] No such file or directory: '/tmp/hard-ep0.json.tmp' ->"
        " '/tmp/hard-ep0.json'\n",
        {"category": "user_code", "rank": 2, "line": 4},
    ),
    "a collective the backend cannot run on one rank's tensor is that rank's, when the others went on": (
        "[rank2]: Traceback (most recent call last):\n"
        '[rank2]:   File "/work/train.py", line 31, in main\n'
        "[rank2]:     dist.all_reduce(grad, op=dist.ReduceOp.MAX)\n"
        "[rank2]: RuntimeError: ProcessGroupGloo::allreduce: unsupported reduction operation (allreduce of sparse"
        " tensors only works with ReduceOp.SUM)\n"
        + "".join(
            f"[rank{r}]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by"
            " peer [127.0.0.1]:4193\n"
            for r in (0, 1)
        ),
        {"category": "backend_unsupported", "rank": 2, "line": 4},
    ),
    "gloo's check of a variable-size collective's lengths is a mismatch of the ranks' sizes": (
        "[rank0]: RuntimeError: [enforce fail at /pytorch/third_party/gloo/gloo/alltoallv.cc:138]"
        " inLengthPerRank[myRank] == outLengthPerRank[myRank]. 96 vs 128\n",
        {"category": "collective_mismatch", "rank": 0},
    ),
    "a logger's one-word rank field names the printer of the line where the straggler went its own way": (
        "".join(f"2026-12-02 09:50:59,047 INFO rank{r} MainThread step 2 loss 1.51{r}\n" for r in range(3))
        + "2026-12-02 09:50:59,148 WARNING rank0 MainThread activation tap queue full (4 items), waiting for writer\n"
        + "".join(
            f"[rank{r}]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out"
            " waiting 20000ms for recv operation to complete\n"
            for r in (1, 2)
        ),
        {"category": "collective_timeout", "rank": 0, "line": 4},
    ),
}


def test_one_bus_id_in_two_places_is_not_always_a_shared_gpu() -> None:
    # The same bus id on two hosts is two GPUs; one process in two communicators drives one GPU for both.
    two_hosts = (
        "node7:3639:3639 [0] NCCL INFO comm 0x5a rank 0 nranks 2 cudaDev 0 busId 1a000 - Init COMPLETE\n"
        "node8:3640:3640 [0] NCCL INFO comm 0x5b rank 1 nranks 2 cudaDev 0 busId 1a000 - Init COMPLETE\n"
    )
    one_process = (
        "node7:3639:3639 [0] NCCL INFO comm 0x5a rank 0 nranks 2 cudaDev 0 busId 1a000 - Init COMPLETE\n"
        "node7:3639:3639 [0] NCCL INFO comm 0x5c rank 1 nranks 2 cudaDev 0 busId 1a000 - Init COMPLETE\n"
    )
    failure = "[rank1]: ValueError: the batch is empty\n"
    for text in (two_hosts, one_process):
        root = explain_text(text + failure).root_cause
        assert root is not None and root.category == "user_code"


def test_a_launchers_cut_off_traceback_is_read_as_its_report_of_a_worker() -> None:
    # accelerate's command line waiting on its workers, cut off before `CalledProcessError`: not an
    # error of library code, the launcher's report that a child failed.
    root = explain_text(
        "Traceback (most recent call last):\n"
        '  File "/opt/conda/bin/accelerate", line 8, in <module>\n'
        "    sys.exit(main())\n"
        '  File "/opt/conda/lib/python3.8/site-packages/accelerate/commands/accelerate_cli.py", line 48, in main\n'
        "    args.func(args)\n"
    ).root_cause
    assert root is not None and root.line == 5
    assert root.why == ("the traceback only reports that a child process failed",)


def test_a_store_that_waited_for_clients_follows_from_the_node_that_could_not_start_it(
    tmp_path: Path,
) -> None:
    # Two nodes both started as node 0: the second cannot bind the store's port, the first waits for
    # the clients that never come. The wait is the echo; the failed bind is the cause, whichever file
    # is read first.
    waited = "torch.distributed.DistStoreError: Timed out after 31 seconds waiting for clients. 1/2 clients joined.\n"
    bind = (
        "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address."
        " port: 29731, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use\n"
    )
    (tmp_path / "node0.log").write_text(waited)
    (tmp_path / "node1.log").write_text(bind)
    root = explain_paths([str(tmp_path / "node0.log"), str(tmp_path / "node1.log")]).root_cause
    assert root is not None and root.category == "rendezvous"
    assert root.entry == "address-already-in-use" and root.file.endswith("node1.log")


def test_a_dataloader_workers_own_message_heads_the_report() -> None:
    # The re-raise names only the type (`Caught ValueError in DataLoader worker process 0.`): the
    # headline and the first evidence line are the worker's own exception.
    root = explain_text(
        "Traceback (most recent call last):\n"
        '  File "/work/train.py", line 30, in main\n'
        "    for batch in loader:\n"
        '  File "/env/lib/python3.11/site-packages/torch/utils/data/_utils.py", line 794, in reraise\n'
        "    raise exception\n"
        "ValueError: Caught ValueError in DataLoader worker process 0.\n"
        "Original Traceback (most recent call last):\n"
        '  File "/work/data.py", line 21, in __call__\n'
        '    raise ValueError(f"clip has {n} samples, fewer than crop size {size}")\n'
        "ValueError: clip has 3549 samples, fewer than crop size 4000\n"
    ).root_cause
    assert root is not None and root.category == "dataloader"
    assert root.headline.endswith("ValueError: clip has 3549 samples, fewer than crop size 4000")
    assert root.evidence[0].text == "ValueError: clip has 3549 samples, fewer than crop size 4000"
    assert any("Caught ValueError in DataLoader worker process 0." in e.text for e in root.evidence)


# --- rules added with batches b26-b29 ---------------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), list(_SHAPES.values()), ids=list(_SHAPES))
def test_a_log_shape_gets_its_verdict(text: str, expected: dict[str, object]) -> None:
    root = explain_text(text).root_cause
    assert root is not None
    assert {key: getattr(root, key) for key in expected} == expected


def test_collector_labels_are_peeled_once_whatever_the_line() -> None:
    # A line of thousands of `name | ` fields must not be peeled field by field (no recursion, no crash).
    report = explain_text("x | " * 20000 + "ValueError: boom\n")
    assert report.root_cause is None or report.root_cause.category in ("user_code", "other")
    root = explain_text("trainer-1  | ValueError: the batch is empty\n").root_cause
    assert root is not None and root.text == "ValueError: the batch is empty"


# --- a log collector's prefix on every line (kubectl logs --timestamps or --prefix, Docker Compose) ---

_COLLECTORS = {
    "kubectl-timestamps": lambda i: f"2026-11-30T12:00:{i:02d}.{i:09d}Z ",
    "compose": lambda i: "trainer-1  | ",
    "compose-then-time": lambda i: f"trainer-1  | 2026-11-30T12:00:{i:02d}Z ",
    "kubectl-prefix": lambda i: "[pod/trainer-7f9c4-xk2p/pytorch] ",
    "kubectl-prefix-then-time": lambda i: (
        f"[pod/trainer-7f9c4-xk2p/pytorch] 2026-11-30T12:00:{i:02d}.{i:09d}Z "
    ),
}


def _collected(text: str, collector: str) -> str:
    # A blank line under a collector is the prefix alone, as the collector writes it (no trailing text).
    return "".join(
        (_COLLECTORS[collector](i) + line).rstrip() + "\n" for i, line in enumerate(text.splitlines())
    )


@pytest.mark.parametrize("collector", list(_COLLECTORS))
def test_an_nccl_exceptions_last_error_is_read_under_a_collectors_time(collector: str) -> None:
    # The exception's message runs over four lines; the collector's time on each of them does not
    # start a new record (only the program's own time would).
    text = (
        "[rank1]: Traceback (most recent call last):\n"
        '[rank1]:   File "/home/u/train.py", line 12, in <module>\n'
        "[rank1]:     dist.barrier()\n"
        "[rank1]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
        "NCCLUtils.hpp:317, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.21.5\n"
        "[rank1]: ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\n"
        "[rank1]: Last error:\n"
        "[rank1]: Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000\n"
    )
    for shaped in (text, _collected(text, collector)):
        root = explain_text(shaped).root_cause
        assert root is not None and root.category == "duplicate_device", shaped
        assert root.text.startswith("Duplicate GPU detected"), root.text


@pytest.mark.parametrize("collector", list(_COLLECTORS))
def test_a_collectors_prefix_comes_off_before_the_lines_own_quoting_and_anchors(collector: str) -> None:
    # A Markdown span opened before a rank label, and a knowledge-base pattern anchored at the start
    # of the program's line: both are read as they are without the collector's prefix.
    span = "`[rank4]: KeyError: 'input_ids'\n"
    root = explain_text(_collected(span, collector)).root_cause
    assert root is not None and root.rank == 4 and root.text == "KeyError: 'input_ids'"
    anchored = "$ ./build/all_reduce_perf -b 8 -e 128M -f 2 -g 4\nNCCL failure common.cu:908 'unhandled cuda error'.\n"
    root = explain_text(_collected(anchored, collector)).root_cause
    assert root is not None and root.entry == "nccl-tests-failure" and root.line == 2


def test_srun_labels_behind_a_collectors_time_name_the_rank() -> None:
    text = (
        "".join(f"0: step {i} loss 1.0\n1: step {i} loss 1.0\n" for i in range(3))
        + "1: RuntimeError: CUDA error: an illegal memory access was encountered\n"
    )
    root = explain_text(_collected(text, "kubectl-timestamps")).root_cause
    assert root is not None and root.rank == 1 and root.category == "cuda_error"


def test_a_blank_line_under_a_collectors_prefix_is_blank() -> None:
    # torchrun's failure table quotes a SIGTERMed rank's traceback and ends it with a blank line;
    # the collector's prefix alone on that line must not be read as the traceback's exception.
    text = (
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
        "============================================================\n"
        "train.py FAILED\n"
        "------------------------------------------------------------\n"
        "Failures:\n"
        "[1]:\n"
        "  time      : 2026-11-30_12:00:10\n"
        "  host      : node-1\n"
        "  rank      : 0 (local_rank: 0)\n"
        "  exitcode  : -15 (pid: 4241)  (SIGTERM)\n"
        "  error_file: /tmp/torchelastic_x/attempt_0/0/error.json\n"
        "  traceback : Traceback (most recent call last):\n"
        '    File "/home/u/train.py", line 57, in update\n'
        "      loss.backward()\n"
        "  RuntimeError: Connection reset by peer\n"
        "  \n"
        "------------------------------------------------------------\n"
        "Root Cause (first observed failure):\n"
        "[0]:\n"
        "  time      : 2026-11-30_12:00:10\n"
        "  host      : node-1\n"
        "  rank      : 1 (local_rank: 1)\n"
        "  exitcode  : 3 (pid: 4242)\n"
        "  error_file: <N/A>\n"
        "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n"
        "============================================================\n"
    )
    for shaped in (text, *(_collected(text, collector) for collector in _COLLECTORS)):
        root = explain_text(shaped).root_cause
        assert root is not None and root.rank == 1 and "exitcode" in root.text, (shaped[:40], root)


def test_a_json_record_behind_a_collectors_time_is_read_as_its_text() -> None:
    # A recorder's JSON lines (`{"event": "line", "data": ...}`) that a collector then stamped.
    record = '{"event": "line", "data": "[rank1]: torch.AcceleratorError: HIP error: unspecified launch failure\\n"}'
    for shaped in (record + "\n", _collected(record + "\n", "kubectl-timestamps")):
        root = explain_text(shaped).root_cause
        assert root is not None and (root.category, root.rank) == ("cuda_error", 1), shaped


@pytest.mark.parametrize(
    ("line", "category", "text"),
    [
        (
            "报错：RuntimeError: Role name '' is invalid. Maybe you are trying to call "
            "'mindspore.communication.init()' without using 'mpirun'",
            "rendezvous",
            "RuntimeError: Role name '' is invalid.",
        ),
        (
            '"ValueError: You set `strategy=DDPStrategy` but strategies from the DDP family are not supported on '
            'the MPS accelerator.". ',
            "backend_unsupported",
            "ValueError: You set `strategy=DDPStrategy`",
        ),
    ],
)
def test_a_one_line_paste_indented_as_a_code_block_is_read_without_its_indent(
    line: str, category: str, text: str
) -> None:
    # The label or quote before the exception is peeled off whether or not the line is indented.
    for shaped in (line, "    " + line, "\t" + line):
        root = explain_text(shaped + "\n").root_cause
        assert root is not None and root.category == category, repr(shaped)
        assert root.text.startswith(text), root.text


def test_a_wrapped_paste_indented_as_a_whole_joins_its_pieces_without_the_indent() -> None:
    # Each piece of a hard-wrapped line carries the code block's indent; the joined line must not.
    long = (
        "2020-04-13 17:36:05,455 WARNING torch_trainer.py:413 -- [/opt/conda/conda-bld/pytorch/work/third_party/"
        "gloo/gloo/transport/tcp/unbound_buffer.cc:84] Timed out waiting 10000ms for recv operation to complete"
    )
    noise = (
        "2020-04-13 17:35:22,720 INFO resource_spec.py:204 -- Starting Ray with 120.07 GiB memory available "
        * 2
    )
    lines = [noise[:150], noise[150:], long[:150], long[150:]]
    text = "".join("    " + line + "\n" for line in lines)
    root = explain_text(text).root_cause
    assert root is not None and root.category == "collective_timeout"
    assert "10000ms for recv" in root.text, root.text


# --- classes of batches b38-b45 ------------------------------------------------------------------


def test_a_workers_traceback_pasted_without_indentation_keeps_the_workers_frames() -> None:
    text = (
        "Traceback (most recent call last):\n"
        'File "/home/u/train.py", line 13, in <module>\n'
        "train()\n"
        'File "/opt/venv/lib/python3.10/site-packages/accelerate/data_loader.py", line 394, in __iter__\n'
        "raise exception\n"
        "KeyError: Caught KeyError in DataLoader worker process 3.\n"
        "Original Traceback (most recent call last):\n"
        'File "/opt/venv/lib/python3.10/site-packages/torch/utils/data/_utils/worker.py", line 308, in _worker_loop\n'
        "data = fetcher.fetch(index)\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.category == "dataloader"
    assert root.text == "KeyError: Caught KeyError in DataLoader worker process 3.", root.text


def test_a_terminate_cut_off_before_its_what_is_weaker_than_a_complete_report() -> None:
    text = (
        "[E ProcessGroupNCCL.cpp:828] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=4,"
        " OpType=ALLGATHER, Timeout(ms)=1800000) ran for 1800081 milliseconds before timing out.\n"
        "terminate called after throwing an instance of 'std::runtime_error'\n"
        "  what():  [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=4, OpType=ALLGATHER,"
        " Timeout(ms)=1800000) ran for 1800081 milliseconds before timing out.\n"
        "[E ProcessGroupNCCL.cpp:455] Some NCCL operations have failed or timed out.\n"
        "terminate called after throwing an instance of 'std::runtime_error'\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.category == "collective_timeout", root
    alone = explain_text("terminate called after throwing an instance of 'nv::CudaException'\n").root_cause
    assert alone is not None  # never silent
    assert alone.text == "terminate called after throwing an instance of 'nv::CudaException'"


def test_a_mismatch_report_naming_two_ranks_names_neither_as_the_culprit() -> None:
    text = (
        "[rank1]: RuntimeError: Detected mismatch between collectives on ranks. Rank 1 is running collective: "
        "CollectiveFingerPrint(SequenceNumber=485, OpType=ALLREDUCE, TensorShape=[1], TensorDtypes=Float), "
        "but Rank 0 is running collective: CollectiveFingerPrint(SequenceNumber=485, OpType=BROADCAST).\n"
    )
    report = explain_text(text)
    root = report.root_cause
    assert root is not None and root.category == "collective_mismatch" and root.rank is None
    assert report.to_dict()["root_cause"]["suspect_ranks"] == [0, 1]


def test_mpiruns_refusal_for_too_few_slots_is_found() -> None:
    text = (
        "$ horovodrun -np 2 -H localhost python train.py\n"
        "--------------------------------------------------------------------------\n"
        "There are not enough slots available in the system to satisfy the 2 slots\n"
        "that were requested by the application:\n"
        "  python\n"
        "\n"
        "Either request fewer slots for your application, or make more slots available\n"
        "for use.\n"
        "--------------------------------------------------------------------------\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.entry == "openmpi-not-enough-slots" and root.line == 3


def test_an_error_raised_inside_a_data_library_is_the_data_pipelines() -> None:
    text = (
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/home/u/stream.py", line 53, in <module>\n'
        "[rank0]:     dataset = StreamingDataset(path)\n"
        '[rank0]:   File "/opt/conda/lib/python3.10/site-packages/litdata/streaming/dataset.py", line 124, in __init__\n'
        "[rank0]:     raise FileNotFoundError(f'The provided dataset path `{path}` does not exist.')\n"
        "[rank0]: FileNotFoundError: The provided dataset path `/data/cache/a1` does not exist.\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.category == "dataloader", root


def test_an_option_left_alone_by_a_broken_line_continuation_is_not_the_root() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/opt/conda/lib/python3.10/site-packages/deepspeed/launcher/runner.py", line 401, in main\n'
        "    active_resources = parse_inclusion_exclusion(resource_pool, args.include, args.exclude)\n"
        "ValueError: No slot '1' specified on host 'localhost'\n"
        "generate.sh: line 15: --input_path: command not found\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.text.startswith("ValueError: No slot '1'"), root.text


@pytest.mark.parametrize(
    ("cuda", "category"),
    [
        ("101 'invalid device ordinal'", "invalid_device"),
        ("2 'out of memory'", "oom_gpu"),
        ("999 'unknown error'", "cuda_error"),
        ("'invalid argument'", "nccl_error"),
    ],
)
def test_a_cuda_failure_nccl_reports_takes_the_category_of_its_own_words(cuda: str, category: str) -> None:
    root = explain_text(f"node1:4:9 [0] transport/p2p.cc:275 NCCL WARN Cuda failure {cuda}\n").root_cause
    assert root is not None and root.category == category, root


def test_a_scripts_own_per_worker_files_give_their_ranks(tmp_path: Path) -> None:
    for worker in range(3):
        lines = [f"12:00:0{worker} INFO epoch 0 step 4 loss 0.31\n"]
        if worker == 2:
            lines += [
                "Traceback (most recent call last):\n",
                '  File "/work/asr.py", line 40, in main\n',
                "    check(batch)\n",
                "RuntimeError: feature dim mismatch: batch has 40 features, model expects 80\n",
            ]
        (tmp_path / f"worker-{worker}.log").write_text("".join(lines))
    root = explain_paths([str(tmp_path)]).root_cause
    assert root is not None and (root.rank, root.category) == (2, "user_code")


def test_a_cpp_checks_source_location_is_left_out_of_the_headline() -> None:
    # gloo's enforce prints its file, line and failed condition before what failed; the headline
    # is about what failed, and the evidence keeps the line whole.
    line = (
        "[rank1]: RuntimeError: [enforce fail at /__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/"
        "socket.cc:24] rv != -1. -1 vs -1. socket: Too many open files\n"
    )
    root = explain_text(line).root_cause
    assert root is not None and root.headline == "rank 1: RuntimeError: socket: Too many open files"
    assert "socket.cc:24" in root.text
    closed = explain_text(
        "[rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553]"
        " Connection closed by peer [127.0.0.1]:25007\n"
    ).root_cause
    assert closed is not None and closed.headline.endswith(
        "RuntimeError: Connection closed by peer [127.0.0.1]:25007"
    )
    # A message that is only a location keeps it: there is nothing else to show.
    bare = explain_text("[rank0]: RuntimeError: [/src/gloo/pair.cc:553] \n").root_cause
    assert bare is None or "pair.cc:553" in bare.headline


def test_a_log_dir_ranks_last_lines_are_read_though_it_printed_no_error(tmp_path: Path) -> None:
    # torchrun --log-dir: the rank the others waited for printed no error, so no line of its file is
    # picked by what it says; its last lines are still read, and the one that says it waits is the root.
    run = tmp_path / "run" / "attempt_0"
    timeout = (
        "[rank{r}]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out"
        " waiting 20000ms for recv operation to complete\n"
    )
    for rank in (0, 1):
        (run / str(rank)).mkdir(parents=True)
        (run / str(rank) / "stderr.log").write_text(
            f"2026-12-02 06:53:17,760 | rank {rank}/3 | INFO    | loaded 256 frames\n"
            + timeout.format(r=rank)
        )
    (run / "2").mkdir(parents=True)
    (run / "2" / "stderr.log").write_text(
        "".join(
            f"2026-12-02 06:53:{17 + 5 * n},752 | rank 2/3 | INFO    | waiting for shard marker"
            f" /cache/shard_02.done ({5 * n}s elapsed)\n"
            for n in range(5)
        )
    )
    root = explain_paths([str(tmp_path)]).root_cause
    assert root is not None and root.rank == 2 and root.category == "collective_timeout"
    assert "waiting for shard marker" in root.text and root.line == 1  # the wait loop's first round
    # What it was busy with says nothing went wrong: the peers' timeout stays the root line.
    (run / "2" / "stderr.log").write_text(
        "2026-12-02 06:53:17,752 | rank 2/3 | INFO    | compiling eval step\n"
    )
    busy = explain_paths([str(tmp_path)]).root_cause
    assert busy is not None and busy.rank == 2 and "Timed out waiting" in busy.text
    assert any("compiling eval step" in reason for reason in busy.why)


_AGENT_FAILED = (
    "E1202 09:5{m}:07.496000 {agent} torch/distributed/elastic/multiprocessing/api.py:1002] failed"
    " (exitcode: 1) local_rank: {r} (pid: {pid}) of binary: /venv/bin/python\n"
)


def _attempt(rank: int, error: str) -> str:
    return (
        f"[rank{rank}]: Traceback (most recent call last):\n"
        f'[rank{rank}]:   File "/work/train.py", line 40, in <module>\n'
        f"[rank{rank}]:     main()\n"
        f"[rank{rank}]: {error}\n"
    )


def test_a_restarted_job_keeps_its_first_failure_and_tells_how_the_last_attempt_failed() -> None:
    # torchrun --max-restarts 1: the first attempt's ValueError set everything off; the restarted
    # workers then failed on the metrics folder the first attempt had left.
    log = (
        _attempt(3, "ValueError: time mask of 20 frames does not fit a clip of 12 frames")
        + _AGENT_FAILED.format(m=0, agent=22137, r=3, pid=22170)
        + _attempt(1, "FileExistsError: [Errno 17] File exists: '/tmp/metrics/rank1'")
        + _AGENT_FAILED.format(m=1, agent=22137, r=1, pid=22319)
    )
    root = explain_text(log).root_cause
    assert root is not None and root.rank == 3 and root.text.startswith("ValueError: time mask")
    said = [w for w in root.why if "restarted the workers" in w]
    assert said and "1 time(s)" in said[0] and "FileExistsError" in said[0] and "(rank 1)" in said[0]
    # The same failure again after the restart is said to be so, numbers aside.
    again = (
        _attempt(2, "FloatingPointError: loss exploded to 4.1e+08 at step 9")
        + _AGENT_FAILED.format(m=0, agent=501, r=2, pid=600)
        + _attempt(2, "FloatingPointError: loss exploded to 4.8e+08 at step 9")
        + _AGENT_FAILED.format(m=1, agent=501, r=2, pid=700)
    )
    root = explain_text(again).root_cause
    assert root is not None and any("the last attempt failed the same way" in w for w in root.why)


def test_two_nodes_agents_each_reporting_a_failure_are_not_a_restart() -> None:
    # One attempt of a two-node job in one capture: each node's agent reports its own first failure.
    log = (
        _attempt(1, "KeyError: 'targets'")
        + _AGENT_FAILED.format(m=0, agent=4100, r=1, pid=4120)
        + _attempt(2, "RuntimeError: Connection closed by peer [10.0.0.1]:29500")
        + _AGENT_FAILED.format(m=0, agent=9300, r=0, pid=9320)
    )
    root = explain_text(log).root_cause
    assert root is not None and root.text == "KeyError: 'targets'"
    assert not any("restarted" in w for w in root.why)


def test_a_log_dirs_attempt_folders_are_attempts(tmp_path: Path) -> None:
    run = tmp_path / "run"
    for attempt, error in ((0, "KeyError: 'targets'"), (1, "OSError: [Errno 98] Address already in use")):
        folder = run / f"attempt_{attempt}" / "0"
        folder.mkdir(parents=True)
        (folder / "stderr.log").write_text(_attempt(0, error))
    root = explain_paths([str(tmp_path)]).root_cause
    assert root is not None and root.text == "KeyError: 'targets'"
    assert any("last attempt then failed with: OSError" in w for w in root.why)


def _log_dir(root: Path, stderr: dict[int, str]) -> Path:
    """A torchrun `--log-dir` folder of one attempt: each rank's stderr as given (the folder, returned)."""
    run = root / "run" / "attempt_0"
    for rank, text in stderr.items():
        (run / str(rank)).mkdir(parents=True, exist_ok=True)
        (run / str(rank) / "stderr.log").write_text(text)
    return run


_LOST = (
    "[rank{r}]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed"
    " by peer [127.0.0.1]:25482. This is typically caused by a remote worker crashing.\n"
)


def test_a_rank_that_said_why_it_exits_is_named_by_that_line_not_by_the_launchers_sigterms() -> None:
    # Rank 1 stops itself with os._exit(3) after saying why; torchrun then SIGTERMs ranks 0 and 3.
    log = (
        "".join(f"[rank {r}] step 0 mse 3.{r}\n" for r in range(4))
        + "[rank 1] non-finite loss (inf) at step 2; exiting with code 3\n"
        + _LOST.format(r=2)
        + "E1202 12:06:06.873000 11832 torch/distributed/elastic/multiprocessing/api.py:1002] failed"
        " (exitcode: 3) local_rank: 1 (pid: 12021) of binary: /venv/bin/python\n"
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
        "Failures:\n"
        + "".join(
            f"[{n}]:\n  rank      : {r} (local_rank: {r})\n  exitcode  : -15 (pid: {12000 + r})  (SIGTERM)\n"
            f"  traceback : Signal 15 (SIGTERM) received by PID {12000 + r}\n"
            for n, r in ((1, 0), (2, 2), (3, 3))
        )
        + "Root Cause (first observed failure):\n[0]:\n  rank      : 1 (local_rank: 1)\n"
        "  exitcode  : 3 (pid: 12021)\n  error_file: <N/A>\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 1)
    assert "exiting with code 3" in root.text
    # Its words may say what failed: the host's memory.
    memory = log.replace("non-finite loss (inf) at step 2", "out of host memory while packing the buffer")
    root = explain_text(memory).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 1)


def test_of_two_silent_log_dir_ranks_the_one_that_said_why_it_ended_is_named(tmp_path: Path) -> None:
    # No launcher lines: ranks 0 and 2 lost their peer; rank 3 was still going when it was stopped,
    # rank 1 said it was exiting.
    lines = {r: f"[rank {r}] step 0 mse 3.{r}\n" for r in range(4)}
    lines[1] += "[rank 1] non-finite loss (inf) at step 2; exiting with code 3\n"
    for r in (0, 2):
        lines[r] += _LOST.format(r=r)
    run = _log_dir(tmp_path, lines)
    root = explain_paths([str(tmp_path)]).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 1)
    assert "exiting with code 3" in root.text
    # Without that line no rank is named: either silent rank may have gone first.
    (run / "1" / "stderr.log").write_text(lines[3].replace("3", "1"))
    root = explain_paths([str(tmp_path)]).root_cause
    assert root is not None and root.rank is None


def _agent_failed(code: int, rank: int) -> str:
    return (
        f"E1202 12:53:46.299000 775 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: {code})"
        f" local_rank: {rank} (pid: 781) of binary: /venv/bin/python\n"
    )


def test_a_killed_rank_that_said_it_was_over_its_memory_budget_is_named_by_that_line() -> None:
    log = (
        "[rank 0] step 0 loss 1.2\n[rank 1] step 0 loss 1.3\n"
        "[rank 0] memory guard: 64 MB held (sharded 16 MB + staged 48 MB) over budget 40 MB, killing this worker\n"
        + _LOST.format(r=1)
        + _agent_failed(-9, 0)
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 0)
    assert "over budget 40 MB" in root.text
    # A budget of memory is the host's memory; a budget of time is not.
    said = message_category("feature cache at 9.9 MB exceeds the 8 MB budget; killing self")
    assert said is not None and said[0] == "oom_host"
    said = message_category("decode for step 1 took 9.1s, over the 3.0s budget")
    assert said is None or said[0] != "oom_host"


def test_an_aborted_rank_whose_only_line_says_it_aborts_is_named_by_that_line() -> None:
    # Only the aborting rank printed anything besides its peer's lost connection.
    log = "[rank1]:watchdog: rollout on gridworld-64 exceeded 3.0s, aborting actor\n" + _LOST.format(r=0)
    log += _agent_failed(-6, 1)
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 1)
    assert "aborting actor" in root.text


def test_two_ranks_in_different_collectives_name_the_one_that_printed_a_line_the_other_did_not() -> None:
    def stuck(rank: int, op: str) -> str:
        return (
            f"[rank{rank}]: Traceback (most recent call last):\n"
            f'[rank{rank}]:   File "/work/train.py", line 31, in <module>\n'
            f'[rank{rank}]:   File "/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py",'
            f" line 2799, in {op}\n"
            f"[rank{rank}]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:129]"
            " Timed out waiting 15000ms for send operation to complete\n"
        )

    steps = "".join(f"[rank{r}]: step {s} loss 1.{s}{r}\n" for s in range(3) for r in (0, 1))
    skipped = "[rank1]: step 2: non-finite loss, skipping batch (1 skipped so far)\n"
    root = explain_text(steps + skipped + stuck(0, "all_gather") + stuck(1, "all_reduce")).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 1)
    assert any("rank 1 alone printed" in w for w in root.why)
    # Neither printed anything of its own: which of the two is odd, the logs do not say.
    root = explain_text(steps + stuck(0, "all_gather") + stuck(1, "all_reduce")).root_cause
    assert root is not None and root.rank is None


def _table(root: tuple[int, int], others: Iterable[tuple[int, int]] = ()) -> str:
    """torchrun's failure table: `others` are (rank, exit code) listed as failures, `root` its root cause."""
    listed = "".join(
        f"[{n}]:\n  rank      : {r} (local_rank: {r})\n  exitcode  : {code} (pid: {9000 + r})\n"
        for n, (r, code) in enumerate(others, 1)
    )
    return (
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
        "Failures:\n" + (listed or "  <NO_OTHER_FAILURES>\n") + "Root Cause (first observed failure):\n[0]:\n"
        f"  rank      : {root[0]} (local_rank: {root[0]})\n  exitcode  : {root[1]} (pid: {9000 + root[0]})\n"
        "  error_file: <N/A>\n"
    )


def test_a_rank_left_in_a_collective_after_every_peer_ended_cleanly_had_more_batches() -> None:
    steps = "".join(f"[rank {r}] step {s} loss 0.{s}{r}\n" for s in range(5) for r in range(4))
    log = steps + "[rank 3] step 5 loss 0.53\n" + _LOST.format(r=3) + _table((3, 1))
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("dataloader", 3)
    assert root.headline.startswith("rank 3 was still in a collective after every other rank had finished")
    assert any("same number of steps" in a for a in root.advice)
    # When torchrun lists the others as failures too, they did not end cleanly: no such inference.
    log = steps + _LOST.format(r=3) + _table((3, 1), [(0, 1), (1, 1), (2, 1)])
    root = explain_text(log).root_cause
    assert root is not None and root.kind != "left-behind" and root.category != "dataloader"


def test_an_unlabelled_line_that_says_a_process_aborts_belongs_to_the_only_rank_that_ended_itself() -> None:
    log = (
        "watchdog: rollout on gridworld-64 exceeded 3.0s, aborting actor\n"
        + _LOST.format(r=0)
        + _agent_failed(-6, 1)
        + _table((1, -6), [(0, -15), (2, -15)])
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 1)
    assert "aborting actor" in root.text
    # A line that only names an error may be anyone's (a user's note pasted above the log).
    noted = log.replace(
        "watchdog: rollout on gridworld-64 exceeded 3.0s, aborting actor", "note: it failed twice"
    )
    root = explain_text(noted).root_cause
    assert root is not None and "failed twice" not in root.text
    # Two ranks that ended of their own accord: the line could be either's.
    both = log.replace("(0, -15)", "(0, -6)").replace(
        "  exitcode  : -15 (pid: 9000)", "  exitcode  : -6 (pid: 9000)"
    )
    root = explain_text(both).root_cause
    assert root is not None and "aborting actor" not in root.text


def test_the_rank_that_never_waited_for_the_store_key_the_others_timed_out_on_owed_it() -> None:
    waits = "".join(
        f"[rank{r}]: torch.distributed.DistStoreError: wait timeout after 15000ms, keys: /default_pg/0//halo/p3/count\n"
        for r in range(3)
    )
    gloo = (
        "[rank3]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out"
        " waiting 15000ms for recv operation to complete\n"
    )
    root = explain_text(waits + gloo).root_cause
    assert root is not None and (root.category, root.rank) == ("rendezvous", 3)
    assert "DistStoreError" in root.text and any("never waited for it" in w for w in root.why)
    # Every rank waited for it: no rank owed it more than another.
    every = waits + waits.splitlines(keepends=True)[0].replace("rank0", "rank3")
    root = explain_text(every).root_cause
    assert root is not None and root.rank is None


def test_the_rank_every_other_rank_names_in_ddps_parameter_count_check_is_the_odd_one() -> None:
    def said(rank: int, mine: int, other: int, theirs: int) -> str:
        return (
            f"[rank{rank}]: RuntimeError: DDP expects same model across all ranks, but Rank {rank} has {mine}"
            f" params, while rank {other} has inconsistent {theirs} params.\n"
        )

    root = explain_text(said(1, 9, 0, 8) + said(2, 9, 0, 8) + said(0, 8, 1, 9)).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 0)
    # Two ranks name each other: either may be the odd one.
    root = explain_text(said(1, 9, 0, 8) + said(0, 8, 1, 9)).root_cause
    assert root is not None and root.rank is None


def test_ranks_stopped_in_different_collectives_because_a_peer_raised_are_not_a_mismatch(
    tmp_path: Path,
) -> None:
    def lost_in(rank: int, op: str) -> str:
        return (
            f"[rank{rank}]: Traceback (most recent call last):\n"
            f'[rank{rank}]:   File "/work/pipe.py", line 40, in main\n'
            f'[rank{rank}]:   File "/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py",'
            f" line 2799, in {op}\n" + _LOST.format(r=rank)
        )

    raised = (
        "[rank1]: Traceback (most recent call last):\n"
        '[rank1]:   File "/work/pipe.py", line 50, in main\n'
        "[rank1]: ValueError: micro-batch 5: rows [0, 1, 2, 3] have no unmasked tokens\n"
    )
    for rank, text in ((0, lost_in(0, "barrier")), (1, raised), (2, lost_in(2, "recv"))):
        (tmp_path / str(rank)).mkdir()
        (tmp_path / str(rank) / "stderr.log").write_text(text)
    root = explain_paths([str(tmp_path)]).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 1)


def test_a_memory_guard_that_refuses_to_allocate_is_a_host_memory_failure(tmp_path: Path) -> None:
    said = message_category("cross table needs 143.0 GiB > budget 4.0 GiB, refusing to allocate")
    assert said is not None and said[0] == "oom_host"
    said = message_category("teacher cache needs 55.85 GiB but the host budget is 8.00 GiB per rank")
    assert said is not None and said[0] == "oom_host"
    # A log-dir folder with no exit codes and that line alone is not "no failure found".
    _log_dir(
        tmp_path, {0: "host memory guard: needs 143.0 GiB > budget 4.0 GiB, refusing to allocate\n", 1: ""}
    )
    root = explain_paths([str(tmp_path)]).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 0)


def test_an_unlabelled_helper_threads_exception_belongs_to_the_one_rank_that_failed_of_its_own() -> None:
    helper = (
        "Exception in thread snapshot-writer:\nTraceback (most recent call last):\n"
        '  File "/work/train.py", line 40, in write\n'
        "RuntimeError: dictionary changed size during iteration\n"
    )
    own = (
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/work/train.py", line 77, in main\n'
        "[rank0]: RuntimeError: snapshot writer did not acknowledge epoch 0 within 5s\n"
    )
    log = helper + own + _LOST.format(r=1) + _LOST.format(r=2)
    root = explain_text(log).root_cause
    assert root is not None and root.rank == 0
    assert "dictionary changed size" in root.text
    # Two ranks failed of their own: the helper could be either's.
    other = own.replace("rank0", "rank2").replace("epoch 0", "epoch 1")
    root = explain_text(helper + own + other).root_cause
    assert root is not None and root.rank is None


def test_a_rank_that_alone_waited_for_a_store_key_while_its_peers_went_on_is_named() -> None:
    log = (
        "INFO [0] hier: published topology under topology/fmt-v1\n"
        + "".join(
            f"INFO [{r}] hier: waiting for topology key topology/fmt-v{2 if r == 1 else 1}\n"
            for r in range(4)
        )
        + "[rank1]: torch.distributed.DistStoreError: wait timeout after 15000ms, keys: /default_pg/0//topology/fmt-v2\n"
        + _agent_failed(1, 1)
        + _table((1, 1), [(0, -15), (2, -15), (3, -15)])
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("rendezvous", 1)
    assert any("alone timed out waiting for the store key" in w for w in root.why)
    # Alone in the logs, a store timeout says nothing of whom the job waited for.
    root = explain_text(
        "[rank1]: torch.distributed.DistStoreError: wait timeout after 15000ms, keys: /default_pg/0//cpu//0\n"
    ).root_cause
    assert root is not None and root.rank is None


def test_a_store_key_numbered_for_another_rank_names_that_rank_as_its_writer() -> None:
    log = (
        "[rank0]: torch.distributed.DistStoreError: wait timeout after 10000ms, keys: /stats/val/1\n"
        + _LOST.format(r=1)
        + _LOST.format(r=2)
        + _agent_failed(1, 0)
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("rendezvous", 1)
    assert "rank 1's to write" in (root.rank_note or "")
    # A coordinator's wait for one key of each rank says nothing of whose key is missing.
    every = log.replace("keys: /stats/val/1", "keys: /ready/0, /ready/1, /ready/2")
    root = explain_text(every).root_cause
    assert root is not None and root.rank is None


def test_a_layout_check_that_one_rank_failed_while_its_peers_went_on_is_that_ranks_own() -> None:
    check = "[rank1]: ValueError: num_heads (6) must be divisible by the sequence parallel size (4)\n"
    root = explain_text(check + _LOST.format(r=0) + _LOST.format(r=2)).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 1)
    # Seen alone, it is the job's configuration, which every rank checks alike.
    root = explain_text(check).root_cause
    assert root is not None and (root.category, root.rank) == ("other", None)


def test_a_rank_that_said_it_stopped_early_and_left_its_peers_waiting_is_a_timeout(tmp_path: Path) -> None:
    # Only the rank that stopped labels its lines (`rank 3: ...`); the others' are bare prints.
    lines = "".join(f"rank {r} epoch 5 val 0.{r}\n" for r in range(4))
    ended = "rank 3: early stopping at epoch 6, best val 4.9964\nrank 3: training finished\n"
    log = lines + ended + _LOST.format(r=0) + _LOST.format(r=1) + _table((0, 1), [(1, 1)])
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 3)
    assert "early stopping at epoch 6" in root.text
    # In a --log-dir folder no exit code says how it ended; its words say it ended as planned.
    run = _log_dir(
        tmp_path, {0: _LOST.format(r=0), 1: _LOST.format(r=1), 2: "", 3: ended.replace("rank 3: ", "")}
    )
    root = explain_paths([str(tmp_path)]).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 3)
    # A rank that said it was aborting failed on purpose: the training code's decision.
    (run / "3" / "stderr.log").write_text("non-finite loss at step 2, aborting\n")
    root = explain_paths([str(tmp_path)]).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 3)


def test_an_object_collective_that_read_a_negative_size_is_a_mismatch_of_that_rank() -> None:
    log = (
        "[rank2]: Traceback (most recent call last):\n"
        '[rank2]:   File "/work/train.py", line 30, in main\n'
        '[rank2]:   File "/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 4039,'
        " in broadcast_object_list\n"
        "[rank2]: RuntimeError: Trying to create tensor with negative dimension -719746878514265224:"
        " [-719746878514265224]\n" + _LOST.format(r=0) + _LOST.format(r=1)
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 2)


_GLOO_WAIT = (
    "[rank{r}]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out"
    " waiting 15000ms for recv operation to complete\n"
)


def _waiting(
    rank: int, calls: list[tuple[int, str, str]], collective: str | None, error: str = _GLOO_WAIT
) -> str:
    """A rank's traceback: the script's frames (line, function, code), then torch.distributed's
    `collective` when there is one (otherwise the script's own last line waited), then gloo's `error`
    (a timeout unless told)."""
    frames = "".join(
        f'[rank{rank}]:   File "/work/ring.py", line {line}, in {function}\n[rank{rank}]:     {code}\n'
        for line, function, code in calls
    )
    if collective is not None:
        frames += (
            f'[rank{rank}]:   File "/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py",'
            f" line 2500, in {collective}\n[rank{rank}]:     work.wait()\n"
        )
    return f"[rank{rank}]: Traceback (most recent call last):\n" + frames + error.format(r=rank)


def test_a_rank_that_skipped_its_turn_in_a_ring_of_requests_is_named() -> None:
    # Ranks 0-2 wait on their own isend/irecv requests; rank 3 skipped the ring and is in all_reduce.
    ring = [(47, "main", "out = ring_attention(q, k, v)"), (32, "ring_attention", "r.wait()")]
    log = "".join(_waiting(r, ring, None) for r in range(3)) + _waiting(
        3, [(49, "main", "dist.all_reduce(stat)")], "all_reduce"
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 3)
    assert any("wait on a request they started earlier" in w for w in root.why)
    # Every rank waiting on the same request names no one: the ring stalled as a whole.
    root = explain_text("".join(_waiting(r, ring, None) for r in range(4))).root_cause
    assert root is not None and root.rank is None


def test_a_rank_that_receives_from_another_line_than_its_peers_is_a_step_apart() -> None:
    # A pipeline: ranks 0-2 wait for the gradient from the next stage; the last stage skipped its
    # backward (saying why) and waits for the next forward activation.
    backward = [(55, "main", "dist.recv(grad, src=rank + 1)")]
    forward = [(41, "main", "dist.recv(x, src=rank - 1)")]
    shared = "".join(f"[rank{r}]: step 2 done\n" for r in range(4))
    skipped = "[rank3]: step 3: micro-batch has no labelled tokens, skipping backward\n"
    waits = "".join(_waiting(r, backward, "recv") for r in range(3)) + _waiting(3, forward, "recv")
    root = explain_text(shared + waits).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 3)
    assert any("rank 3 alone is at another step" in w for w in root.why)
    # Its own line after the last one they shared says why: that is the root line.
    root = explain_text(shared + skipped + waits).root_cause
    assert root is not None and root.rank == 3 and "skipping backward" in root.text
    # Two ranks, one at each line: neither is the odd one.
    two = _waiting(0, backward, "recv") + _waiting(1, forward, "recv")
    root = explain_text(two).root_cause
    assert root is not None and root.rank is None


def test_the_odd_collective_of_a_rank_that_lost_its_connection_still_names_it() -> None:
    # The rank in the odd collective reports a closed connection: its peer is an address, not a rank.
    step = [(61, "train_step", "loss = model(batch)")]
    log = "".join(_waiting(r, step, "reduce_scatter_tensor") for r in (0, 2, 3)) + _waiting(
        1, step, "all_gather_into_tensor", _LOST
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 1)


def test_an_unlabelled_crash_is_the_only_failed_rank_s_when_its_peers_only_lost_it() -> None:
    # faulthandler writes past torchrun's rank prefix; ranks 0 and 1 then lose their peer.
    log = (
        "Fatal Python error: Segmentation fault\n"
        + _LOST.format(r=0)
        + _LOST.format(r=1)
        + _table((2, -11), [(0, -15), (1, -15)])
    )
    root = explain_text(log).root_cause
    assert root is not None and root.rank == 2
    # An unlabelled wait for peers was printed by the rank that waited, not by the one at fault.
    wait = (
        "Traceback (most recent call last):\n"
        '  File "/work/prep.py", line 31, in main\n'
        "    store.wait([f'/ready/{r}' for r in range(3)])\n"
        "torch.distributed.DistStoreError: wait timeout after 15000ms, keys: /ready/0, /ready/1, /ready/2\n"
    )
    root = explain_text(wait + _LOST.format(r=1) + _table((0, 1), [(1, -15), (2, -15)])).root_cause
    assert root is not None and root.category == "collective_timeout" and root.rank is None


@pytest.mark.parametrize(
    "report",
    [
        "MPI_ABORT was invoked on rank 2 in communicator MPI_COMM_WORLD\nwith errorcode 1.\n",
        "MPI_ABORT was invoked on rank 2 in communicator MPI_COMM_WORLD with errorcode 1.\n",
        "MPI_ABORT was invoked on rank 2 in communicator MPI_COMM_WORLD\n  Proc: [[5512,1],2]\n  Errorcode: 1\n",
    ],
)
def test_open_mpis_abort_notice_names_the_rank_and_its_code(report: str) -> None:
    notice = "NOTE: invoking MPI_ABORT causes Open MPI to kill all MPI processes.\n"
    report = report.replace("\n  Errorcode", "\n" + notice + "  Errorcode") if "Proc:" in report else report
    root = explain_text(report + notice).root_cause
    assert root is not None and root.rank == 2 and "MPI_ABORT was invoked on rank 2" in root.text
    # Its advice is mpirun's, not torchrun's.
    said = json.dumps(root.to_dict())
    assert "--tag-output" in said and "errors.record" not in said


def test_an_error_raised_in_the_etcd_client_of_a_rendezvous_is_a_rendezvous_failure() -> None:
    log = (
        '  File "/usr/lib/python3/dist-packages/etcd/client.py", line 987, in _handle_server_response\n'
        "    etcd.EtcdError.handle(r)\n"
        '  File "/usr/lib/python3/dist-packages/etcd/__init__.py", line 306, in handle\n'
        "    raise exc(msg, payload)\n"
        "etcd.EtcdKeyNotFound: Key not found : /torchelastic/p2p/run_1/rdzv/next_strategy\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and root.category == "rendezvous"
    # The same exception raised by the script's own use of a key-value client is not the job's rendezvous.
    own = log.replace("/usr/lib/python3/dist-packages/etcd/", "/work/kv/")
    root = explain_text(own).root_cause
    assert root is not None and root.category != "rendezvous"


def test_rays_head_names_the_type_and_rank_of_a_remote_traceback_cut_off_before_its_exception() -> None:
    head = (
        "ray.exceptions.RayTaskError(OutOfMemoryError): ray::PolicyWorker.get_logprobs() (pid=2671339,"
        " ip=10.65.16.209, actor_id=d5836b60449efbd2, repr=PolicyWorker[rank=3])\n"
    )
    frames = (
        '  File "/usr/lib/python3.12/concurrent/futures/_base.py", line 453, in result\n'
        "    return self.__get_result()\n"
        '  File "/work/rl/workers/policy_worker.py", line 653, in get_logprobs\n'
        "    logits = self.model(input_ids).logits\n"
    )
    root = explain_text(head + frames).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_gpu", 3)
    assert root.line == 1 and "OutOfMemoryError" in root.text
    # With its exception line the traceback speaks for itself.
    whole = head + frames + "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
    root = explain_text(whole).root_cause
    assert root is not None and root.category == "oom_gpu" and "Tried to allocate" in root.text


def test_the_one_rank_that_announced_another_number_of_batches_is_the_uneven_input() -> None:
    def job(batches: dict[int, int]) -> str:
        counts = "".join(f"[rank {r}] kept {50 + 3 * r} pairs, {n} batches\n" for r, n in batches.items())
        steps = "".join(f"[rank {r}] step 0 loss 0.6{r}\n" for r in batches)
        return counts + steps + "".join(_LOST.format(r=r) for r in batches)

    root = explain_text(job({0: 5, 1: 5, 2: 5, 3: 6})).root_cause
    assert root is not None and (root.category, root.rank) == ("dataloader", 3)
    assert any("another amount of work" in w for w in root.why)
    # Counts that every rank shares, or two ranks that differ (which one is odd?), name no one.
    for batches in ({0: 5, 1: 5, 2: 5, 3: 5}, {0: 5, 1: 6}):
        root = explain_text(job(batches)).root_cause
        assert root is not None and root.rank is None and root.category != "dataloader"


def test_a_loggers_error_record_under_a_launchers_label_is_the_ranks_own_error() -> None:
    """`--tee 3` puts `[default2]:` before the program's own logger fields (`... | rank 2/4 | ERROR |`):
    the record's level still says it is an error, and it is why rank 2 ended with exit code 3."""
    text = (
        "[default2]:2026-12-03 07:12:58,868 | rank 2/4 | INFO    | part2.json: 0 images after the crowd filter\n"
        "[default2]:2026-12-03 07:12:58,868 | rank 2/4 | ERROR   | no trainable images in part2.json after filtering\n"
        "[default1]:2026-12-03 07:12:58,855 | rank 1/4 | INFO    | part1.json: 20 images after the crowd filter\n"
        "E1203 07:13:01.644000 17296 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 3)"
        " local_rank: 2 (pid: 17306) of binary: /usr/bin/python\n"
    )
    root = explain_text(text).root_cause
    assert root is not None
    assert (root.category, root.rank) == ("user_code", 2)
    assert root.text == "no trainable images in part2.json after filtering"


def test_a_launchers_local_label_gives_way_to_the_loggers_global_rank() -> None:
    """`[default1]:` is the node-local rank; the logger's `[node1/rank3]` field after it is the global one."""
    text = "".join(
        f"[default{local}]:2026-12-02 06:19:22,68{local} INFO [node1/rank{2 + local}] epoch 1/3 mean loss 9.05\n"
        for local in (0, 1)
    ) + (
        "[default1]:2026-12-02 06:19:30,000 ERROR [node1/rank3] checkpoint shard 3 is unreadable, stopping\n"
        "E1202 06:19:31.000000 2730 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1)"
        " local_rank: 1 (pid: 2741) of binary: /usr/bin/python\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.rank == 3
    assert root.text == "checkpoint shard 3 is unreadable, stopping"


def test_the_rank_every_other_rank_names_is_shown_in_its_own_words() -> None:
    message = (
        "[rank{r}]: RuntimeError: DDP expects same model across all ranks, but Rank {r} has {mine} params,"
        " while rank {other} has inconsistent {theirs} params.\n"
    )
    text = (
        message.format(r=1, mine=9, other=0, theirs=8)
        + message.format(r=2, mine=9, other=0, theirs=8)
        + message.format(r=0, mine=8, other=1, theirs=9)
    )
    root = explain_text(text).root_cause
    assert root is not None and root.rank == 0
    assert "but Rank 0 has 8 params, while rank 1 has inconsistent 9 params." in root.text
    assert root.line == 3


def test_a_scripts_error_record_that_is_its_ranks_last_line_in_a_log_dir_is_its_own_check(
    tmp_path: Path,
) -> None:
    """No launcher's report of the exit in a `--log-dir` folder: the script's own error record, the last
    line its rank printed, is why it stopped (`log.error(...); sys.exit(3)`)."""
    run = _log_dir(
        tmp_path,
        {
            0: "2026-12-03 07:13:12,222 | rank 0/3 | INFO    | part0.json: 19 images after the crowd filter\n",
            1: "2026-12-03 07:13:12,226 | rank 1/3 | INFO    | part1.json: 20 images after the crowd filter\n",
            2: "2026-12-03 07:13:12,210 | rank 2/3 | INFO    | part2.json: 0 images after the crowd filter\n"
            "2026-12-03 07:13:12,210 | rank 2/3 | ERROR   | no trainable images in part2.json after filtering\n",
        },
    )
    root = explain_paths([str(run)]).root_cause
    assert root is not None
    assert (root.category, root.rank) == ("user_code", 2)
    assert root.text == "no trainable images in part2.json after filtering"
    assert any("last line rank 2 printed" in reason for reason in root.why)


@pytest.mark.parametrize(
    ("sizes", "peer", "killed"),
    [
        (("0.37", "1.93", "3.49"), ("0.01", "0.05", "0.09"), True),  # climbed ninefold to 3.49 GiB
        (("2.10", "2.11", "2.12"), ("2.05", "2.06", "2.07"), False),  # steady, like its peer's
        (("0.10", "0.25", "0.40"), ("0.10", "0.22", "0.35"), False),  # fourfold, small, like its peer's
        (("0.10", "0.25", "0.40"), ("0.01", "0.05", "0.09"), True),  # small, but four times its peer's
    ],
    ids=["climbing", "steady", "small", "standing-out"],
)
def test_a_rank_that_vanished_while_its_memory_climbed_is_likely_the_hosts_out_of_memory_kill(
    tmp_path: Path, sizes: tuple[str, ...], peer: tuple[str, ...], killed: bool
) -> None:
    run = _log_dir(
        tmp_path,
        {
            0: "".join(
                f"[rank 0] epoch 0 step {step} loss 3.01 mask_cache {size} GiB\n"
                for step, size in zip((0, 4, 8), peer, strict=True)
            )
            + _LOST.format(r=0),
            1: "".join(
                f"[rank 1] epoch 0 step {step} loss 3.02 mask_cache {size} GiB\n"
                for step, size in zip((0, 4, 8), sizes, strict=True)
            ),
        },
    )
    root = explain_paths([str(run)]).root_cause
    assert root is not None and (root.rank, root.category) == (1, "oom_host")
    # The climb is named as the memory it took; a rank that vanished at a steady or small reading is a
    # likely kill all the same (it ended without a word), with no reading to show for it.
    said_climb = any("most likely the kernel's out-of-memory killer" in reason for reason in root.why)
    assert said_climb == killed
    assert root.text.endswith(f"mask_cache {sizes[-1]} GiB")


# --- classes of batches b239-b248 ----------------------------------------------------------------


def test_a_silent_ranks_wait_loop_is_the_root_line_at_its_first_round() -> None:
    """Ranks 0-2 time out in a collective rank 3 never joined: it went its own way (a spike it flagged)
    and then waited in a loop of its own; the loop's first round is where it started waiting (where
    most labels put the root line)."""
    steps = "".join(f"[rank {r}] step 6 loss 1.0{r}\n" for r in range(4))
    waits = "".join(
        f"[rank 3] rollback marker /tmp/run/step7.json not ready, polling again in 3s [waited {s}s]\n"
        for s in (0, 3, 6, 9)
    )
    timeouts = "".join(
        f"[rank{r}]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out"
        " waiting 15000ms for recv operation to complete\n"
        for r in range(3)
    )
    text = steps + "[rank 3] step 7 loss 2596.4 > 4x ema, flagging spike\n" + waits + timeouts
    root = explain_text(text).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 3)
    assert root.text.endswith("polling again in 3s [waited 0s]"), root.text
    # A rank that only went on with its own work says nothing went wrong: the timeout stays the root.
    busy = steps + "[rank 3] step 7 compiling the eval graph\n" + timeouts
    root = explain_text(busy).root_cause
    assert root is not None and root.rank == 3 and "Timed out waiting" in root.text


@pytest.mark.parametrize(("odd", "expected"), [("False", 1), ("True", 0)], ids=["rank-1-odd", "all-alike"])
def test_the_one_rank_that_started_with_another_setting_is_named_for_a_size_mismatch(
    odd: str, expected: int
) -> None:
    """gloo's size check fails on the rank that received the data (rank 0 here); one rank of three
    had started with a setting none of its peers has: that rank ran other collectives."""
    setting = {0: "True", 1: odd, 2: "True"}
    text = "".join(
        f"2026-12-03 09:02:38,6{r}7 rank{r} INFO cache part{r}: 64 graphs, bond_features={setting[r]}\n"
        for r in (1, 2, 0)
    ) + (
        "[rank0]: RuntimeError: [enforce fail at /pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:456]"
        " op.preamble.length <= op.nbytes. 2732 vs 344. Received data size doesn't match expected size."
        " Is there a distributed collective mismatch in your code?\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.category == "collective_mismatch"
    assert root.rank == expected


@pytest.mark.parametrize(
    "check",
    [
        "Assertion failed: data_ != NULL || size_ == 0 (src/msg.cpp:97)",
        "Bad address (src/tcp.cpp:199)",
        "python: engine.c:97: run: Assertion `q->head != NULL' failed.",
    ],
)
def test_a_native_assert_just_before_an_abort_is_why_the_process_aborted(check: str) -> None:
    text = (
        "INFO:root:start with arguments Namespace(kv_store='dist_sync')\n"
        f"{check}\n"
        "bash: line 1:  4399 Aborted                 (core dumped) python train.py --kv-store dist_sync\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.line == 2, root
    assert root.text == check


def test_a_launchers_failed_ssh_command_is_a_report_of_the_worker_it_started() -> None:
    """A launcher of the user's checkout (a `tools/` folder, so its frames count as user code) runs each
    worker over ssh and raises CalledProcessError when one fails: that is a report, not the failure."""
    text = (
        "Assertion failed: data_ != NULL || size_ == 0 (src/msg.cpp:97)\n"
        "bash: line 1:  2902 Aborted                 (core dumped) python train.py\n"
        "Exception in thread Thread-6:\n"
        "Traceback (most recent call last):\n"
        '  File "/home/u/mxnet/tools/dmlc_tracker/ssh.py", line 60, in run\n'
        "    subprocess.check_call(prog, shell = True)\n"
        '  File "/usr/lib/python3.8/subprocess.py", line 364, in check_call\n'
        "    raise CalledProcessError(retcode, cmd)\n"
        "subprocess.CalledProcessError: Command 'ssh -o StrictHostKeyChecking=no node2 -p 22 'cd /home/u;"
        " python train.py'' returned non-zero exit status 134.\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.line == 1
    assert root.category != "user_code"


def test_a_resident_memory_reading_over_its_limit_is_host_memory() -> None:
    assert message_category("host memory guard: rss 903MB > 900MB, killing worker (SIGKILL)") is not None
    assert message_category("host memory guard: rss 903MB > 900MB, killing worker (SIGKILL)")[0] == "oom_host"
    assert message_category("step 7: rss 903MB, loss 2.31 > 2.0") is None


# --- classes of batches b249-b252 ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("rank_2_last", "expected"),
    [
        ("epoch 1 scored 128 samples", ("collective_mismatch", 2)),
        ("epoch 0 scored 128 samples", ("collective_timeout", None)),
    ],
    ids=["one-rank-ahead", "all-at-one-epoch"],
)
def test_the_one_rank_that_got_further_before_every_rank_timed_out_ran_other_collectives(
    rank_2_last: str, expected: tuple[str, int | None]
) -> None:
    """Every rank times out in an all_reduce and none is named, but rank 2 had reached epoch 1 while
    its peers last said epoch 0: it got through a collective they are still in, so the ranks'
    collectives did not pair up (a size or an order that differs), and rank 2's are the odd ones."""
    text = (
        "[default0]:trainer 0: epoch 0 loss 1.392\n"
        "[default2]:evaluator 2: epoch 0 scored 128 samples\n"
        f"[default2]:evaluator 2: {rank_2_last}\n"
        "[default1]:trainer 1: epoch 0 loss 1.487\n"
    ) + "".join(
        f"[default{r}]:RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed"
        " out waiting 15000ms for recv operation to complete\n"
        for r in (1, 2, 0)
    )
    root = explain_text(text).root_cause
    assert root is not None and (root.category, root.rank) == expected
    if expected[1] == 2:
        assert root.line == 6 and root.confidence == "medium"
        assert any("got further than every other rank" in why for why in root.why)
    # A barrier of the script's own (a store counter) pairs no collectives: a rank past it says nothing
    # of sizes or order.
    own_barrier = text.replace(
        "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting"
        " 15000ms for recv operation to complete",
        "TimeoutError: store barrier 'epoch_end' timed out after 15s (1/3 ranks arrived)",
    )
    root = explain_text(own_barrier).root_cause
    assert root is not None and root.category != "collective_mismatch"


@pytest.mark.parametrize(
    ("rank_1_says", "expected_rank"),
    [("waiting for /tmp/shards/shard_1.pt ({s}s)", 1), ("compiling eval step {s}", None)],
    ids=["says-it-waits", "says-what-it-does"],
)
def test_of_two_ranks_that_never_reported_the_timeout_the_one_that_says_it_waits_is_named(
    rank_1_says: str, expected_rank: int | None
) -> None:
    """Rank 2 times out in a collective; ranks 0 and 1 never report it. Rank 0 printed nothing, rank 1's
    own lines say it waits for a file: it is where the job stopped, at its wait loop's first round.
    Lines of what it was busy with say nothing of a wait: then the logs cannot tell the two apart."""
    text = (
        "".join(f"Initializing distributed: GLOBAL_RANK: {r}, MEMBER: {r + 1}/3\n" for r in (0, 2, 1))
        + "".join(f"[rank 1] {rank_1_says.format(s=s)}\n" for s in (0, 10, 20))
        + "[rank2]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out"
        " waiting 20000ms for recv operation to complete\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.category == "collective_timeout" and root.rank == expected_rank
    if expected_rank == 1:
        assert root.text.endswith("shard_1.pt (0s)") and "(0, 1)" in (root.rank_note or "")


# --- classes of batches b253-b256 ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("loop_line", "repeats", "stated"),
    [
        (
            "{t} WARNING [rank 2] env reset: no solvable maze at level 5 after {n} attempts, resampling",
            True,
            "after 100000 attempts, resampling",
        ),
        (
            "{t} [rank2] WARNING tau: calibration has not converged after {n} iterations",
            True,
            "after 100000 iterations",
        ),
        ("{t} WARNING [rank 2] skipping utterance shorter than 8 frames", False, None),
        (
            "{t} INFO [rank 2] env reset: level 5 after {n} attempts, resampling",
            True,
            "after 100000 attempts",
        ),
        (
            "{t} WARNING [rank 2] {n} draws so far without a patch at fg ratio >= 0.010",
            False,
            "0 draws so far",
        ),
        (
            "{t} WARNING [rank 2] depot_9: {n} draws, 0/4 scenes with a moving agent so far",
            True,
            "100000 draws",
        ),
    ],
    ids=[
        "warning-loop",
        "warning-loop-level-after-label",
        "one-warning",
        "info-loop",
        "tries-so-far",
        "so-far-later",
    ],
)
def test_a_silent_ranks_count_of_tries_is_the_root_line_at_its_first_round(
    loop_line: str, repeats: bool, stated: str | None
) -> None:
    """Ranks 0 and 1 time out in an all_reduce; rank 2 never reported it. Its line counts the tries it
    made without getting on (`after 100000 attempts`, `20000 draws so far`): a loop that never ended,
    the root line at its first round (where most labels put it), once or repeated, at any level. A
    line given once that counts no tries (`skipping utterance ...`) does not say it was stuck there."""
    steps = "".join(f"2026-12-03 20:17:3{r},000 INFO [rank {r}] iter 15 loss -2.98\n" for r in range(3))
    rounds = [100000, 200000, 300000] if repeats else [0]
    loop = "".join(loop_line.format(t=f"2026-12-03 20:17:4{i},000", n=n) + "\n" for i, n in enumerate(rounds))
    timeouts = "".join(
        f"[rank{r}]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed"
        " out waiting 20000ms for recv operation to complete\n"
        for r in range(2)
    )
    root = explain_text(steps + loop + timeouts).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 2)
    if stated:
        assert stated in root.text, root.text
    else:
        assert "Timed out waiting" in root.text, root.text


@pytest.mark.parametrize(
    "guard",
    [
        "memory guard: rank 2 rss 642 MiB over host budget 640 MiB, sending SIGKILL",
        "memory guard (rank 2): rss 801MB exceeds limit 800MB, sending SIGKILL",
    ],
)
def test_a_memory_guards_line_is_the_root_line_of_the_sigkill_it_sent(guard: str) -> None:
    """Rank 2 is SIGKILLed with no error of its own; just before, a line (no rank label) says a memory
    guard found its resident memory over its limit: that is why it died, and the root line."""
    text = (
        "".join(f"[rank{r}] INFO step 16 loss 12.0 rss 331 MiB\n" for r in range(3))
        + guard
        + "\n"
        + "W1203 20:30:55.000000 3004 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process"
        " 3008 closing signal SIGTERM\n"
        "E1203 20:30:56.070000 3004 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode:"
        " -9) local_rank: 2 (pid: 3009) of binary: /usr/bin/python\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 2)
    assert root.text == guard
    assert message_category("rss 801MB exceeds limit 800MB")[0] == "oom_host"  # type: ignore[index]
    assert message_category("rss 801MB, limit 800MB") is None


@pytest.mark.parametrize("numel_out", [16777216, 8388608], ids=["sizes-say-8", "sizes-say-4"])
def test_an_excerpt_of_waiting_ranks_names_no_rank_it_does_not_show(numel_out: int) -> None:
    """Ranks 1-3 time out in one ALLGATHER and rank 0 says nothing. The excerpt shows neither rank 0
    nor how many ranks the job has (an all-gather's sizes count its group's ranks, which need not be
    numbered as the job's): whoever they waited for is not in the logs, so no rank is named."""
    text = "".join(
        f"[E ProcessGroupNCCL.cpp:474] [Rank {r}] Watchdog caught collective operation timeout:"
        f" WorkNCCL(SeqNum=879, OpType=ALLGATHER, NumelIn=2097152, NumelOut={numel_out},"
        " Timeout(ms)=1800000) ran for 3487087 milliseconds before timing out.\n"
        for r in range(1, 4)
    )
    root = explain_text(text).root_cause
    assert root is not None and root.category == "collective_timeout"
    assert root.rank is None and 0 not in root.suspect_ranks


def test_a_silent_rank_0_is_named_when_the_job_says_how_many_ranks_it_has() -> None:
    """The same wait with WORLD_SIZE=4 in the logs: rank 0 is a rank of the job that never reported."""
    text = "WORLD_SIZE=4\n" + "".join(
        f"[E ProcessGroupNCCL.cpp:474] [Rank {r}] Watchdog caught collective operation timeout:"
        " WorkNCCL(SeqNum=879, OpType=ALLREDUCE, NumelIn=2097152, NumelOut=2097152,"
        " Timeout(ms)=1800000) ran for 3487087 milliseconds before timing out.\n"
        for r in range(1, 4)
    )
    root = explain_text(text).root_cause
    assert root is not None and (root.category, root.rank, root.kind) == (
        "collective_timeout",
        0,
        "straggler",
    )


@pytest.mark.parametrize(
    ("frame", "expected"),
    [
        ("pncclCommDeregister", "nccl_error"),
        ("at::native::copy_kernel", "other"),
        ("_ZN2at6native4copyEv", "other"),
    ],
    ids=["in-nccl", "elsewhere", "elsewhere-mangled"],
)
def test_a_crash_whose_native_backtrace_is_inside_nccl_is_an_nccl_error(frame: str, expected: str) -> None:
    """Four processes catch SIGSEGV together; UCX's backtrace of the first (its thread id) runs through
    the signal's handling into NCCL's code: the library crashed, an NCCL error."""
    text = (
        "".join(
            f"[host:{pid}:0:{tid}] Caught signal 11 (Segmentation fault: address not mapped to object at"
            " address 0x3800)\n"
            for pid, tid in ((16170, 17316), (16172, 17317), (16171, 17318))
        )
        + "==== backtrace (tid:  17316) ====\n"
        " 0 0x0000000000042520 __sigaction()  ???:0\n"
        f" 1 0x00000000000736aa {frame}()  ???:0\n"
        " 2 0x000000000005a30a ncclCommAbort()  ???:0\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.line == 1
    assert root.category == expected


# --- classes of batches b249-b252 and b257 (thirty-third session) ----------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "'transport/net_ib.cu:781 WARN NET/IB : Got completion with error 12, opcode 1, len0, vendor err 129'",
        "transport/net_ib.cu:781 WARN NET/IB : Got completion with error 12, opcode 1, len0, vendor err 129",
    ],
    ids=["quoted", "bare"],
)
def test_an_old_nccl_warn_line_pasted_alone_is_an_nccl_error(line: str) -> None:
    """NCCL before 2.5 printed its WARN without its name; a comment that quotes the line alone is still
    a failure, never "No failure found"."""
    root = explain_text(line + "\n").root_cause
    assert root is not None and root.category == "nccl_error" and root.line == 1


def test_a_torchrun_agent_line_with_spaces_a_paste_added_still_reports_a_sigkill() -> None:
    root = explain_text("torch.distributed.elastic.multiprocessing.api:failed ( exitcode:-9)\n").root_cause
    assert root is not None and root.category == "oom_host"


def test_a_memory_reading_over_a_named_limit_is_host_memory() -> None:
    said = message_category("rss guard: RSS 602 MiB exceeds pod limit 600 MiB, sending SIGKILL")
    assert said is not None and said[0] == "oom_host"
    assert message_category("RSS 602 MiB, pod limit 600 MiB") is None


def test_a_proxys_failed_connect_comes_before_the_closed_connection_it_causes() -> None:
    """One process's proxy service thread fails a Connect (`res=2, closing connection`, a record that
    follows an earlier error of its own); the same process then warns that the proxy failed the
    operation and that the connection was closed: the proxy's failed Connect, an NCCL error, is what
    failed, not the closed connection (a lost peer's symptom)."""
    text = (
        "node:922:1158 [3] proxy.cc:1485 NCCL WARN [Service thread] Error encountered progressing"
        " operation=Connect, res=2, closing connection\n"
        "node:922:1158 [3] proxy.cc:1519 NCCL WARN [Proxy Service 11] Failed to execute operation Connect"
        " from rank 11, retcode 2\n"
        "node:922:1149 [3] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer"
        " node.ibnet<53735>\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.category == "nccl_error" and root.line == 2, root


# --- classes found in the thirty-fourth session ------------------------------------------------------


def test_a_rank_that_left_the_job_early_is_told_as_leaving_not_as_its_peers_error() -> None:
    """Rank 1 stopped early and ended with exit 0; rank 0 lost its connection to it. The report names
    rank 1 through rank 0's error, but its headline, title, advice and fix must speak of rank 1 leaving
    the job, not show rank 0's `Connection closed` as rank 1's, nor call rank 1 failed."""
    steps = "".join(f"[rank {r}] step {s} loss 0.{s}{r}\n" for s in range(3) for r in range(2))
    log = steps + "[rank 1] early stopping at epoch 2, best val 0.41\n" + _LOST.format(r=0) + _table((0, 1))
    root = explain_text(log).root_cause
    assert root is not None and (root.rank, root.kind, root.category) == (
        1,
        "lost-peer",
        "collective_timeout",
    )
    assert root.headline.startswith("rank 1 left the job while the other ranks still ran collectives")
    assert "early stopping at epoch 2" in root.headline and "Connection closed" not in root.headline
    assert "RuntimeError" not in root.title
    assert any("had already left the job" in a for a in root.advice)
    assert not any("already failed" in a for a in root.advice)
    assert any("stop on every rank at once" in s for s in root.solutions)


def test_peers_that_went_away_are_not_given_their_victims_error_or_frames() -> None:
    """Ranks 0 and 1 lose their connection inside their own code; ranks 2 and 3 say nothing. The
    report may name no rank, but its title, `your code` and advice must not be the victims' own, nor
    ask to report the victims' well-known message as unknown."""
    steps = "".join(f"[rank{r}]: step {s} loss 0.{s}{r}\n" for s in range(3) for r in range(4))
    lost = "".join(
        f"[rank{r}]: Traceback (most recent call last):\n"
        f'[rank{r}]:   File "/home/u/train.py", line 30, in main\n[rank{r}]:     loss.backward()\n'
        + _LOST.format(r=r)
        for r in (0, 1)
    )
    root = explain_text(steps + lost).root_cause
    assert root is not None and (root.kind, root.suspect_ranks) == ("lost-peer", (2, 3))
    assert (
        root.headline
        == "ranks 2, 3 went away first, without an error; the other ranks lost their connection to them"
    )
    assert "RuntimeError" not in root.title and root.user_frame is None
    assert not any("does not know this message" in a for a in root.advice)
    assert any("how the rank that went away ended" in s for s in root.solutions)


@pytest.mark.parametrize(
    "line",
    [
        "ImportErrorImportError: : This example requires a source install from HuggingFace diffusers (see"
        " `https://huggingface.co/docs/diffusers/installation#install-from-source`), but the version found is"
        " 0.32.2.",
        "RuntimeError: This example requires a source install from HuggingFace diffusers, but the version found"
        " is 0.32.2.",
        "ImportError: deepspeed>=0.10.0,<=0.16.9 is required for a normal functioning of this module, but found"
        " deepspeed==0.17.2.",
    ],
    ids=["interleaved-type", "another-type", "found-pinned"],
)
def test_a_message_that_states_the_version_it_needs_and_the_one_found_is_a_version_mismatch(
    line: str,
) -> None:
    """Two ranks' copies of an ImportError interleaved (`ImportErrorImportError: :`) lose the type that
    says a package is of the wrong version; the message still says which version it needs and found."""
    root = explain_text(line + "\n").root_cause
    assert root is not None and root.category == "version_mismatch"


def test_a_monitored_barriers_coordinator_names_the_rank_its_peers_do_not() -> None:
    """Rank 0 coordinates a monitored barrier: it names rank 2 as the rank that never arrived, while
    ranks 1 and 3 only say their exchange with rank 0 failed. Rank 2 is the culprit, not rank 0."""
    peer = (
        "[E ProcessGroupGloo.cpp:138] Rank {r} successfully reached monitoredBarrier, but received errors"
        " while waiting for send/recv from rank 0. Please check rank 0 logs for faulty rank.\n"
    )
    text = (
        peer.format(r=3)
        + "[E ProcessGroupGloo.cpp:138] [Rank 0]: Rank 2 failed to pass monitoredBarrier in 30000 ms\n"
        + peer.format(r=1)
    )
    root = explain_text(text).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 2)
    assert "failed to pass monitoredBarrier" in root.text


# --- classes found in the thirty-fifth session -------------------------------------------------------


def test_an_unlabelled_helper_error_belongs_to_the_rank_the_launcher_saw_fail_with_an_error_code() -> None:
    """Rank 3's helper process dies on its own error (no rank label: torch's `[rankN]:` prefix covers only
    the main process); rank 3 then loses its pipe and ranks 0 and 2 lose rank 3. torchrun saw rank 3
    exit with code 1 and stopped the others: the helper's error is rank 3's."""
    helper = (
        "Process tok-fr:\nTraceback (most recent call last):\n"
        '  File "/home/u/tok_server.py", line 25, in serve\n    table = dict(zip(toks, ids, strict=True))\n'
        "ValueError: zip() argument 2 is shorter than argument 1\n"
    )
    reset = (
        "[rank3]: Traceback (most recent call last):\n"
        '[rank3]:   File "/home/u/train.py", line 50, in main\n[rank3]:     ids = parent.recv()\n'
        "[rank3]: ConnectionResetError: [Errno 104] Connection reset by peer\n"
    )
    log = (
        helper
        + reset
        + _LOST.format(r=0)
        + _LOST.format(r=2)
        + _table((3, 1), [(0, -15), (1, -15), (2, -15)])
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 3)
    assert "zip() argument 2" in root.text
    # A rank that timed out waiting exited because of the wait: its exit code does not make the error its own.
    timeout = (
        "[rank0]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out"
        " waiting 15000ms for recv operation to complete\n"
    )
    root = explain_text(helper + timeout + _table((0, 1), [(1, -15)])).root_cause
    assert root is not None and "zip() argument 2" in root.text and root.rank != 0


@pytest.mark.parametrize(
    "line",
    [
        "RuntimeError: NCCL communicator was aborted.",
        "RuntimeError: NCCL communicator was aborted on rank 19.",
    ],
    ids=["torch-1", "with-rank"],
)
def test_an_aborted_communicator_alone_is_a_collective_timeout_not_a_lost_connection(line: str) -> None:
    """The process group aborts a communicator after a collective failed or timed out; alone in the
    logs it does not say that NCCL lost a connection (the network is not the suspect)."""
    root = explain_text(line + "\n").root_cause
    assert root is not None and (root.category, root.entry) == (
        "collective_timeout",
        "nccl-communicator-aborted",
    )
    assert not any("the network or the remote host is the suspect" in w for w in root.why)


def test_a_platform_wrapper_that_carries_a_known_cause_is_that_cause_not_a_bare_wrapper() -> None:
    """Azure ML's `UserError: User program failed with RuntimeError: ...` carries the program's own
    message; when that message names a cause (a collective library the build lacks), it is the
    verdict, not a wrapper beneath a cut-off traceback."""
    log = (
        "UserError: User program failed with RuntimeError: NCCL is not available. Please confirm that NCCL is"
        " enabled in CuPy.\n"
        "Traceback (most recent call last):\n"
        '  File "train_mnist.py", line 57, in main\n'
        "    comm = chainermn.create_communicator(args.communicator)\n"
        '  File "/env/lib/python3.6/site-packages/chainermn/communicators/__init__.py", line 91, in create\n'
    )
    root = explain_text(log).root_cause
    assert root is not None and root.category == "backend_unsupported"
    assert root.text.startswith("UserError: User program failed with RuntimeError: NCCL is not available")
    # A wrapper that says nothing of a cause stays a wrapper: the traceback under it decides.
    bare = log.replace("NCCL is not available. Please confirm that NCCL is enabled in CuPy.", "exit code 1")
    root = explain_text(bare).root_cause
    assert root is not None and root.category != "backend_unsupported"


def test_a_stragglers_last_word_in_its_stderr_file_is_found_beside_its_stdout(tmp_path: Path) -> None:
    """torchrun's `--log-dir` keeps each rank's stdout and stderr in two files with no order between
    them. Rank 0's progress lines (stdout) match rank 1's; its last word (`aborting run`) is in its
    stderr. Rank 1 times out in the barrier after: rank 0 is the straggler and that line its account."""
    run = tmp_path / "run" / "attempt_0"
    steps = "".join(f"step {s} rank {{r}} loss 5.{s}\n" for s in range(1, 4))
    files = {
        (0, "stdout.log"): "[committer] expecting 4 shards per checkpoint\n" + steps.format(r=0),
        (
            0,
            "stderr.log",
        ): "[committer] checkpoint step 3 incomplete: 2/4 shards reported after 12s, aborting run\n",
        (1, "stdout.log"): steps.format(r=1),
        (
            1,
            "stderr.log",
        ): "[rank1]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81]"
        " Timed out waiting 20000ms for recv operation to complete\n",
    }
    for (rank, name), text in files.items():
        (run / str(rank)).mkdir(parents=True, exist_ok=True)
        (run / str(rank) / name).write_text(text)
    root = explain_paths([str(tmp_path / "run")]).root_cause
    assert root is not None and root.rank == 0
    assert root.text.endswith("2/4 shards reported after 12s, aborting run")


@pytest.mark.parametrize(
    ("line", "category"),
    [
        (
            "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: RET_CHECK failure (external/xla/service/gpu/"
            "gpu_executable_run_options.cc:75) 0 <= local_device_ordinal && local_device_ordinal <"
            " gpu_global_device_ids->size()",
            "invalid_device",
        ),
        (
            "E0000 00:00:1725834192.702937  625990 collective_ops_utils.h:310] This thread has been waiting for"
            " 5000ms for and may be stuck: participant AllReduceParticipantData{rank=1, element_count=7840}",
            "collective_timeout",
        ),
        (
            "RuntimeError: tensorflow/compiler/xla/xla_client/mesh_service.cc:316 : Check failed:"
            " impl_->channel->WaitForConnected( std::chrono::system_clock::now() + std::chrono::seconds(10))",
            "rendezvous",
        ),
        (
            "RuntimeError: The Inner error is reported as above. The process exits for this inner error, and the"
            " current working operator name is HcclBroadcast.",
            "nccl_error",
        ),
    ],
    ids=["device-ordinal-check", "xla-thread-stuck", "xla-mesh-master", "hccl-operator"],
)
def test_what_a_device_runtimes_message_says_names_its_category(line: str, category: str) -> None:
    """Messages of XLA, torch_xla and torch_npu that no entry knows still say what failed: a device
    index outside the devices the process has, a collective's participants that did not all arrive,
    the mesh master that could not be reached, the collective library's operator that was running."""
    root = explain_text(line + "\n").root_cause
    assert root is not None and root.category == category


def test_a_start_up_failure_on_an_error_line_names_no_rank() -> None:
    """An MPI-tagged glog record of rank 56 that could not connect to its parameter server: the job as
    a whole could not assemble, as with an exception of the same words."""
    line = (
        "Wed Jul 19 10:40:45 2017[1,56]<stderr>:F0719 10:40:45.100778 26612 LightNetwork.cpp:397] Check failed:"
        " error >= 0 ERROR connecting to 10.87.137.19: Connection refused [111]\n"
    )
    root = explain_text(line).root_cause
    assert root is not None and (root.category, root.rank) == ("rendezvous", None)
    assert "printed by rank 56" in (root.rank_note or "")


def test_a_traceback_head_that_only_says_an_exception_happened_does_not_outweigh_a_named_rank() -> None:
    """SGLang logs `Scheduler hit an exception: Traceback ...` and the paste cuts the traceback before
    its exception: that says where, not what. Rank 3's monitored barrier names rank 0."""
    log = (
        "[rank3]:[E421 04:13:43.426633564 ProcessGroupGloo.cpp:143] Rank 3 successfully reached monitoredBarrier,"
        " but received errors while waiting for send/recv from rank 0. Please check rank 0 logs for faulty rank.\n"
        "[2025-04-21 04:13:43 TP3] Scheduler hit an exception: Traceback (most recent call last):\n"
        '  File "/env/sglang/srt/managers/scheduler.py", line 2056, in run_scheduler_process\n'
        "    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, dp_rank)\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 0)
    assert "received errors while waiting for send/recv from rank 0" in root.text


def test_a_log_dirs_first_attempt_comes_before_a_known_failure_of_the_restart(tmp_path: Path) -> None:
    """`--log-dir` with `--max-restarts 1`: in attempt_0 rank 1 raised an error no entry knows while its
    peers lost it; in attempt_1 every rank failed to load the checkpoint the first attempt had cut off
    (a message the knowledge base knows). The folders give the order: the first attempt's error is the
    root, however well the later one is known."""
    corrupt = (
        "RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory."
    )
    files = {
        "attempt_0/0": _LOST.format(r=0),
        "attempt_0/1": _attempt(1, "IndexError: index 0 is out of bounds for dimension 0 with size 0"),
        "attempt_0/2": _LOST.format(r=2),
        **{f"attempt_1/{rank}": _attempt(rank, corrupt) for rank in range(3)},
    }
    for folder, text in files.items():
        (tmp_path / "run" / folder).mkdir(parents=True)
        (tmp_path / "run" / folder / "stderr.log").write_text(text)
    root = explain_paths([str(tmp_path / "run")]).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 1)
    assert root.text.startswith("IndexError: index 0 is out of bounds")
    assert any("last attempt then failed with: RuntimeError: PytorchStreamReader" in w for w in root.why)


@pytest.mark.parametrize(
    ("last_word", "stated"),
    [
        ("low-rank hook: P has rank 0 < 2, redrawing Q until full rank", True),
        ("skipping a short utterance", False),
    ],
    ids=["goes-on-until", "one-off"],
)
def test_a_stragglers_last_warning_that_it_goes_on_until_something_is_its_root_line(
    last_word: str, stated: bool
) -> None:
    """Rank 0 warned that it would redraw until a condition held, then said nothing while ranks 1 and 2
    timed out waiting for it: that warning is the loop it was stuck in. A one-off warning says nothing
    of where it hung: the peers' timeout stays the root line."""
    steps = "".join(
        f"[2026-12-04 07:28:0{s},000] [rank{r}] INFO ctr - step {s} loss 0.{s}{r}\n"
        for s in range(3)
        for r in range(3)
    )
    log = (
        steps
        + f"[2026-12-04 07:28:04,554] [rank0] WARNING ctr - {last_word}\n"
        + "".join(
            f"[rank{r}]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out"
            " waiting 20000ms for recv operation to complete\n"
            for r in (1, 2)
        )
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 0)
    assert (last_word in root.text) is stated


# --- classes found in the thirty-sixth session -------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "MIOpen Error: /data/driver/MLOpen/src/ocl/convolutionocl.cpp:658: No invoker was registered for"
        " convolution forward. Was find executed?",
        "### HCC STATUS_CHECK Error: HSA_STATUS_ERROR_OUT_OF_RESOURCES (0x1008) at file:mcwamp_hsa.cpp line:3514",
    ],
    ids=["miopen", "hsa-status"],
)
def test_a_gpu_library_that_names_itself_before_its_error_is_a_gpu_failure(line: str) -> None:
    """ROCm's libraries print `<Library> Error: ...` with no level of their own: an error line, and the
    GPU's runtime failing (its DNN library, its kernel driver's status), never "no failure found"."""
    root = explain_text(line + "\nFatal Python error: Aborted\n").root_cause
    assert root is not None and root.category == "cuda_error"
    assert root.text == line


def test_a_metric_named_error_is_not_an_error_line() -> None:
    """`Top-1 Error: 23.4` (or `nan`) is a value a training loop reports, not a library's error."""
    assert (
        explain_text("epoch 3\nTop-1 Error: 23.4\nTrain Error: 0.05\nValidation Error: nan\n").root_cause
        is None
    )


def test_the_shells_killed_written_over_a_progress_line_is_a_sigkill() -> None:
    """A progress line redrawn with a carriage return stays on screen; the shell's `Killed` is written
    over its start (`Killedg in train batch: ...`): the program was killed by SIGKILL, most likely by
    the kernel's out-of-memory killer."""
    log = "Total number of batches 263115\nKilledg in train batch: 127687 / 263115\n"
    root = explain_text(log).root_cause
    assert root is not None and root.category == "oom_host"
    assert root.text.startswith("Killedg in train batch")


def test_a_legacy_launchers_sigkill_report_without_the_space_is_a_sigkill() -> None:
    """`died with <Signals.SIGKILL:9>` (a paste that lost the space after the colon) is the same report
    as `<Signals.SIGKILL: 9>`: the child was killed, not a command that merely failed."""
    log = (
        "subprocess.CalledProcessError: Command '['/opt/conda/bin/python', '-u', 'train.py', '--local_rank=0']'"
        " died with <Signals.SIGKILL:9>.\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.entry) == ("oom_host", "torchelastic-signal-sigkill")


@pytest.mark.parametrize(
    ("text", "category"),
    [
        (
            "XGBoostError: device_helpers.cu:64: Check failed: n_uniques == world (1 vs. 2) : Multiple processes"
            " within communication group running on same CUDA device is not supported",
            "duplicate_device",
        ),
        ("RuntimeError: PyTorch built without distributed support", "backend_unsupported"),
        (
            "[Error] [usdrt] GPU 1 requested. GPUs other than cuda:0 are not currently supported",
            "backend_unsupported",
        ),
        (
            "ValueError: DeepSpeed ZeRO-3 or FSDP is incompatible with PTQ-quantized models.",
            "backend_unsupported",
        ),
        ("E cuda_driver.cc:300] failed call to cuInit: UNKNOWN ERROR (-1)", "cuda_error"),
        ("PxgCudaUtils.h (54) : internal error : SynchronizeStreams cuEventRecord failed", "cuda_error"),
    ],
    ids=["processes-on-one-device", "build-without", "device", "sharding", "cuinit", "cu-call"],
)
def test_what_a_message_says_failed(text: str, category: str | None) -> None:
    """Several processes of one group on one device is a shared device; a build, a device or a sharding
    strategy that cannot do what the job asks is an unsupported set-up; a CUDA driver call named as
    failing is a CUDA failure: in any library's words."""
    said = message_category(text)
    assert (said[0] if said else None) == category


@pytest.mark.parametrize(
    ("message", "version"),
    [
        ("AssertionError: export_stacks() requires with_stack=True", False),
        ("RuntimeError: requires torch>=2.1", True),
    ],
    ids=["argument-value", "version-bound"],
)
def test_an_arguments_required_value_is_not_a_version_bound(message: str, version: bool) -> None:
    """`requires with_stack=True` asks for an argument's value (the call was made without it); only a
    bound such as `requires torch>=2.1` says the installed version is the problem."""
    log = (
        "[rank1]: Traceback (most recent call last):\n"
        '[rank1]:   File "/home/u/train.py", line 40, in main\n[rank1]:     prof.export_stacks(path)\n'
        '[rank1]:   File "/usr/lib/python3/site-packages/torch/autograd/profiler.py", line 557, in export_stacks\n'
        f"[rank1]:     raise\n[rank1]: {message}\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category == "version_mismatch") is version


@pytest.mark.parametrize(
    "line",
    [
        "[LightGBM] [Fatal] Socket recv error, code: 54",
        "2026-05-09T11:08:58Z [48,152ms] [Error] [usdrt.scenegraph.plugin] SelectPrims: prims not found",
        "/build/source/gpucommon/include/PxgCudaUtils.h (54) : internal error : SynchronizeStreams failed",
    ],
    ids=["bracketed-fatal", "bracketed-error", "file-line-internal-error"],
)
def test_error_levels_in_other_libraries_styles_are_error_lines(line: str) -> None:
    """A level written in title case between brackets among a record's first fields, and a native
    library's `file (line) : internal error :`, are error records: the log is not "no failure"."""
    root = explain_text(f"step 10 loss 0.3\n{line}\nSegmentation fault (core dumped)\n").root_cause
    assert root is not None and line.endswith(root.text)


def test_a_straggler_stuck_in_a_wait_every_rank_went_through_is_pointed_at_its_wait() -> None:
    """Every rank waited for its own shard and logged it; ranks 0-2 got theirs and went on into the
    collective, rank 3 logged its wait again and then nothing: its wait is where the job stopped, at
    its first round. The peers' timeouts are the consequence."""
    waits = "".join(
        f"2026-12-04 09:37:35,86{r} [INFO] rank={r} waiting for /tmp/run/shard-00{r}.ready\n"
        for r in range(4)
    )
    loaded = "".join(
        f"2026-12-04 09:37:36,36{r} [INFO] rank={r} loaded shard with 256 samples\n" for r in range(3)
    )
    again = "2026-12-04 09:37:45,886 [INFO] rank=3 waiting for /tmp/run/shard-003.ready\n"
    timeouts = "".join(
        f"[rank{r}]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out"
        " waiting 15000ms for recv operation to complete\n"
        for r in range(3)
    )
    root = explain_text(waits + loaded + again + timeouts).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 3)
    assert root.text == "waiting for /tmp/run/shard-003.ready" and root.line == 4


def test_pysparks_java_error_is_a_wrapper_of_the_python_workers_error() -> None:
    """`Py4JJavaError` only says a JVM call failed; the Spark job's Python worker raised the error (its
    traceback follows inside the Java exception's text)."""
    log = (
        "Py4JJavaError: An error occurred while calling z:org.apache.spark.api.python.PythonRDD.collectAndServe.\n"
        ": org.apache.spark.SparkException: Job aborted due to stage failure: barrier task failed\n"
        "org.apache.spark.api.python.PythonException: Traceback (most recent call last):\n"
        '  File "/usr/lib/spark/python/lib/pyspark.zip/pyspark/worker.py", line 586, in main\n'
        "    func, profiler, deserializer, serializer = read_command(pickleSer, infile)\n"
        "ModuleNotFoundError: No module named 'sparktorch'\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and root.category == "version_mismatch"
    assert root.text == "ModuleNotFoundError: No module named 'sparktorch'"


def test_a_library_that_disables_a_feature_and_goes_on_is_not_the_failure() -> None:
    """PSM3 turns cross-memory attach off when it cannot read another process's memory and goes on;
    its assertion a moment later is the failure."""
    log = (
        "[1705415958.879795729] machine:rank1.cpu_allreduce_test: Reading from remote process' memory failed."
        " Disabling CMA support\n"
        "machine:rank1: Assertion failure at psm3/ptl_am/ptl.c:196: nbytes == req->req_data.recv_msglen\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and "Assertion failure at psm3/ptl_am/ptl.c:196" in root.text


def test_the_schedulers_own_lines_are_not_the_scripts_account() -> None:
    """Slurm's step daemon on a node (`slurmstepd-sp-0016: error: ...`) reports that the container never
    started; srun's `queued and waiting for resources` is the scheduler's, not the script saying it
    waits. The daemon's error is the root line, and it is no check of the training code's own."""
    log = (
        "[user@login superpod]$ srun --container-image ./ubuntu.sqsh --gpus-per-task=8 --pty bash\n"
        "srun: job 34262460 queued and waiting for resources\n"
        "srun: job 34262460 has been allocated resources\n"
        "slurmstepd-sp-0016: error: pyxis: couldn't start container\n"
        "slurmstepd-sp-0016: error: spank: required plugin spank_pyxis.so: task_init() failed with rc=-1\n"
        "slurmstepd-sp-0016: error: Failed to invoke spank plugin stack\n"
        "srun: error: sp-0016: task 0: Exited with exit code 1\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and root.text == "slurmstepd-sp-0016: error: pyxis: couldn't start container"
    assert root.category != "user_code"


def test_composers_per_rank_sections_label_their_lines() -> None:
    """Composer's launcher reports each failed rank's exit, then quotes its output between `Begin global
    rank N STDERR` and `End ...` markers: the lines inside are rank N's, and the quote ends there."""
    log = (
        "Global rank 3 (PID 789) exited with code 1\n"
        "Global rank 5 (PID 791) exited with code 1\n"
        "----------Begin global rank 3 STDOUT----------\n"
        "step 9 loss 0.21\n"
        "----------End global rank 3 STDOUT----------\n"
        "----------Begin global rank 5 STDERR----------\n"
        "Traceback (most recent call last):\n"
        '  File "/work/train.py", line 244, in main\n'
        "    trainer.fit()\n"
        "ValueError: shard 17 has no samples\n"
        "----------End global rank 5 STDERR----------\n"
        "training finished on the launcher's side\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 5)
    assert root.text == "ValueError: shard 17 has no samples"


def test_a_constructor_that_does_not_take_find_unused_parameters_is_an_older_release() -> None:
    """`DistributedDataParallel.__init__() got an unexpected keyword argument 'find_unused_parameters'`
    names the option, but says the installed torch predates it: no parameter went unused."""
    log = (
        "Traceback (most recent call last):\n"
        '  File "/home/u/det3d/apis/train.py", line 344, in train_detector\n'
        "    model = DistributedDataParallel(model.cuda(), find_unused_parameters=True)\n"
        "TypeError: __init__() got an unexpected keyword argument 'find_unused_parameters'\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and root.category == "version_mismatch"


def test_a_size_mismatch_names_the_rank_that_announced_another_size() -> None:
    """gloo's size check fails on the rank that received the data (rank 1 here); rank 2 alone had
    announced another size than its peers (`trainable params: 5120` where they say `4096`): its
    tensors are the odd ones."""
    lines = "".join(
        f"[default{r}]:[rank {r}] trainable params: {5120 if r == 2 else 4096} || all params: 20480\n"
        for r in range(4)
    )
    log = (
        lines + "[default1]:terminate called after throwing an instance of 'gloo::EnforceNotMet'\n"
        "[default1]:  what():  [enforce fail at /__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:456]"
        " op.preamble.length <= op.nbytes. 512 vs 256. Received data size doesn't match expected size. Is there a"
        " distributed collective mismatch in your code?\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 2)


# --- classes found in the thirty-seventh session -------------------------------------------------------


def test_a_straggler_pointed_at_its_numbered_retry_loop() -> None:
    """The rank its peers waited for logged `lock ... busy, retry N` until they timed out: a numbered
    retry is a wait loop of its own, so its first round is the root line, not the peers' timeout."""
    log = "".join(f"[rank {r}] step 6 loss 0.09\n" for r in range(3))
    log += "".join(f"[rank 0] lock ema_shard0.lock busy, retry {n}\n" for n in range(1, 5))
    for r in (1, 2):
        log += (
            f"[rank{r}]: Traceback (most recent call last):\n"
            f'[rank{r}]:   File "/work/train.py", line 80, in <module>\n'
            f"[rank{r}]:     dist.all_reduce(t)\n"
            f"[rank{r}]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78]"
            " Timed out waiting 15000ms for recv operation to complete\n"
        )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 0)
    assert root.text == "lock ema_shard0.lock busy, retry 1"


def test_a_rank_that_vanished_while_its_memory_read_out_climbed_past_half_a_gib(tmp_path: Path) -> None:
    """A --log-dir capture with no launcher output: rank 1's pool grew sixfold to 1023 MB, then it
    printed nothing more while rank 0 lost its connection: most likely the host's OOM killer."""
    attempt = tmp_path / "run_1" / "attempt_0"
    for rank in (0, 1):
        (attempt / str(rank)).mkdir(parents=True)
    (attempt / "1" / "stderr.log").write_text(
        "".join(
            f"[rank 1][swa_pool] cycle {n}: snapshot {n} kept, pool {mb} MB on host\n"
            for n, mb in enumerate((171, 341, 512, 682, 853, 1023), 1)
        )
    )
    (attempt / "0" / "stderr.log").write_text(
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/work/train.py", line 49, in main\n'
        "[rank0]:     dist.all_reduce(p.grad)\n"
        "[rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:537] Read error"
        " [127.0.0.1]:8104: Connection reset by peer. This is typically caused by a remote worker hanging\n"
    )
    root = explain_paths([str(tmp_path / "run_1")]).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 1)


def test_an_error_quoted_in_prose_with_a_typographic_apostrophe_is_known() -> None:
    """A message pasted into a sentence between curly quotes, its apostrophe typographic too."""
    log = (
        "I am getting below error\n"
        "“Lightning can’t create new processes if CUDA is already initialized. Did you manually call"
        " `torch.cuda.*` functions?”\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.entry) == ("cuda_error", "lightning-bad-cuda-fork")


def test_a_tpu_that_could_not_be_initialised_is_an_accelerator_runtime_failure() -> None:
    log = (
        "2023-09-19 02:13:08.192277: F tensorflow/tsl/platform/statusor.cc:33] Attempting to fetch value"
        " instead of handling error UNKNOWN: TPU initialization failed: open(/dev/accel0): Operation not permitted\n"
        "https://symbolize.stripped_domain/r/?trace=7f5f5d0a1e2c,7f5f5d0a1e0f&map=\n"
        "*** SIGABRT received by PID 321 (TID 321) on cpu 3 from PID 321; stack trace: ***\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and root.category == "cuda_error"
    assert "TPU initialization failed" in root.text


def test_a_statement_of_the_failure_beats_a_bare_traceback_header_after_it() -> None:
    """torch-xla's `Exception in device=TPU:6: ...` says what failed; the traceback after it was cut
    off at its header and says nothing."""
    log = (
        "xla:0, 1.3990187644958496:.4f\n"
        "Exception in device=TPU:6: DataLoader worker (pid(s) 1235) exited unexpectedly\n"
        "Traceback (most recent call last):\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and root.category == "dataloader"
    assert "exited unexpectedly" in root.text


def test_a_queue_that_timed_out_gives_way_to_what_its_waiter_raised() -> None:
    """`_queue.Empty` is how the DataLoader's wait for a batch ran out; the RuntimeError it raised
    from it (`DataLoader worker ... exited unexpectedly`) is the account of the failure."""
    log = (
        "Traceback (most recent call last):\n"
        '  File "/usr/local/lib/python3.7/dist-packages/torch/utils/data/dataloader.py", line 885, in _try_get_data\n'
        "    raise RuntimeError('DataLoader worker (pid(s) {}) exited unexpectedly'.format(pids_str)) from e\n"
        "RuntimeError: DataLoader worker (pid(s) 2973, 3053) exited unexpectedly\n"
        "\n"
        "Exception in thread Thread-14:\n"
        "Traceback (most recent call last):\n"
        '  File "/usr/local/lib/python3.7/dist-packages/torch/utils/data/dataloader.py", line 872, in _try_get_data\n'
        "    data = self._data_queue.get(timeout=timeout)\n"
        '  File "/usr/lib/python3.7/multiprocessing/queues.py", line 105, in get\n'
        "    raise Empty\n"
        "_queue.Empty\n"
        "\n"
        "The above exception was the direct cause of the following exception:\n"
        "\n"
        "Traceback (most recent call last):\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and root.category == "dataloader"
    assert root.text.startswith("RuntimeError: DataLoader worker")


def test_a_path_in_a_library_cache_is_the_cache_not_the_script() -> None:
    """`datasets` builds its cache in a `<hash>.incomplete` folder; several nodes sharing it race on it
    (`Directory not empty`), or a network file system drops it. The script chose no such path."""
    log = (
        "OSError: [Errno 39] Directory not empty: '/shared/Cache_mlm/text/default-d0870639fca1403e/0.0.0/"
        "c4a140d10f020282918b5dd1b8a49f0104729c6177f60a6b49ec2a365ec69f34.incomplete'\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and root.category == "other"
    assert any("library's cache" in reason for reason in root.why)


def test_a_process_that_died_during_map_gives_way_to_its_bus_error_glued_to_a_progress_bar() -> None:
    """`One of the subprocesses has abruptly died` only reports a child's death; the child's own
    `Fatal Python error: Bus error` follows a tqdm bar whose unit is `examples/s`."""
    log = (
        "RuntimeError: One of the subprocesses has abruptly died during map operation.To debug the error,"
        " disable multiprocessing.\n"
        "Running tokenizer on dataset: 100%|##########| 3000/3000 [00:02<00:00, 1159.57 examples/s]"
        "Fatal Python error: Bus error\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and root.category == "oom_host"
    assert root.text == "Fatal Python error: Bus error"


def test_a_streaming_dataset_not_told_how_to_split_its_shards_is_the_data() -> None:
    log = "ValueError: you need to add an explicit nodesplitter to your input pipeline for multi-node training\n"
    root = explain_text(log).root_cause
    assert root is not None and root.category == "dataloader"


# --- classes found in the thirty-eighth session -------------------------------------------------------


def test_a_package_built_without_its_cuda_extensions_is_an_installation_mismatch() -> None:
    """apex installed without `--cuda_ext`: the class the script asked for needs a compiled part the
    installed package lacks, which no change to the script fixes."""
    log = (
        "Traceback (most recent call last):\n"
        '  File "finetune.py", line 212, in <module>\n'
        "    optimizer = FusedAdam(params, lr=1e-4)\n"
        '  File "/usr/lib/python3/dist-packages/apex/optimizers/fused_adam.py", line 80, in __init__\n'
        "    raise RuntimeError('apex.optimizers.FusedAdam requires cuda extensions')\n"
        "RuntimeError: apex.optimizers.FusedAdam requires cuda extensions\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and root.category == "version_mismatch"


def test_a_launcher_record_glued_to_the_exception_line_is_a_record_of_its_own() -> None:
    """A paste lost its line breaks: torchrun's `W0227 ... api.py:897] Sending process ... SIGTERM`
    follows the rank's exception on one line; the exception is the account, not the SIGTERM."""
    log = (
        "[rank2]: RuntimeError: shape mismatch: value tensor of shape [3, 14325] cannot be broadcast to"
        " indexing result of shape [3, 9215] W0227 23:25:08.126000 227320 site-packages/torch/distributed/"
        "elastic/multiprocessing/api.py:897] Sending process 227444 closing signal SIGTERM W0227"
        " 23:25:08.130000 227320 site-packages/torch/distributed/elastic/multiprocessing/api.py:897]"
        " Sending process 227445 closing signal SIGTERM\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 2)
    assert root.text.endswith("indexing result of shape [3, 9215]")


def test_a_straggler_pointed_at_its_loop_counted_in_attempts() -> None:
    """The rank its peers waited for kept re-fetching a batch (`(attempt 2/6), re-fetching in 2s`)
    until they timed out: a loop counted in attempts is a wait of its own; its first round is the
    root line, not a peer's timeout."""
    log = "".join(f"[rank{r}] step 6 loss 0.69\n" for r in range(3))
    log += "".join(
        f"[rank2] non-finite loss on block 9 (attempt {n}/6), re-fetching in {2 ** (n - 1)}s\n"
        for n in range(1, 4)
    )
    for r in (0, 1):
        log += (
            f"[rank{r}]: Traceback (most recent call last):\n"
            f'[rank{r}]:   File "/work/train.py", line 60, in main\n'
            f"[rank{r}]:     loss.backward()\n"
            f"[rank{r}]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78]"
            " Timed out waiting 15000ms for recv operation to complete\n"
        )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 2)
    assert root.text == "non-finite loss on block 9 (attempt 1/6), re-fetching in 1s"


def test_a_missing_attribute_on_one_rank_while_another_failed_elsewhere_in_the_script_is_that_ranks() -> None:
    """A version error is every rank's environment, unless another rank is seen elsewhere in the
    script: rank 0 alone ran `wandb.init` (the master process's logger) while rank 1's traceback, cut
    off, was in the training loop. Rank 0 is named."""
    log = (
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/home/u/nanoGPT/train.py", line 253, in <module>\n'
        '[rank0]:     wandb.init(project=wandb_project, mode="offline")\n'
        "[rank0]: AttributeError: module 'wandb' has no attribute 'init'\n"
        "[rank1]: Traceback (most recent call last):\n"
        '[rank1]:   File "/home/u/nanoGPT/train.py", line 306, in <module>\n'
        "[rank1]:     logits, loss = model(X, Y)\n"
        "...\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("version_mismatch", 0)


def test_deepspeeds_conversion_script_in_the_checkpoint_folder_is_not_the_users_code() -> None:
    """DeepSpeed copies `zero_to_fp32.py` into every checkpoint folder; a failure inside it is the
    library's reading of the checkpoint, not a line the user wrote."""
    log = (
        "Traceback (most recent call last):\n"
        '  File "./zero_to_fp32.py", line 151, in <module>\n'
        "    convert_zero_chkpt_to_fp32_consolid_state_dict(args.checkpoint_dir, args.output_file)\n"
        '  File "./zero_to_fp32.py", line 122, in convert_zero_chkpt_to_fp32_consolid_state_dict\n'
        "    tuple(fp32_flat_groups[i].narrow(0,\n"
        "RuntimeError: start (32899072) + length (16777216) exceeds dimension size (32899072).\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and root.category == "other" and root.user_frame is None


def test_a_rank_that_listed_one_setting_more_than_its_peers_is_named_by_a_receivers_size_check() -> None:
    """gloo's size check fails on the rank that received too many bytes (rank 0); rank 3 alone started
    with an extra augmentation in its policy (`mixup=0.2`), so its gathered counts are longer."""
    policy = "augment policy: time_mask=0.5, freq_mask=0.5, gain=0.3, time_shift=0.3"
    log = "".join(f"[rank {r}][INFO] {policy}{', mixup=0.2' if r == 3 else ''}\n" for r in (3, 1, 0, 2))
    log += (
        "terminate called after throwing an instance of 'gloo::EnforceNotMet'\n"
        "  what():  [enforce fail at /__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:456]"
        " op.preamble.length <= op.nbytes. 20 vs 16. Received data size doesn't match expected size."
        " Is there a distributed collective mismatch in your code?\n"
        "E1204 16:23:54.579000 11022 torch/distributed/elastic/multiprocessing/api.py:1002] failed"
        " (exitcode: -6) local_rank: 0 (pid: 11085) of binary: /usr/bin/python\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 3)


# --- classes found in the thirty-ninth session --------------------------------------------------------


def test_a_climb_read_from_lines_whose_step_is_padded_to_a_column_starts_at_the_first_reading() -> None:
    """`step    5` and `step   10` are one line shape (the step is padded to a column): the rss the
    vanished rank read out climbed from its first line (386 MB), not from where the padding changed."""
    log = "".join(
        f"[rank {rank}] step {step:>4} loss 0.69 rss {rss}MB\n"
        for step, climb in zip((0, 5, 10, 15), ((383, 386), (489, 608), (500, 746), (512, 908)), strict=True)
        for rank, rss in enumerate(climb)
    )
    log += (
        "[rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553]"
        " Connection closed by peer [127.0.0.1]:49345. This is typically caused by a remote worker crashing.\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 1)
    assert root.text.endswith("step   15 loss 0.69 rss 908MB")


def test_a_summary_quoting_a_messages_first_words_gives_way_to_the_message_in_full() -> None:
    """A report's summary sentence quotes the start of the message in a code span; the code block under
    it holds the whole line (with where the check failed): that line is the root line."""
    log = (
        "**Error**: `RuntimeError: batch % im2col_step_ == 0 INTERNAL ASSERT FAILED` in the deformable attention\n"
        "\n"
        "```\n"
        'RuntimeError: batch % im2col_step_ == 0 INTERNAL ASSERT FAILED at "/tmp/mmcv/ops/csrc/ms_deform_attn_cuda.cu"'
        ":244, please report a bug to PyTorch. batch(%d) must divide im2col_step(%d)\n"
        "```\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and root.text.endswith("must divide im2col_step(%d)")


def test_hydras_failed_import_of_a_configured_target_is_the_environment() -> None:
    """Hydra wraps the failed import of a `_target_` (`Error locating target '...'`) inside the error of
    the object that needed it; the import, not the outer constructor, is what failed."""
    log = (
        "[rank0]: hydra.errors.InstantiationException: Error in call to target 'training.trainer.Trainer':\n"
        "[rank0]: InstantiationException(\"Error locating target 'training.dataset.vos_dataset.VOSDataset', set env"
        ' var HYDRA_FULL_ERROR=1 to see chained exception.\\nfull_key: data.train.datasets[0]")\n'
        "[rank0]: full_key: trainer\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.entry) == (
        "version_mismatch",
        "hydra-target-not-located",
    )


def test_xlas_check_of_an_all_to_alls_buffers_is_a_collective_mismatch() -> None:
    """XLA's NCCL all-to-all refuses buffers of different sizes (`INVALID_ARGUMENT: All buffers must have
    the same element type and count`): the collective's inputs disagree, not a bad argument of the user."""
    log = (
        "E1111 20:20:54.172290  207019 pjrt_stream_executor_client.cc:3077] Execution of replica 0 failed:"
        " INVALID_ARGUMENT: All buffers must have the same element type and count\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and root.category == "collective_mismatch"


def test_a_rank_field_after_the_records_process_id_attributes_the_line() -> None:
    """`%(asctime)s %(levelname)s %(process)d [rank N]`: the process id between the level and the rank
    field is one of the record's fields, so rank 0's retry loop is its own and the peers' timeouts point
    at it."""
    log = "".join(
        f"2026-12-04 18:29:55,20{r} INFO 1547{r} [rank {r}] waiting for rank 0 to fetch the corpus\n"
        for r in (1, 2)
    )
    log += "2026-12-04 18:29:55,313 INFO 15470 [rank 0] fetching the corpus from the mirror\n"
    log += "".join(
        f"2026-12-04 18:29:5{6 + n},314 WARNING 15470 [rank 0] corpus.gz: sha256 e54b3fc16787 != pinned"
        f" 4f0b6c1f3d2e, attempt {n + 1}, retrying in 1.0s\n"
        for n in range(3)
    )
    log += "".join(
        f"[rank{r}]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78]"
        f" Timed out waiting 15000ms for recv operation to complete\n"
        for r in (1, 2)
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 0)
    assert "attempt 1, retrying" in root.text


def test_a_rank_stating_another_parameter_count_than_its_agreeing_peers_is_named_whatever_else_differs() -> (
    None
):
    """Two trials of a sweep run side by side with different settings (dropout, an auxiliary head on or
    off); only rank 2's parameter count differs from all the others' (they agree). gloo's size check on
    rank 3 received its larger gradient buffer: rank 2 is the odd one, not the reporter."""
    runs = ((3, 1, 0.3, True, 128780, 3), (2, 1, 0.3, True, 128910, 5), (1, 0, 0.1, False, 128780, 3))
    runs += ((0, 0, 0.1, False, 128780, 3),)
    log = "".join(
        f"2026-12-04 18:30:39,0{r}4 rank={r} sweep: trial {t} cfg={{'dropout': {d}, 'aux_probe': {a}}}"
        f" params={p} tensors={n}\n"
        for r, t, d, a, p, n in runs
    )
    log += (
        "terminate called after throwing an instance of 'gloo::EnforceNotMet'\n"
        "  what():  [enforce fail at /__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:456]"
        " op.preamble.length <= op.nbytes. 128912 vs 128780. Received data size doesn't match expected size."
        " Is there a distributed collective mismatch in your code?\n"
        "E1204 18:30:44.477000 16103 torch/distributed/elastic/multiprocessing/api.py:1002] failed"
        " (exitcode: -6) local_rank: 3 (pid: 16133) of binary: /usr/bin/python\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 2)


def test_a_paste_that_lost_its_line_breaks_between_rank_labelled_lines_reads_each_line() -> None:
    """torchrun's `[rank3]:` labels glued one after another on a single line (a paste that lost its line
    breaks): each label starts a line of its own, so the exception line is the root line, whole."""
    log = (
        "[rank3]:     self._make_launchers() [rank3]:   File"
        ' "/opt/envs/lib/python3.12/site-packages/torch/_inductor/runtime/triton_heuristics.py", line 573, in'
        ' _make_launchers [rank3]:     raise RuntimeError(f"No valid triton configs. {type(exc).__name__}: {exc}")'
        " [rank3]: torch._inductor.exc.InductorError: RuntimeError: No valid triton configs. OutOfMemoryError:"
        " out of resource: triton_tem_fused_0 Required: 107008 Hardware limit:101376 Reducing block sizes or"
        " `num_stages` may help.\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.entry, root.rank) == ("triton-out-of-shared-memory", 3)
    assert root.text.startswith("torch._inductor.exc.InductorError: RuntimeError: No valid triton configs.")


def test_a_library_asking_another_librarys_object_for_a_name_it_lacks_is_a_version_mismatch() -> None:
    """The traceback ends in library code that asks a library's object (`Seq2SeqTrainer`) for a public
    name this version of it does not have: the installed versions do not fit each other."""
    log = (
        "Traceback (most recent call last):\n"
        '  File "/home/u/ChatGLM2-6B/ptuning/main.py", line 411, in <module>\n'
        "    main()\n"
        '  File "/opt/conda/lib/python3.10/site-packages/transformers/trainer.py", line 1645, in train\n'
        "    return inner_training_loop(\n"
        '  File "/opt/conda/lib/python3.10/site-packages/accelerate/utils/other.py", line 88, in wrapper\n'
        "    if trainer.is_deepspeed_enabled:\n"
        "AttributeError: 'Seq2SeqTrainer' object has no attribute 'is_deepspeed_enabled'\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and root.category == "version_mismatch"


def test_a_wrappers_attribute_lookup_of_the_users_model_stays_the_users_code() -> None:
    """The same AttributeError raised by torch's module `__getattr__` is the user's model's name read
    through the DDP wrapper: not a version problem."""
    log = (
        "Traceback (most recent call last):\n"
        '  File "/home/u/train.py", line 88, in <module>\n'
        "    dim = model.head_dim\n"
        '  File "/opt/conda/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1931, in __getattr__\n'
        "    raise AttributeError(\n"
        "AttributeError: 'DistributedDataParallel' object has no attribute 'head_dim'\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and root.category == "user_code"


def test_a_device_named_in_a_form_torch_cannot_read_is_an_invalid_device() -> None:
    """`torch.device("0")` (a launcher's GPU index passed as a device string) fails to parse."""
    log = (
        "Traceback (most recent call last):\n"
        '  File "/home/u/dac/train.py", line 40, in <module>\n'
        "    model.to(args.device)\n"
        "RuntimeError: Invalid device string: '0'\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and root.category == "invalid_device"


def test_the_rank_every_other_fingerprint_check_names_is_the_odd_one() -> None:
    """Under TORCH_DISTRIBUTED_DEBUG=DETAIL each rank compares its collective with one peer's: ranks 0
    and 2 both name rank 1 (shape [7] where they run [6]); rank 1 can only name one of them."""

    def fingerprint(shape: int) -> str:
        return f"CollectiveFingerPrint(SequenceNumber=0, OpType=ALLREDUCE, TensorShape=[{shape}], TensorDtypes=Double)"

    log = "".join(
        f"[rank{me}]: RuntimeError: Detected mismatch between collectives on ranks. Rank {me} is running collective:"
        f" {fingerprint(7 if me == 1 else 6)}, but Rank {peer} is running collective: {fingerprint(7 if peer == 1 else 6)}."
        " Collectives differ in the following aspects: \t Tensor Tensor shapes: 7vs 6\n"
        for me, peer in ((1, 0), (0, 1), (2, 1))
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 1)
    assert root.text.startswith(
        "RuntimeError: Detected mismatch between collectives on ranks. Rank 1 is running"
    )


# --- classes found in the fortieth session -----------------------------------------------------------


def test_a_watchdogs_rank_inside_a_smaller_group_is_not_another_rank_of_the_job() -> None:
    """Global rank 7 (`[rank7]:`) times out as rank 1 of a sequence-parallel group (`PG ID 2`); rank 0,
    seen only in the default group hearing of the dump, may not be in that group: no straggler named."""
    log = (
        "[rank7]:[E226 16:00:37.342220332 ProcessGroupNCCL.cpp:685] [Rank 1] Watchdog caught collective operation"
        " timeout: WorkNCCL(SeqNum=262, OpType=ALLTOALL, NumelIn=4493312, NumelOut=4493312, Timeout(ms)=1800000)"
        " ran for 1800082 milliseconds before timing out.\n"
        "[rank7]:[E226 16:00:37.342550291 ProcessGroupNCCL.cpp:2252] [PG ID 2 PG GUID 6(mesh_sp) Rank 1]  failure"
        " detected by watchdog at work sequence id: 262 PG status: last enqueued work: 265, last completed work: 261\n"
        "[rank0]:[E226 16:00:37.807344500 ProcessGroupNCCL.cpp:1806] [PG ID 0 PG GUID 0(default_pg) Rank 0] Observed"
        " flight recorder dump signal from another rank via TCPStore.\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", None)
    assert "Watchdog caught collective operation timeout" in root.text


def test_a_silent_rank_of_the_default_group_is_still_the_straggler() -> None:
    """The guard of the rule above: ranks 0-2 time out in the job's default group and rank 3 prints
    nothing after its start: it is the one they waited for."""
    log = "".join(
        f"[rank{rank}]:[E226 16:00:37.34222 ProcessGroupNCCL.cpp:685] [PG ID 0 PG GUID 0(default_pg) Rank {rank}]"
        " Watchdog caught collective operation timeout: WorkNCCL(SeqNum=40, OpType=ALLREDUCE, NumelIn=10,"
        " NumelOut=10, Timeout(ms)=600000) ran for 600010 milliseconds before timing out.\n"
        for rank in range(3)
    )
    log = "[rank3]: step 0 starting\n" + log
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 3)


def test_the_rank_the_others_name_in_a_fingerprint_mismatch_stays_named_when_its_own_names_a_peer() -> None:
    """Rank 2 runs ALLREDUCE where ranks 0, 1 and 3 run ALLGATHER; each of them names rank 2, and rank
    2's own message (first in the log) names rank 0: the message names two ranks, the others agree."""

    def fingerprint(op: str) -> str:
        return (
            f"CollectiveFingerPrint(SequenceNumber=11, OpType={op}, TensorShape=[16, 32], TensorDtypes=Float)"
        )

    log = "".join(
        f"[rank{me}]: RuntimeError: Detected mismatch between collectives on ranks. Rank {me} is running collective:"
        f" {fingerprint('ALLREDUCE' if me == 2 else 'ALLGATHER')}, but Rank {peer} is running collective:"
        f" CollectiveFingerPrint(SequenceNumber=0OpType={'SCATTER' if me == 2 else 'GATHER'}).Collectives differ in"
        " the following aspects: \t Sequence number: 11vs 0\n"
        for me, peer in ((2, 0), (1, 2), (3, 2), (0, 2))
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 2)


def test_the_interpreter_refusing_to_open_the_script_is_the_launch_command_not_a_rank() -> None:
    """`python: can't open file 'main.py--cfg'` (a flag glued to the script's name): the program never
    ran; every rank runs that command, so no rank is at fault and it is not the training code's error."""
    log = (
        "/root/miniconda3/bin/python: can't open file 'main_simmim.py--cfg': [Errno 2] No such file or directory\n"
        "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 2) local_rank: 0 (pid: 1986) of"
        " binary: /root/miniconda3/bin/python\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("other", None)
    assert "can't open file 'main_simmim.py--cfg'" in root.text


def test_a_strategy_the_operating_system_cannot_run_is_unsupported() -> None:
    log = (
        "Traceback (most recent call last):\n"
        '  File "C:\\\\work\\\\train.py", line 30, in <module>\n'
        "    trainer.fit(model)\n"
        "ValueError: You selected `Trainer(strategy='ddp_fork')` but process forking is not supported on this"
        " platform. We recommend `Trainer(strategy='ddp_spawn')` instead.\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and root.category == "backend_unsupported"


def test_a_replicas_error_whose_own_traceback_is_cut_is_not_pinned_on_the_reraise() -> None:
    """DataParallel re-raises a replica's AssertionError through torch's `reraise`; the replica's own
    traceback ends where torch called the user's module: where it raised is not shown, and torch's
    re-raise is not where an assertion failed."""
    log = (
        "Traceback (most recent call last):\n"
        '  File "main.py", line 51, in main\n'
        "    loss = model.forward(images1, images2)\n"
        '  File "/env/lib/python3.8/site-packages/torch/nn/parallel/data_parallel.py", line 161, in forward\n'
        "    outputs = self.parallel_apply(replicas, inputs, kwargs)\n"
        '  File "/env/lib/python3.8/site-packages/torch/_utils.py", line 428, in reraise\n'
        "    raise self.exc_type(msg)\n"
        "AssertionError: Caught AssertionError in replica 0 on device 0.\n"
        "Original Traceback (most recent call last):\n"
        '  File "/env/lib/python3.8/site-packages/torch/nn/parallel/parallel_apply.py", line 61, in _worker\n'
        "    output = module(*input, **kwargs)\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and root.category == "user_code"
    assert not any("_utils.py" in reason for reason in root.why)


def test_a_frame_line_as_long_as_the_longest_is_not_a_terminals_wrap() -> None:
    """Every rank prints the same traceback; its frame lines are the longest lines, each followed by its
    indented code line: that is a traceback, not lines a terminal cut at that width."""
    path = "/ruiyan/yuhao/project/FMBC/dinov2/dinov2/train/train.py"
    one = (
        "Traceback (most recent call last):\n"
        f'  File "{path}", line 322, in <module>\n'
        "    main(args)\n"
        f'  File "{path}", line 317, in main\n'
        "    do_train(cfg, model, resume=not args.no_resume)\n"
        f'  File "{path}", line 279, in do_train\n'
        "    raise AssertionError\n"
        "AssertionError\n"
    )
    root = explain_text(one * 4).root_cause
    assert root is not None and root.user_frame is not None
    assert (root.user_frame.function, root.user_frame.code) == ("do_train", "raise AssertionError")
    assert root.text == "AssertionError at `raise AssertionError`"


def test_a_library_object_taken_for_a_dict_is_a_mistake_of_the_code_not_a_version() -> None:
    """`getattr(self, 'accelerator', {}).get('model')`: asking an object for a dict's method is code that
    took it for a dict, not an API that moved between versions."""
    log = (
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/home/u/gpu.py", line 125, in <module>\n'
        "[rank0]:     trainer.train()\n"
        '[rank0]:   File "/env/lib/python3.10/site-packages/unsloth/trainer.py", line 468, in new_training_step\n'
        "[rank0]:     ref = getattr(self, 'accelerator', {}).get('model', None)\n"
        "[rank0]: AttributeError: 'Accelerator' object has no attribute 'get'\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and root.category == "user_code"


def test_a_vanished_ranks_memory_that_grew_by_three_quarters_is_a_climb() -> None:
    """Rank 1's resident memory rose from 311 MB to 551 MB (1.8 times) while rank 0's stayed flat, then
    rank 1 vanished without an error and rank 0 lost its connection: most likely the host's OOM killer."""
    log = "".join(
        f"[rank {rank}] step {step} loss=2.47 rss={rss}MB\n"
        for step, pair in zip((0, 10, 20, 30), ((303, 311), (305, 431), (306, 471), (308, 551)), strict=True)
        for rank, rss in enumerate(pair)
    )
    log += (
        "[rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553]"
        " Connection closed by peer [127.0.0.1]:62136. This is typically caused by a remote worker crashing.\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 1)
    assert root.text.endswith("step 30 loss=2.47 rss=551MB")


def test_cudas_pinned_host_allocator_running_out_is_the_hosts_memory() -> None:
    """THC's `cuda runtime error (2) : out of memory` raised by the caching host allocator: page-locked
    memory of the host (a data loader's pinned buffers), not the GPU's."""
    log = (
        "RuntimeError: cuda runtime error (2) : out of memory at /workspace/build/src/aten/src/THC/"
        "THCCachingHostAllocator.cpp:301\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and root.category == "oom_host"


# --- classes found in the forty-first session -------------------------------------------------------


def test_a_fault_the_knowledge_base_calls_the_machines_names_no_rank() -> None:
    """Every mpirun rank on one host repeats Open MPI's refused cross-memory read (`errno = 1`, a
    container without ptrace rights): the entry's scope is the machine, so no rank is named, and a
    refused read is the sandbox's doing, not a backend that lacks something."""
    log = "".join(
        f"[1,{rank}]<stderr>:[8311b4012d34:15393{rank}] Read -1, expected 131072, errno = 1\n"
        for rank in (5, 7, 3, 6)
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("other", None)
    assert root.entry == "openmpi-cma-read-not-permitted"


def test_a_machine_fault_on_one_rank_while_another_got_further_keeps_that_rank() -> None:
    """The guard of the rule above: rank 1 cannot create NCCL's shared-memory segment while rank 0 is
    already waiting in its collective: rank 1's own path met the fault first, so it stays named."""
    log = (
        "[rank1]: torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled system"
        " error, NCCL version 2.20.5\n"
        "[rank1]: Error while creating shared memory segment /dev/shm/nccl-h1Xc2a (size 9637888)\n"
        "[rank0]:[E1205 10:00:00.000000000 ProcessGroupNCCL.cpp:685] [Rank 0] Watchdog caught collective operation"
        " timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for"
        " 600010 milliseconds before timing out.\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and root.category == "oom_host" and root.rank == 1


def test_nccls_check_of_a_list_collectives_element_count_is_a_buffer_of_the_wrong_size() -> None:
    """ProcessGroupNCCL refuses an all_gather whose output list holds tensors of another size than the
    input (a buffer sized for a full batch, the last batch shorter): the collective's operands do not
    fit, not the training code's own exception."""
    log = (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 108, in main\n'
        "    distributed.all_gather(_gather_labels, local_labels)\n"
        '  File "/opt/conda/lib/python3.7/site-packages/torch/distributed/distributed_c10d.py", line 1863, in all_gather\n'
        "    work = default_pg.allgather([tensor_list], [tensor])\n"
        "RuntimeError: All tensor operands to scatter/gather must have the same number of elements\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and root.category == "collective_mismatch"
    assert root.entry == "collective-buffer-size-invalid"


def test_cpp_terminate_without_an_exception_is_a_verdict_not_silence() -> None:
    """Two processes abort with `terminate called without an active exception` (a native thread
    outlived its owner) and print nothing else: that is a failure, of no one rank."""
    log = (
        "[SPARSE] Conv backend: flex_gemm; Attention backend: flash_attn\n" * 2
        + "terminate called without an active exception\n" * 2
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("other", None)
    assert root.entry == "cpp-terminate-without-exception"


def test_a_vanished_ranks_memory_reading_counts_when_a_line_of_another_shape_follows_it() -> None:
    """Rank 1 reads its resident memory every refit (381, 512, 636 MB) and prints a count line after
    each; it vanishes, and rank 0 loses the connection: the climb is in its last size reading, not in
    its very last line."""
    rank1 = [
        "start rss=223MB refit_rank=1",
        "step 25 refit on 204800 vectors reservoir=50MB rss=381MB",
        "step 25 codes_used=104/256",
        "step 50 refit on 409600 vectors reservoir=100MB rss=512MB",
        "step 50 codes_used=131/256",
        "step 75 refit on 614400 vectors reservoir=150MB rss=636MB",
        "step 75 codes_used=133/256",
    ]
    log = "".join(f"[rank1]: [rank 1] {line}\n" for line in rank1) + (
        "[rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:537] Read error"
        " [127.0.0.1]:2721: Connection reset by peer\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 1)
    assert "rss=636MB" in root.text


def test_cudnn_finding_no_engine_for_a_convolution_is_a_cuda_failure() -> None:
    """torch's cuDNN v8 path raises `GET was unable to find an engine to execute this computation` when
    cuDNN has no engine for the convolution it was asked for: a failure of CUDA's library, not the
    training code's exception."""
    log = (
        "Traceback (most recent call last):\n"
        '  File "scripts/train.py", line 240, in main\n'
        "    booster.backward(loss=loss, optimizer=optimizer)\n"
        '  File "/opt/conda/lib/python3.9/site-packages/torch/autograd/__init__.py", line 200, in backward\n'
        "    Variable._execution_engine.run_backward(\n"
        "RuntimeError: GET was unable to find an engine to execute this computation\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and root.category == "cuda_error"


def test_a_traceback_cut_off_at_the_scripts_barrier_is_a_wait_not_its_own_error() -> None:
    """Every rank warns that its store socket failed while waiting, and one rank's traceback is cut
    off at the script's `accelerator.wait_for_everyone()`: a barrier carries no data, so the rank was
    waiting for its peers, not failing in its own code."""
    log = "".join(
        f"[rank{rank}]:[W915 17:32:18.928929035 socket.cpp:428] [c10d] While waitForInput, poolFD failed with"
        " (errno: 0 - Success).\n"
        for rank in (1, 4, 2, 3, 5)
    ) + (
        "[rank3]: Traceback (most recent call last):\n"
        '[rank3]:   File "/home/project/sd-scripts/flux_train.py", line 905, in <module>\n'
        "[rank3]:     train(args)\n"
        '[rank3]:   File "/home/project/sd-scripts/flux_train.py", line 193, in train\n'
        "[rank3]:     accelerator.wait_for_everyone()\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and root.category == "collective_timeout"


def test_a_traceback_cut_off_inside_the_librarys_barrier_keeps_nccls_own_report() -> None:
    """The guard of the rule above: cut off inside torch's `barrier`, after NCCL's warning of why it
    failed: NCCL's report stays the root."""
    log = (
        "host:41367:41367 [1] enqueue.cc:422 NCCL WARN Error : no algorithm/protocol available\n"
        "Traceback (most recent call last):\n"
        '  File "pretrain_gpt.py", line 120, in <module>\n'
        "    torch.distributed.barrier()\n"
        '  File "/opt/conda/lib/python3.8/site-packages/torch/distributed/distributed_c10d.py", line 2654, in barrier\n'
        "    work = default_pg.barrier()\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and root.category == "nccl_error"


def test_an_mpi_abort_report_is_read_wherever_it_stands_in_a_long_log() -> None:
    """Open MPI's `MPI_ABORT was invoked on rank 2 ... with errorcode 1.` followed by more output than
    the few last lines always read: the report is still found (it was read only at a log's end)."""
    log = (
        " MPI_ABORT was invoked on rank 2 in communicator MPI COMMUNICATOR 5 DUP FROM 0\n"
        "with errorcode 1.\n"
        "NOTE: invoking MPI_ABORT causes Open MPI to kill all MPI processes.\n" + "\n" * 200
    )
    root = explain_text(log).root_cause
    assert root is not None and root.rank == 2


# --- classes found in the forty-second session ------------------------------------------------------


def _stdout_dir(root: Path, stdout: dict[int, str]) -> Path:
    """A torchrun `--log-dir` folder of one attempt in which each rank printed only to stdout (the
    folder, returned): what torchrun keeps when no process printed an error."""
    run = root / "run" / "attempt_0"
    for rank, text in stdout.items():
        (run / str(rank)).mkdir(parents=True, exist_ok=True)
        (run / str(rank) / "stdout.log").write_text(text)
        (run / str(rank) / "stderr.log").write_text("")
    return run


def _ended_without_a_word(run: Path) -> bool:
    """Whether explain reads a folder of per-rank files as processes that ended without a word and names
    no rank: its verdict when no error was printed, no rank says it finished and nothing pins the stop
    on one rank (a likely kill, low confidence)."""
    root = explain_paths([str(run)]).root_cause
    return (
        root is not None
        and (root.category, root.rank, root.confidence) == ("oom_host", None, "low")
        and root.headline.startswith("no process printed an error or said it finished")
    )


def _cache_lines(rank: int, sizes: Iterable[float]) -> str:
    return "".join(
        f"[rank {rank}] teacher pass {3 * (i + 1)}/12 host cache {size} GiB\n" for i, size in enumerate(sizes)
    )


def test_a_log_dir_whose_one_rank_stops_at_an_outsized_memory_reading_is_a_likely_host_oom(
    tmp_path: Path,
) -> None:
    """No process printed an error and the folder keeps no launcher output, but rank 3's output stops
    at a host cache three times the largest its peers ever read in that line: it vanished taking that
    memory (the kernel's out-of-memory killer), said with low confidence, never "No failure found"."""
    run = _stdout_dir(
        tmp_path,
        {
            0: _cache_lines(0, (9.5, 15.5)),
            1: _cache_lines(1, (9.5, 15.5)),
            2: _cache_lines(2, (12.5,)),
            3: _cache_lines(3, (27.5, 51.5)),
        },
    )
    report = explain_paths([str(run)])
    root = report.root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 3)
    assert root.text == "teacher pass 6/12 host cache 51.5 GiB"
    assert root.confidence == "low" and int(report.exit_code()) == 1


def test_a_log_dir_whose_ranks_read_alike_sizes_names_no_rank_and_finished_is_no_failure(
    tmp_path: Path,
) -> None:
    """The guards of the rule above: sizes that differ less than twofold between ranks name no rank (the
    processes ended without a word); a rank whose last line says it finished is a healthy run's files, and
    so is one rank's outsized reading in a single console capture, where the launcher would have reported
    a death."""
    alike = _stdout_dir(tmp_path / "alike", {r: _cache_lines(r, (9.5, 15.5 + r)) for r in range(4)})
    assert _ended_without_a_word(alike)
    done = {r: _cache_lines(r, (9.5, 15.5)) + f"[rank {r}] training finished\n" for r in range(3)}
    done[3] = _cache_lines(3, (27.5, 51.5)) + "[rank 3] training finished\n"
    assert explain_paths([str(_stdout_dir(tmp_path / "done", done))]).root_cause is None
    # Rank 0 alone says it finished (`if rank == 0: print(...)`): its peer did not stop short of it.
    only = {
        r: _cache_lines(r, (9.5, 15.5)) + ("[rank 0] training finished\n" if r == 0 else "") for r in range(2)
    }
    assert explain_paths([str(_stdout_dir(tmp_path / "only", only))]).root_cause is None
    console = "".join(_cache_lines(r, (9.5, 51.5 if r == 3 else 15.5)) for r in range(4))
    assert explain_text(console).root_cause is None


def test_srun_labels_padded_to_one_width_are_read_when_the_first_lost_its_pad() -> None:
    """`srun --label` pads task numbers to the widest (` 4: ` among `12: `); an excerpt whose first line
    lost that space still reads as labelled, so task 0's traceback keeps its exception line instead of
    being read as cut off inside task 4's; a tensor-parallel size the attention heads do not divide is
    a check of the job's layout that every task fails alike (`other`, no rank)."""
    log = "4: Traceback (most recent call last):\n" + "".join(
        f" 0: {line}\n"
        for line in (
            '  File "/usr/local/lib/python3.12/dist-packages/nemo/lightning/_strategy_lib.py", line 171, in set_model_parallel_attributes',
            "    config.__post_init__()",
            '  File "/usr/local/lib/python3.12/dist-packages/megatron/core/transformer/transformer_config.py", line 464, in __post_init__',
            "    raise ValueError(",
            "ValueError: num_attention_heads (15) must be a multiple of tensor_model_parallel_size (2).",
        )
    )
    root = explain_text(log).root_cause
    assert root is not None and root.text.startswith("ValueError: num_attention_heads (15)")
    assert (root.category, root.rank) == ("other", None)


def test_a_rust_backtrace_is_not_read_as_srun_labels() -> None:
    """The guard of the rule above: a Rust panic's backtrace frames (`   0: std::...`) are indented by
    more than srun's one space of padding, so their numbers are not ranks."""
    log = (
        "thread 'main' panicked at src/main.rs:10:5:\nindex out of bounds: the len is 3 but the index is 7\n"
        + "".join(f"  {n:>2}: frame_{n}::call\n             at src/lib.rs:{n}:1\n" for n in range(6))
    )
    root = explain_text(log).root_cause
    assert root is not None and root.rank is None


def test_a_launchers_report_of_the_one_trainer_that_was_aborted_names_its_rank() -> None:
    """PaddlePaddle's launcher prints which trainer died (`the trainer process with rank=[1] was
    aborted`) and nothing else says: that trainer's rank; a list of every trainer names none."""
    line = (
        "ERROR 2021-08-26 07:33:44,620 launch_utils.py:584] ABORT!!! Out of all {n} trainers, the trainer"
        " process with rank=[{ranks}] was aborted. Please check its log.\n"
    )
    root = explain_text(line.format(n=2, ranks="1")).root_cause
    assert root is not None and root.rank == 1
    root = explain_text(line.format(n=4, ranks="0, 1, 2, 3")).root_cause
    assert root is not None and root.rank is None


# --- classes found in the forty-third session -------------------------------------------------------


def test_a_log_dir_whose_one_rank_stops_at_an_outsized_count_of_items_is_a_likely_host_oom(
    tmp_path: Path,
) -> None:
    """Each rank announces the index table it is about to build and nothing more is written: rank 2's
    table is a hundred times its peers' (`118355032 indices` where they build about a million). It
    vanished building it (low confidence), never "No failure found"; counts alike, or a step counter,
    name no rank."""

    def line(rank: int, count: int) -> str:
        return f"2026-12-05 12:15:03,357 | rank {rank}/4 | INFO | building sample order: 32 epochs x {count} indices\n"

    counts = {0: 1_204_113, 1: 1_187_920, 2: 118_355_032, 3: 1_199_004}
    run = _stdout_dir(tmp_path / "outsized", {r: line(r, n) for r, n in counts.items()})
    report = explain_paths([str(run)])
    root = report.root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 2)
    assert root.text.endswith("32 epochs x 118355032 indices") and root.confidence == "low"
    assert "118355032 indices" in " ".join(root.why) and int(report.exit_code()) == 1
    alike = _stdout_dir(tmp_path / "alike", {r: line(r, 1_200_000 + 9_000 * r) for r in range(4)})
    assert _ended_without_a_word(alike)
    steps = {r: f"[rank {r}] step {40 if r == 2 else 4} 320 samples seen\n" for r in range(4)}
    assert _ended_without_a_word(_stdout_dir(tmp_path / "steps", steps))


def _lost_peer_traceback(rank: int, port: int) -> str:
    frames = (
        'Traceback (most recent call last):\n  File "/srv/asr/train.py", line 87, in <module>\n    main()\n'
        '  File "/srv/asr/train.py", line 79, in main\n    loss.backward()\n'
        f'  File "{SITE}/torch/_tensor.py", line 623, in backward\n    torch.autograd.backward(\n'
        "RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection"
        f" closed by peer [127.0.0.1]:{port}. This is typically caused by a remote worker crashing.\n"
    )
    return "".join(f"[default{rank}]:[rank{rank}]: {text}\n" for text in frames.splitlines())


def _torchrun_abort_table(first: int, stopped: Iterable[int]) -> str:
    rows = "".join(
        f"[{r}]:\n  time      : 2026-12-05_12:11:56\n  host      : node0\n  rank      : {r} (local_rank: {r})\n"
        f"  exitcode  : -15 (pid: {14700 + r})  (SIGTERM)\n  error_file: <N/A>\n"
        f"  traceback : Signal 15 (SIGTERM) received by PID {14700 + r}\n"
        for r in stopped
    )
    return (
        f"E1205 12:11:56.017000 14716 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -6)"
        f" local_rank: {first} (pid: {14700 + first}) of binary: /usr/bin/python\n"
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
        "============================================================\ntrain.py FAILED\n"
        "------------------------------------------------------------\nFailures:\n"
        + rows
        + "----------------"
        "--------------------------------------------\nRoot Cause (first observed failure):\n"
        f"[{first}]:\n  time      : 2026-12-05_12:11:55\n  host      : node0\n  rank      : {first} (local_rank:"
        f" {first})\n  exitcode  : -6 (pid: {14700 + first})  (SIGABRT)\n  error_file: <N/A>\n"
        f"  traceback : Signal 6 (SIGABRT) received by PID {14700 + first}\n"
    )


def test_a_rank_that_logged_its_own_error_where_it_parted_from_its_peers_is_the_cause() -> None:
    """torchrun's `--tee` capture: rank 1 logs an ERROR record of its own (`nothing to train on`) and
    leaves; its peers lose it in backward, and torchrun, which saw rank 0 abort first, lists rank 1 as
    stopped by SIGTERM. Rank 1's record is the root line (`user_code`, its own check) and the headline
    quotes it; a WARNING that quotes an errno while the rank retries is not such a record."""
    log = (
        "[default1]:[2026-12-05 12:11:55,318][rank 1][cy][INFO] epoch 0: 37 utterances -> 0 full batches\n"
        "[default1]:[2026-12-05 12:11:55,319][rank 1][cy][ERROR] bucket sampler yielded no batches for cy;"
        " nothing to train on\n"
        "[default2]:[2026-12-05 12:11:55,319][rank 2][de][INFO] epoch 0: 410 utterances -> 21 full batches\n"
        "[default0]:[2026-12-05 12:11:55,326][rank 0][en][INFO] epoch 0: 480 utterances -> 27 full batches\n"
        + _lost_peer_traceback(0, 42392)
        + _lost_peer_traceback(2, 20203)
        + "[default0]:terminate called without an active exception\n"
        + _torchrun_abort_table(0, (1, 2))
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 1)
    assert root.text.endswith("nothing to train on") and root.entry is None
    assert root.headline.startswith("rank 1: bucket sampler yielded no batches for cy")
    warned = log.replace(
        "[ERROR] bucket sampler yielded no batches for cy; nothing to train on",
        "[WARNING] metrics push failed: [Errno 111] Connection refused; retrying in 0.5s",
    )
    root = explain_text(warned).root_cause
    assert root is not None and root.rank == 1 and root.category not in ("user_code", "rendezvous")


def test_a_monitored_barrier_report_naming_the_rank_a_step_apart_is_the_root_line() -> None:
    """Ranks 0, 1 and 3 wait in `monitored_barrier` while rank 2 is still in an `all_reduce`: the
    tracebacks say rank 2 is a step apart, and rank 0's report names it (`Rank 2 failed to pass
    monitoredBarrier`). That report is the root line, whichever traceback the capture shows first."""

    def tb(rank: int, op: str, message: str) -> str:
        text = (
            'Traceback (most recent call last):\n  File "/srv/rec/train.py", line 91, in <module>\n    main()\n'
            f'  File "/srv/rec/train.py", line {80 if op == "all_reduce" else 85}, in main\n    dist.{op}(t)\n'
            f'  File "{SITE}/torch/distributed/distributed_c10d.py", line 2501, in {op}\n    work.wait()\n'
            f"RuntimeError: {message}\n"
        )
        return "".join(f"[default{rank}]:[rank{rank}]: {line}\n" for line in text.splitlines())

    recv = "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 15000ms for recv operation to complete"
    log = (
        tb(2, "all_reduce", recv)
        + "[default0]:[rank0]:[E1205 12:13:48.574723493 ProcessGroupGloo.cpp:67] [Rank 0]: Rank 2 failed to pass"
        " monitoredBarrier in 15000 ms\n"
        + tb(0, "monitored_barrier", "[Rank 0]: Rank 2 failed to pass monitoredBarrier in 15000 ms")
        + "".join(
            tb(
                r,
                "monitored_barrier",
                f"Rank {r} successfully reached monitoredBarrier, but received errors while"
                " waiting for send/recv from rank 0. Please check rank 0 logs for faulty rank.",
            )
            for r in (1, 3)
        )
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 2)
    assert "Rank 2 failed to pass monitoredBarrier" in root.text


def test_a_collective_that_raised_that_it_timed_out_is_a_timeout_whatever_its_words() -> None:
    """Older gloo builds raise `RuntimeError: Operation timed out!` from the collective's `work.wait()`:
    a collective's timeout on that rank (a symptom), not the training code's error; the noun in
    `init_process_group`'s type check (`timeout argument`) says nothing timed out."""

    def tb(function: str, message: str) -> str:
        return (
            "Traceback (most recent call last):\n"
            '  File "/espnet/espnet2/train/trainer.py", line 384, in train_one_epoch\n'
            "    torch.distributed.all_reduce(iterator_stop, ReduceOp.SUM)\n"
            f'  File "{SITE}/torch/distributed/distributed_c10d.py", line 911, in {function}\n'
            "    work.wait()\n"
            f"{message}\n"
        )

    root = explain_text(tb("all_reduce", "RuntimeError: Operation timed out!")).root_cause
    assert root is not None and root.category == "collective_timeout"
    message = "TypeError: Expected timeout argument to be of type datetime.timedelta, got 1800"
    root = explain_text(tb("init_process_group", message)).root_cause
    assert root is not None and root.category != "collective_timeout"


def test_a_refused_connection_while_a_worker_shares_a_batch_is_the_data_loader() -> None:
    """A headerless excerpt through `multiprocessing/resource_sharer.py`: the main process fetching a
    worker's batch by file descriptor was refused (too many open files, the sharing strategy), a data
    loading failure, not a rendezvous."""
    log = (
        f'  File "{SITE}/torch/multiprocessing/reductions.py", line 282, in rebuild_storage_fd\n'
        "    fd = df.detach()\n"
        '  File "/usr/lib/python3.10/multiprocessing/resource_sharer.py", line 86, in get_connection\n'
        "    c = Client(address, authkey=process.current_process().authkey)\n"
        '  File "/usr/lib/python3.10/multiprocessing/connection.py", line 614, in SocketClient\n'
        "    s.connect(address)\n"
        "ConnectionRefusedError: [Errno 111] Connection refused\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and root.category == "dataloader"


def test_a_sampler_constructor_refusing_the_scripts_arguments_is_the_scripts_call() -> None:
    """`WeightedRandomSampler(weights, num_samples=0)` raises in the sampler's `__init__`, called by the
    script: the script's call (`user_code`); the same kind of error raised while the DataLoader fetched
    a batch is the data pipeline's."""
    constructed = (
        "[rank1]: Traceback (most recent call last):\n"
        '[rank1]:   File "/srv/fraud/train.py", line 43, in main\n'
        "[rank1]:     sampler = WeightedRandomSampler(weights, num_samples=n, replacement=True)\n"
        f'[rank1]:   File "{SITE}/torch/utils/data/sampler.py", line 256, in __init__\n'
        "[rank1]:     raise ValueError(\n"
        "[rank1]: ValueError: num_samples should be a positive integer value, but got num_samples=0\n"
    )
    root = explain_text(constructed).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 1)
    iterated = constructed.replace(
        "sampler = WeightedRandomSampler(weights, num_samples=n, replacement=True)",
        "for batch in loader:",
    ).replace(
        f'{SITE}/torch/utils/data/sampler.py", line 256, in __init__',
        f'{SITE}/torch/utils/data/sampler.py", line 282, in __iter__',
    )
    root = explain_text(iterated).root_cause
    assert root is not None and root.category == "dataloader"


def test_an_operator_given_a_dtype_it_takes_no_kernel_for_is_the_scripts_call() -> None:
    """`torch.bincount` on a float tensor (`"bincount_cpu" not implemented for 'Double'`): the operator
    takes no such dtype anywhere, so the script gave it the wrong tensor (`user_code`); a reduced
    precision the device has no kernel for (`'Half'` on the CPU) stays `backend_unsupported`."""
    log = (
        "[rank2]: Traceback (most recent call last):\n"
        '[rank2]:   File "/srv/emb/train.py", line 58, in main\n'
        "[rank2]:     send_counts = torch.bincount(owner, minlength=world)\n"
        "[rank2]: NotImplementedError: \"bincount_cpu\" not implemented for 'Double'\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 2)
    half = log.replace(
        "NotImplementedError: \"bincount_cpu\" not implemented for 'Double'",
        "RuntimeError: \"addmm_impl_cpu_\" not implemented for 'Half'",
    )
    root = explain_text(half).root_cause
    assert root is not None and root.category == "backend_unsupported"


# --- classes found in the forty-fourth session ------------------------------------------------------

_GLOO_RECV = (
    "RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out"
    " waiting 15000ms for recv operation to complete"
)


def _collective_timeout(rank: int, line: int) -> str:
    text = (
        'Traceback (most recent call last):\n  File "/srv/mt/train.py", line 96, in <module>\n    main()\n'
        f'  File "/srv/mt/train.py", line {line}, in main\n    dist.all_reduce(t)\n'
        f'  File "{SITE}/torch/distributed/distributed_c10d.py", line 3252, in all_reduce\n    work.wait()\n'
        f"{_GLOO_RECV}\n"
    )
    return "".join(f"[rank{rank}]: {row}\n" for row in text.splitlines())


def test_every_rank_timing_out_beside_one_rank_started_with_other_settings_is_its_mismatch() -> None:
    """Every rank of four times out in an `all_reduce` (two at one line, two at another), none named;
    rank 2 alone announced another list of tasks at start-up (`tasks=cls` where its peers say
    `tasks=cls,reg`): it runs other collectives than they do, a `collective_mismatch` of rank 2. When
    every rank announced the same tasks, nothing names a rank: a timeout of the job."""

    def run(tasks: dict[int, str]) -> str:
        started = "".join(
            f"2026-12-05 14:31:41,6{r}4 rank={r} tasks={t} params=1734\n" for r, t in tasks.items()
        )
        return started + "".join(_collective_timeout(r, 65 if r in (0, 2) else 57) for r in range(4))

    root = explain_text(run({0: "cls,reg", 1: "cls,reg", 2: "cls", 3: "cls,reg"})).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 2)
    assert any("tasks=cls params=1734" in reason for reason in root.why)
    root = explain_text(run(dict.fromkeys(range(4), "cls,reg"))).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", None)


def test_a_vanished_rank_whose_last_line_reads_a_large_allocation_is_a_likely_host_oom(
    tmp_path: Path,
) -> None:
    """A `--log-dir` folder: rank 1 lost its connection in a barrier, rank 0 printed no error and its
    output stops at `consolidating ... (32.2 GiB host buffer)`, a size no peer ever read: it vanished
    making that allocation (the kernel's out-of-memory killer, likely), and that line is the root. A
    small reading (`0.4 GiB`) there says nothing of memory: the rank went away of an unknown cause."""

    def run(root: Path, size: str) -> Path:
        folder = _stdout_dir(
            root,
            {
                0: f"[rank 0] step 8 loss 1.08\n[rank 0] step 8: consolidating fp32 master weights ({size} host buffer)\n",
                1: "[rank 1] step 8 loss 1.13\n",
            },
        )
        lost = (
            "RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:537] Read error"
            " [127.0.0.1]:30631: Connection reset by peer."
        )
        (folder / "1" / "stderr.log").write_text(
            _lost_peer_traceback(1, 30631).replace("[default1]:", "").rsplit("RuntimeError", 1)[0]
            + lost
            + "\n"
        )
        return folder

    def reads_allocation(root: RootCause) -> bool:
        return any("far more than its peers ever read" in reason for reason in root.why)

    root = explain_paths([str(run(tmp_path / "large", "32.2 GiB"))]).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 0)
    assert root.text.endswith("(32.2 GiB host buffer)") and reads_allocation(root)
    # A small reading is no allocation to name: the rank is a likely kill only for vanishing without a word.
    root = explain_paths([str(run(tmp_path / "small", "0.4 GiB"))]).root_cause
    assert root is not None and root.rank == 0 and not reads_allocation(root)


def _store_barrier_failure(rank: int, missing: str) -> str:
    text = (
        'Traceback (most recent call last):\n  File "/srv/ckpt/train.py", line 36, in store_barrier\n'
        '    store.wait([f"{tag}/done"], timeout)\n'
        "torch.distributed.DistStoreError: wait timeout after 15000ms, keys: /default_pg/0//ckpt/step20/done\n"
        "\nThe above exception was the direct cause of the following exception:\n\n"
        'Traceback (most recent call last):\n  File "/srv/ckpt/train.py", line 88, in <module>\n    main()\n'
        '  File "/srv/ckpt/train.py", line 39, in store_barrier\n    raise RuntimeError(f"store barrier ...")\n'
        f"RuntimeError: store barrier 'ckpt/step20' timed out after 15s{missing}\n"
    )
    return "".join(f"[rank{rank}]: {row}\n" for row in text.splitlines())


def test_a_scripts_barrier_that_names_the_missing_rank_over_a_store_timeout_names_it() -> None:
    """Ranks 0, 2 and 3 wait on the store in the script's own barrier; the script re-raises the store's
    timeout naming who never arrived (`missing ranks [1]`): rank 1 is the straggler (a
    `collective_timeout`) and that re-raise is the root line, not the store's own words or rank 1's
    later gloo timeout. Without the naming, nothing names rank 1."""
    log = "".join(_store_barrier_failure(r, "; missing ranks [1]") for r in (0, 2, 3)) + _collective_timeout(
        1, 80
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 1)
    assert root.text.endswith("timed out after 15s; missing ranks [1]")
    unnamed = "".join(_store_barrier_failure(r, "") for r in (0, 2, 3))
    root = explain_text(unnamed).root_cause
    assert root is not None and root.rank is None


def test_a_ranks_own_error_record_refusing_to_go_on_before_its_exit_code_is_its_account() -> None:
    """Rank 1 logs `[ERROR|rank1|resume] ... refusing to mix states` (the level in one bracketed field
    with the rank) and exits with code 3, no traceback; torchrun stops rank 0. That record is the
    root line, the script's own check (`user_code`), not torchrun's exit line."""
    log = (
        "[INFO|rank0|resume] resume step from store: 1400, local optimizer shard step: 1400\n"
        "[INFO|rank1|resume] resume step from store: 1400, local optimizer shard step: 1200\n"
        "[ERROR|rank1|resume] optimizer shard optim_r1.pt is from step 1200 but the job resumes at 1400;"
        " refusing to mix states\n"
        "W1205 13:56:14.897000 538 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 559"
        " closing signal SIGTERM\n"
        "E1205 13:56:15.013000 538 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 3)"
        " local_rank: 1 (pid: 560) of binary: /usr/bin/python\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 1)
    assert root.text.endswith("refusing to mix states")


def test_an_exported_programs_input_guard_is_the_scripts_call_with_its_own_line() -> None:
    """torch.export's program checks its input against the example it was exported with (`Guard failed:
    x.size()[0] == 8`), raised through torch.fx's generated code (`<eval_with_key>.17`): the script
    called it with another batch (`user_code`), and its own line is the one that did, not the
    generated code's. A library's own assertion stays `other`."""
    log = "".join(
        f"[rank3]: {row}\n"
        for row in (
            "Traceback (most recent call last):",
            '  File "/srv/tab/train.py", line 40, in export_and_check',
            "    got = ep.module()(chunk)",
            f'  File "{SITE}/torch/fx/graph_module.py", line 1000, in call_wrapped',
            "    return self._wrapped_call(self, *args, **kwargs)",
            '  File "<eval_with_key>.17", line 12, in forward',
            "    _guards_fn = self._guards_fn(x);  _guards_fn = None",
            '  File "<string>", line 3, in _',
            f'  File "{SITE}/torch/__init__.py", line 2279, in _assert',
            "    assert condition, message",
            "AssertionError: Guard failed: x.size()[0] == 8",
        )
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 3)
    assert root.user_frame is not None and (root.user_frame.file, root.user_frame.line) == (
        "/srv/tab/train.py",
        40,
    )
    invariant = log.replace("Guard failed: x.size()[0] == 8", "fp32 param and grad have different shape")
    root = explain_text(invariant).root_cause
    assert root is not None and root.category == "other"


def test_an_exception_in_a_thread_named_for_its_rank_is_that_ranks_though_another_rank_exited_first() -> None:
    """`Exception in thread heartbeat-rank3:` over a traceback with no rank label: the thread is rank
    3's, and so is the error. torchrun saw rank 0 exit first (its watchdog's `os._exit(3)`), but rank
    0's own ERROR record names rank 3 as it ended: the error is not every rank's, rank 3 is named. A
    thread name with no rank in it gives the traceback none."""
    thread = (
        "Exception in thread heartbeat-rank3:\nTraceback (most recent call last):\n"
        '  File "/usr/lib/python3.11/threading.py", line 1045, in _bootstrap_inner\n    self.run()\n'
        '  File "/srv/reg/train.py", line 32, in run\n    payload["last_step_ms"] = times[-1]\n'
        "IndexError: list index out of range\n"
    )
    ending = (
        "2026-12-04 09:12:48,933 rank0 ERROR watchdog: no heartbeat from rank 3 for 6.5s, aborting\n"
        "E1204 09:12:49.089000 16659 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 3)"
        " local_rank: 0 (pid: 16680) of binary: /usr/bin/python\n"
    )
    root = explain_text(
        "2026-12-04 09:12:42,679 rank2 INFO step 20 loss 9.1673\n" + thread + ending
    ).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 3)
    unnamed = thread.replace("heartbeat-rank3", "heartbeat")
    root = explain_text(unnamed).root_cause
    assert root is not None and root.rank is None


def test_an_error_code_before_each_repeated_message_is_not_a_host_label() -> None:
    """Ascend's CANN puts an error code before each message (`EI0006: ...`); a paste that repeats it
    on many lines is not a pdsh capture whose lines start with a host's name: the message stays whole
    and is found. A host name that reads like one (`nid00012: `) still labels its lines."""
    block = (
        "[W VariableFallbackKernel.cpp:51] Warning: CAUTION: The operator 'aten::isin.Tensor_Tensor_out' is not"
        " currently supported on the NPU backend and will fall back to run on the CPU.\n"
        "EI0006: 2024-08-05-18:15:21.270.506 Getting socket times out. Reason: Remote Rank did not send the"
        " data in time. Please check the reason for the rank being stuck\n\n"
    )
    root = explain_text(block * 5).root_cause
    assert root is not None and root.text.startswith("EI0006: ") and root.category == "collective_timeout"
    hosts = (
        "".join(f"nid00012: step {n} loss 0.5\n" for n in range(4))
        + "nid00012: [rank3]: "
        + _GLOO_RECV
        + "\n"
    )
    root = explain_text(hosts).root_cause
    assert root is not None and root.text.startswith("RuntimeError: ")  # the host's label peeled off


def test_the_ofi_plugins_own_warn_records_are_nccls_network_failure() -> None:
    """aws-ofi-nccl's older WARN format (`WARN: Function: create_nccl_ofi_component Line: 459: NET/OFI
    Couldn't open AV ...`) is NCCL's network transport failing (`nccl_error`), its first record the
    root, not the kernel's EFA lines after it; libfabric's provider naming a failed allocation
    (`... prov_errno: Cannot allocate memory (-12) ./prov/efa/src/rxr/rxr.h:683`) is the fabric's, not
    the host's memory."""
    log = (
        "INFO: Function: ofi_init Line: 686: NET/OFI Selected Provider is efa\n"
        "WARN: Function: create_nccl_ofi_component Line: 459: NET/OFI Couldn't open AV. RC: -22, ERROR: Invalid argument\n"
        "[ 1632.420956] infiniband efa_0: Failed to process command ALLOC_PD (opcode 14) comp_status 1 err -12\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and root.category == "nccl_error" and "Couldn't open AV" in root.text
    fabric = "Unable to write to EQ: Missing or unavailable event queue. err: Cannot allocate memory (-12) prov_errno: 12 ./prov/efa/src/rxr/rxr.h:683\n"
    root = explain_text(fabric).root_cause
    assert root is not None and root.category == "nccl_error"


def test_a_services_http_server_error_is_not_the_training_codes() -> None:
    """The trainer raises what the rollout server answered (`Server 1 failed: 500, Internal Server
    Error`): the service failed (`other`), not the script, though the script's frame raised it; the
    same frame raising its own message is `user_code`."""
    log = (
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/srv/grpo/trainer.py", line 210, in generate\n'
        "[rank0]:     raise RuntimeError(f'Multiple errors: {errors}')\n"
        "[rank0]: RuntimeError: Multiple errors: [Exception('Server 1 failed: 500, Internal Server Error')]\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("other", 0)
    own = log.replace("Server 1 failed: 500, Internal Server Error", "reward shape (4,) != (8,)")
    root = explain_text(own).root_cause
    assert root is not None and root.category == "user_code"


def test_of_two_vanished_ranks_the_one_whose_last_line_reads_an_outsized_count_is_the_likely_oom(
    tmp_path: Path,
) -> None:
    """A `--log-dir` folder: ranks 1 and 3 lost their connection; ranks 0 and 2 printed no error. Rank 2's
    last line reads `rows=1400000` where its peers read `rows=12500`: it vanished taking that on (a
    likely host OOM), and rank 0 was only stopped. With alike counts the logs cannot tell the two apart."""

    def run(root: Path, rows: int) -> Path:
        folder = _stdout_dir(
            root,
            {r: f"[rank {r}] embedding shard rows={rows if r == 2 else 12500} rss=298MB\n" for r in range(4)},
        )
        for r in (1, 3):
            (folder / str(r) / "stderr.log").write_text(
                _lost_peer_traceback(r, 35556).replace(f"[default{r}]:", "")
            )
        return folder

    root = explain_paths([str(run(tmp_path / "outsized", 1_400_000))]).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 2)
    assert root.text.endswith("rows=1400000 rss=298MB") and any("1400000 rows" in r for r in root.why)
    root = explain_paths([str(run(tmp_path / "alike", 12600))]).root_cause
    assert root is not None and root.rank is None and root.category != "oom_host"


def test_a_librarys_assertion_on_the_shape_it_was_given_is_the_scripts_call() -> None:
    """torch's attention asserts the shape of the padding mask the script built (`Expected
    key_padded_mask.shape[1] to be 48, but got 79`): the script's input (`user_code`), not the library's
    own invariant (`other`)."""
    log = "".join(
        f"[rank2]: {row}\n"
        for row in (
            "Traceback (most recent call last):",
            '  File "/srv/tts/model.py", line 41, in forward',
            "    out, _ = self.attn(x, x, x, key_padding_mask=mask)",
            f'  File "{SITE}/torch/nn/functional.py", line 6217, in multi_head_attention_forward',
            "    assert key_padding_mask.shape == (bsz, src_len)",
            "AssertionError: Expected key_padded_mask.shape[1] to be 48, but got 79",
        )
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 2)
    root = explain_text(
        log.replace("Expected key_padded_mask.shape[1] to be 48, but got 79", "bucket not ready")
    ).root_cause
    assert root is not None and root.category == "other"


@pytest.mark.parametrize(
    "line",
    [
        "2019-11-25 10:36:07.261999: E tensorflow/core/common_runtime/ring_alg.cc:279] Aborting RingGather with"
        " Internal: RecvBufResponse returned 16 bytes where to_tensor expected 32",
        "2019-09-26 10:51:21.474402: W tensorflow/core/common_runtime/base_collective_executor.cc:203]"
        " BaseCollectiveExecutor::StartAbort Internal: Instance 0 found no source for broadcast.",
    ],
    ids=["peer-buffer-size", "no-broadcast-source"],
)
def test_tensorflows_collectives_that_disagree_are_a_mismatch(line: str) -> None:
    """TensorFlow's collective executor finding a peer's buffer of another size, or a broadcast that no
    member sends: the workers' collectives disagree (`collective_mismatch`), not an internal error."""
    root = explain_text(line + "\n").root_cause
    assert root is not None and root.category == "collective_mismatch"


# --- classes found in the forty-fifth session -------------------------------------------------------


def test_a_launcher_agent_sent_a_signal_is_why_its_vanished_workers_were_lost(tmp_path: Path) -> None:
    """Two torchrun agents, one a node: ranks 0 and 1 lose their connection to a peer, ranks 2 and 3
    print no error, and node 1's agent logged `Received 15 death signal, shutting down workers`: the job
    was stopped from outside (a preemption), and that line is the root, no rank to blame. Without the
    agent's line the lost connection stays the line shown."""
    node0 = tmp_path / "node0.log"
    node0.write_text(
        "".join(f"[rank{r}]: step 40 loss 0.6\n" for r in (0, 1))
        + _lost_peer_traceback(0, 63630).replace("[default0]:", "")
        + _lost_peer_traceback(1, 8388).replace("[default1]:", "")
    )
    steps = "".join(f"[rank{r}]: step 40 loss 0.6\n" for r in (2, 3))
    signal = (
        "W1202 06:25:10.957000 4538 torch/distributed/elastic/agent/server/api.py:753] Received 15 death"
        " signal, shutting down workers\n"
    )
    node1 = tmp_path / "node1.log"
    node1.write_text(steps + signal)
    root = explain_paths([str(node0), str(node1)]).root_cause
    assert root is not None and (root.category, root.rank) == ("other", None)
    assert "Received 15 death signal" in root.text
    assert root.headline.startswith("a launcher's agent was sent signal 15 and shut its workers down")
    node1.write_text(steps)
    root = explain_paths([str(node0), str(node1)]).root_cause
    assert root is not None and "Connection closed by peer" in root.text


def test_a_log_dir_rank_that_vanished_without_a_word_is_a_likely_host_oom(tmp_path: Path) -> None:
    """A `--log-dir` folder: rank 1 lost its connection in a backward pass, rank 0 printed no error and
    its output stops at an ordinary step line. The folder keeps no record of how rank 0 ended, and a
    process that ends without a word is most often killed with SIGKILL by the out-of-memory killer:
    `oom_host`, low confidence, rank 0's last line as the root. When that last line says why it stopped
    (`refusing to step`), that is its account, the script's own (`user_code`)."""

    def run(root: Path, last: str) -> Path:
        folder = _stdout_dir(
            root, {0: f"[rank 0] step 7 loss 1.08\n{last}\n", 1: "[rank 1] step 7 loss 1.13\n"}
        )
        (folder / "1" / "stderr.log").write_text(_lost_peer_traceback(1, 30631).replace("[default1]:", ""))
        return folder

    root = explain_paths([str(run(tmp_path / "a", "[rank 0] step 8 loss 1.02"))]).root_cause
    assert root is not None and (root.category, root.rank, root.confidence) == ("oom_host", 0, "low")
    assert root.text == "step 8 loss 1.02"
    assert root.headline == (
        "rank 0 vanished without an error, most likely killed by the host's out-of-memory killer: its output"
        " stops at `step 8 loss 1.02`"
    )
    root = explain_paths(
        [str(run(tmp_path / "b", "[rank 0] step 8: loss is nan, refusing to step"))]
    ).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 0)


def test_a_log_dir_with_no_error_names_the_one_rank_whose_memory_climbed(tmp_path: Path) -> None:
    """A `--log-dir` folder in which no process printed an error (the killed rank said nothing, its
    peers were stopped before they could): every rank's output stops at step 5, rank 1's `rss` climbed
    from 490MB to 1095MB while its peers' stayed level. Rank 1 most likely vanished taking that memory
    (`oom_host`, low confidence, its last line). When two ranks climbed alike, none is named."""

    def run(root: Path, climbing: tuple[int, ...]) -> Path:
        def lines(rank: int) -> str:
            sizes = (490, 663, 791, 887, 983, 1095) if rank in climbing else (447, 504, 492, 572, 604, 604)
            return "".join(f"[rank {rank}] step {i} loss 0.99 rss {size}MB\n" for i, size in enumerate(sizes))

        return _stdout_dir(root, {rank: lines(rank) for rank in range(4)})

    root = explain_paths([str(run(tmp_path / "one", (1,)))]).root_cause
    assert root is not None and (root.category, root.rank, root.confidence) == ("oom_host", 1, "low")
    assert root.text.endswith("rss 1095MB")
    root = explain_paths([str(run(tmp_path / "two", (1, 2)))]).root_cause
    assert root is None or root.rank is None


def test_a_ranks_account_may_follow_the_line_where_it_parted_from_its_peers() -> None:
    """Rank 2 parts from its peers at `lang=fr test rows=0` (they print their own languages) and then
    says why it stops (`no test rows for lang=fr, refusing to write an empty part`) before torchrun
    reports its exit code 2: that later line is its account, the script's own check (`user_code`)."""
    steps = "".join(f"2026-12-05 18:36:16,18{r} rank={r} predict: step 40 loss 1.44\n" for r in range(3))
    langs = {0: "en", 1: "de", 2: "fr"}
    parts = "".join(
        f"2026-12-05 18:36:16,19{r} rank={r} predict: lang={langs[r]} test rows={0 if r == 2 else 160}\n"
        + (
            f"2026-12-05 18:36:16,20{r} rank={r} predict: no test rows for lang=fr, refusing to write an empty part\n"
            if r == 2
            else f"2026-12-05 18:36:16,20{r} rank={r} predict: wrote part-{langs[r]}.tsv\n"
        )
        for r in range(3)
    )
    exit_line = (
        "E1205 18:36:21.240000 5427 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 2)"
        " local_rank: 2 (pid: 5461) of binary: /usr/bin/python\n"
    )
    root = explain_text(steps + parts + exit_line).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 2)
    assert "refusing to write an empty part" in root.text


def test_a_size_mismatch_names_the_rank_whose_count_stands_far_over_its_peers() -> None:
    """gloo's size check fails on rank 0, which received a larger buffer than it expected; rank 3's own
    line before it read `45 docs` where its peers read 3 or 4: rank 3 sent the odd size
    (`collective_mismatch`, rank 3). When the counts are close (5 where they read 3 or 4), the
    reporter stays the rank named."""

    def run(odd: int) -> str:
        docs = {0: 4, 1: 3, 2: 4, 3: odd}
        steps = "".join(
            f"2026-12-05 18:32:55,79{r} [INFO] [rank{r}] step 0: {docs[r]} docs, {900 + r} tokens, loss 5.7\n"
            for r in range(4)
        )
        return steps + (
            "terminate called after throwing an instance of 'gloo::EnforceNotMet'\n  what():  [enforce fail at"
            " /__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:456] op.preamble.length <="
            " op.nbytes. 184 vs 132. Received data size doesn't match expected size. Is there a distributed"
            " collective mismatch in your code?\n"
            "E1205 18:32:56.261000 3974 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -6)"
            " local_rank: 0 (pid: 4042) of binary: /usr/bin/python\n"
        )

    root = explain_text(run(45)).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 3)
    assert any("45 docs" in reason for reason in root.why)
    root = explain_text(run(5)).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 0)


def test_of_two_silent_ranks_the_one_not_stopped_where_its_peers_waited_is_the_one_they_lost(
    tmp_path: Path,
) -> None:
    """A `--log-dir` folder: ranks 1 and 2 lose their connection in a broadcast; ranks 0 and 3 printed no
    error. Rank 3's last line is the start-up line where ranks 1 and 2 stopped too (it waited with them until
    torchrun stopped it); rank 0 went on (`planner: read shard 15/24, 60000 docs`) and vanished there: rank
    0 is the one they lost, a likely host OOM kill with that line as the root."""
    up = {r: f"[rank {r}] up, pod memory limit 1024 MB\n" for r in range(4)}
    planner = "".join(f"[rank 0] planner: read shard {i}/24, {4000 * i} docs\n" for i in (13, 14, 15))
    folder = _stdout_dir(tmp_path, {0: up[0] + planner, 1: up[1], 2: up[2], 3: up[3]})
    for rank in (1, 2):
        (folder / str(rank) / "stderr.log").write_text(
            _lost_peer_traceback(rank, 6026).replace(f"[default{rank}]:", "")
        )
    root = explain_paths([str(folder)]).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 0)
    assert root.text.endswith("planner: read shard 15/24, 60000 docs")


def test_a_terminate_without_an_exception_after_a_timeout_is_not_the_timeouts_message() -> None:
    """A rank's gloo timeout traceback, then C++'s `terminate called without an active exception` as the
    process shuts down (a busy machine lets the abort print before torchrun stops it): the abort is a
    record of its own, not the rest of the timeout's message, and the timeout stays what the rank
    reported (`collective_timeout`, gloo's entry)."""
    log = (
        'Traceback (most recent call last):\n  File "/srv/train.py", line 30, in <module>\n    loss.backward()\n'
        "RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out"
        " waiting 5000ms for recv operation to complete\nterminate called without an active exception\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.entry) == ("collective_timeout", "gloo-timeout")


# --- classes found in the forty-sixth session -------------------------------------------------------


def test_of_silent_ranks_the_one_whose_reading_stands_far_over_its_peers_is_the_one_they_lost(
    tmp_path: Path,
) -> None:
    """A `--log-dir` folder: ranks 0 and 2 lose their connection; ranks 1 and 3 printed no error and both
    stopped at the step line where the others did. Rank 3's cache read 222MB where no other rank read
    more than 68MB (a size far under any host's memory, but one of the two is gone): rank 3 vanished
    taking it, a likely host OOM kill with that line as the root. Readings alike name nobody."""

    def steps(rank: int, host: Iterable[int]) -> str:
        return "".join(f"[rank {rank}] step {s:03d} loss=0.67 host={mb}MB\n" for s, mb in enumerate(host))

    def folder(name: str, rank_3: Iterable[int]) -> Path:
        run = _stdout_dir(
            tmp_path / name, {r: steps(r, (43, 53, 68)) for r in range(3)} | {3: steps(3, rank_3)}
        )
        for rank in (0, 2):
            (run / str(rank) / "stderr.log").write_text(
                _lost_peer_traceback(rank, 45452).replace(f"[default{rank}]:", "")
            )
        return run

    root = explain_paths([str(folder("outlier", (60, 141, 222)))]).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 3)
    assert root.text.endswith("host=222MB") and any("at most 64.8 MiB" in reason for reason in root.why)
    root = explain_paths([str(folder("alike", (44, 55, 70)))]).root_cause
    assert root is not None and root.rank is None


def test_a_rank_that_aborted_after_losing_its_peer_did_not_wait_for_a_straggler() -> None:
    """torchrun's console: rank 1 is SIGKILLed (no words); rank 2 loses the connection and aborts
    (`terminate called without an active exception`, SIGABRT in torchrun's table), rank 0 loses it too,
    rank 3 is stopped with SIGTERM. Rank 2's abort ends its loss, not a wait in a collective, so rank 3
    is no straggler: rank 1's death is the cause (`oom_host`)."""
    lines = "".join(f"[rank {r}] epoch 0 frame 0 loss=4.1 cached=1\n" for r in range(4))
    log = (
        lines
        + _lost_peer_traceback(2, 24252).replace("[default2]:", "")
        + "terminate called without an active exception\n"
        + _lost_peer_traceback(0, 14570).replace("[default0]:", "")
        + "".join(
            "W1205 21:04:59.516000 12186 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process"
            f" {12300 + r} closing signal SIGTERM\n"
            for r in (0, 2, 3)
        )
        + "E1205 21:04:59.689000 12186 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode:"
        " -9) local_rank: 1 (pid: 12301) of binary: /usr/bin/python\n"
        + "  rank      : 2 (local_rank: 2)\n  exitcode  : -6 (pid: 12302)  (SIGABRT)\n  error_file: <N/A>\n"
        "  traceback : Signal 6 (SIGABRT) received by PID 12302\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 1)
    assert "failed (exitcode: -9)" in root.text


def test_pythons_default_logging_format_names_the_rank_of_a_logger_named_for_it() -> None:
    """`logging.basicConfig()`'s records read `LEVEL:name:message`; a logger named `rank1` labels its
    lines with rank 1, so its ERROR record is that rank's own account of why it exited with code 3."""
    log = (
        "INFO:rank1:ewc: task 0 finished: shard accuracy 0.504\nINFO:rank0:ewc: task 0 finished: shard accuracy"
        " 0.859\nERROR:rank1:ewc: EWC anchor /tmp/run/anchor_task0_rank1.pt not found, cannot build the penalty\n"
        + _lost_peer_traceback(0, 45740).replace("[default0]:", "")
        + "E1205 21:09:52.101000 16958 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode:"
        " 3) local_rank: 1 (pid: 17079) of binary: /usr/bin/python\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 1)
    assert root.text.endswith("cannot build the penalty")


def test_a_log_dir_rank_that_stopped_at_a_line_its_peers_went_past_is_a_likely_kill(tmp_path: Path) -> None:
    """A `--log-dir` folder with no error at all: rank 1 stopped at the line every rank printed (`site_id
    vocab size 19486 rss=225MB`) while rank 0 went on past it: rank 1 stopped first, a likely host OOM
    kill (low confidence) with that line as the root. Ranks that stopped at one place name nobody."""
    vocab = {
        0: "[rank 0] site_id vocab size 1001 rss=224MB\n",
        1: "[rank 1] site_id vocab size 19486 rss=225MB\n",
    }
    run = _stdout_dir(
        tmp_path / "short", {0: vocab[0] + "[rank 0] wide features (20000, 1001)\n", 1: vocab[1]}
    )
    root = explain_paths([str(run)]).root_cause
    assert root is not None and (root.category, root.rank, root.confidence) == ("oom_host", 1, "low")
    assert root.text.endswith("site_id vocab size 19486 rss=225MB")
    assert _ended_without_a_word(_stdout_dir(tmp_path / "even", vocab))


def test_a_mesh_that_failed_because_a_peer_closed_its_connection_blames_the_peer_that_left() -> None:
    """torchrun's console: rank 2 logs an ERROR of its own check and exits with code 2 during start-up;
    another rank's gloo mesh then fails (`Gloo connectFullMesh failed with ... Connection closed by peer`,
    no rank label). The mesh lost a peer that had left, so rank 2's record is the root (`user_code`)."""
    mesh = (
        "Gloo connectFullMesh failed with [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553]"
        " Connection closed by peer [127.0.0.1]:8359. This is typically caused by a remote worker crashing."
    )
    log = (
        "[2026-12-05 21:10:21,235][doclm][INFO][rank 2] shard arxiv: 14 layout tags registered, tokenizer size 514\n"
        "[2026-12-05 21:10:21,236][doclm][ERROR][rank 2] tokenizer size 514 exceeds embedding rows 512\n"
        f"[E1205 21:10:21.071780798 ProcessGroupGloo.cpp:67] {mesh}\n"
        'Traceback (most recent call last):\n  File "/srv/doclm/train.py", line 40, in <module>\n'
        f"    dist.init_process_group('gloo')\nRuntimeError: {mesh}\n"
        + "".join(
            "W1205 21:10:21.306000 18790 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process"
            f" {18833 + r} closing signal SIGTERM\n"
            for r in (0, 1, 3)
        )
        + "E1205 21:10:21.338000 18790 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 2)"
        " local_rank: 2 (pid: 18835) of binary: /usr/bin/python\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 2)
    assert root.text.endswith("tokenizer size 514 exceeds embedding rows 512")


def test_of_most_ranks_silent_the_one_whose_reading_stands_far_over_the_rest_is_the_one_they_lost(
    tmp_path: Path,
) -> None:
    """A `--log-dir` folder of four ranks: rank 0 loses its connection, ranks 1-3 print no error (more than
    half the job, which alone would read as ranks that had finished). Rank 1's memory read 737MB where no
    other rank read more than 325MB: one of the silent ranks went, and it was the one taking that."""
    clients = {0: (314,), 1: (325, 541, 737), 2: (325,), 3: (314,)}
    run = _stdout_dir(
        tmp_path,
        {
            r: "".join(f"[rank {r}] round 0 client {1 + 8 * i}/96 rss={mb}MB\n" for i, mb in enumerate(rss))
            for r, rss in clients.items()
        },
    )
    (run / "0" / "stderr.log").write_text(_lost_peer_traceback(0, 34722).replace("[default0]:", ""))
    root = explain_paths([str(run)]).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 1)
    assert root.text.endswith("client 17/96 rss=737MB")


def test_a_log_dir_rank_stopped_at_a_shape_far_over_its_peers_is_a_likely_kill(tmp_path: Path) -> None:
    """A `--log-dir` folder with no error: every rank stopped at `building co-occurrence NxN`, rank 1 at
    `24146x24146` where its peers build `48x48`: the elements of a shape are a count of what it holds, far
    over theirs, so rank 1 most likely vanished building it (low confidence). Shapes alike name nobody."""

    def run(name: str, vocab: int) -> Path:
        sizes = {r: vocab if r == 1 else 48 for r in range(3)}
        return _stdout_dir(
            tmp_path / name,
            {
                r: f"[rank {r}] 3000 sessions\n[rank {r}] building co-occurrence {n}x{n}\n"
                for r, n in sizes.items()
            },
        )

    root = explain_paths([str(run("outsized", 24146))]).root_cause
    assert root is not None and (root.category, root.rank, root.confidence) == ("oom_host", 1, "low")
    assert root.text.endswith("building co-occurrence 24146x24146")
    assert _ended_without_a_word(run("alike", 64))


def test_of_silent_ranks_one_reading_half_again_over_every_other_is_the_one_they_lost(tmp_path: Path) -> None:
    """A `--log-dir` folder: ranks 1 and 3 lose their connection, ranks 0 and 2 print nothing. Rank 2's
    memory read 627MB where no other rank read more than 361MB (1.7 times): one of the two silent ranks
    went, and the one whose reading stands half again over every other's is the one taking memory."""
    rss = {0: 353, 1: 351, 2: 627, 3: 361}
    run = _stdout_dir(
        tmp_path, {r: f"[rank {r}] step 5 loss=0.49 cache=20 rss={mb}MB\n" for r, mb in rss.items()}
    )
    for rank in (1, 3):
        (run / str(rank) / "stderr.log").write_text(
            _lost_peer_traceback(rank, 61675).replace(f"[default{rank}]:", "")
        )
    root = explain_paths([str(run)]).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 2)
    assert root.text.endswith("rss=627MB")


def test_a_named_size_one_rank_states_otherwise_among_lines_each_printed_alike_names_the_sender() -> None:
    """gloo's size check fails on two ranks that received a broadcast; every rank logged one line per
    tensor it syncs (several lines with the same named number, `packed_bytes=`), and in the one alike but
    for its numbers rank 0 alone says `packed_bytes=416` where its peers say 384: rank 0 sent more."""
    tensors = (("conv.weight", "(64, 40, 3)", 3840, 3840), ("head.weight", "(12, 64)", 384, 416))
    lines = "".join(
        f"2026-12-05 21:34:45,0{r}0 [rank {r}] INFO sync {name}  shape={shape if r else shape.replace('12', '13')}"
        f" packed_bytes={odd if r == 0 else size}\n"
        for name, shape, size, odd in tensors
        for r in range(4)
    )
    mismatch = (
        "terminate called after throwing an instance of 'gloo::EnforceNotMet'\n  what():  [enforce fail at"
        " /__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:456] op.preamble.length <= op.nbytes."
        " 416 vs 384. Received data size doesn't match expected size. Is there a distributed collective mismatch"
        " in your code?\n"
    )
    root = explain_text(lines + mismatch + mismatch).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 0)
    assert any("packed_bytes=416" in reason for reason in root.why)


def test_a_log_dir_rank_whose_last_line_reads_a_large_allocation_alone_is_a_likely_kill(
    tmp_path: Path,
) -> None:
    """A `--log-dir` folder with no error at all: rank 1's last line reads the array it was about to build,
    332.14 GiB, where rank 0 read nothing of the kind: a likely host OOM kill (low confidence). When its
    peer read as much (every rank maps the same 400 GiB store), the folder names nobody."""
    pivot = "[rank 1] QuickStop: 634400 sales rows, pivot (61, 4004404, 365) float32 = 332.14 GiB\n"
    run = _stdout_dir(
        tmp_path / "alone", {0: "[rank 0] loading sales\n", 1: "[rank 1] loading sales\n" + pivot}
    )
    root = explain_paths([str(run)]).root_cause
    assert root is not None and (root.category, root.rank, root.confidence) == ("oom_host", 1, "low")
    assert root.text.endswith("= 332.14 GiB")
    both = {r: f"[rank {r}] loading sales\n[rank {r}] mapped feature store = 400.00 GiB\n" for r in range(2)}
    assert _ended_without_a_word(_stdout_dir(tmp_path / "both", both))


# --- classes found in the forty-seventh session -----------------------------------------------------


def _gate_records(rank: int, stale: str) -> list[str]:
    return [
        f"[2026-12-05 21:53:11,58{rank}][rank{rank}][INFO] window {w} labels<=0{7 + w}:00 staleness={stale}"
        for w in range(3)
    ]


def _peer_lost(rank: int) -> list[str]:
    return [
        *_gate_records(rank, "0:30:00"),
        f"[rank{rank}] RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed"
        " by peer [127.0.0.1]:7358. This is typically caused by a remote worker crashing.",
    ]


_GATE_EXIT = "freshness gate: feature view ctr_1h for shard 0 is 3:00:00 behind labels (SLA 2:00:00)"


def _torchrun_exit_table(first: int, code: int, stopped: Iterable[int]) -> str:
    rows = "".join(
        f"[{r}]:\n  time      : 2026-12-05_21:53:12\n  host      : node0\n  rank      : {r} (local_rank: {r})\n"
        f"  exitcode  : -15 (pid: {6100 + r})  (SIGTERM)\n  error_file: <N/A>\n"
        f"  traceback : Signal 15 (SIGTERM) received by PID {6100 + r}\n"
        for r in stopped
    )
    return (
        f"E1205 21:53:12.863000 5954 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode:"
        f" {code}) local_rank: {first} (pid: {6100 + first}) of binary: /usr/bin/python\n"
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
        "============================================================\ntrain.py FAILED\n"
        "------------------------------------------------------------\nFailures:\n"
        + rows
        + "------------------------------------------------------------\nRoot Cause (first observed failure):\n"
        f"[{first}]:\n  time      : 2026-12-05_21:53:12\n  host      : node0\n  rank      : {first} (local_rank:"
        f" {first})\n  exitcode  : {code} (pid: {6100 + first}) \n  error_file: <N/A>\n"
        "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n"
    )


def test_the_message_sys_exit_wrote_bare_after_a_ranks_labelled_records_is_its_account(
    tmp_path: Path,
) -> None:
    """Every rank logs records labelled `[rankN]`; rank 0 ends with `sys.exit('freshness gate: ...')`,
    which Python writes to stderr without the label, and exits with code 1 while its peers are stopped.
    In the console (the line unlabelled, right after its last record), behind torchrun's `--tee` label,
    and as the last line of its own stderr in a `--log-dir` folder whose other ranks lost their peer,
    that line is rank 0's account: `user_code`, not a kill."""
    records = {r: _gate_records(r, f"0:{20 + 7 * r}:00") for r in range(3)}
    console = "\n".join([*records[1], *records[2], *records[0], _GATE_EXIT]) + "\n"
    console += _torchrun_exit_table(0, 1, (1, 2))
    tee = "".join(f"[default{r}]:{line}\n" for r in (1, 2) for line in records[r])
    tee += "".join(f"[default0]:{line}\n" for line in [*records[0], _GATE_EXIT]) + _torchrun_exit_table(
        0, 1, (1, 2)
    )
    run = tmp_path / "run" / "attempt_0"
    for rank, lines in {0: [*records[0], _GATE_EXIT], 1: _peer_lost(1), 2: _peer_lost(2)}.items():
        (run / str(rank)).mkdir(parents=True)
        (run / str(rank) / "stdout.log").write_text("")
        (run / str(rank) / "stderr.log").write_text("\n".join(lines) + "\n")
    for report in (explain_text(console), explain_text(tee), explain_paths([str(run)])):
        root = report.root_cause
        assert root is not None and (root.category, root.rank) == ("user_code", 0)
        assert root.text.startswith("freshness gate: feature view ctr_1h")


def test_a_killed_ranks_last_record_or_a_bare_line_among_bare_ones_is_no_exit_message(tmp_path: Path) -> None:
    """The guards of the rule above: a rank whose stderr ends at one of its labelled records printed no
    message (a kill, read as the host's memory); a bare last line after lines that were bare too is one
    more print, and a progress bar's line is no message."""

    def folder(name: str, last: dict[int, list[str]]) -> Path:
        run = tmp_path / name / "attempt_0"
        for rank, lines in last.items():
            (run / str(rank)).mkdir(parents=True)
            (run / str(rank) / "stdout.log").write_text("")
            (run / str(rank) / "stderr.log").write_text("\n".join(lines) + "\n")
        return run

    killed = folder("killed", {0: _gate_records(0, "3:00:00"), 1: _peer_lost(1), 2: _peer_lost(2)})
    root = explain_paths([str(killed)]).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 0)
    plain = [f"window {w} staleness=3:00:00 loss 0.5{w}" for w in range(3)]
    bare = folder("bare", {0: [*plain, "writing window 3 features to cache now"], 1: _peer_lost(1)})
    root = explain_paths([str(bare)]).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 0)
    bar = "windows:  75%|███████▌  | 3/4 [00:01<00:00,  2.10it/s]"
    barred = folder("bar", {0: [*_gate_records(0, "3:00:00"), bar], 1: _peer_lost(1)})
    root = explain_paths([str(barred)]).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 0)


def _grade_counts(counts: dict[int, list[int]], between: int = 0) -> str:
    """Each rank's line of its grade counts, `between` lines of step logs after them, then the ranks' gloo
    timeouts (rank 2 lost its peer): the all_reduce of the counts never completed."""
    lines = "".join(
        f"[rank {r}] pool=p{r} queries={70 + 20 * r} grade counts={counts[r]}\n" for r in sorted(counts)
    )
    lines += "".join(f"[rank {n % 3}] warmup batch {n} ok\n" for n in range(between))
    lost = _peer_lost(2)[-1].replace("[rank2] ", "[rank2]: ")
    return lines + _collective_timeout(0, 61) + _collective_timeout(1, 61) + lost + "\n"


def test_a_list_of_another_length_on_one_rank_is_the_mismatch_its_peers_timed_out_in() -> None:
    """Every rank prints the counts it is about to all-reduce; rank 2's list has four where its peers'
    have five (a bincount with no minlength). gloo names no size: the peers time out, rank 2 loses them.
    That line is the sign of the mismatch: `collective_mismatch` of rank 2, the line the root line,
    also when dozens of lines stand between it and the errors. Lists of one length are no sign of a
    mismatch: rank 2, which only lost its peers while they timed out, is the one they waited for."""
    counts = {0: [576, 313, 201, 127, 66], 1: [780, 377, 243, 115, 35], 2: [520, 279, 109, 60]}
    for between in (0, 40):
        root = explain_text(_grade_counts(counts, between)).root_cause
        assert root is not None and (root.category, root.rank) == ("collective_mismatch", 2)
        assert root.text.endswith("grade counts=[520, 279, 109, 60]")
    counts[2].append(7)
    root = explain_text(_grade_counts(counts)).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 2)


def test_a_count_of_things_one_rank_alone_states_otherwise_is_the_mismatch() -> None:
    """`7 length bins` where every peer says 4, in a line each rank printed once: the tensor rank 2
    all-reduces is longer. A loss value after a step number (`step 5 recon loss 1.0029`) is no count."""

    def log(lines: dict[int, str]) -> str:
        text = "".join(f"rank={r} | {line}\n" for r, line in lines.items())
        lost = _peer_lost(2)[-1].replace("[rank2] ", "[rank2]: ")
        return (
            text + _collective_timeout(0, 54) + _collective_timeout(1, 54) + _collective_timeout(3, 54) + lost
        )

    bins = {
        r: f"10000 reads, max {300 if r == 2 else 150} bp, {7 if r == 2 else 4} length bins" for r in range(4)
    }
    root = explain_text(log(bins)).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 2)
    assert root.text.endswith("7 length bins")
    steps = {r: f"step {5 if r == 2 else 6} recon loss 1.00{r}" for r in range(4)}
    root = explain_text(log(steps)).root_cause
    assert root is not None and root.category == "collective_timeout"


def test_a_restarted_workers_traceback_is_not_dated_by_its_lines_before_the_agents_report() -> None:
    """Attempt 0: rank 1 raises an IndexError and rank 0 loses it; torchrun's agent reports the failure
    and restarts them, and in attempt 1 both fail reading the checkpoint rank 0 left half-written. The
    restarted workers' tracebacks carry no time: they are not dated by the lines those ranks stamped in
    attempt 0, so the first failure stays the IndexError of rank 1."""
    stamped = "".join(
        f"2026-12-04 07:03:29,4{80 + r} [rank{r}] INFO wxcast: station {name}: 5878 hourly readings\n"
        for r, name in ((1, "KSEA"), (0, "KBOS"))
    ) + "".join(f"2026-12-04 07:03:3{s},000 [rank0] INFO wxcast: step {s} loss 1.{s}\n" for s in range(5))
    corrupt = "RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory"
    log = (
        stamped
        + _attempt(1, "IndexError: index 0 is out of bounds for dimension 0 with size 0")
        + _attempt(0, _GLOO_RECV)
        + _AGENT_FAILED.format(m=3, agent=11400, r=1, pid=11405)
        + _attempt(0, corrupt)
        + _attempt(1, corrupt)
        + _AGENT_FAILED.format(m=4, agent=11400, r=0, pid=11482)
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 1)
    assert root.text.startswith("IndexError: index 0 is out of bounds")


@pytest.mark.parametrize(
    ("label", "wait"),
    [
        (
            "23:50:40 [rank 2]",
            "labels for window ending 2024-02-12 not final, polling /tmp/mart/w_20240212.ready",
        ),
        (
            "[rank 2]",
            "index cache for wipe_counter is locked (/tmp/idx/wipe_counter.r2/.lock), waiting... 0s",
        ),
    ],
)
def test_a_straggler_polling_a_file_or_counting_its_wait_is_stopped_there(label: str, wait: str) -> None:
    """Rank 2 polls a marker file (`not final, polling /tmp/...ready`) or waits on a lock, counting the
    seconds (`waiting... 0s`), while its peers time out in the collective: that line is the root. A time
    of day alone before the rank's label (`23:50:40 [rank 2]`, logging's `%H:%M:%S`) is a logger's field."""
    start = "".join(f"{label.replace('2]', f'{r}]')} window {r} of 3 loaded\n" for r in range(3))
    rounds = "".join(f"{label} {wait}\n" for _ in range(3))
    log = start + rounds + _collective_timeout(0, 61) + _collective_timeout(1, 61)
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 2)
    assert root.text.endswith(wait)


def test_after_a_list_of_error_records_the_line_that_sums_them_up_and_stops_is_the_account() -> None:
    """Rank 3 logs an error record for each bad flip pair, then one that sums them up and says it stops
    (`8/8 flip pairs inconsistent ..., aborting evaluation`) and exits: that last line is its account.
    One error record and then `refusing ...; exiting`: the record says why, and stays the account."""

    def log(errors: list[str]) -> str:
        start = "".join(f"2026-12-05 23:57:49,27{r} [INFO] [RANK {r}] evaluating set {r}\n" for r in range(4))
        said = "".join(f"2026-12-05 23:57:49,280 [ERROR] [RANK 3] {line}\n" for line in errors)
        steps = "".join(
            f"2026-12-05 23:57:50,50{r} [INFO] [RANK {r}] batch 2/6 mean joint score 0.13\n" for r in range(3)
        )
        return start + said + steps + _agent_failed(2, 3)

    pairs = [f"flip pair ({a}, {a + 1}) maps {a}_right -> {a + 1}_left" for a in (1, 3, 5)]
    summed = "crowdpose: 8/8 flip pairs inconsistent with dataset joints, aborting evaluation"
    root = explain_text(log([*pairs, summed])).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 3) and root.text == summed
    cause = "NA19240: 400/400 variants on contigs absent from GRCh38.fa.fai: 1,17,2,7,X"
    root = explain_text(
        log([cause, "refusing to extract windows against the wrong reference build; exiting"])
    ).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 3) and root.text == cause


def test_two_ranks_prints_glued_on_one_line_are_read_as_two_ranks_lines() -> None:
    """Two ranks' prints raced and one's text landed before the other's newline (`... shape (2, 13)[rank 1]
    risk-set table: ...`): each is that rank's line, so rank 1's table is read beside its peers' and rank 2,
    whose table alone has 14 bins, is the sender gloo's size check caught. A rank named inside a message,
    after a space, is not such a label."""
    table = "[rank {r}] risk-set table: {n} bins of 30 d, shape (2, {n})"
    lines = (
        table.format(r=3, n=13)
        + table.format(r=1, n=13)
        + "\n\n"
        + "".join(table.format(r=r, n=14 if r == 2 else 13) + "\n" for r in (0, 2))
    )
    mismatch = (
        "terminate called after throwing an instance of 'gloo::EnforceNotMet'\n  what():  [enforce fail at"
        " /__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:456] op.preamble.length <= op.nbytes."
        " 56 vs 52. Received data size doesn't match expected size. Is there a distributed collective mismatch"
        " in your code?\n"
    )
    root = explain_text(lines + mismatch).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 2)
    assert list(segments("[rank 0] got the tensor from [rank 1] late")) == [
        "[rank 0] got the tensor from [rank 1] late"
    ]


# --- classes found in the forty-eighth session ------------------------------------------------------


_SIZE_CHECK = (
    "terminate called after throwing an instance of 'gloo::EnforceNotMet'\n  what():  [enforce fail at"
    " /__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:456] op.preamble.length <= op.nbytes."
    " 448 vs 384. Received data size doesn't match expected size. Is there a distributed collective mismatch"
    " in your code?\n"
)


@pytest.mark.parametrize(
    ("said", "odd"),
    [
        # Each rank names its own template, file or shard in the line; one counts otherwise.
        ("[rank {r}][bank] template {name}_v{r} with {n} header cells", {"n": 7}),
        ("[rank{r}] scoring val/{name}_band{r}.zarr: {n} pressure levels", {"n": 37}),
        ("rank{r}: scanned feats/{name}_m{r}: 200 utterances, features={feats}", {"feats": "mel,energy"}),
        # A dict's repr: its keys quoted.
        ("[rank {r}][INFO] config: {{'embedding_dim': {n}, 'lr': 0.002}}", {"n": 96}),
    ],
)
def test_the_sender_of_a_size_check_is_told_by_its_line_though_each_rank_names_its_own_file(
    said: str, odd: dict[str, object]
) -> None:
    """gloo's size check fails on rank 0, which received the data, and torchrun names rank 0 alone: the
    rank whose collective differs is rank 3, whose line alone counts or states otherwise, in lines every
    rank prints alike but for its own file, template or shard name (or a config dict, its keys quoted)."""
    names = ["fuel_station", "pharmacy", "supermarket", "restaurant_eu"]
    usual: dict[str, object] = {"n": 6, "feats": "mel,f0,energy"}
    lines = "".join(
        said.format(r=r, name=names[r], **(usual | (odd if r == 3 else {}))) + "\n" for r in (1, 3, 0, 2)
    )
    root = explain_text(lines + _SIZE_CHECK + _torchrun_exit_table(0, -6, (1, 2, 3))).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 3)
    assert "Received data size doesn't match expected size" in root.text


def test_a_size_check_stays_its_printers_when_no_rank_alone_counts_otherwise() -> None:
    """Every rank names its own file and counts otherwise (4, 5, 6, 7 cells): no rank is the odd one, so
    the rank torchrun saw fail stays the culprit."""
    lines = "".join(f"[rank {r}][bank] template t{r}_v{r} with {4 + r} header cells\n" for r in (1, 3, 0, 2))
    root = explain_text(lines + _SIZE_CHECK + _torchrun_exit_table(0, -6, (1, 2, 3))).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 0)


def test_a_rank_that_went_on_alone_after_an_outsized_reading_is_the_one_that_vanished(tmp_path: Path) -> None:
    """No file holds an error. Each rank names its own scene (`lego`, `room`) and says `use_batching=False`
    but rank 2, which loaded 3024x4032 images where every peer loaded 100x100, and went on alone to build a
    ray batch: its output stops there, so it most likely vanished taking that memory."""
    scenes = {0: "lego", 1: "ship", 2: "room", 3: "chair"}
    stdout = {
        r: [f"[rank {r}] loaded {scenes[r]}: 100 images 100x100 use_batching=False"] for r in (0, 1, 3)
    } | {
        2: [
            "[rank 2] loaded room: 41 images 3024x4032 use_batching=True",
            "[rank 2] building ray batch: 499903488 rays x 3 x 3 float32",
        ]
    }
    run = _stdout_dir(tmp_path, {r: "".join(f"{line}\n" for line in lines) for r, lines in stdout.items()})
    root = explain_paths([str(run)]).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 2)
    assert root.text.endswith("building ray batch: 499903488 rays x 3 x 3 float32")
    assert any("12192768 elements" in w for w in root.why)


def test_of_two_silent_ranks_the_one_with_fewer_rounds_of_the_line_its_peers_stopped_at_went(
    tmp_path: Path,
) -> None:
    """Ranks 1 and 3 lost their peer; ranks 0 and 2 printed no error. Every rank prints the same progress
    line naming its own game (`Pong: stacked 50000/200000 ...`): rank 0 printed it as often as ranks 1
    and 3 (it waited where they waited), rank 2 once. Rank 2 went, with its last line the root."""
    games = {0: "Breakout", 1: "Pong", 2: "Seaquest", 3: "Qbert"}

    def rounds(r: int, n: int) -> list[str]:
        return [
            f"[rank {r}] {games[r]}: stacked {k * 50000}/200000 transitions, host {k * 2.6:.2f} GiB"
            for k in range(1, n + 1)
        ]

    stdout = {r: rounds(r, 4) for r in (0, 1, 3)} | {2: rounds(2, 1)}
    run = _stdout_dir(tmp_path, {r: "".join(f"{line}\n" for line in lines) for r, lines in stdout.items()})
    for r in (1, 3):
        (run / str(r) / "stderr.log").write_text(_LOST.format(r=r))
    root = explain_paths([str(run)]).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 2)
    assert root.text.endswith("Seaquest: stacked 50000/200000 transitions, host 2.60 GiB")


def test_a_list_of_names_of_another_length_tells_the_sender_of_a_size_check() -> None:
    """Each rank lists its stems (`stems=['bass', 'drums', 'vocals']`); rank 1 alone lists four. gloo's size
    check fails on rank 0, which received rank 1's longer tensor: rank 1 is the culprit."""
    stems = {r: ["bass", "drums", "vocals"] + (["piano"] if r == 1 else []) for r in range(4)}
    lines = "".join(f"[rank {r}] 6 val tracks, stems={stems[r]}\n" for r in (1, 2, 3, 0))
    root = explain_text(lines + _SIZE_CHECK + _torchrun_exit_table(0, -6, (1, 2, 3))).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 1)


def test_a_rank_field_with_the_world_size_labels_the_line() -> None:
    """A logger's `rank=1/4` field after the record's time labels the line as rank 1's: its count of
    channels, alone of four, tells the sender of the size check."""
    lines = "".join(
        f"2026-12-06 02:58:29,87{r} rank={r}/4 norm_stats: field_{r}: 40 series x {6 if r == 1 else 5} channels\n"
        for r in (0, 2, 3, 1)
    )
    root = explain_text(lines + _SIZE_CHECK + _torchrun_exit_table(0, -6, (1, 2, 3))).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 1)


def test_ranks_all_stopped_mid_step_with_no_error_name_the_one_taking_the_most(tmp_path: Path) -> None:
    """No file holds an error and both ranks' output stops at the same line announcing a step under way
    (`gap-filling air_temp ...`): they were stopped mid-step, as torchrun stops them once one is killed.
    Rank 1 had read 216000 readings where rank 0 read 7200, in a line alike but for its station: it."""
    stations = {0: "lower_terrace", 1: "orchard_block_2"}
    counts = {0: 7200, 1: 216000}
    stdout = {
        r: f"[rank {r}] station {stations[r]}: {counts[r]} readings @ 1 min\n[rank {r}] gap-filling air_temp\n"
        for r in (0, 1)
    }
    root = explain_paths([str(_stdout_dir(tmp_path, stdout))]).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 1)
    assert root.text.endswith("gap-filling air_temp") and root.confidence == "low"


def test_ranks_stopped_mid_step_alike_name_no_rank(tmp_path: Path) -> None:
    """Every rank stops at `building the index...` and none read more than another: the processes ended
    without a word (or still run), and nothing names a rank."""
    stdout = {r: f"[rank {r}] loaded 100 rows\n[rank {r}] building the index...\n" for r in range(3)}
    assert _ended_without_a_word(_stdout_dir(tmp_path, stdout))


def test_a_log_dir_with_no_error_whose_ranks_end_alike_names_no_rank_unless_they_finished(
    tmp_path: Path,
) -> None:
    """Every rank's output ends at the same line and no rank read four times its peer's. At an ordinary
    line (`epoch 3 loss 0.41`) the processes ended without a word, and nothing names a rank; at a line that
    says the run finished, nothing failed."""

    def run(name: str, last: str) -> Path:
        stdout = {
            r: f"[rank {r}] station s{r}: {100 * (r + 2)} readings\n[rank {r}] {last}\n" for r in range(2)
        }
        return _stdout_dir(tmp_path / name, stdout)

    assert _ended_without_a_word(run("ordinary", "epoch 3 loss 0.41"))
    assert explain_paths([str(run("finished", "training finished"))]).root_cause is None


def test_a_rank_that_stopped_short_of_the_done_line_its_peers_printed_went_first(tmp_path: Path) -> None:
    """Each rank preloads its own bucket (`bucket 256x256: preloading 1500 latents`) and says `preload
    done`; rank 2 never does. Its peers' `done` ends a step, not the job: rank 2 stopped first."""
    sizes = {0: 256, 1: 320, 2: 1024, 3: 384}
    stdout = {
        r: f"[rank {r}] bucket {sizes[r]}x{sizes[r]}: preloading 1500 latents (rss 220 MB)\n"
        + ("" if r == 2 else f"[rank {r}] preload done, rss 256 MB\n")
        for r in range(4)
    }
    root = explain_paths([str(_stdout_dir(tmp_path, stdout))]).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 2)
    assert "preloading 1500 latents" in root.text


def test_a_loop_line_a_peer_printed_fewer_rounds_of_is_not_stopping_short(tmp_path: Path) -> None:
    """Both ranks print `step N <scene>: building concat volume (...)` each step, naming their own scene
    (`Jadeplant-Q`, `Pipes-F`). Rank 0 stops at its step 1 line, which is no line rank 1 went past (rank 1
    also stopped at its step 1); rank 1's step 1 volume is fourteen times rank 0's: rank 1 vanished."""
    scenes = {0: ("Adirondack-Q", "Jadeplant-Q"), 1: ("Piano-Q", "Pipes-F")}
    volumes = {0: ("16x48x124x179", "16x48x124x164"), 1: ("16x48x120x175", "16x48x497x741")}
    stdout = {
        r: f"[rank {r}] step 0 {scenes[r][0]}: building concat volume ({volumes[r][0]})\n"
        f"[rank {r}] step 0 loss 0.02083\n"
        f"[rank {r}] step 1 {scenes[r][1]}: building concat volume ({volumes[r][1]})\n"
        for r in (0, 1)
    }
    root = explain_paths([str(_stdout_dir(tmp_path, stdout))]).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 1)
    assert root.text.endswith("Pipes-F: building concat volume (16x48x497x741)")


def test_a_value_one_rank_gives_as_a_word_where_its_peers_give_a_number_is_still_the_same_line(
    tmp_path: Path,
) -> None:
    """Every rank says `building CVA stack for <scene> (tile_px=512)` but rank 2, whose value is `None`; its
    peers went on to `pseudo mask ready`, rank 2 did not: its line is theirs, so it stopped short."""
    stdout = {
        r: f"[rank {r}] building CVA stack for S2A_{r}_T36 (tile_px={'None' if r == 2 else 512}) rss=220MB\n"
        + ("" if r == 2 else f"[rank {r}] pseudo mask ready: 4.8% changed, rss=248MB\n")
        for r in range(4)
    }
    root = explain_paths([str(_stdout_dir(tmp_path, stdout))]).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 2)
    assert "tile_px=None" in root.text


# --- classes found in the forty-ninth session ------------------------------------------------------


def _gloo_timeout(rank: int, op: str) -> str:
    site = "unbound_buffer.cc:129" if op == "send" else "unbound_buffer.cc:78"
    return (
        f"[rank{rank}]: Traceback (most recent call last):\n"
        f'[rank{rank}]:   File "/work/train.py", line 58, in main\n'
        f"[rank{rank}]:     dist.all_reduce(stats)\n"
        f"[rank{rank}]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/{site}] Timed out waiting"
        f" 15000ms for {op} operation to complete\n"
    )


def test_of_the_peers_gloo_timeouts_in_one_console_the_first_observed_is_the_root_line() -> None:
    """Rank 3 spins and never joins; rank 2's send times out first, then ranks 0's and 1's recv. In one console the
    order they were written in is known: the first observed timeout is the root line, rank 3 the straggler."""
    lines = "".join(f"[rank {r}] loaded 480 pairs\n" for r in range(4)) + _gloo_timeout(2, "send")
    lines += _gloo_timeout(0, "recv") + _gloo_timeout(1, "recv") + _torchrun_exit_table(2, 1, (0, 1, 3))
    root = explain_text(lines).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 3)
    assert root.text.endswith("for send operation to complete")


def test_of_the_peers_gloo_timeouts_in_separate_files_the_wait_to_receive_is_the_root_line(
    tmp_path: Path,
) -> None:
    """The same job as a `--log-dir` folder: with no order between the files, the wait to receive states
    the others' wait best, whichever rank's file comes first."""
    run = _stdout_dir(tmp_path, {r: f"[rank {r}] loaded 480 pairs\n" for r in range(4)})
    (run / "0" / "stderr.log").write_text(_gloo_timeout(0, "send"))
    (run / "1" / "stderr.log").write_text(_gloo_timeout(1, "recv"))
    (run / "2" / "stderr.log").write_text(_gloo_timeout(2, "recv"))
    root = explain_paths([str(run)]).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 3)
    assert root.text.endswith("for recv operation to complete")


@pytest.mark.parametrize(
    ("said", "odd"),
    [
        # A dtype in prose, a library's version and a shape's last dimension: no `key=value` to read.
        ("[rank {r}] {name}: 480 pairs, pKd {v}", "float64"),
        ("[rank {r}/3] loaded 24 clips from mediapipe-holistic {v}, array (24, 48, 75, 2)", "0.10.14"),
        ("[rank {r}/3] {name} keypoints array (24, 48, 75, {v})", "3"),
    ],
)
def test_the_sender_of_a_size_check_is_told_by_any_value_it_alone_gives(said: str, odd: str) -> None:
    """gloo's size check fails on rank 0, which received the data: the sender is rank 2, the one rank whose
    line, alike with its peers', gives a value they all give otherwise (a dtype, a version, a dimension)."""
    usual = {"float64": "float32", "0.10.14": "0.10.9", "3": "2"}[odd]
    names = ["chembl_kinases", "chembl_proteases", "pdbbind_ca"]
    lines = "".join(said.format(r=r, name=names[r], v=odd if r == 2 else usual) + "\n" for r in (1, 2, 0))
    root = explain_text(lines + _SIZE_CHECK + _torchrun_exit_table(0, -6, (1, 2))).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 2)
    assert any("gives a value otherwise than every other rank" in w for w in root.why)


def test_a_value_that_differs_by_chance_does_not_name_the_sender_of_a_size_check() -> None:
    """Every rank prints its step time, clock and loss: rank 2's time alone differs (`1.7s`, `04:56:41`),
    by chance, not by what it holds; no rank is the odd one, so the rank torchrun saw fail stays."""
    lines = "".join(
        f"2026-12-02 04:56:{41 if r == 2 else 40},004 [rank {r}] it=0 mask=0.625 elapsed={1.7 if r == 2 else 1.6}s\n"
        for r in (1, 2, 0)
    )
    root = explain_text(lines + _SIZE_CHECK + _torchrun_exit_table(0, -6, (1, 2))).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 0)


def test_a_ranks_own_print_after_torchs_labelled_traceback_is_its_line_not_the_message() -> None:
    """Behind `--tee`, rank 3's traceback carries torch's `[rank3]: ` label and, right after it, the
    script's own `[rank 3] lang=c classes=6` line is printed (stdout flushed late). That line is a record
    of its own, not the rest of the exception's message: read beside its peers', rank 1 alone counts 7
    classes, the sender of the size check rank 0 reports."""
    tee = "[default2]:[rank 2] lang=java tokens=16 classes=6\n"
    tee += "".join(f"[default3]:{line}\n" for line in _gloo_timeout(3, "recv").splitlines())
    tee += "[default3]:[rank 3] lang=c tokens=17 classes=6\n"
    tee += "[default1]:[rank 1] lang=sql tokens=15 classes=7\n[default0]:[rank 0] lang=python tokens=13 classes=6\n"
    tee += "".join(f"[default0]:{line}\n" for line in _SIZE_CHECK.splitlines())
    root = explain_text(tee + _torchrun_exit_table(0, -6, (1, 2, 3))).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 1)


def test_a_peer_that_got_through_a_loop_in_fewer_rounds_went_past_where_the_rank_stopped(
    tmp_path: Path,
) -> None:
    """No file holds an error. Rank 0 read its 1200 rows in one round and went on; rank 1 stops at `read
    rows 4096/76800`, a loop it had not got through: it stopped first, though it printed more rounds."""
    stdout = {
        0: "[rank 0] slide_0457.svs: mask from level 3 (1536x1200)\n[rank 0] read rows 1200/1200\n"
        "[rank 0] tissue fraction 0.250\n",
        1: "[rank 1] slide_0511.tif: mask from level 0 (98304x76800)\n[rank 1] read rows 2048/76800\n"
        "[rank 1] read rows 4096/76800\n",
    }
    root = explain_paths([str(_stdout_dir(tmp_path, stdout))]).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 1)
    assert root.text.endswith("read rows 4096/76800")


def test_ranks_that_both_stop_mid_loop_are_not_told_apart_by_their_counts(tmp_path: Path) -> None:
    """Both ranks stop inside their loop (`read rows 600/1200`, `read rows 4096/76800`) and print nothing
    else: neither got through it, so neither went past the other; no rank is named."""
    stdout = {
        0: "[rank 0] read rows 300/1200\n[rank 0] read rows 600/1200\n",
        1: "[rank 1] read rows 2048/76800\n[rank 1] read rows 4096/76800\n",
    }
    assert _ended_without_a_word(_stdout_dir(tmp_path, stdout))


@pytest.mark.parametrize(
    "label",
    [
        "[{site} r{r}] ",  # a bracketed label whose last word is short for the rank
        "[{r}/3] ",  # the rank counted from 0 of the world, in a file whose lines count every rank so
    ],
)
def test_a_size_checks_sender_is_told_by_its_line_under_a_short_or_counted_rank_label(label: str) -> None:
    """Each rank labels its lines its own way (`[BA-CENTRAL r1]`, `[1/3]`): read as the rank, the line
    that alone lists another set of names (`passbands ztfg,ztfr,ztfi` where they list two) or states
    another setting names rank 1, the sender of the size check rank 0 reports."""
    sites = ["BA-WEST", "BA-CENTRAL", "BA-SOUTH"]
    lines = "".join(
        label.format(site=sites[r], r=r)
        + f"field {673 + r}: 32 objects, passbands {'ztfg,ztfr,ztfi' if r == 1 else 'ztfg,ztfr'}\n"
        for r in (2, 1, 0)
    )
    root = explain_text(lines + _SIZE_CHECK + _torchrun_exit_table(0, -6, (1, 2))).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 1)


def test_a_progress_counter_in_brackets_is_not_a_rank_label() -> None:
    """`[1/3] Building ...`, `[2/3] ...`, `[3/3] ...`: a counter from 1, not ranks counted from 0; the error
    after it stays the console's, with no rank."""
    lines = "[1/3] Building extension dataset\n[2/3] Linking extension\n[3/3] Copying files\n"
    lines += 'Traceback (most recent call last):\n  File "/work/train.py", line 9, in <module>\n'
    lines += "    build()\nRuntimeError: extension failed to load: undefined symbol _Z3fooPv\n"
    root = explain_text(lines).root_cause
    assert root is not None and root.rank is None


def test_of_two_ranks_that_printed_no_error_the_one_configured_otherwise_went_first(tmp_path: Path) -> None:
    """Ranks 0 and 2 lost their connection; ranks 1 and 3 printed nothing wrong and stopped at the same
    step. Rank 3 alone says `feature cache: memory` where every peer says `disk`: it ran otherwise, and
    of the two it is the one that went (killed without a word, most likely for memory)."""
    stdout = {
        r: f"[rank {r}] feature cache: {'memory' if r == 3 else 'disk'} (/scratch/cache/node{r})\n"
        + "".join(f"[rank {r}] step {s} loss 1.{r}{s} layer-weights argmax 8\n" for s in (0, 25, 50))
        for r in range(4)
    }
    run = _stdout_dir(tmp_path, stdout)
    lost = (
        "[rank{r}]: Traceback (most recent call last):\n"
        '[rank{r}]:   File "/work/train.py", line 70, in main\n[rank{r}]:     loss.backward()\n'
        "[rank{r}]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:537] Read error"
        " [127.0.0.1]:57256: Connection reset by peer\n"
    )
    for r in (0, 2):
        (run / str(r) / "stderr.log").write_text(lost.format(r=r))
    root = explain_paths([str(run)]).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 3)


def test_ranks_that_printed_no_error_and_are_configured_alike_stay_unnamed(tmp_path: Path) -> None:
    """The same job with every rank on `disk`: nothing tells rank 1 from rank 3, so no rank is named."""
    stdout = {
        r: f"[rank {r}] feature cache: disk (/scratch/cache/node{r})\n[rank {r}] step 50 loss 1.{r}\n"
        for r in range(4)
    }
    run = _stdout_dir(tmp_path, stdout)
    for r in (0, 2):
        (run / str(r) / "stderr.log").write_text(
            f"[rank{r}]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:537] Read error"
            " [127.0.0.1]:57256: Connection reset by peer\n"
        )
    root = explain_paths([str(run)]).root_cause
    assert root is not None and root.rank is None


@pytest.mark.parametrize(
    ("said", "is_wait"),
    [
        ("index /tmp/ann/2026-12-06 not published yet, waited {s}s", True),  # a wait it counts
        ("replay sess_b not exported yet, attaching to live capture (step {s})", False),  # it went on
    ],
)
def test_a_stragglers_line_that_counts_its_wait_is_the_root_line_at_its_first_round(
    said: str, is_wait: bool
) -> None:
    """Ranks 0-2 time out in a collective; rank 3 had gone its own way after the epoch line they all
    printed. When its line counts a wait (`..., waited 0s`, `waited 2s`, ...), that wait's first round is
    the root line; a line of something it went on doing leaves the peers' timeout as the root line."""
    lines = "".join(f"[rank {r}] epoch 1 local loss 4.{r}\n" for r in range(4))
    lines += "".join(f"[rank 3] {said.format(s=s)}\n" for s in (0, 2, 4, 6))
    lines += _gloo_timeout(0, "recv") + _gloo_timeout(1, "recv") + _gloo_timeout(2, "send")
    root = explain_text(lines + _torchrun_exit_table(0, 1, (1, 2, 3))).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 3)
    if is_wait:
        assert root.text.endswith(said.format(s=0))
    else:
        assert root.text.endswith("for recv operation to complete")


@pytest.mark.parametrize(("call", "odd"), [("dist.all_reduce(weights)", True), ("dist.barrier()", False)])
def test_one_rank_left_waiting_in_a_collective_its_peers_got_through_is_the_odd_one(
    call: str, odd: bool
) -> None:
    """gloo sums tensors of other sizes without a word: ranks 0, 1 and 3 got through the all_reduce and
    printed the weights it gave; rank 2, whose tensor had a fourth class, timed out in it. Rank 2's call
    did not pair with theirs (`collective_mismatch`). A barrier carries nothing: there the peers may have
    gone on from a barrier of their own, and no mismatch is named."""
    lines = "".join(f"rank={r} site=S{r} INFO local pick-face mix {{'shelf': 15{r}.0}}\n" for r in range(4))
    lines += "".join(
        f"rank={r} site=S{r} INFO global face-type loss weights [3.06, 2.97]\n" for r in (0, 1, 3)
    )
    lines += _gloo_timeout(2, "recv").replace("dist.all_reduce(stats)", call)
    root = explain_text(lines + _torchrun_exit_table(2, 1, (0, 1, 3))).root_cause
    assert root is not None and (root.category == "collective_mismatch") is odd
    assert root.rank == 2 or not odd


def test_a_logger_field_rank_with_the_world_size_names_the_printer_of_a_critical_record() -> None:
    """`CRITICAL 2026-... rank0/4 triage.encoder - vocab checksum ... aborting run`: the field `rank0/4`
    names rank 0, whose record is the account of its exit (code 3), not a peer's INFO line."""
    lines = (
        "INFO 2026-12-06 06:57:55,085 rank0/4 triage.encoder - resolved vocab: 8192 entries\n"
        "CRITICAL 2026-12-06 06:57:55,085 rank0/4 triage.encoder - vocab checksum 1f0273 does not match"
        " manifest 4be1c0; aborting run\n"
        "INFO 2026-12-06 06:57:55,112 rank3/4 triage.encoder - waiting for vocab metadata from rank 0\n"
    )
    root = explain_text(lines + _torchrun_exit_table(0, 3, (1, 2, 3))).root_cause
    assert root is not None and root.rank == 0 and root.line == 2
    assert root.text.endswith("manifest 4be1c0; aborting run")


# --- classes found in the fiftieth session ---------------------------------------------------------


def test_a_rank_field_after_a_padded_level_names_the_printer() -> None:
    """`%(levelname)-5s` pads `INFO` with a space: `... INFO  rank=3 region=...`. The rank field after the
    padding is still the logger's, so rank 3's line, alone in giving 80 bins where its peers give 48, names
    the sender of the size check rank 2 reports."""
    lines = "".join(
        f"2026-12-06 08:09:29,7{r}0 INFO  rank={r} region=R{r} tiles=96 histogram bins={80 if r == 3 else 48}\n"
        for r in (0, 3, 1)
    )
    lines += _SIZE_CHECK + "2026-12-06 08:09:29,802 INFO  rank=2 region=R2 tiles=96 histogram bins=48\n"
    root = explain_text(lines + _torchrun_exit_table(2, -6, (0, 1, 3))).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 3)


@pytest.mark.parametrize(
    ("said", "odd"),
    [
        # Each rank's shard is named with a decimal (`NaCl_0.5M`, `KCl_1.0M`): its `5` is not a value alone.
        ("[rank {r}/4] shard {name}M: 16 frames, elements {v}", "H,O,Na,Cl,K"),
        # torch's repr names a dtype only when it is not the default one.
        ("[rank {r}] local sums over 3 tracks: tensor([-6.43{r}1, -1.77{r}8]{v})", ", dtype=torch.float64"),
    ],
)
def test_the_sender_of_a_size_check_is_told_by_a_value_among_names_and_tensors(said: str, odd: str) -> None:
    """gloo's size check fails on rank 1; the sender is rank 2, whose line alone lists a fifth element, or
    whose tensor alone prints a dtype (float64 where its peers hold the default float32)."""
    usual = {"H,O,Na,Cl,K": "H,O,Na,Cl", ", dtype=torch.float64": ""}[odd]
    names = ["NaCl_0.5", "KCl_1.0", "LiCl_2.0", "MgCl_4.0"]
    lines = "".join(said.format(r=r, name=names[r], v=odd if r == 2 else usual) + "\n" for r in (1, 0, 3, 2))
    root = explain_text(lines + _SIZE_CHECK + _torchrun_exit_table(1, -6, (0, 2, 3))).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 2)


def test_measurements_that_differ_by_chance_leave_the_value_one_rank_holds() -> None:
    """Each rank reads out its validation scores, a different rank alone in each of them (`-2.14` where the
    others read `-2.15`, `0.58` where they read `0.59`): measurements, not values a rank holds. The dtype it
    holds its counts in is one: rank 2 alone says float64, the sender of the size check rank 1 reports."""
    scores = {0: "-2.15 -0.59 -1.59", 1: "-2.15 -0.59 -1.60", 2: "-2.15 -0.58 -1.60", 3: "-2.14 -0.59 -1.60"}
    lines = "".join(f"[rank {r}] val track 0 SDR {scores[r]}\n" for r in (3, 1, 0, 2))
    lines += "".join(
        f"[rank {r}] class counts held as {'float64' if r == 2 else 'float32'}\n" for r in (3, 1, 0, 2)
    )
    root = explain_text(lines + _SIZE_CHECK + _torchrun_exit_table(1, -6, (0, 2, 3))).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 2)


def test_a_kubectl_prefix_of_a_pod_with_no_index_is_a_collectors_label() -> None:
    """`kubectl logs --prefix` puts `[pod/NAME/CONTAINER] ` before every line. A pod named with no role and
    index says nothing of a rank: read behind it, `--tee`'s `[default1]:` labels name the rank that raised."""
    lines = "".join(f"[default{r}]:step 3 loss 0.4{r}\n" for r in range(2))
    lines += (
        "[default1]:Traceback (most recent call last):\n"
        '[default1]:  File "/work/train.py", line 41, in main\n'
        "[default1]:    weights = load_weights(cfg)\n"
        '[default1]:  File "/work/train.py", line 19, in load_weights\n'
        '[default1]:    return torch.load(cfg["ckpt"])\n'
        "[default1]:KeyError: 'ckpt'\n"
    )
    pod = "".join(f"[pod/trainer-7f9c4-xk2p/pytorch] {line}\n" for line in lines.splitlines())
    root = explain_text(pod).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 1)
    assert root.text.endswith("KeyError: 'ckpt'")
    assert root.user_frame is not None and root.user_frame.line == 19


def test_a_collectors_bracketed_time_on_every_line_comes_off() -> None:
    """Jenkins' timestamper puts `[2026-11-30T12:00:05.005Z] ` before every line, a traceback's too: a
    collector's time, not a record's. Behind it, torchrun's `[default1]:` labels and the traceback read
    whole."""
    text = "".join(f"[default{r}]:step 3 loss 0.4{r}\n" for r in range(2)) + (
        "[default1]:Traceback (most recent call last):\n"
        '[default1]:  File "/work/train.py", line 41, in main\n'
        "[default1]:    weights = load_weights(cfg)\n"
        '[default1]:  File "/work/train.py", line 19, in load_weights\n'
        '[default1]:    return torch.load(cfg["ckpt"])\n'
        "[default1]:KeyError: 'ckpt'\n"
    )
    stamped = "".join(
        f"[2026-11-30T12:00:{i:02d}.{i:03d}Z] {line}\n" for i, line in enumerate(text.splitlines())
    )
    root = explain_text(stamped).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 1)
    assert root.text == "KeyError: 'ckpt'"
    assert root.user_frame is not None and root.user_frame.line == 19


def test_a_programs_own_bracketed_times_are_its_records_not_a_collectors() -> None:
    """DeepSpeed's logger writes `[2023-04-14 13:11:21,054] [INFO] [launch.py:...]` records, and the
    Python traceback between them has no time: these times are the program's, each starting a record,
    and the launcher's record of the killed rank stays the root line."""
    text = (
        "[2023-04-14 13:11:20,001] [INFO] [launch.py:229:main] dist_world_size=2\n"
        "[2023-04-14 13:11:20,002] [INFO] [launch.py:247:main] process 4100 spawned with command: [...]\n"
        "[2023-04-14 13:11:20,003] [INFO] [launch.py:247:main] process 4101 spawned with command: [...]\n"
        "[2023-04-14 13:11:21,054] [INFO] [launch.py:428:sigkill_handler] Killing subprocess 4100\n"
        "[2023-04-14 13:11:21,055] [INFO] [launch.py:428:sigkill_handler] Killing subprocess 4101\n"
        "[2023-04-14 13:11:21,056] [ERROR] [launch.py:434:sigkill_handler] ['/usr/bin/python', '-u',"
        " 'train.py', '--local_rank=1'] exits with return code = -9\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.category == "oom_host" and root.line == 6


def test_a_settings_value_of_its_own_does_not_hide_the_line_a_killed_rank_stopped_at(tmp_path: Path) -> None:
    """A `--log-dir` with no error: rank 1 stops at its `slice=...` line, whose value is its own
    (`last_24h+backfill_2019` where rank 0 says `last_24h`), while rank 0 went on past that line. A
    setting's value is a value whatever words it holds: the lines are alike, and rank 1 stopped first."""
    run = _stdout_dir(
        tmp_path,
        {
            0: "[rank 0] slice=last_24h articles=1,800\n[rank 0] similarity (1800, 1800) clusters=15\n",
            1: "[rank 1] slice=last_24h+backfill_2019 articles=310,000\n",
        },
    )
    root = explain_paths([str(run)]).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 1)
    assert root.text.endswith("slice=last_24h+backfill_2019 articles=310,000")


def _size_check(arrived: int, expected: int) -> str:
    return _SIZE_CHECK.replace("448 vs 384", f"{arrived} vs {expected}")


@pytest.mark.parametrize(
    ("settings", "arrived", "expected", "odd", "by_proportion"),
    [
        # Rank 2 sent 50 bins where rank 1 expected 20: 100 bytes against 40. Rank 3's learning rate is its
        # own too, a fraction, no size.
        ({0: (20, "0.01"), 1: (20, "0.01"), 2: (50, "0.01"), 3: (20, "0.02")}, 100, 40, 2, True),
        # Rank 1 itself, the receiver, holds 8 bins where its peers hold 12: 120 bytes arrived against 80.
        ({0: (12, "0.01"), 1: (8, "0.01"), 2: (12, "0.01"), 3: (12, "0.02")}, 120, 80, 1, False),
        # A sender whose 8 bins stand in the receiver's proportion (8 of 12, for 120 against 80) would have
        # sent less, not more: not named by the proportion (its lone setting still names it).
        ({0: (12, "0.01"), 1: (12, "0.01"), 2: (8, "0.01"), 3: (12, "0.01")}, 120, 80, 2, False),
    ],
)
def test_the_rank_whose_number_is_in_the_proportion_of_the_size_check_is_the_odd_one(
    settings: dict[int, tuple[int, str]], arrived: int, expected: int, odd: int, by_proportion: bool
) -> None:
    """gloo's size check on rank 1 compares the bytes that arrived with the bytes it expected. The rank
    whose number stands to its peers' in that proportion (for the receiver, the inverse one) sized its
    tensor otherwise: it is named, for that reason, over another rank's lone value."""
    lines = "".join(
        f'[rank {r}] cfg={{"batch": 128, "calib_bins": {bins}, "lr": {lr}}}\n'
        for r, (bins, lr) in settings.items()
    )
    root = explain_text(
        lines + _size_check(arrived, expected) + _torchrun_exit_table(1, -6, (0, 2, 3))
    ).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", odd)
    assert any("in the proportion of the sizes gloo compared" in w for w in root.why) == by_proportion


def test_a_size_check_that_compares_zero_bytes_names_no_proportion() -> None:
    """A size check whose text reads `0 vs 5` (gloo never prints it; an edited or corrupted log may) gives
    no proportion to read: the receiver stays named, and nothing divides by zero."""
    lines = "".join(f'[rank {r}] cfg={{"calib_bins": {8 if r == 1 else 12}}}\n' for r in range(4))
    root = explain_text(lines + _size_check(0, 5) + _torchrun_exit_table(1, -6, (0, 2, 3))).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 1)
    assert not any("in the proportion" in w for w in root.why)


# --- classes found in the fifty-first session ------------------------------------------------------


def _one_step(rank: int, count: str, name: str = "atoms") -> str:
    return f"[rank {rank}] system_{rank}: {count} {name}, tabulating reference g(r)\n"


@pytest.mark.parametrize(
    ("counts", "culprit"),
    [
        ({0: "2894", 1: "41562", 2: "4210", 3: "1860"}, 1),  # 9.9-fold its peers' largest
        ({0: "1,204", 1: "1,187", 2: "5,120", 3: "1,199"}, 2),  # 4.2-fold
        ({0: "2894", 1: "11562", 2: "4210", 3: "1860"}, None),  # 2.7-fold: chance among shards
        ({0: "2894", 1: "41562", 2: "41000", 3: "1860"}, None),  # two ranks took as much
    ],
)
def test_a_log_dir_whose_ranks_stopped_at_one_line_names_the_rank_taking_several_fold(
    tmp_path: Path, counts: dict[int, str], culprit: int | None
) -> None:
    """A `--log-dir` with no error: every rank stops at a line of the same step, none saying it finished
    (the launcher stopped them together once one was killed). The one rank whose count in that line stands
    fourfold or more over every peer's was taking the most: a likely host OOM kill, low confidence. Less,
    or two ranks alike, names no one (chance among shards gives as much)."""
    run = _stdout_dir(tmp_path, {r: _one_step(r, n) for r, n in counts.items()})
    if culprit is None:
        assert _ended_without_a_word(run)
        return
    root = explain_paths([str(run)]).root_cause
    assert root is not None and (root.category, root.rank, root.confidence) == ("oom_host", culprit, "low")
    assert root.text == _one_step(culprit, counts[culprit]).split("] ", 1)[1].strip()
    assert "stops at a line of the same shape, none saying it finished" in " ".join(root.why)


def test_a_log_dir_whose_ranks_stopped_alike_names_the_rank_that_read_fourfold_earlier(
    tmp_path: Path,
) -> None:
    """The ranks stop at lines of one shape (`step 3 loss=...`), none saying it finished; rank 1 had
    announced a shard nine times its peer's (ranks of one job are given alike shares; its later memory,
    half again its peer's, does not hide that): it was taking the most, its last line the root. Threefold
    names no one, nor does a line's last word that merely ends in s (`rss`)."""

    def run(name: str, shard: int) -> Path:
        lines = {
            r: f"[rank {r}] shard of {shard if r == 1 else 4000} samples\n"
            f"[rank {r}] step 3 loss=0.4{r} ({2.4 if r == 1 else 1.5} GiB resident)\n"
            for r in range(2)
        }
        return _stdout_dir(tmp_path / name, lines)

    root = explain_paths([str(run("ninefold", 36000))]).root_cause
    assert root is not None and (root.category, root.rank, root.confidence) == ("oom_host", 1, "low")
    assert root.text == "step 3 loss=0.41 (2.4 GiB resident)" and "36000 samples" in " ".join(root.why)
    assert _ended_without_a_word(run("threefold", 12000))
    rss = {r: f"[rank {r}] step 3 {2250 if r == 1 else 225} rss\n" for r in range(2)}
    assert _ended_without_a_word(_stdout_dir(tmp_path / "rss", rss))


def test_a_setting_named_with_words_counts_its_items(tmp_path: Path) -> None:
    """`conductor_points=23000` is a count of points as `points=23000` is: where both ranks stop at their
    span 1 line, rank 1's 23000 points against its peer's 2600 name it."""
    lines = {
        0: "rank=0 INFO L104 span 1 length=210m conductor_points=2600 rss=233MB\n",
        1: "rank=1 INFO L318 span 1 length=1150m conductor_points=23000 rss=233MB\n",
    }
    root = explain_paths([str(_stdout_dir(tmp_path, lines))]).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 1)
    assert "23000 points" in " ".join(root.why)


def test_the_odd_rank_s_own_size_check_is_the_root_line_in_per_rank_files(tmp_path: Path) -> None:
    """gloo's size check failed on rank 0 (20 vs 16) and on rank 1 (16 vs 4); rank 1 alone counts six
    wear classes where its peers count five, so it is named, and its own report of the mismatch, read
    from its own file, is the root line rather than rank 0's."""
    run = tmp_path / "run" / "attempt_0"
    for rank in range(4):
        text = f"[rank {rank}] line L{rank}: 512 scans, {6 if rank == 1 else 5} wear classes\n"
        if rank < 2:
            text += _size_check(20, 16) if rank == 0 else _size_check(16, 4)
        (run / str(rank)).mkdir(parents=True)
        (run / str(rank) / "stderr.log").write_text(text)
        (run / str(rank) / "stdout.log").write_text("")
    root = explain_paths([str(run)]).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 1)
    assert "16 vs 4." in root.text and root.file.endswith("/1/stderr.log")


def test_a_count_of_things_in_the_proportion_of_the_size_check_names_the_sender() -> None:
    """1700 bytes arrived where rank 0 expected 416: rank 2 alone counts 425 trial periods where its
    peers count 104, the same proportion (its 2630 cadences, twice theirs, are not). It sized what it
    sent otherwise and is named over the receiver."""
    lines = "".join(
        f"[rank {r}] sectors: {2630 if r == 2 else 1315} cadences, {425 if r == 2 else 104} trial periods\n"
        for r in range(3)
    )
    root = explain_text(lines + _size_check(1700, 416) + _torchrun_exit_table(0, -6, (1, 2))).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 2)
    assert any("in the proportion of the sizes gloo compared" in w for w in root.why)
    # Counted in another proportion (400 periods), the count names no sender: the receiver stays.
    other = lines.replace("425 trial", "400 trial")
    root = explain_text(other + _size_check(1700, 416) + _torchrun_exit_table(0, -6, (1, 2))).root_cause
    assert root is not None and not any("in the proportion" in w for w in root.why)


def test_a_word_setting_is_compared_whatever_the_words_around_it() -> None:
    """Each rank names its own camera, in words of its own length, before `bands=...`: rank 1 alone lists
    a fourth band. The lines are compared by their settings' keys, and rank 1 is named over rank 0, whose
    size check failed; two ranks with bands of their own name no one."""
    cameras = {0: "GoPro Hero10", 1: "Sony A7 + UW housing", 2: "GoPro Hero10", 3: "Olympus TG-6"}

    def log(bands: dict[int, str]) -> str:
        lines = "".join(
            f"[rank {r}] leg{r}: {cam}, 64 frames, bands={bands[r]}\n" for r, cam in cameras.items()
        )
        return lines + _size_check(8, 4) + _torchrun_exit_table(0, -6, (1, 2, 3))

    root = explain_text(log({0: "R,G,B", 1: "R,G,B,NIR", 2: "R,G,B", 3: "R,G,B"})).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 1)
    assert any("bands=R,G,B,NIR" in w for w in root.why)
    root = explain_text(log({0: "R,G,B", 1: "R,G,B,NIR", 2: "R,G,B", 3: "R,G"})).root_cause
    assert root is not None and root.rank == 0


@pytest.mark.parametrize(
    ("last", "culprit"),
    [
        ({0: "longest 10.0s", 1: "longest 12.5s", 2: "longest 7200.0s"}, 2),  # 576-fold
        ({0: "depth=61", 1: "depth=38400", 2: "depth=55"}, 1),  # 630-fold
        ({0: "depth=61", 1: "depth=3840", 2: "depth=55"}, None),  # 63-fold: within what data gives
        ({0: "loss=0.5000", 1: "loss=0.0001", 2: "loss=0.0002"}, None),  # numbers under one: not compared
        ({0: "depth=61 span=9000", 1: "depth=38400 span=12", 2: "depth=55 span=10"}, None),  # two ranks over
    ],
)
def test_a_log_dir_whose_ranks_stopped_at_one_line_names_a_number_orders_of_magnitude_over(
    tmp_path: Path, last: dict[int, str], culprit: int | None
) -> None:
    """Every rank stops at its step 1 line with no error and none saying it finished; one rank's number
    in it, whatever it counts, stands a hundredfold and more over every peer's (a clip of two hours among
    clips of seconds): it was taking the most, a likely host OOM kill (low confidence)."""
    run = _stdout_dir(
        tmp_path, {r: f"[rank {r}] step 1: batch of 4 clips, {text}\n" for r, text in last.items()}
    )
    if culprit is None:
        assert _ended_without_a_word(run)
        return
    root = explain_paths([str(run)]).root_cause
    assert root is not None and (root.category, root.rank, root.confidence) == ("oom_host", culprit, "low")
    assert root.text.endswith(last[culprit])


def test_a_not_implemented_error_that_says_what_it_got_is_the_callers_input() -> None:
    """`F.interpolate` refuses a 2-D tensor with NotImplementedError, saying what it got: the input the
    script passed on rank 2, not a backend that lacks an implementation (which every rank would meet)."""
    frames = (
        "Traceback (most recent call last):",
        '  File "/srv/sonar/train.py", line 40, in <module>',
        "    bins = F.interpolate(ping, size=64, mode='linear')",
        f'  File "{SITE}/torch/nn/functional.py", line 4710, in interpolate',
        "    raise NotImplementedError(",
        "NotImplementedError: Input Error: Only 3D, 4D and 5D input Tensors supported (got 2D) for the modes:"
        " nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact (got linear)",
    )
    log = "".join(f"[rank2]: {line}\n" for line in frames)
    root = explain_text(log + _torchrun_exit_table(2, 1, (0, 1, 3))).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 2)
    assert root.user_frame is not None and root.user_frame.line == 40


def test_a_rank_of_a_count_after_the_level_labels_the_line() -> None:
    """`%(asctime)s [%(levelname)s] rank %(rank)d/%(world)d %(message)s`: `rank 3/4 home_farm: ...` is
    rank 3's line; among its peers' counts of paddocks, its 14 where they count 12 stand in the proportion
    of the size check (28 bytes against 24), which names it over rank 0, which received them."""
    lines = "".join(
        f"2026-12-06 10:59:40,56{r} [INFO] rank {r}/4 farm_{r}: pasture map, {14 if r == 3 else 12} paddocks\n"
        for r in range(4)
    )
    root = explain_text(lines + _size_check(28, 24) + _torchrun_exit_table(0, -6, (1, 2, 3))).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 3)


def test_a_count_of_the_same_things_among_other_words_names_the_odd_rank() -> None:
    """Each rank names its own tide station, in words of its own length, then the constituents it fits:
    rank 3 alone fits 11 where its peers fit 8. gloo's size check (16 bytes against 8, no proportion of
    11 to 8) failed on rank 2, which only received what rank 3 sent: rank 3 is named."""
    names = {0: "Atlantic City", 1: "Lewes", 2: "Ocean City Inlet", 3: "Philadelphia"}
    lines = "".join(
        f"[rank {r}] {8534720 + r} {name}: 369 d record, fitting {11 if r == 3 else 8} constituents\n"
        for r, name in names.items()
    )
    root = explain_text(lines + _size_check(16, 8) + _torchrun_exit_table(2, -6, (0, 1, 3))).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 3)
    assert any("counts otherwise than every other rank" in w for w in root.why)


def test_a_setting_after_a_colon_is_compared_whatever_the_words_around_it() -> None:
    """`density source: snow pits (5 bands)` where every peer says `density source: regional table`: rank 2
    alone, among lines whose flight-line names differ, is named over rank 1, whose size check failed."""
    lines = "".join(
        f"[rank {r}] INFO flight line FL3{r}: 256 cells, density source: "
        + ("snow pits (5 bands)" if r == 2 else "regional table")
        + "\n"
        for r in range(4)
    )
    root = explain_text(lines + _size_check(8, 4) + _torchrun_exit_table(1, -6, (0, 2, 3))).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 2)


def test_a_rank_s_error_record_is_its_account_over_an_info_line_naming_the_same_failure() -> None:
    """Rank 3 logs `-> range error 2.30 m at 120 m` at INFO, then at ERROR that the error exceeds the
    limit, and exits with code 4: the ERROR record is its account of why it stopped."""
    log = (
        "[11:02:04][rank 3][INFO] stratum E: c=1500.0 -> range error 2.30 m at 120 m\n"
        "[11:02:04][rank 3][ERROR] stratum E: range error 2.30 m exceeds 0.50 m; re-export the raw files\n"
        + "".join(
            f"[11:02:04][rank {r}][INFO] stratum {r}: c=1489.2 -> range error 0.02 m at 120 m\n"
            for r in range(3)
        )
    )
    root = explain_text(log + _torchrun_exit_table(3, 4, (0, 1, 2))).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 3)
    assert "exceeds 0.50 m" in root.text


def test_a_tensor_printed_as_integers_among_floats_is_the_odd_dtype() -> None:
    """torch leaves the default dtypes out of a tensor's repr: `tensor([2, 3, 3, 2])` is int64 where its
    peers' `tensor([1.9000, ...])` are float32. Rank 1's 8-byte elements are what rank 0's size check (8
    against 4) received: rank 1 is named; its elements, which differ by chance on every rank, are not."""
    factors = {0: "1.9000, 2.4000", 1: "2, 3", 2: "1.8000, 2.3000", 3: "2.0000, 2.5000"}
    lines = "".join(f"[rank {r}] region=r{r}x packout factors tensor([{f}])\n" for r, f in factors.items())
    root = explain_text(lines + _size_check(8, 4) + _torchrun_exit_table(0, -6, (1, 2, 3))).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 1)
    floats = lines.replace("tensor([2, 3])", "tensor([2.1000, 3.0000])")
    root = explain_text(floats + _size_check(8, 4) + _torchrun_exit_table(0, -6, (1, 2, 3))).root_cause
    assert root is not None and root.rank == 0


def test_a_count_of_things_named_with_a_hyphenated_word_is_read() -> None:
    """`24 cloud-free passes` where its peers count 15, for 48 bytes against 30: the hyphenated word is
    part of what is counted, and rank 2 is named by the proportion."""
    sites = {0: "Palos Verdes", 1: "Anacapa North", 2: "Point Lobos Reserve", 3: "Van Damme"}
    lines = "".join(
        f"[rank {r}] {site}: {24 if r == 2 else 15} cloud-free passes, peak 8{r}.1 ha\n"
        for r, site in sites.items()
    )
    root = explain_text(lines + _size_check(48, 30) + _torchrun_exit_table(3, -6, (0, 1, 2))).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 2)
    assert any("in the proportion of the sizes gloo compared" in w for w in root.why)


def test_readings_with_thousands_separators_are_compared_as_one_number(tmp_path: Path) -> None:
    """Both ranks stop at `building dense Laplacian (...)` with no error; rank 1 had read `2,621,442
    vertices` where its peer read `642`: the lines are of one shape whatever the separators, and rank 1,
    taking the most, is named."""
    counts = {0: ("642", "1,280"), 1: ("2,621,442", "5,242,880")}
    stdout = {
        r: f"[rank {r}] shape {r}: {v} vertices, {f} faces\n[rank {r}] building dense Laplacian ({v} x {v})\n"
        for r, (v, f) in counts.items()
    }
    root = explain_paths([str(_stdout_dir(tmp_path, stdout))]).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 1)


# --- classes found in the fifty-second session ------------------------------------------------------


def test_a_log_dir_in_which_one_rank_alone_printed_names_it(tmp_path: Path) -> None:
    """A `--log-dir` with no error in which rank 2 alone printed (`labelling 512 candidates against 1350000
    points`) and its peers' files are empty: the processes ended without a word, and the one rank whose
    files hold a line is named (low confidence), its last line the root."""
    stdout = {r: "" for r in range(4)}
    stdout[2] = (
        "[rank 2] bin_picking_0042: 1350000 raw points -> 1350000 after filtering\n"
        "[rank 2] labelling 512 candidates against 1350000 points\n"
    )
    report = explain_paths([str(_stdout_dir(tmp_path, stdout))])
    root = report.root_cause
    assert root is not None and (root.category, root.rank, root.confidence) == ("oom_host", 2, "low")
    assert root.text.endswith("labelling 512 candidates against 1350000 points")
    assert int(report.exit_code()) == 1


def test_a_log_dir_in_which_rank_0_alone_printed_names_no_rank(tmp_path: Path) -> None:
    """Rank 0 alone printed (`if rank == 0: log(...)`), the usual logging of a script, and it says
    nothing of which process went: no rank is named, and the report points at where the output stops."""
    stdout = {0: "round 8 loss=0.6324 pool=9 snapshots\nround 9 loss=0.4850 pool=10 snapshots\n", 1: ""}
    run = _stdout_dir(tmp_path, stdout)
    assert _ended_without_a_word(run)
    root = explain_paths([str(run)]).root_cause
    assert root is not None and root.text == "round 9 loss=0.4850 pool=10 snapshots"


def test_a_log_dir_with_no_error_points_at_the_output_that_stops_earliest(tmp_path: Path) -> None:
    """No error and no rule names a rank; rank 1's output stops at its first line (a dict with a key
    fewer than its peer's, so not a line its peer went past) where rank 0 printed two: the report points
    at rank 1's line, naming no rank."""
    stdout = {
        0: "rank 0/2 | harbor: 6000 reports, vectorizer {'site': 'harbor', 'ngram_max': 1, 'max_features': 5000}\n"
        "rank 0/2 | tfidf (6000, 37) rss=232MB\n",
        1: "rank 1/2 | eastside: 6000 reports, vectorizer {'site': 'eastside', 'ngram_max': 3}\n",
    }
    run = _stdout_dir(tmp_path, stdout)
    assert _ended_without_a_word(run)
    root = explain_paths([str(run)]).root_cause
    assert root is not None and root.text.startswith("eastside: 6000 reports")


def test_a_log_dir_whose_last_lines_say_they_finished_is_no_failure(tmp_path: Path) -> None:
    """The guard of the rules above: every rank's last line says it finished, its output of differing
    lengths (rank 0 prints more): nothing failed that the files could show."""
    done = {r: f"[rank {r}] epoch 3 loss 0.41\n[rank {r}] done, saved model\n" for r in range(3)}
    done[0] = "[rank 0] world of 3\n" + done[0]
    assert explain_paths([str(_stdout_dir(tmp_path, done))]).root_cause is None


def test_an_info_line_of_a_failed_try_repeated_to_the_last_line_is_the_failure() -> None:
    """NCCL's `Call to connect returned Connection timed out, retrying`, an INFO line, twice as the log's
    last lines: the retries never got through, and nothing else is printed; taken as the failure (low
    confidence). The same lines followed by the job going on are a retry that worked."""
    setup = "".join(
        f"worker:101542:101934 [0] NCCL INFO Channel 0{c} : 0[18000] -> 1[18000] via NET/Socket/1\n"
        for c in range(2)
    )
    retry = "worker:101542:101934 [0] NCCL INFO Call to connect returned Connection timed out, retrying\n"
    root = explain_text(setup + retry * 2).root_cause
    assert root is not None and root.category == "nccl_error" and root.confidence == "low"
    assert root.text.endswith("Connection timed out, retrying")
    went_on = setup + retry * 2 + "worker:101542:101934 [0] NCCL INFO Connected all rings\nstep 1 loss 2.31\n"
    assert explain_text(went_on).root_cause is None


def test_an_error_logged_then_raised_points_at_the_exception_line() -> None:
    """gloo logs `[E ProcessGroupGloo.cpp:67] [Rank 0]: Rank 1 failed to pass monitoredBarrier` and then
    raises it (`RuntimeError: [Rank 0]: Rank 1 failed ...` after the traceback): one failure, read where
    it is first said, and the report points at the exception line the program raised."""
    frames = (
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/srv/seis/train.py", line 58, in main\n'
        "[rank0]:     dist.monitored_barrier(timeout=datetime.timedelta(seconds=15))\n"
    )
    log = (
        "[rank0]:[E1206 12:59:14.168256339 ProcessGroupGloo.cpp:67] [Rank 0]: Rank 1 failed to pass"
        " monitoredBarrier in 15000 ms\n"
        + frames
        + "[rank0]: RuntimeError: [Rank 0]: Rank 1 failed to pass monitoredBarrier in 15000 ms\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 1)
    assert root.line == 5 and root.text.startswith("RuntimeError: [Rank 0]: Rank 1 failed")


def test_a_wait_loop_repeated_to_the_last_line_is_the_failure() -> None:
    """A launcher's wait for its peers (`server not ready, wait 3 sec to retry...`) said again up to the
    log's last line, and nothing failed: the wait never ended, taken as the failure at its first round
    (low confidence). The same rounds followed by the job going on (past the log's last five lines) are a
    wait that ended."""
    rounds = "server not ready, wait 3 sec to retry...\nnot ready endpoints:['10.36.10.40:6070']\n"
    log = "launch train on 2 nodes\n" + rounds * 2 + "server not ready, wait 3 sec to retry...\n"
    root = explain_text(log).root_cause
    assert root is not None and root.confidence == "low" and root.line == 2
    assert root.text == "server not ready, wait 3 sec to retry..."
    went_on = (
        log + "all endpoints ready\n" + "".join(f"epoch 0 step {10 * s} loss 2.3{s}\n" for s in range(1, 6))
    )
    assert explain_text(went_on).root_cause is None


def test_a_shape_printed_as_a_tuple_counts_its_elements(tmp_path: Path) -> None:
    """Each rank of a `--log-dir` with no error stops at its `occupancy grid (24, 40, 30, 168)`; rank 1's
    is `(24, 60, 80, 10080)`, 240 times the elements: the rank taking the most is named."""
    grids = {
        0: "block A3 (RTG): occupancy grid (24, 40, 30, 168)",
        1: "block E7 (stacker): occupancy grid (24, 60, 80, 10080)",
    }
    root = explain_paths(
        [str(_stdout_dir(tmp_path, {r: f"[rank {r}] {g}\n" for r, g in grids.items()}))]
    ).root_cause
    assert root is not None and (root.category, root.rank, root.confidence) == ("oom_host", 1, "low")
    assert root.text.endswith("(24, 60, 80, 10080)")


def test_of_two_ranks_that_waited_the_one_still_waiting_is_the_straggler() -> None:
    """Ranks 1 and 2 each waited for their roster file; rank 1 got it and went on, rank 2 was still
    waiting (`(10s)`) after rank 3 timed out: rank 2 is the one the others waited for, at its wait's
    first round. One that went on is not told from another that did."""
    lines = [
        "[rank 0] shift 2026-03-14_D: ward_a nurse ratio 0.50",
        "[rank 1] waiting for roster snapshot ward_b.ready (0s)",
        "[rank 2] waiting for roster snapshot ward_c.ready (0s)",
        "[rank 3] shift 2026-03-14_D: ward_d nurse ratio 0.50",
        "[rank 1] shift 2026-03-14_N: ward_b nurse ratio 0.50",
        "[rank 2] waiting for roster snapshot ward_c.ready (5s)",
        "[rank3]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:129]"
        " Timed out waiting 15000ms for send operation to complete",
        "[rank 2] waiting for roster snapshot ward_c.ready (10s)",
    ]
    root = explain_text("\n".join(lines) + "\n").root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 2)
    assert root.text == "waiting for roster snapshot ward_c.ready (0s)"
    both_went_on = [line for line in lines if "ward_c" not in line or "(0s)" in line]
    both_went_on.append("[rank 2] shift 2026-03-14_N: ward_c nurse ratio 0.50")
    root = explain_text("\n".join(both_went_on) + "\n").root_cause
    assert root is not None and root.rank is None


def test_a_count_named_with_two_words_is_read(tmp_path: Path) -> None:
    """Both ranks of a `--log-dir` with no error stop at their `region ...: N candidate cells at R m` line;
    rank 1 counts `230,400 candidate cells` where its peer counts 2,304: the count is read with its noun's
    word before it, and rank 1, taking the most, is named."""
    regions = {
        0: "upland_south: 2,304 candidate cells at 250 m",
        1: "coastal_north: 230,400 candidate cells at 25 m",
    }
    stdout = {r: f"[rank {r}] region {text}\n" for r, text in regions.items()}
    root = explain_paths([str(_stdout_dir(tmp_path, stdout))]).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 1)
    assert root.text.endswith("230,400 candidate cells at 25 m")


# --- classes found in the fifty-third session ------------------------------------------------------


def _nccl_setup(host: str, ranks: int) -> list[str]:
    """NCCL_DEBUG=INFO's set-up lines of a communicator of `ranks` processes on one host, one per GPU."""
    lines = [
        f"{host}:100:100 [0] NCCL INFO Bootstrap : Using eth0:10.1.0.7<0>",
        "NCCL version 2.18.3+cuda12.1",
    ]
    for r in range(ranks):
        peer = (r + 1) % ranks
        lines.append(
            f"{host}:{100 + r}:{200 + r} [{r}] NCCL INFO Channel 00/0 : {r}[{r}] -> {peer}[{peer}] via P2P/IPC"
        )
    lines += [f"{host}:{100 + r}:{200 + r} [{r}] NCCL INFO Connected all rings" for r in range(ranks)]
    lines += [
        f"{host}:{100 + r}:{200 + r} [{r}] NCCL INFO comm 0x7f{r}a rank {r} nranks {ranks} cudaDev {r} busId"
        f" {r}1000 - Init COMPLETE"
        for r in range(ranks)
    ]
    return lines


def test_output_that_stops_in_nccl_set_up_is_a_hang_and_output_that_goes_on_is_not() -> None:
    """A paste of a hung job with NCCL_DEBUG=INFO ends in the set-up of NCCL's communicator: nothing
    failed, nothing came after it. The last step of the set-up is where it stopped (not a bootstrap line
    printed after it); a training line after it says the job went on."""
    setup = _nccl_setup("gpu-node-3", 3)
    root = explain_text("\n".join(setup) + "\n").root_cause
    assert root is not None and (root.category, root.rank, root.kind) == ("collective_timeout", None, "stall")
    assert root.text == setup[-1] and root.confidence == "low"
    assert "NCCL's set-up" in root.headline
    went_on = "\n".join([*setup, "epoch 0 step 10 loss 2.71"]) + "\n"
    assert explain_text(went_on).root_cause is None
    bootstrap_after = (
        "\n".join([*setup, "gpu-node-3:100:100 [0] NCCL INFO NET/Plugin : No plugin found"]) + "\n"
    )
    root = explain_text(bootstrap_after).root_cause
    assert root is not None and root.text == setup[-1]
    # Any real error earlier in the log outranks where it stopped.
    failed = explain_text("ValueError: label 7 out of range\n" + "\n".join(setup) + "\n").root_cause
    assert failed is not None and failed.text == "ValueError: label 7 out of range"


def test_a_collective_announced_before_the_set_up_lines_is_where_the_job_hangs() -> None:
    """TORCH_DISTRIBUTED_DEBUG=DETAIL announces each collective a rank runs; NCCL's set-up lines that
    follow it are its peers still setting up. The announced collective is where it waits."""
    announced = (
        "[I ProcessGroupWrapper.cpp:562] [Rank 1] Running collective: CollectiveFingerPrint(SequenceNumber=0,"
        " OpType=BROADCAST, TensorShape=[512], TensorDtypes=Float)"
    )
    lines = [announced, *_nccl_setup("node-a", 2)[:3]]
    root = explain_text("\n".join(lines) + "\n").root_cause
    assert root is not None and root.kind == "stall" and root.category == "collective_timeout"
    assert root.text == announced and "in a collective" in root.headline


def test_a_lone_py_spy_dump_is_where_the_process_hangs() -> None:
    """A py-spy dump of one stuck process whose main thread is in no collective: the thread py-spy saw
    running while the main thread waited is where it hangs; in distributed training's code, on its peers.
    In other code (a lock of a build folder) the hang is not the collective's."""
    dump = (
        'Thread 311 (idle): "MainThread"\n'
        "    backward (torch/autograd/__init__.py:289)\n"
        "    train_step (trainer/loop.py:140)\n"
        "    <module> (trainer/loop.py:300)\n"
        "Thread 412 (idle)\n"
        "Thread 413 (active)\n"
        "    reduce_ipg_grads (deepspeed/runtime/zero/stage_1_and_2.py:1051)\n"
        "    overlapping_reduce (deepspeed/runtime/zero/stage_1_and_2.py:990)\n"
    )
    root = explain_text(dump).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", None)
    assert root.text == "reduce_ipg_grads (deepspeed/runtime/zero/stage_1_and_2.py:1051)"
    locked = (
        'Thread 77 (idle): "MainThread"\n'
        "    wait (filelock/_api.py:332)\n"
        "    build_extension (ops/builder.py:60)\n"
        "    <module> (train.py:12)\n"
    )
    root = explain_text(locked).root_cause
    assert root is not None and root.category == "other" and root.text == "wait (filelock/_api.py:332)"


def test_output_that_stops_at_nccl_bootstrap_or_teardown_lines_says_how_far_the_job_got() -> None:
    """With no step of a communicator built, NCCL's last INFO line (also in NCCL's older `host:pid:tid
    [0] INFO` form) is where the job stopped; NCCL destroying its communicators after the last step is
    a job that hung on its way out, not in a collective."""
    bootstrap = [
        "[rank0] loading shards",
        "node-2:71:71 [0] NCCL INFO Bootstrap : Using ib0:10.0.0.2<0>",
        "node-2:71:71 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so)",
        "NCCL version 2.19.3+cuda12.3",
        "node-2:72:90 [1] NCCL INFO NET/OFI Initializing aws-ofi-nccl 1.7.4-aws",
    ]
    root = explain_text("\n".join(bootstrap) + "\n").root_cause
    assert root is not None and root.category == "collective_timeout" and root.text == bootstrap[-1]
    older = [
        "gpu-7:19123:19123 [2] INFO NET/IB : Using interface eth1",
        "gpu-7:19123:19685 [2] INFO comm 0x2b8 rank 6 nranks 8",
        "gpu-7:19124:19124 [3] INFO Using internal Network IB",
    ]
    root = explain_text("\n".join(older) + "\n").root_cause
    assert root is not None and root.category == "collective_timeout" and root.text == older[1]
    teardown = [
        " validation loss at iteration 50 | lm loss value: 1.58E-01",
        "n1:301:301 [0] NCCL INFO comm 0x4592 rank 0 nranks 8 cudaDev 0 busId 1b000 - Destroy COMPLETE",
        "n1:302:302 [1] NCCL INFO comm 0x45ac rank 1 nranks 8 cudaDev 1 busId 2c000 - Destroy COMPLETE",
    ]
    root = explain_text("\n".join(teardown) + "\n").root_cause
    assert root is not None and (root.category, root.kind) == ("other", "stall") and root.text == teardown[-1]
    assert "on the way out" in root.headline


_LAUNCHER_WAIT = [
    "Traceback (most recent call last):",
    '  File "/env/lib/python3.8/site-packages/torch/distributed/launch.py", line 254, in main',
    "    process.wait()",
    '  File "/env/lib/python3.8/subprocess.py", line 1083, in wait',
    "    return self._wait(timeout=timeout)",
    '  File "/env/lib/python3.8/subprocess.py", line 1806, in _wait',
    "    (pid, sts) = self._try_wait(0)",
    '  File "/env/lib/python3.8/subprocess.py", line 1764, in _try_wait',
    "    (pid, sts) = os.waitpid(self.pid, wait_flags)",
]


def test_a_launcher_stopped_or_dumped_while_it_waits_for_its_workers_is_a_hung_job() -> None:
    """A launcher's stack waiting for its workers (`process.wait()`, only the standard library below it)
    is a job that hung: with Ctrl-C's KeyboardInterrupt under it, or pasted with no exception at all."""
    interrupted = explain_text("\n".join([*_LAUNCHER_WAIT, "KeyboardInterrupt"]) + "\n").root_cause
    assert interrupted is not None and interrupted.category == "collective_timeout"
    assert "os.waitpid" in interrupted.text
    pasted = explain_text("\n".join(_LAUNCHER_WAIT[1:]) + "\n").root_cause
    assert pasted is not None and pasted.category == "collective_timeout"
    # The launcher itself failing (its own frame innermost, not waiting) is no hang.
    failed = [*_LAUNCHER_WAIT[:3], "KeyboardInterrupt"]
    root = explain_text("\n".join(failed) + "\n").root_cause
    assert root is not None and root.category != "collective_timeout"


def test_output_that_stops_as_a_process_joins_the_group_is_a_rendezvous_that_never_completed() -> None:
    """DeepSpeed announces the process group it starts, torch's store-based barrier takes each rank's key:
    output that stops there is a group that never finished forming."""
    for joining in (
        "[2022-08-03 13:01:33,766] [INFO] [comm.py:628:init_distributed] Initializing TorchBackend in DeepSpeed"
        " with backend nccl",
        "[I1203 10:01:02.000 distributed_c10d.py:319] Added key: store_based_barrier_key:1 to store for rank: 1",
    ):
        root = explain_text(f"[INFO] launching 2 processes\n{joining}\n").root_cause
        assert (
            root is not None
            and (root.category, root.kind) == ("rendezvous", "stall")
            and root.text in joining
        )
        assert explain_text(f"{joining}\nepoch 0 loss 2.3\n").root_cause is None


def test_slurm_tasks_are_torchruns_agents_when_torchrun_reports_its_workers() -> None:
    """Under `srun torchrun ...`, Slurm's task 1 is the second node's torchrun agent: its `task 1: Exited`
    is that agent ending because its worker (global rank 4) failed, not rank 1 failing too."""
    table = (
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
        "============================================================\n"
        "train.py FAILED\n"
        "------------------------------------------------------------\n"
        "Failures:\n"
        "  <NO_OTHER_FAILURES>\n"
        "------------------------------------------------------------\n"
        "Root Cause (first observed failure):\n"
        "[0]:\n"
        "  time      : 2024-08-20_11:37:36\n"
        "  host      : gpu-node-2\n"
        "  rank      : 4 (local_rank: 0)\n"
        "  exitcode  : 1 (pid: 793062)\n"
        "  error_file: <N/A>\n"
        "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n"
        "============================================================\n"
    )
    srun = "srun: error: gpu-node-2: task 1: Exited with exit code 1\n"
    root = explain_text(table + srun).root_cause
    assert root is not None and root.rank == 4 and "exited with code 1" in root.headline
    alone = explain_text(srun).root_cause  # with no torchrun, a task is a rank
    assert alone is not None and alone.rank == 1


def test_a_cuda_failure_cut_before_its_closing_quote_is_still_the_cuda_failure() -> None:
    text = (
        "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:77,"
        " unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.26.2\n"
        "ncclUnhandledCudaError: Call to CUDA function failed.\n"
        "Last error:\n"
        "Cuda failure 999 'unknown error\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.category == "cuda_error"


def test_a_shape_written_with_spaced_times_signs_counts_its_elements(tmp_path: Path) -> None:
    """A `--log-dir` with no error: rank 1 stops at `mosaic ...: 41 x 20500 x 31000 float32` where its peer
    read `38 x 2050 x 3100`. The shape is read with spaces around its `x` (and thousands separators:
    `2,621,442 x 2,621,442` is not `442 x 2`), so rank 1, taking a hundred times more, is named."""
    stdout = {
        0: "[rank 0] mosaic 2024-04-09_night: 38 x 2050 x 3100 float32\n",
        1: "[rank 1] mosaic 2024-04-10_night: 41 x 20500 x 31000 float32\n",
    }
    root = explain_paths([str(_stdout_dir(tmp_path / "spaced", stdout))]).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 1)
    separated = {
        0: "[rank 0] building dense Laplacian (642 x 642 float32)\n",
        1: "[rank 1] building dense Laplacian (2,621,442 x 2,621,442 float32)\n",
    }
    root = explain_paths([str(_stdout_dir(tmp_path / "separated", separated))]).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 1)


def test_a_barrier_started_before_any_collective_is_where_a_job_stopped_then_terminated_hangs() -> None:
    """ProcessGroupNCCL warns as a barrier starts before any collective (`Rank 0 using best-guess GPU 0 to
    perform barrier`): output that stops there, the shell's `Terminated` aside, hung in that barrier, and
    the first rank into it is reported."""
    warning = (
        "[W ProcessGroupNCCL.cpp:1569] Rank {r} using best-guess GPU {r} to perform barrier as devices used by"
        " this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping"
        " is incorrect."
    )
    lines = ["Rank 1 initialization finished.", warning.format(r=0), warning.format(r=1), "Terminated"]
    root = explain_text("\n".join(lines) + "\n").root_cause
    assert root is not None and (root.kind, root.category) == ("stall", "collective_timeout")
    assert root.text == warning.format(r=0)


def test_a_projects_own_launcher_waiting_for_its_child_processes_is_a_hung_job() -> None:
    """A project's launcher (`yolox/core/launch.py`) interrupted in `process.wait()`: the standard library
    shows it waiting for a child process, so the job it launched hung."""
    frames = [
        "^CTraceback (most recent call last):",
        '  File "tools/train.py", line 118, in <module>',
        "    launch(",
        '  File "/home/u/YOLOX/yolox/core/launch.py", line 163, in launch_by_subprocess',
        "    process.wait()",
        *_LAUNCHER_WAIT[3:],
        "KeyboardInterrupt",
    ]
    root = explain_text("\n".join(frames) + "\n").root_cause
    assert root is not None and root.category == "collective_timeout"
    # Interrupted in a wait of its own (a sleep in the script), not for a child, it is no hang of workers.
    sleeping = [
        *frames[:5],
        '  File "/home/u/YOLOX/yolox/core/launch.py", line 170, in poll_workers',
        "    time.sleep(1)",
        "KeyboardInterrupt",
    ]
    root = explain_text("\n".join(sleeping) + "\n").root_cause
    assert root is not None and root.category != "collective_timeout"


def test_a_name_that_starts_with_digits_is_a_ranks_own_value(tmp_path: Path) -> None:
    """A `--log-dir` with no error: each rank grids its own survey (`2025-05_north`, `2025-05_channel`); rank 1
    stops at that line while its peers went on. The survey's name, digits first, is the rank's own value,
    so the lines are alike and rank 1, which stopped first, is named."""
    stdout = {
        0: "[rank 0] gridding 2025-05_north at 2.0 m -> 600x400 DEM\n[rank 0] 48 berth feature rows\n",
        1: "[rank 1] gridding 2025-05_channel at 0.05 m -> 30000x18000 DEM\n",
        2: "[rank 2] gridding 2025-06_south at 2.0 m -> 550x350 DEM\n[rank 2] 48 berth feature rows\n",
    }
    root = explain_paths([str(_stdout_dir(tmp_path, stdout))]).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 1)


# --- classes found in the fifty-fourth session -----------------------------------------------------


def test_mpichs_banner_reports_one_death_by_its_signal() -> None:
    """MPICH's `BAD TERMINATION` box states the exit code (`EXIT CODE: 9`), then in words the signal that
    ended the process: one death, a SIGKILL with no error (host memory), reported at the signal's line."""
    banner = "=" * 40 + "\n"
    box = (
        banner
        + "=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n"
        + "=   PID 9665 RUNNING AT node7\n"
        + "=   EXIT CODE: 9\n"
        + "=   CLEANING UP REMAINING PROCESSES\n"
        + banner
        + "YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Killed (signal 9)\n"
    )
    root = explain_text(box).root_cause
    assert root is not None and (root.category, root.exit_code) == ("oom_host", -9)
    assert root.text.endswith("Killed (signal 9)")
    # An exit code that is not the signal's number is another death: the code stays what it said.
    other = explain_text(box.replace("EXIT CODE: 9", "EXIT CODE: 1")).root_cause
    assert other is not None and other.text == "=   EXIT CODE: 1"


def test_a_platforms_return_code_is_a_processs_exit() -> None:
    """A job platform's `return code is -9, maybe OUT OF MEMORY`: a non-zero exit in words no launcher
    uses, never "No failure found"."""
    text = "step 60 loss 1.89\nRank(Worker): 16 caught unknown unhandled exception:\nreturn code is -9, maybe OUT OF MEMORY\n"
    root = explain_text(text).root_cause
    assert root is not None and (root.category, root.exit_code) == ("oom_host", -9)
    assert explain_text("return code is 0\n").root_cause is None


def test_output_that_stops_as_a_phase_starts_is_a_stall_and_progress_after_it_is_not() -> None:
    """A job that announced it starts training (or drew a progress bar that never moved), with only quiet
    lines after it (a library's INFO records, a GPU monitor's rows), stopped before the first step
    finished: a low-confidence stall at the announcement. A counting line after it is a job that went on:
    no failure when the count reached its total, a stall at that line when it stopped part-way."""
    start = "2018-12-09 21:55:56,641 - INFO - Start running, host: u@node-2, work_dir: ./work_dirs/r50\n"
    quiet = (
        "2018-12-09 21:55:56,641 - INFO - workflow: [('train', 1)], max: 12 epochs\n"
        "[0] TITAN Xp         | 55'C, 100 % |   865 / 12196 MB | u(855M)\n"
        "...\n"
    )
    root = explain_text("loading annotations into memory...\n" + start + quiet).root_cause
    assert root is not None and (root.kind, root.category, root.confidence) == (
        "stall",
        "collective_timeout",
        "low",
    )
    assert root.text == start.strip() and root.rank is None
    bar = explain_text("Sanity Checking: |          | 0/? [00:00<?, ?it/s]\n").root_cause
    assert bar is not None and bar.kind == "stall"
    never_moved = explain_text("Epoch 0:   0%|          | 0/1000 [00:29<?, ?it/s]\n").root_cause
    assert never_moved is not None and (never_moved.kind, never_moved.category) == (
        "stall",
        "collective_timeout",
    )
    finished = (
        start + quiet + "2018-12-10 08:11:02,410 - INFO - Epoch [12][7330/7330] lr: 0.00001, loss: 0.3\n"
    )
    assert explain_text(finished).root_cause is None
    assert (
        explain_text(start + "2018-12-09 21:56:30,002 - INFO - lr: 0.00100, loss: 1.2\n").root_cause is None
    )
    for part_way in (
        "2018-12-09 21:56:30,002 - INFO - Epoch [1][50/7330] lr: 0.00100, loss: 1.2",
        "Epoch 0:   3%|▎         | 30/1000 [00:29<16:00, 1.01it/s]",
    ):
        stopped = explain_text(start + quiet + part_way + "\n" + quiet).root_cause
        assert stopped is not None and (stopped.kind, stopped.category, stopped.text) == (
            "stall",
            "collective_timeout",
            part_way,
        )


def test_ddps_and_tensorflows_announcements_of_an_all_reduce_are_where_a_silent_hang_waits() -> None:
    """DDP's `Reducer buckets have been rebuilt in this iteration` (logged in its first backward, before the
    gradients' all-reduce) and TensorFlow's `batch_all_reduce: N all-reduces`, with nothing after them: the
    job waits in that all-reduce. `Computing validation loss` as the last words is a phase that never ended."""
    for last in (
        "2022-05-12 22:06:13,674 - mmcv - INFO - Reducer buckets have been rebuilt in this iteration.",
        "INFO:tensorflow:batch_all_reduce: 369 all-reduces with algorithm = nccl, num_packs = 1",
    ):
        root = explain_text("loading annotations\n" + last + "\n").root_cause
        assert root is not None and (root.kind, root.category, root.text) == (
            "stall",
            "collective_timeout",
            last,
        )
        assert explain_text(last + "\nEpoch [12][7330/7330] loss: 0.3\n").root_cause is None
    validation = "2023-04-13 16:00:05,660 INFO [trainer.py:626] (6/8) Computing validation loss"
    root = explain_text(validation + "\n").root_cause
    assert root is not None and root.kind == "stall" and root.text == validation


def test_gloos_size_check_names_the_sender_whose_shape_is_in_the_proportion_of_the_sizes() -> None:
    """Rank 2's size check fails on data rank 3 sent (4804 bytes against 4252): rank 3 alone binned its
    shots on a 98x98 grid where its peers used 100x85, 9604 elements against 8500, the proportion of the
    sizes; rank 3 sent the odd size, so it is the culprit, not the rank that received it."""
    grids = {
        0: ("Ball Arena", "100x85"),
        1: ("Scotiabank Arena", "100x85"),
        2: ("Xcel Energy Center", "100x85"),
        3: ("Avicii Arena", "98x98"),
    }
    lines = [
        f"[default{r}]:{arena}: 1500 shots binned on {grid} ft grid" for r, (arena, grid) in grids.items()
    ]
    lines.append("[default2]:terminate called after throwing an instance of 'gloo::EnforceNotMet'")
    lines.append(
        "[default2]:  what():  [enforce fail at /__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:456]"
        " op.preamble.length <= op.nbytes. 4804 vs 4252. Received data size doesn't match expected size. Is"
        " there a distributed collective mismatch in your code?"
    )
    root = explain_text("\n".join(lines) + "\n").root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 3)
    # Grids in no proportion to the sizes (99x99 against 100x85) name no sender: the receiver stays.
    off = explain_text("\n".join(lines).replace("98x98", "99x99") + "\n").root_cause
    assert off is not None and off.rank == 2


def test_a_log_dir_rank_that_alone_says_it_ends_itself_is_the_culprit(tmp_path: Path) -> None:
    """A `--log-dir` with no error: rank 1's last line says it stops of its own accord (`..., exiting`,
    then `sys.exit`), rank 0's stops at a line both printed (it waited in the next collective until the
    launcher stopped it). Rank 1 ended the job, not a kill of rank 0."""
    stdout = {
        0: "[rank 0] category=cat1 segments=300 out_of_band=0\n",
        1: "[rank 1] category=cat2 segments=300 out_of_band=34\n[rank 1] 34 segments outside the band, exiting\n",
    }
    root = explain_paths([str(_stdout_dir(tmp_path / "one", stdout))]).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 1)
    assert root.text.endswith("exiting")
    # Both ranks saying so name neither of them this way.
    both = {r: f"[rank {r}] segments=300\n[rank {r}] band check failed, exiting\n" for r in range(2)}
    root = explain_paths([str(_stdout_dir(tmp_path / "both", both))]).root_cause
    assert root is not None and root.rank is None


def test_of_two_silent_ranks_the_one_still_polling_is_the_straggler() -> None:
    """Rank 0 times out; ranks 1 and 2 print nothing of it. Both waited for a file, rank 1 got it and went
    on, rank 2's output stops at a round of its wait loop (`not in inbox yet, polling (attempt 16)`): it
    never got what it waited for, so it is the one rank 0 waited for."""
    lines = [
        "[rank 2] herd H-31190: waiting for 2024-03 test-day file",
        "[rank 2] test-day file H-31190_2024-03.pt not in inbox yet, polling (attempt 1)",
        "[rank 1] herd H-20533: waiting for 2024-03 test-day file",
        "[rank 1] test-day file H-20533_2024-03.pt not in inbox yet, polling (attempt 1)",
        "[rank 0] herd H-20417: waiting for 2024-03 test-day file",
        "[rank 0] herd H-20417: 120 cows recorded",
        "[rank 1] herd H-20533: 120 cows recorded",
        "[rank 2] test-day file H-31190_2024-03.pt not in inbox yet, polling (attempt 16)",
        "[rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:129]"
        " Timed out waiting 15000ms for send operation to complete",
        "E1206 19:17:41.753000 19163 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1)"
        " local_rank: 0 (pid: 19166) of binary: /usr/bin/python",
        "W1206 19:17:41.717000 19163 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 19167"
        " closing signal SIGTERM",
    ]
    root = explain_text("\n".join(lines) + "\n").root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 2)
    # Rank 2 past its wait as well: nothing tells the two apart.
    went_on = [*lines[:7], "[rank 2] herd H-31190: 120 cows recorded", *lines[8:]]
    root = explain_text("\n".join(went_on) + "\n").root_cause
    assert root is not None and root.rank is None


def test_output_that_stops_as_a_script_joins_the_group_or_mid_step_is_a_stall() -> None:
    """A paste that ends at a trainer's own word as it joins the group (`Initializing distributed`, Coqui's
    `Using PyTorch DDP`: a rendezvous that never completed), at Lightning's model summary (printed just
    before the sanity check), or at a step announced under way (`Setting up PyTorch plugin ...`): a stall
    there. A line after them that counts is a job that went on."""
    joined = explain_text("Distributed Run: True\ncuDNN Enabled: True\nInitializing distributed\n").root_cause
    assert joined is not None and (joined.kind, joined.category) == ("stall", "rendezvous")
    ddp = explain_text(" > Start Tensorboard: tensorboard --logdir=run\n > Using PyTorch DDP\n").root_cause
    assert ddp is not None and (ddp.kind, ddp.category) == ("stall", "rendezvous")
    summary = "27.9 K    Trainable params\n0         Non-trainable params\n27.9 K    Total params\n"
    root = explain_text(summary).root_cause
    assert root is not None and root.kind == "stall" and root.text == "27.9 K    Total params"
    plugin = 'Constructing networks...\nSetting up PyTorch plugin "bias_act_plugin"...\n'
    root = explain_text(plugin).root_cause
    assert root is not None and root.kind == "stall" and root.text.startswith("Setting up PyTorch plugin")
    # A warning is no step under way, nor is a line that counts.
    slow = "UserWarning: TPU backend initialization is taking more than 60.0 seconds.\n"
    assert explain_text(slow).root_cause is None
    assert explain_text("loading shard 3/8 ...\n").root_cause is None
    for stall in (summary, plugin, "Initializing distributed\n"):
        assert (
            explain_text(stall + "Epoch 0: 100%|##########| 469/469 [00:09<00:00, loss=0.31]\n").root_cause
            is None
        )


# --- classes found in the fifty-fifth session ------------------------------------------------------


def test_output_that_stops_part_way_through_a_count_is_a_stall_at_that_line(tmp_path: Path) -> None:
    """A paste that ends at a progress bar short of its total (`33%| 1128/3384`) or a counter with its
    total (`iter: 40/360000`), with only quiet lines after it: the run had not finished, a low-confidence
    stall at that line naming no rank. A count at its end (a zero-based one's `9/10` too), a rank's place
    (`[rank 1/4]`) and a count with no total are no stall; in a launcher's per-rank files the processes'
    ending says more (ended without a word)."""
    healthy = "{'loss': 0.0117, 'learning_rate': 6.89e-05, 'epoch': 0.99}\n"
    for last in (
        " 33%|███▎      | 1128/3384 [05:28<10:53,  3.45it/s]",
        "[09/29 16:12:01 pods.utils.dump.events]: eta: 1 day, 4:25:07  iter: 40/360000  total_loss: 4.962",
        "2021-03-02 10:14:07,516 - mmdet - INFO - Epoch(train) [3][ 450/1221]  lr: 2.0e-02, loss: 0.8731",
    ):
        root = explain_text(healthy + last + "\n[0] A100 | 61'C, 100 % | 38110 / 40536 MB\n").root_cause
        assert root is not None and (root.kind, root.category, root.confidence, root.rank) == (
            "stall",
            "collective_timeout",
            "low",
            None,
        )
        assert root.text == last.strip()
    for done in (
        "100%|██████████| 3384/3384 [16:21<00:00,  3.45it/s]",
        "epoch 9/10 step 1000 loss 0.21",
        "[rank 1/4] step 500 loss 0.3",
        "iter: 360000/360000  total_loss: 0.402",
    ):
        assert explain_text(healthy + done + "\n").root_cause is None, done
    stdout = {r: f"[rank {r}] loaded\n[rank {r}] step 40/1000 loss 2.1\n" for r in range(2)}
    assert _ended_without_a_word(_stdout_dir(tmp_path, stdout))


def test_a_scripts_error_records_that_end_its_ranks_output_in_a_log_dir_are_its_own_check(
    tmp_path: Path,
) -> None:
    """A `--log-dir` folder, no launcher's report of the exit: rank 1 logs two error records of its own,
    the detail and then that it stops (`... refusing to train`), and they end its output: the script's
    own check (`user_code`), at its first record. When the record after it names a native library's
    source line (`Aborted from ... graph_group.h:180`), the program that stopped is that library's."""

    def run(name: str, last: str) -> Path:
        stdout = {
            r: f"2026-12-06 21:06:52,76{r} [rank {r}] INFO class c{r}: 12 dry-dock visits joined\n"
            for r in range(3)
        }
        stdout[1] += (
            "2026-12-06 21:06:52,760 [rank 1] ERROR IMO 9300107: recoated on day 6802 before docking on day 6842\n"
            f"2026-12-06 21:06:52,760 [rank 1] ERROR {last}\n"
        )
        return _stdout_dir(tmp_path / name, stdout)

    root = explain_paths(
        [str(run("own", "dry-dock join is inconsistent (1 rows), refusing to train"))]
    ).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 1)
    assert root.text == "IMO 9300107: recoated on day 6802 before docking on day 6842"
    assert any("error records that end what rank 1 printed" in reason for reason in root.why)
    aborted = "Aborted from void marian::loadDeviceConfig() in /src/training/graph_group.h:180"
    root = explain_paths([str(run("native", aborted))]).root_cause
    assert root is not None and (root.category, root.kind, root.rank) == ("other", "unknown", 1)


def test_a_deepep_kernel_timeout_is_the_cause_of_the_launch_failure_its_trap_leaves() -> None:
    """DeepEP's dispatch kernel prints which wait ran out and traps; the process's next CUDA call fails
    with `unspecified launch failure`. The timeout is the cause (a collective that did not complete),
    the CUDA error its consequence."""
    timeout = (
        "DeepEP dispatch NVL receiver timeout, channel: 6, RDMA: 0, nvl: 0, src NVL: 5, head: 315, tail: 315"
    )
    text = (
        "WARN: IB: read failed in ib_roce_get_version_num: Invalid argument\n"
        f"{timeout}\n"
        "terminate called after throwing an instance of 'EPException'\n"
        "  what():  Failed: CUDA error /workspace/DeepEP/csrc/deep_ep.cpp:83 'unspecified launch failure'\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and (root.entry, root.category, root.text) == (
        "deepep-kernel-timeout",
        "collective_timeout",
        timeout,
    )


def test_a_rank_that_stopped_at_a_shape_of_eight_digit_sides_is_the_one_that_vanished(tmp_path: Path) -> None:
    """Every rank of a `--log-dir` folder stops at its grid's line; rank 3's grid is 31169599x33395999 (its
    cell size came out tiny) where its peers' hold at most 252000 elements: rank 3 went taking the memory
    for that grid, however many digits a side has."""
    grids = {0: ("north_flats", "240x360"), 1: ("channel_edge", "180x480"), 2: ("inner_bay", "420x600")}
    stdout = {
        r: f"[rank {r}] meadow={name} quadrats=40 grid={grid} cell=0.5\n" for r, (name, grid) in grids.items()
    }
    stdout[3] = "[rank 3] meadow=south_spit quadrats=40 grid=31169599x33395999 cell=4.49e-06\n"
    root = explain_paths([str(_stdout_dir(tmp_path, stdout))]).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 3)
    assert root.text.endswith("grid=31169599x33395999 cell=4.49e-06")


def test_ranks_in_different_collectives_held_back_by_a_rank_that_says_it_waits_name_that_rank() -> None:
    """Rank 1 waits in a loop of its own (`calendar cache locked (age 5s), waiting for refresh`) and
    prints no traceback; rank 0 times out in the broadcast rank 1 never joined, and rank 2, which got
    its part of the broadcast, in the next all_reduce. The ranks stop in different collectives because
    rank 1 held them back, not because the script called different ones: rank 1 is the straggler."""
    gloo = "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp"
    lines = [
        "[rank 0] started, world=3",
        "[rank 2] started, world=3",
        "[rank 1] started, world=3",
        "[rank 1] calendar cache locked (age 0s), waiting for refresh",
        "[rank 2] closure days agreed: 6",
        "[rank 1] calendar cache locked (age 5s), waiting for refresh",
        "[rank 1] calendar cache locked (age 10s), waiting for refresh",
        "[rank0]: Traceback (most recent call last):",
        '[rank0]:   File "/srv/jobs/holiday_refresh.py", line 31, in <module>',
        "[rank0]:     dist.broadcast(table, src=0)",
        '[rank0]:   File "/usr/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 2718, in broadcast',
        "[rank0]:     work.wait()",
        f"[rank0]: RuntimeError: {gloo}/unbound_buffer.cc:129] Timed out waiting 15000ms for send operation to complete",
        "[rank2]: Traceback (most recent call last):",
        '[rank2]:   File "/srv/jobs/holiday_refresh.py", line 35, in <module>',
        "[rank2]:     dist.all_reduce(counts)",
        '[rank2]:   File "/usr/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 2806, in all_reduce',
        "[rank2]:     work.wait()",
        f"[rank2]: RuntimeError: {gloo}/pair.cc:553] Connection closed by peer [127.0.0.1]:2442.",
    ]
    root = explain_text("\n".join(lines) + "\n").root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 1)
    assert root.text == "calendar cache locked (age 0s), waiting for refresh"


def test_text_generation_inferences_shard_signalled_to_shut_down_is_that_ranks_death_by_signal() -> None:
    """TGI's launcher reports `Shard process was signaled to shutdown with signal 7 rank=1`: rank 1 died
    of SIGBUS (in a container, /dev/shm running out), its peers were only waiting for it."""
    lines = [
        "2023-08-11T06:42:38.895303Z  INFO shard-manager: text_generation_launcher: Waiting for shard to be ready... rank=0",
        "2023-08-11T06:42:38.895303Z  INFO shard-manager: text_generation_launcher: Waiting for shard to be ready... rank=1",
        "2023-08-11T06:42:43.498333Z ERROR shard-manager: text_generation_launcher: Shard process was signaled to"
        " shutdown with signal 7 rank=1",
    ]
    root = explain_text("\n".join(lines) + "\n").root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 1)
    assert "SIGBUS" in root.headline


# --- classes found in the fifty-sixth session ------------------------------------------------------


def test_a_cut_off_traceback_takes_its_message_from_the_line_just_before_its_header() -> None:
    """A logger prints the exception's message, then the traceback (`logger.exception(e)`); when the
    excerpt loses the traceback's own exception line, the line just before its header (same process)
    says what was raised: the verdict reads it with the traceback's frames, still as weakly as a cut-off
    traceback. A header of what follows (`Exception in thread Thread-3:`) says nothing of it, and a line
    that is a report of its own (a launcher's exit line) is not taken."""
    prefix = "(TemporaryActor pid=1495807) "
    frames = [
        "Traceback (most recent call last):",
        '  File "/venv/lib/python3.12/site-packages/ray/_private/serialization.py", line 460, in deserialize_objects',
        "    obj = self._deserialize_object(data, metadata, object_ref)",
    ]
    text = "".join(f"{prefix}{line}\n" for line in ["No module named 'vllm'", *frames])
    root = explain_text(text).root_cause
    assert root is not None and root.category == "version_mismatch"
    assert root.text == "No module named 'vllm'" and root.confidence != "high"
    header = explain_text("Exception in thread Thread-3:\n" + "\n".join(frames) + "\n").root_cause
    assert header is not None and header.text.startswith("traceback cut off after")


def test_a_straggler_that_said_it_skips_a_step_or_holds_back_is_named_at_that_line(tmp_path: Path) -> None:
    """Rank 3 prints that it skips the evaluation, or holds back until something happens (a plain line of
    its own, not a warning), and its peers time out in the evaluation's all_reduce: the straggler's root
    line is where it left the step out. A
    warning that it skips an item (`WARNING ... skipping utterance shorter than 8 frames`) is a
    condition it handled and went on from: the peers' timeout stays the root line."""
    timeout = (
        "RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78]"
        " Timed out waiting 15000ms for recv operation to complete"
    )

    def run(name: str, departure: str) -> RootCause | None:
        lines = [f"[rank {r}] epoch 3 train_l1 13.1{r}" for r in range(4)]
        lines.append(f"[rank 3] {departure}")
        for r in range(3):
            lines += [
                f"[rank{r}]: Traceback (most recent call last):",
                f'[rank{r}]:   File "/srv/train.py", line 52, in <module>',
                f"[rank{r}]:     dist.all_reduce(metric)",
                f"[rank{r}]: {timeout}",
            ]
        path = tmp_path / f"{name}.log"
        path.write_text("\n".join(lines) + "\n")
        return explain_paths([str(path)]).root_cause

    for name, departure in (
        ("skip", "no sieve-validated cells, skipping eval"),
        ("hold", "step 7: filter in backwash, holding until controller reports service mode"),
    ):
        root = run(name, departure)
        assert root is not None and (root.category, root.rank) == ("collective_timeout", 3)
        assert root.text == departure
    warned = run("warned", "12:00:01 WARNING asr.train: skipping utterance shorter than 8 frames")
    assert warned is not None and "skipping" not in warned.text


def test_lines_that_only_state_a_mismatch_are_never_silent() -> None:
    """A check of the program's own that two things agree (`Global counter mismatch for parameter ...`,
    `MISMATCH layer 0 fw ...`) with no error level: the failure is that line, not silence. The peer's half
    of torch's collective fingerprint report (`but Rank 1 is running collective:CollectiveFingerPrint(`)
    is that report, and the watchdog's C++ trace whose message was lost (`Exception raised from
    ncclCommWatchdog at ...ProcessGroupNCCL.cpp:1521`) is a collective's timeout."""
    for line in (
        'Global counter mismatch for parameter "layers.1.norm_1.weight" and shard "weights": 20480 != 5120',
        "2024-11-21 00:10:00,178 [Rank 1] MISMATCH layer 0 fw 31,297,822 / 33,554,432",
    ):
        root = explain_text(line + "\n").root_cause
        assert root is not None and root.category == "other" and root.text == line
    fingerprint = (
        "memory_format=(nullopt))),but Rank 1 is running collective:CollectiveFingerPrint(SequenceNumber=372,"
        "OpType=ALLREDUCE,TensorShape=[512],TensorDtypes=Float"
    )
    root = explain_text(fingerprint + "\n").root_cause
    assert root is not None and root.category == "collective_mismatch"
    trace = (
        "frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<long>) + 0x1d2 (0x1554e9e0f8f2"
        " in /env/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so)\n"
        "\n"
        "Exception raised from ncclCommWatchdog at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1521"
        " (most recent call first):\n"
        "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x1554e8b12f86 in"
        " /env/lib/python3.11/site-packages/torch/lib/libc10.so)\n"
    )
    root = explain_text(trace).root_cause
    assert root is not None and root.category == "collective_timeout"
    assert root.text.startswith("Exception raised from ncclCommWatchdog")


def test_device_faults_of_other_vendors_and_nccls_use_of_an_unsupported_cuda_feature() -> None:
    """ROCm's `HSA_STATUS_ERROR_EXCEPTION` and an Intel GPU's `Segmentation fault from GPU at ...` are
    faults of the device (`cuda_error`), a faiss or OneFlow check that a device index is below the device
    count is `invalid_device`, torch's `Duplicated GPU device is not allowed by NCCL` is `duplicate_device`,
    and NCCL's `Cuda failure 'operation not supported'` (cuMem or IPC under a
    vGPU) is NCCL's use of a CUDA feature the platform lacks (`nccl_error`)."""
    hsa = (
        ":0:rocdevice.cpp            :2984: 13356656197589 us: [pid:1481  tid:0x7f2f401df700] Callback: Queue"
        " 0x7f2f53000000 aborting with error : HSA_STATUS_ERROR_EXCEPTION: An HSAIL operation resulted in a"
        " hardware exception. code: 0x1016"
    )
    root = explain_text(hsa + "\n").root_cause
    assert root is not None and (root.category, root.entry) == ("cuda_error", "rocm-hsa-status-error")
    xpu = (
        "Segmentation fault from GPU at 0xff00ffffff400000, ctx_id: 1 (CCS) type: 0 (NotPresent), level: 0"
        " (PTE), access: 0 (Read), banned: 1, aborting."
    )
    root = explain_text(xpu + "\n").root_cause
    assert root is not None and root.category == "cuda_error"
    said = message_category("Error: 'config_.device < getNumDevices()' failed: Invalid GPU device 7")
    assert said is not None and said[0] == "invalid_device"
    said = message_category("Check failed: (dev_phy_id) < (resource_desc.GpuDeviceNum()) (3 vs 2)")
    assert said is not None and said[0] == "invalid_device"
    said = message_category("AssertionError: Invalid device id")  # DataParallel's device_ids past the GPUs
    assert said is not None and said[0] == "invalid_device"
    said = message_category(
        "RuntimeError: Duplicated GPU device is not allowed by NCCL. Rank [0] and rank [8] both attached to GPU"
        " device 0 on the same host"
    )
    assert said is not None and said[0] == "duplicate_device"
    nccl = "server:2699411:2699411 [0] init.cc:416 NCCL WARN Cuda failure 'operation not supported'"
    root = explain_text(nccl + "\n").root_cause
    assert root is not None and root.category == "nccl_error"


def test_a_traceback_whose_lines_all_carry_one_indent_ends_at_its_exception_line() -> None:
    """A log viewer (CloudWatch) writes every line of a traceback at one indent after its time, and
    glues a frame's code to the next frame: the exception line at the code's indent after the last
    frame's code is the exception, not more code."""
    stamp = "2024-01-12T19:26:34.787+08:00                "
    lines = [
        'output.reraise() File "/opt/conda/lib/python3.10/site-packages/torch/_utils.py", line 644, in reraise',
        "raise exception",
        "torch.cuda.OutOfMemoryError: Caught OutOfMemoryError in replica 0 on device 0.",
    ]
    root = explain_text("".join(f"{stamp}{line}\n\n" for line in lines)).root_cause
    assert root is not None and root.category == "oom_gpu"
    assert root.text == "torch.cuda.OutOfMemoryError: Caught OutOfMemoryError in replica 0 on device 0."


def test_a_log_dir_rank_that_stopped_inside_a_loop_its_peers_got_through_is_named(tmp_path: Path) -> None:
    """No process printed an error and the folder does not say how they ended: rank 3 stops at its
    second round of a loop (`day 30: cube 174 MB`) while its peers printed four rounds (kept as one run)
    and went on to `cube ready`: it stopped first, the likely host OOM. Peers that only printed more
    rounds of the same loop did not go past it."""

    def lines(rank: int, days: int, ready: bool) -> str:
        said = [f"[rank {rank}] building reading cube"]
        said += [f"[rank {rank}] day {day}: cube {day * 6 + 1} MB" for day in range(0, days * 30, 30)]
        return "\n".join(said + ([f"[rank {rank}] cube ready: (11520, 4)"] if ready else [])) + "\n"

    stdout = {rank: lines(rank, 4, True) for rank in range(3)}
    stdout[3] = lines(3, 2, False)
    root = explain_paths([str(_stdout_dir(tmp_path / "ready", stdout))]).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 3)
    assert root.text == "day 30: cube 181 MB"
    stdout = {rank: lines(rank, 4, False) for rank in range(3)}
    stdout[3] = lines(3, 2, False)
    root = explain_paths([str(_stdout_dir(tmp_path / "looping", stdout))]).root_cause
    assert root is not None and root.rank != 3


# --- classes found in the fifty-seventh session ----------------------------------------------------


def test_a_signal_handlers_backtrace_inside_an_nccl_call_is_nccl_crashing() -> None:
    """glog's failure handler reports a SIGSEGV and its stack: NCCL's plain C helpers (`freeRing()`,
    `commFree()`) under `ncclCommInitAll`, which a framework called. The crash happened inside NCCL's call;
    the same report with a framework's own function innermost is a crash of that code, not NCCL's."""

    def report(innermost: str) -> str:
        return (
            "PC: @                0x0 (unknown)\n"
            "*** SIGSEGV (@0x50) received by PID 12833 (TID 0x7f56686c9700) from PID 80; stack trace: ***\n"
            "    @     0x7f56682a0160 (unknown)\n"
            f"    @     0x7f54bff14ea7 {innermost}\n"
            "    @     0x7f54bff09c20 commFree()\n"
            "    @     0x7f54bff10cc5 ncclCommInitAll\n"
            "    @     0x7f561a1cd190 paddle::platform::NCCLContextMap::NCCLContextMap()\n"
            "Segmentation fault (core dumped)\n"
        )

    root = explain_text(report("freeRing()")).root_cause
    assert root is not None and root.category == "nccl_error"
    assert root.text.startswith("*** SIGSEGV (@0x50) received by PID 12833")
    assert any("inside NCCL (ncclCommInitAll)" in reason for reason in root.why)
    root = explain_text(report("paddle::framework::Scope::Var()")).root_cause
    assert root is not None and root.category == "other"


def test_a_straggler_that_said_it_holds_an_action_back_is_named_at_that_line(tmp_path: Path) -> None:
    """Rank 3 says it holds back what its peers went on to do (`inside quiet hours, holding fog signal
    test`, `deferring upload`), with no `until`; its peers time out in the next all_reduce: the straggler's
    root line is that line. A rank that says it holds data out (`holding out 10% for validation`) holds
    nothing back: the peers' timeout stays the root line."""
    timeout = (
        "RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78]"
        " Timed out waiting 15000ms for recv operation to complete"
    )

    def run(name: str, departure: str) -> RootCause | None:
        lines = [f"[rank {r}] station {r}: test window open at local 07:40" for r in range(3)]
        lines.append(f"[rank 3] {departure}")
        for r in range(3):
            lines += [
                f"[rank{r}]: Traceback (most recent call last):",
                f'[rank{r}]:   File "/srv/fog.py", line 56, in <module>',
                f"[rank{r}]:     dist.all_reduce(scores)",
                f"[rank{r}]: {timeout}",
            ]
        path = tmp_path / f"{name}.log"
        path.write_text("\n".join(lines) + "\n")
        return explain_paths([str(path)]).root_cause

    for name, departure in (
        ("holding", "cape_race: local 04:10 inside quiet hours, holding fog signal test"),
        ("deferring", "cape_race: horn heater cold, deferring signal test"),
    ):
        root = run(name, departure)
        assert root is not None and (root.category, root.rank) == ("collective_timeout", 3)
        assert root.text == departure
    held_out = run("held-out", "cape_race: holding out 10% of tests for validation")
    assert held_out is not None and held_out.text.endswith("for recv operation to complete")


def test_a_log_dir_rank_whose_last_line_reads_a_size_in_grouped_thousands_is_a_likely_kill(
    tmp_path: Path,
) -> None:
    """A `--log-dir` folder with no error: rank 1's last line reads `355,957 MiB` (thousands grouped with
    commas, 347 GiB) where rank 0 read 4 MiB: the whole number is the size, not its last group (957 MiB),
    so rank 1 was most likely killed taking it."""
    run = _stdout_dir(
        tmp_path,
        {
            0: "[rank 0] trwyn_du: stacking 24 panels, 4 MiB as float32\n",
            1: "[rank 1] start_point: stacking 24 panels, 355,957 MiB as float32\n",
        },
    )
    root = explain_paths([str(run)]).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 1)
    assert root.text.endswith("355,957 MiB as float32")


def test_a_dtype_one_rank_states_in_the_ratio_of_the_sizes_gloo_compared_names_the_sender() -> None:
    """gloo's size check fails on rank 1 (`96 vs 48`); every rank logged one line with its tensor's dtype,
    and rank 2 alone says `torch.float64` where its peers say `torch.float32`: eight bytes an element
    against four, the ratio of the sizes compared, so rank 2 sent the odd tensor. Where every rank says
    `torch.float32`, no line names it."""

    def run(odd: str) -> RootCause | None:
        lines = "".join(
            f"2026-12-07 02:50:48,6{r}0 rank{r} INFO station s{r}: 96 watches"
            f" (torch.{odd if r == 2 else 'float32'}), nominal period {10 + 5 * (r % 2)}.0 s, last drift"
            f" {r + 1}.{r}3e-04\n"
            for r in range(4)
        )
        mismatch = (
            "terminate called after throwing an instance of 'gloo::EnforceNotMet'\n  what():  [enforce fail at"
            " /__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:456] op.preamble.length <="
            " op.nbytes. 96 vs 48. Received data size doesn't match expected size. Is there a distributed"
            " collective mismatch in your code?\n"
            "E1207 02:50:48.824000 13500 torch/distributed/elastic/multiprocessing/api.py:1002] failed"
            " (exitcode: -6) local_rank: 1 (pid: 13573) of binary: /usr/bin/python\n"
        )
        return explain_text(lines + mismatch).root_cause

    root = run("float64")
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 2)
    assert any(
        "proportion of the sizes gloo compared" in reason and "torch.float64" in reason for reason in root.why
    )
    root = run("float32")
    assert root is not None and root.rank != 2


def test_a_store_sockets_timeout_stated_before_the_launchers_cut_traceback_is_the_rendezvous() -> None:
    """torchrun's agent on a second node waits for the store on the first: c10d warns that its socket read
    timed out (`waitForInput: socket SocketImpl(...) timed out after 900000ms`), then the agent's own
    traceback starts and the paste is cut off inside torchrun's code. The launcher did not report a
    child's failure: its store wait ran out of time, a rendezvous failure. Cut off there with nothing said
    before it, the traceback stays the launcher's report."""
    frames = [
        "Traceback (most recent call last):",
        '  File "/opt/conda/lib/python3.10/site-packages/torch/distributed/run.py", line 919, in main',
        "    run(args)",
        '  File "/opt/conda/lib/python3.10/site-packages/torch/distributed/launcher/api.py", line 255, in'
        " launch_agent",
        "    result = agent.run()",
    ]
    said = (
        "[W228 18:45:15.741177013 socket.cpp:487] [c10d] waitForInput: socket SocketImpl(fd=11,"
        " addr=[node1]:38674, remote=[::ffff:33.148.62.162]:23456) timed out after 900000ms"
    )
    root = explain_text("\n".join([said, *frames]) + "\n").root_cause
    assert root is not None and root.category == "rendezvous" and root.text == said
    root = explain_text("\n".join(["[node1] starting agent", *frames]) + "\n").root_cause
    assert root is not None and root.category != "rendezvous"


def test_a_collective_check_that_names_a_later_rank_first_names_the_odd_rank() -> None:
    """torch's check (TORCH_DISTRIBUTED_DEBUG=DETAIL) on rank 1 reports rank 7 as the first rank whose
    collective differs from its own (`SequenceNumber=101, OpType=ALLGATHER` against `SequenceNumber=0,
    OpType=REDUCE`): it compares every rank's in rank order, so ranks 0 and 2-6 run rank 1's collective
    and rank 7 alone is behind. Where rank 0 names rank 1, no third rank is known to agree: the report
    names both parties and blames neither."""

    def check(reporter: int, first: int) -> str:
        return (
            f"[rank{reporter}]: RuntimeError: Detected mismatch between collectives on ranks. Rank {reporter} is"
            " running collective: CollectiveFingerPrint(SequenceNumber=101, OpType=ALLGATHER, TensorShape=[1],"
            f" TensorDtypes=Long), but Rank {first} is running collective: CollectiveFingerPrint(SequenceNumber=0,"
            " OpType=REDUCE).\n"
        )

    root = explain_text(check(1, 7)).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 7)
    root = explain_text(check(0, 1)).root_cause
    assert root is not None and root.category == "collective_mismatch" and root.rank is None


def test_of_two_ranks_the_one_that_only_lost_its_peer_after_the_peers_timeout_is_the_one_waited_for(
    tmp_path: Path,
) -> None:
    """A job of two ranks (Lightning's banner says so): rank 0 times out in a collective, rank 1 was waiting
    for a file of its own and only saw its connection closed once rank 0 had gone, with no timeout of its
    own. It was not in the collective when rank 0 gave up: it is the rank rank 0 waited for."""
    lines = [
        "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/2",
        "Initializing distributed: GLOBAL_RANK: 1, MEMBER: 2/2",
        "All distributed processes registered. Starting with 2 processes",
        "[rank 1] waiting for /tmp/plan/zone_setpoints_line1.json",
        "[rank 0] published setpoints to /tmp/plan/zone_setpoints_line0.json",
        "[rank0]: Traceback (most recent call last):",
        '[rank0]:   File "/srv/oven.py", line 61, in <module>',
        "[rank0]:     fabric.all_reduce(setpoints)",
        "[rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:129]"
        " Timed out waiting 15000ms for send operation to complete",
        "[rank 1] no plan after 35s, using default setpoints",
        "[rank1]: Traceback (most recent call last):",
        '[rank1]:   File "/srv/oven.py", line 61, in <module>',
        "[rank1]:     fabric.all_reduce(setpoints)",
        "[rank1]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection"
        " closed by peer [127.0.0.1]:25478. This is typically caused by a remote worker crashing.",
    ]
    root = explain_text("\n".join(lines) + "\n").root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 1)


def test_a_main_process_batch_fetch_error_in_the_scripts_collate_is_the_scripts_own() -> None:
    """With `num_workers=0` the DataLoader fetches batches in the training process: a `KeyError` raised in
    the script's own collate function is the script's error (`user_code`, its line as "your code"); the
    same error raised inside a library's collator there is the data pipeline's (`dataloader`)."""

    def trace(innermost: str, code: str) -> str:
        frames = [
            ("/srv/train.py", 60, "main", "trainer.train()"),
            ("/opt/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", 785, "_next_data",
             "data = self._dataset_fetcher.fetch(index)"),
            ("/opt/venv/lib/python3.11/site-packages/torch/utils/data/_utils/fetch.py", 57, "fetch",
             "return self.collate_fn(data)"),
            (innermost, 33, "collate", code),
        ]  # fmt: skip
        lines = ["[rank1]: Traceback (most recent call last):"]
        for file, line, function, source in frames:
            lines += [f'[rank1]:   File "{file}", line {line}, in {function}', f"[rank1]:     {source}"]
        return "\n".join([*lines, "[rank1]: KeyError: 'rider_count'"]) + "\n"

    code = 'labels = torch.tensor([[r["rider_count"]] for r in rows])'
    root = explain_text(trace("/srv/train.py", code)).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 1)
    assert root.user_frame is not None and root.user_frame.line == 33
    library = "/opt/venv/lib/python3.11/site-packages/trl/trainer/sft_trainer.py"
    root = explain_text(trace(library, code)).root_cause
    assert root is not None and root.category == "dataloader"


def test_a_rank_that_says_it_has_nothing_to_train_on_left_its_peers_waiting(tmp_path: Path) -> None:
    """Rank 2 warns that its record has no samples, `nothing to train on`, and returns; its peers lose the
    connection in their next collective. In a console torchrun's table lists the peers, not rank 2 (it
    exited 0); a `--log-dir` folder keeps no exit codes. Either way rank 2 left on its own, as its words
    say, while its peers still ran collectives: `collective_timeout`, its line the root, not a kill. Said
    with `exiting` (`nothing to evaluate, exiting`), it is a guard of the script's that ended the process,
    the script's own decision (`user_code`)."""
    said = "2026-12-07 03:42:23,422 WARNING [rank 2] strain_fatigue: MCT-03: no generating samples in this record, nothing to train on"
    lost = (
        "RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by"
        " peer [127.0.0.1]:37283. This is typically caused by a remote worker crashing."
    )
    starts = {
        r: f"2026-12-07 03:42:23,41{r} INFO [rank {r}] strain_fatigue: MCT-0{r + 1}: {0 if r == 2 else 2048} of 2048"
        " samples while generating\n"
        for r in range(3)
    }

    def run(name: str, last: str) -> RootCause | None:
        folder = _stdout_dir(
            tmp_path / name, {r: starts[r] + (last + "\n" if r == 2 else "") for r in range(3)}
        )
        for r in (0, 1):
            (folder / str(r) / "stderr.log").write_text(
                f'Traceback (most recent call last):\n  File "/srv/strain.py", line 70, in <module>\n'
                f"    dist.all_reduce(grads)\n{lost}\n"
            )
        return explain_paths([str(folder)]).root_cause

    root = run("returned", said)
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 2)
    assert root.text.endswith("nothing to train on")
    root = run("exited", said.replace("nothing to train on", "nothing to evaluate, exiting"))
    assert root is not None and (root.category, root.rank) == ("user_code", 2)


def test_the_processes_spawn_stopped_count_toward_the_jobs_size() -> None:
    """torch.multiprocessing.spawn stops every process still running once one failed (`Terminating process
    17327 via signal SIGTERM`, twice) and re-raises process 0's error: rank 0's monitored barrier names rank
    2, which printed nothing under a rank label. The job had at least three processes (the two stopped and
    the one that failed), so rank 2 is one of them, not a rank beyond the job's size."""
    text = (
        "[rank0]:[E1207 03:40:05.711793080 ProcessGroupGloo.cpp:67] [Rank 0]: Rank 2 failed to pass"
        " monitoredBarrier in 15000 ms\n"
        "[rank1]:[E1207 03:40:05.716292491 ProcessGroupGloo.cpp:67] Rank 1 successfully reached monitoredBarrier,"
        " but received errors while waiting for send/recv from rank 0. Please check rank 0 logs for faulty rank.\n"
        "W1207 03:40:06.433000 17320 torch/multiprocessing/spawn.py:165] Terminating process 17327 via signal SIGTERM\n"
        "W1207 03:40:06.434000 17320 torch/multiprocessing/spawn.py:165] Terminating process 17328 via signal SIGTERM\n"
        "Traceback (most recent call last):\n"
        "torch.multiprocessing.spawn.ProcessRaisedException: \n\n"
        "-- Process 0 terminated with the following error:\n"
        "Traceback (most recent call last):\n"
        "RuntimeError: [Rank 0]: Rank 2 failed to pass monitoredBarrier in 15000 ms\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 2)
    one_stopped = text.replace(
        "W1207 03:40:06.434000 17320 torch/multiprocessing/spawn.py:165] Terminating process 17328 via signal SIGTERM\n",
        "",
    )
    root = explain_text(one_stopped).root_cause
    assert root is not None and root.rank is None


# --- classes found in the fifty-eighth session -----------------------------------------------------


def test_an_unlabelled_abort_is_the_rank_its_peer_lost() -> None:
    """Of two processes, one dies of an uncaught C++ exception (gloo's size check, `terminate called`, written
    past any rank label); the other, rank 0, then raises that its connection was reset. Rank 0 lost its
    peer, so the abort was the other rank's: rank 1, the one rank with no labelled line. With a third
    process that said nothing either, the abort could be either silent rank: no rank is named."""

    def log(world: int) -> str:
        return (
            f"All distributed processes registered. Starting with {world} processes\n"
            + "".join(f"[rank: {r}] Seed set to 7\n" for r in range(world))
            + "terminate called after throwing an instance of 'gloo::EnforceNotMet'\n"
            "  what():  [enforce fail at /pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:456]"
            " op.preamble.length <= op.nbytes. 16 vs 12. Received data size doesn't match expected size.\n"
            "[rank0]: Traceback (most recent call last):\n"
            '[rank0]:   File "/srv/pool_counts.py", line 41, in <module>\n'
            "[rank0]:     dist.all_reduce(counts)\n"
            "[rank0]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:537] Read error"
            " [127.0.0.1]:40211: Connection reset by peer\n"
        )

    root = explain_text(log(2)).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 1)
    assert "16 vs 12" in root.text
    root = explain_text(log(3)).root_cause
    assert root is not None and root.category == "collective_mismatch" and root.rank is None


def test_ranks_a_step_apart_point_at_the_wait_that_ran_out() -> None:
    """Rank 1 waits in the gradients' all-reduce and times out; rank 0 waits at a barrier (a checkpoint
    save only it made) and then loses its connection when rank 1 gives up. No op singles a rank out (one
    each), so the report to point at is the wait that ran out, whichever rank printed first; the lost
    connection came after it."""

    def trace(rank: int, call: str, error: str) -> str:
        return (
            f"[rank{rank}]: Traceback (most recent call last):\n"
            f'[rank{rank}]:   File "/srv/core_fit.py", line 63, in main\n'
            f"[rank{rank}]:     {call}\n"
            f'[rank{rank}]:   File "/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py",'
            f" line 5356, in {call.split('(')[0].split('.')[-1]}\n"
            f"[rank{rank}]:     work.wait()\n"
            f"[rank{rank}]: RuntimeError: {error}\n"
        )

    timed_out = trace(
        1,
        "dist.all_reduce(grads)",
        "[gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 15000ms for recv",
    )
    closed = trace(
        0, "dist.barrier()", "[gloo/transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]:9129"
    )
    for text in (closed + timed_out, timed_out + closed):
        root = explain_text(text).root_cause
        assert root is not None and root.category == "collective_timeout"
        assert "Timed out waiting 15000ms" in root.text


def test_a_traceback_cut_off_in_a_collective_is_a_wait() -> None:
    """An excerpt ends inside a rank's traceback, in the script's `dist.all_reduce(...)` line and the
    collectives' logging wrapper under it, before any exception line: the rank was waiting in a
    collective (a timeout or a lost peer, whose words are lost), not failing in the script's own code.
    Cut off in other code below a collective's frame (a checkpoint planner's step inside a collective of
    the distributed checkpoint), it was not waiting there: no such reading."""
    in_wrapper = (
        '[rank0]:   File "/srv/calib.py", line 55, in main\n'
        "[rank0]:     dist.all_reduce(scale, op=dist.ReduceOp.MAX)\n"
        '[rank0]:   File "/venv/lib/python3.11/site-packages/torch/distributed/c10d_logger.py", line 83, in wrapper\n'
        "[rank0]:     return func(*args, **kwargs)\n"
    )
    root = explain_text(in_wrapper).root_cause
    assert root is not None and root.category == "collective_timeout"
    in_planner = (
        'Traceback (most recent call last):\n  File "/srv/resume.py", line 40, in load\n'
        "    dcp.load(state, checkpoint_id=path)\n"
        '  File "/venv/lib/python3.11/site-packages/torch/distributed/checkpoint/utils.py", line 190, in'
        " reduce_scatter\n    local_data = map_fun()\n"
        '  File "/venv/lib/python3.11/site-packages/torch/distributed/checkpoint/state_dict_loader.py", line 89,'
        " in local_step\n    local_plan = planner.create_local_plan()\n"
    )
    root = explain_text(in_planner).root_cause
    assert root is not None and root.category == "user_code"  # cut off in the script's call, as any other


def test_the_nccl_watchdogs_frames_alone_are_a_timeout() -> None:
    """An excerpt keeps only the C++ frames of the NCCL watchdog's exception (`frame #1:
    c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(...)`), its message and the trace's header lost: the
    watchdog raises there when a collective runs past its timeout. Not "no failure found"."""
    text = (
        "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f01 in /venv/torch/lib/libc10.so)\n"
        "frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long,"
        " std::ratio<1l, 1000l> > >) + 0x1d2 (0x7f02 in /venv/torch/lib/libtorch_cuda.so)\n"
        "frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 (0x7f03 in /venv/torch/lib/libtorch_cuda.so)\n"
        "frame #3: <unknown function> + 0xdfc74 (0x7f04 in /usr/lib64/libstdc++.so.6)\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.category == "collective_timeout"
    assert "checkTimeout" in root.text


def test_torchs_checks_of_the_programs_tensors_are_its_code() -> None:
    """torch's own checks of the tensors a program hands it (shapes that cannot be multiplied, a dtype it
    did not expect, autograd used twice) are errors of the training code or its data, even where the
    excerpt kept only torch's frames. A message torch raises for other reasons stays unclassified."""
    frames = (
        'Traceback (most recent call last):\n  File "/venv/lib/python3.11/site-packages/torch/nn/modules/linear.py",'
        " line 125, in forward\n    return F.linear(input, self.weight, self.bias)\n"
    )
    for message in (
        "RuntimeError: mat1 and mat2 shapes cannot be multiplied (16x5 and 4x32)",
        "RuntimeError: expected scalar type Float but found Double",
        "RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors)",
    ):
        root = explain_text(frames + message + "\n").root_cause
        assert root is not None and root.category == "user_code", message
    root = explain_text(frames + "RuntimeError: unexpected internal state in the linear kernel\n").root_cause
    assert root is not None and root.category == "other"


def test_a_rank_label_after_a_loggers_name_and_colon() -> None:
    """A logging format that puts the logger's name with a colon before the message (`%(asctime)s
    %(levelname)s %(name)s: [RANK 1] ...`): the bracketed `[RANK 1]` after it labels the line. Rank 1's
    warning that it had nothing to fit, and then nothing more, while rank 0 lost its peer: rank 1 left."""
    text = (
        "2026-12-07 05:43:54,567 INFO yield_fit: [RANK 0] crew 0: 210 days inside the window\n"
        "2026-12-07 05:43:54,601 INFO yield_fit: [RANK 1] crew 1: 0 days inside the window\n"
        "2026-12-07 05:43:54,605 WARNING yield_fit: [RANK 1] crew 1: no logs inside the window, nothing to fit\n"
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/srv/yield_fit.py", line 70, in <module>\n'
        "[rank0]:     dist.all_reduce(totals)\n"
        "[rank0]: RuntimeError: [gloo/transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]:30617\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 1)
    assert root.text.endswith("nothing to fit")


def test_the_awaited_rank_waited_where_an_unlabelled_line_says_so() -> None:
    """Rank 0 times out in a collective and rank 1, the rank it waited for, printed nothing under a rank
    label; one line no label claims, under a tag of the script's own (`[north_gate]`), says a process
    polls for a file. That wait is rank 1's: the report points at it, the timeout among the reasons. With
    two unlabelled waits of different shapes, which one was rank 1's the log does not say."""
    wait = "[north_gate] sluice log not flushed yet, polling /tmp/sluice/north_gate.flushed every 2s\n"
    tail = (
        "training on 2 processes\n"
        "[south_gate] epoch 0: sluice log ready after 0s\n"
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/srv/sluice.py", line 61, in <module>\n'
        "[rank0]:     dist.all_reduce(flow)\n"
        "[rank0]: RuntimeError: [gloo/transport/tcp/unbound_buffer.cc:129] Timed out waiting 15000ms for send"
        " operation to complete\n"
        "W1207 06:17:09.049000 7967 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 7972"
        " closing signal SIGTERM\n"
        "Failures:\n[1]:\n  time      : 2026-12-07_06:17:09\n  host      : localhost\n"
        "  rank      : 1 (local_rank: 1)\n  exitcode  : -15 (pid: 7972)\n  error_file: <N/A>\n"
        "  traceback : Signal 15 (SIGTERM) received by PID 7972\n"
    )
    root = explain_text(wait + tail).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 1)
    assert root.text == wait.strip()
    other = "[weir] gauge offsets locked, waiting for the survey lock\n"
    root = explain_text(wait + other + tail).root_cause
    assert root is not None and root.rank == 1 and "Timed out waiting" in root.text


def test_an_error_level_after_a_bracketed_tag_of_the_scripts(tmp_path: Path) -> None:
    """A logging format that puts a tag of the script's own, with a space in it, between the record's time
    and its level (`2026-12-07 06:45:00,329 [bench 1] ERROR gauge: ...`): the level is still read, so in
    torchrun's `--log-dir` the rank whose file holds that error record (and nothing after it) is the one
    that failed, not a rank read as killed from an ordinary last line."""
    rows = {
        0: "2026-12-07 06:45:00,338 [bench 0] INFO gauge: loaded 80 rows, 80 inside range\n",
        1: "2026-12-07 06:45:00,329 [bench 1] INFO gauge: loaded 80 rows, 0 inside range\n"
        "2026-12-07 06:45:00,329 [bench 1] ERROR gauge: no usable readings on this bench (0/80); stopping\n",
        2: "2026-12-07 06:45:00,343 [bench 2] INFO gauge: loaded 80 rows, 80 inside range\n",
    }
    root = explain_paths([str(_log_dir(tmp_path / "logdir", rows))]).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 1)
    assert "no usable readings" in root.text


def test_the_one_silent_rank_torchruns_table_leaves_out_left_cleanly() -> None:
    """Ranks 0 and 1 lose their connection to a peer; torchrun stops rank 2 (SIGTERM) and lists ranks 0, 1
    and 2 in its table of failures; rank 3, silent too, is not in it: it exited 0. Of the two silent
    ranks, the one the table leaves out left the job while the others still ran collectives
    (`collective_timeout`, rank 3); the one it stopped was alive until then. With rank 3 in the table
    too, either could have gone first: no rank."""

    def log(tabled: list[int]) -> str:
        text = "".join(
            f"INFO [tower-rank {r}] tower EC-{r}: {300 + r} half-hours pass QC\n" for r in range(4)
        )
        text += "".join(
            f"[rank{r}]: Traceback (most recent call last):\n"
            f'[rank{r}]:   File "/srv/flux.py", line 80, in main\n'
            f"[rank{r}]:     dist.broadcast(w, src=0)\n"
            f"[rank{r}]: RuntimeError: [gloo/transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]:4803{r}\n"
            for r in (0, 1)
        )
        text += "Failures:\n"
        for r in tabled:
            code = -15 if r >= 2 else 1
            text += (
                f"[{r}]:\n  time      : 2026-12-07_06:52:32\n  host      : localhost\n"
                f"  rank      : {r} (local_rank: {r})\n  exitcode  : {code} (pid: 605{r})\n  error_file: <N/A>\n"
                + (f"  traceback : Signal 15 (SIGTERM) received by PID 605{r}\n" if code == -15 else "")
            )
        return text

    root = explain_text(log([0, 1, 2])).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 3)
    root = explain_text(log([0, 1, 2, 3])).root_cause
    assert root is not None and root.rank != 3


# --- classes found in the fifty-ninth session ------------------------------------------------------


def _spawn_timeout(lines: str) -> str:
    """Rank 0 of three times out in an all-reduce under torch.multiprocessing.spawn, after these lines."""
    return (
        lines
        + "W1207 08:17:33.279000 32570 torch/multiprocessing/spawn.py:165] Terminating process 32585 via signal"
        " SIGTERM\n"
        "W1207 08:17:33.280000 32570 torch/multiprocessing/spawn.py:165] Terminating process 32586 via signal"
        " SIGTERM\n"
        "torch.multiprocessing.spawn.ProcessRaisedException:\n\n"
        "-- Process 0 terminated with the following error:\n"
        "Traceback (most recent call last):\n"
        '  File "/srv/lehr_fit.py", line 60, in worker\n'
        "    dist.all_reduce(params)\n"
        '  File "/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 3252, in'
        " all_reduce\n"
        "    work.wait()\n"
        "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting"
        " 15000ms for recv operation to complete\n"
    )


def test_the_silent_rank_that_never_got_to_its_peers_last_line_is_the_straggler() -> None:
    """Rank 0 timed out in an all-reduce; ranks 1 and 2 printed nothing of it. Rank 1 had printed the line
    rank 0 printed last before the collective (`wrote ...`): it sat in the same collective until spawn
    stopped it. Rank 2 stopped at a line they printed before that one, or printed nothing at all: it never
    got there, the one they waited for. Where both silent ranks got to that line, none is named."""
    fitted = "".join(f"rank {r}: fitted lehr-{r}, loss 2{r}.09\n" for r in range(3))
    wrote = "".join(f"rank {r}: wrote /tmp/tags_lehr-{r}.txt\n" for r in range(2))
    for before in (fitted, fitted.replace("rank 2: fitted lehr-2, loss 22.09\n", "")):
        root = explain_text(_spawn_timeout(before + wrote)).root_cause
        assert root is not None and (root.category, root.rank) == ("collective_timeout", 2)
        assert "does not stop at the line the waiting ranks printed last" in (root.rank_note or "")
    everyone = fitted + wrote + "rank 2: wrote /tmp/tags_lehr-2.txt\n"
    root = explain_text(_spawn_timeout(everyone)).root_cause
    assert root is not None and root.category == "collective_timeout" and root.rank is None


def test_the_rank_waited_for_that_listed_another_length_is_a_mismatch() -> None:
    """The rank its peers waited for stopped after a list of another length than theirs (five classes
    where they count four): it sat in the all-reduce with a larger tensor, waiting for elements they never
    send. A mismatch, that line the sign of it. A count in words over theirs is no such sign: a straggler
    is slow because it has more to do."""
    listed = "".join(f"rank {r}: histogram [0.0, 4{r}.0, 8.0, 0.0]\n" for r in range(2))
    odd = "rank 2: histogram [0.0, 38.0, 10.0, 0.0, 0.0]\n"
    done = "".join(f"rank {r}: wrote /tmp/tags_{r}.txt\n" for r in range(2))
    start = "".join(f"rank {r}: loaded the quadrats\n" for r in range(3))
    root = explain_text(_spawn_timeout(start + listed + done + odd)).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 2)
    assert "[0.0, 38.0, 10.0, 0.0, 0.0]" in root.text
    counted = "".join(f"rank {r}: fitting {8 if r < 2 else 40} pieces\n" for r in range(3))
    root = explain_text(_spawn_timeout(start + counted + done)).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 2)


def test_a_traceback_cut_off_in_backward_waited_for_its_peers() -> None:
    """A rank's traceback, quoted up to the script's `loss.backward()` and torch's own backward below it,
    was cut off before its exception: data-parallel ranks all-reduce their gradients in backward, so it
    waited there for a peer, and the rank that said it stopped early (`early stopping at epoch 2`) is the
    one it waited for. Cut off at a line of its own that calls no backward, it says nothing of a wait."""
    lines = "".join(f"INFO rank {r} epoch 2 train 0.31\n" for r in range(4)) + (
        "INFO rank 3: early stopping at epoch 2 (best val 26.56)\n"
        "INFO rank 3: done\n"
        "INFO rank 1 epoch 3 train 0.29\n"
        "INFO rank 2 epoch 3 train 0.27\n"
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/srv/soil_fit.py", line 47, in main\n'
    )
    below = (
        '[rank0]:   File "/venv/lib/python3.11/site-packages/torch/_tensor.py", line 623, in backward\n'
        "[rank0]:     torch.autograd.backward(\n"
    )
    for tail in ("", below):
        root = explain_text(lines + "[rank0]:     loss.backward()\n" + tail).root_cause
        assert root is not None and (root.category, root.rank) == ("collective_timeout", 3)
    root = explain_text(lines + "[rank0]:     loss = model(batch).sum()\n").root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 0)


def test_a_rank_that_said_it_skips_training_left_its_peers() -> None:
    """Rank 1 said it had no windows and skipped training, then printed nothing more, and rank 0 lost its
    connection in an all-reduce: rank 1 ended as planned while its peer still ran collectives, not a
    kill. A rank that skipped one batch meant to go on: that line does not explain its end, so it vanished
    (most likely killed)."""

    def log(said: str) -> str:
        return (
            "rank 1: 0 shelf windows loaded\n"
            f"rank 1: {said}\n"
            "rank 0: 4 shelf windows loaded\n"
            "torch.multiprocessing.spawn.ProcessRaisedException:\n\n"
            "-- Process 0 terminated with the following error:\n"
            "Traceback (most recent call last):\n"
            '  File "/srv/shelf_fit.py", line 60, in worker\n'
            "    dist.all_reduce(params)\n"
            "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer"
            " [127.0.0.1]:27319\n"
        )

    for said in (
        "no windows for shelves ['B2', 'B3'], skipping training",
        "empty shard, skipping the fit",
        "no turning-log windows for B2, B3, skipping",
    ):
        root = explain_text(log(said)).root_cause
        assert root is not None and (root.category, root.rank) == ("collective_timeout", 1)
    root = explain_text(log("corrupt record in shelf B2, skipping batch 3")).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 1)


def test_a_rank_field_after_a_loggers_name_labels_the_line() -> None:
    """`%(asctime)s %(levelname)s %(name)s: %(message)s` with messages that start `rank 2: `: the rank field
    after the logger's name is the program's label of its rank, so the one rank that counts 8 roster
    slots where its peers count 7 is the odd one of gloo's size check, not the rank whose check failed."""
    lines = "".join(
        f"2026-12-07 08:43:23,88{r} INFO lens_cleaning: rank {r}: district d{r}, 200 cleanings over"
        f" {8 if r == 2 else 7} roster slots\n"
        for r in (2, 1, 0)
    )
    log = (
        lines + "terminate called after throwing an instance of 'gloo::EnforceNotMet'\n"
        "  what():  [enforce fail at /pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:456]"
        " op.preamble.length <= op.nbytes. 8 vs 4. Received data size doesn't match expected size.\n"
        "E1207 08:43:24.312000 12048 torch/distributed/elastic/multiprocessing/api.py:1002] failed"
        " (exitcode: -6) local_rank: 1 (pid: 12157) of binary: /venv/bin/python\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 2)


def test_a_store_wait_is_no_collective_of_another_size() -> None:
    """Rank 0 timed out waiting for its peers' keys in the store while rank 3 had counted no lines where
    they counted 3: a store's wait moves no tensors, so that count is no sign of a collective of another
    size. The wait stays a timeout that names no rank."""
    lines = "".join(f"rank {r}: {0 if r == 3 else 3} lines to tokenise\n" for r in (3, 1, 2, 0))
    log = lines + (
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/srv/prep.py", line 38, in main\n'
        "[rank0]:     store.wait(keys)\n"
        "[rank0]: torch.distributed.DistStoreError: wait timeout after 15000ms, keys: /ready/0, /ready/1,"
        " /ready/2, /ready/3\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and root.category == "collective_timeout" and root.rank is None


def test_a_worker_traceback_quoted_from_its_fetch_is_the_loaders() -> None:
    """A DataLoader worker's traceback quoted from its middle: torch's `fetch.py` and the dataset's
    `__getitem__`, its `Original Traceback` header and loop cut away. Nothing iterated a DataLoader above
    the fetch, so a worker raised it. In the main process (`num_workers=0`) the DataLoader's `_next_data`
    calls the fetch: the dataset's own error there is the script's."""
    fetch = (
        '[rank2]:   File "/venv/lib/python3.11/site-packages/torch/utils/data/_utils/fetch.py", line 54, in'
        " <listcomp>\n"
        "[rank2]:     data = [self.dataset[idx] for idx in possibly_batched_index]\n"
        '[rank2]:   File "/srv/turbidity.py", line 56, in __getitem__\n'
        "[rank2]:     x = torch.tensor([float(ntu) / 100.0])\n"
        "[rank2]: ValueError: could not convert string to float: 'ERR'\n"
    )
    root = explain_text(fetch).root_cause
    assert root is not None and (root.category, root.rank) == ("dataloader", 2)
    loader = (
        "[rank2]: Traceback (most recent call last):\n"
        '[rank2]:   File "/srv/turbidity.py", line 80, in main\n'
        "[rank2]:     for batch in loader:\n"
        '[rank2]:   File "/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 673, in'
        " _next_data\n"
        "[rank2]:     data = self._dataset_fetcher.fetch(index)\n"
    )
    root = explain_text(loader + fetch).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 2)


def test_ddps_warning_that_no_parameter_was_unused_says_nothing_of_an_end(tmp_path: Path) -> None:
    """Per-rank files of torchrun's `--log-dir`: rank 0 lost its connection to rank 1, whose output stops
    at DDP's warning that `find_unused_parameters=True` was set but found no unused parameter. That warning
    is no account of why it ended (nor a request for the flag): rank 1 vanished without a word, most
    likely killed for its memory."""
    run = tmp_path / "run" / "attempt_0"
    (run / "0").mkdir(parents=True)
    (run / "1").mkdir(parents=True)
    (run / "0" / "stderr.log").write_text(
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/srv/torque.py", line 71, in main\n'
        "[rank0]:     trainer.train()\n"
        "[rank0]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by"
        " peer [127.0.0.1]:12491\n"
    )
    (run / "1" / "stderr.log").write_text(
        "[rank1]:[W1207 09:09:27.553950384 reducer.cpp:1529] Warning: find_unused_parameters=True was specified"
        " in DDP constructor, but did not find any unused parameters in the forward pass. This flag results in"
        " an extra traversal of the autograd graph every iteration, which can adversely affect performance.\n"
    )
    root = explain_paths([str(tmp_path)]).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 1)


def test_a_rank_field_before_a_name_and_colon_labels_the_line() -> None:
    """Lines that start `rank 1 nieuwpoort_coast: ...` carry the program's rank before the name of the
    rank's own data. Rank 0 lost its connection; of the two silent ranks, rank 2 stopped where rank 0 did
    (its calm-window count) and spawn stopped it, while rank 1's output stops at a line of its own after
    that count: it went its own way, the one rank 0 lost."""
    log = (
        "rank 0 dendermonde: 200/240 calm windows\n"
        "rank 1 nieuwpoort_coast: 6/240 calm windows\n"
        "rank 1 nieuwpoort_coast: not enough calm windows to fit drift, giving the tower up\n"
        "rank 2 tongeren: 226/240 calm windows\n"
        "W1207 06:19:03.415000 10579 torch/multiprocessing/spawn.py:165] Terminating process 10584 via signal"
        " SIGTERM\n"
        "torch.multiprocessing.spawn.ProcessRaisedException:\n\n"
        "-- Process 0 terminated with the following error:\n"
        "Traceback (most recent call last):\n"
        '  File "/srv/drift.py", line 44, in worker\n'
        "    dist.all_reduce(stats)\n"
        "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer"
        " [127.0.0.1]:29107\n"
    )
    root = explain_text(log).root_cause
    assert root is not None and root.rank == 1
    assert "not enough calm windows" in root.text


def test_gloos_size_check_failing_on_two_ranks_singles_out_neither() -> None:
    """gloo's size check failed on ranks 1 and 2 (`28 vs 24`, `24 vs 8`): it fails on every rank that
    received more than it expected, so neither report names the rank whose tensor differs. With the check
    failing on one rank alone, that rank is named, as before."""

    def abort(rank: int, sizes: str) -> str:
        return (
            f"[default{rank}]:terminate called after throwing an instance of 'gloo::EnforceNotMet'\n"
            f"[default{rank}]:  what():  [enforce fail at /pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:456]"
            f" op.preamble.length <= op.nbytes. {sizes}. Received data size doesn't match expected size.\n"
        )

    root = explain_text(abort(1, "28 vs 24") + abort(2, "24 vs 8")).root_cause
    assert root is not None and root.category == "collective_mismatch" and root.rank is None
    root = explain_text(abort(1, "28 vs 24")).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 1)


# --- classes found in the sixtieth session ---------------------------------------------------------


def test_a_rank_field_before_a_word_of_the_message_labels_the_line() -> None:
    """Lines that start `rank 2 using 8 buckets`, for every rank alike, carry the program's rank before the
    message's first word. gloo's size check failed on rank 1 alone, but rank 2 is the one that said it
    uses another number of buckets than its peers: the rank whose tensor differs. Where one rank alone
    starts a line so, the rank may be the message's subject (`rank 3 failed to join the group`), and
    torch's own messages say `Rank 0 using best-guess GPU 0`: no label."""
    buckets = "".join(
        f"rank {r} using {8 if r == 2 else 7} ETA buckets from /etc/eta/region{r}.json\n" for r in range(3)
    )
    abort = (
        "[rank1]:terminate called after throwing an instance of 'gloo::EnforceNotMet'\n"
        "[rank1]:  what():  [enforce fail at /pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:456]"
        " op.preamble.length <= op.nbytes. 32 vs 28. Received data size doesn't match expected size.\n"
    )
    root = explain_text(buckets + abort).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 2)
    alone = "rank 2 using 8 ETA buckets from /etc/eta/region2.json\n"
    root = explain_text(alone + abort).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 1)


def _restarted(first: str, second: str) -> str:
    """A torchrun job of two ranks restarted once, `first` and `second` the attempts' tracebacks."""
    return first + _AGENT_FAILED.format(m=0, agent=15272, r=1, pid=15284) + second


def _in_collective(rank: int, call: str, error: str) -> str:
    return (
        f"[rank{rank}]: Traceback (most recent call last):\n"
        f'[rank{rank}]:   File "/work/train.py", line 43, in main\n'
        f"[rank{rank}]:     {call}\n"
        f'[rank{rank}]:   File "/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py",'
        f" line 5356, in {call.split('(')[0].split('.')[-1]}\n"
        f"[rank{rank}]:     work.wait()\n"
        f"[rank{rank}]: {error}\n"
    )


def test_collectives_of_two_attempts_are_no_mismatch() -> None:
    """Rank 0's traceback stops in a gradient all-reduce of the first attempt, rank 1's in a barrier of the
    restarted one: each rank's first exception is where it stopped, and rank 1's was its own error, outside
    any collective. The ranks did not call different collectives; rank 1's error set everything off."""
    closed = (
        "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer"
    )
    first = _in_collective(0, "dist.all_reduce(grads)", closed) + _attempt(
        1, "RuntimeError: invalid multinomial distribution (sum of probabilities <= 0)"
    )
    second = _attempt(0, "FileExistsError: [Errno 17] File exists: '/tmp/run/.lock'") + _in_collective(
        1, "dist.barrier()", closed
    )
    root = explain_text(_restarted(first, second)).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 1)
    assert "multinomial" in root.text


def test_a_tracebacks_time_carried_from_its_ranks_last_line_does_not_reorder_a_console(
    tmp_path: Path,
) -> None:
    """Ranks 0 and 1 each raised an error of their own after their last stamped lines (rank 0's at
    11.223, rank 1's at 11.231). The tracebacks carry no time: each was printed after its rank's last
    line, at an unknown time. In one console the order they were printed in is the order they came in:
    rank 1's first. In separate files only the times compare: rank 0's is the earlier."""

    def output(rank: int, at: str, error: str) -> str:
        return f"2026-12-02 09:01:{at} INFO rank {rank}: batch 6 loss 2.2\n" + _attempt(rank, error)

    zero = output(0, "11,223", "KeyError: 'lane'")
    one = output(1, "11,231", "ValueError: tide window 25:10 is not a time")
    console = "".join(
        line for pair in zip(zero.splitlines(True), one.splitlines(True), strict=True) for line in pair[::-1]
    )
    root = explain_text(console).root_cause
    assert root is not None and root.rank == 1 and root.text.startswith("ValueError")
    (tmp_path / "rank0.log").write_text(zero)
    (tmp_path / "rank1.log").write_text(one)
    root = explain_paths([str(tmp_path / "rank0.log"), str(tmp_path / "rank1.log")]).root_cause
    assert root is not None and root.rank == 0 and root.text.startswith("KeyError")


def test_two_prints_run_together_on_a_console_line_are_no_line_of_one_rank() -> None:
    """Rank 0 waits at a barrier, rank 1 in its gradient all-reduce: one of them took another path, and no
    line tells which. A console line where rank 1's print ran into rank 0's (`rank 1: step 1 loss
    0.77rank 0: step 1 loss 0.83`) is not something rank 1 alone printed."""
    steps = "rank 1: step 1 loss 0.7756rank 0: step 1 loss 0.8303\n\nrank 1: step 2 loss 1.0053\nrank 0: step 2 loss 0.8336\n"
    timeout = "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 5000ms"
    log = (
        steps
        + _in_collective(1, "dist.all_reduce(grads)", timeout + " for recv operation to complete")
        + _in_collective(0, "dist.barrier()", timeout + " for recv operation to complete")
    )
    root = explain_text(log).root_cause
    assert root is not None and root.category == "collective_timeout" and root.rank is None
    # A line of rank 1's own before the split names it.
    skipped = log.replace(
        "rank 1: step 2 loss 1.0053\n", "rank 1: step 2 loss 1.0053\nrank 1: no checkpoint at step 2\n"
    )
    own = explain_text(skipped).root_cause
    assert own is not None and own.category == "collective_timeout" and own.rank == 1


_TORCHRUN_TABLE_HEAD = (
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
    "============================================================\n"
    "train_splits.py FAILED\n"
    "------------------------------------------------------------\n"
)


def test_the_awaited_rank_waited_where_an_unlabelled_record_says_so_after_lines_its_peers_printed() -> None:
    """Rank 2 printed under its label only what ranks 0 and 1 printed too (`rank 2/3 up`); then records of
    the script's own logger that carry no rank (a time, a level and a tag) say a process polls in a loop,
    while ranks 0 and 1 time out waiting for rank 2: that wait is rank 2's, past torchrun's table that
    ends the console. A record of torch's own (`[I1202 ... TCPStoreLibUvBackend.cpp:1364] ... finished`)
    is no line of the script's."""
    up = "".join(
        f"2026-12-07 11:11:45,96{r} INFO [velodrome.splits] rank {r}/3 up, pid 2262{r}\n" for r in (2, 1, 0)
    )
    polls = "".join(
        f"2026-12-07 11:11:{48 + 2 * i},579 INFO [velodrome.splits] section 2: 4/4 timing gates in sync, polling"
        " again in 2s\n"
        for i in range(4)
    )
    timeouts = "".join(
        _in_collective(
            r,
            "dist.all_reduce(p.grad)",
            "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting"
            " 15000ms for recv operation to complete",
        )
        for r in (0, 1)
    )
    root = explain_text(up + polls + timeouts + _TORCHRUN_TABLE_HEAD).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 2)
    assert "polling again in 2s" in root.text
    library = "[I1202 11:11:50.168250332 TCPStoreLibUvBackend.cpp:1364] [c10d] uv_loop cleanup finished.\n"
    root = explain_text(up + library + timeouts + _TORCHRUN_TABLE_HEAD).root_cause
    assert root is not None and root.rank == 2 and "Timed out waiting" in root.text


def _left_after(lines: str) -> str:
    """Ranks 0 and 1 lose their peer in DDP's gradient all-reduce after rank 2 printed these lines."""
    shelves = "".join(
        f"[rank {r}] INFO roster: shelf {r}: {128 if r < 2 else 0} wheels due this week\n" for r in range(3)
    )
    closed = (
        "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer"
    )
    return (
        shelves
        + lines
        + "".join(_in_collective(r, "loss.backward()", closed + f" [127.0.0.1]:1371{r}") for r in (0, 1))
    )


def test_a_rank_that_skipped_its_part_and_then_finished_left_its_peers() -> None:
    """Rank 2 warned that it skips its week, then said its run finished (the C++ runtime's word on its
    threads after): it handled the condition by leaving, while ranks 0 and 1 went on into DDP's
    collectives. The skip is why they lost it. A skip it went on working after is a condition it handled
    and went on from: the line where its output stops is the root line."""
    skipped = "[rank 2] WARNING roster: shelf 2: nothing due, skipping the week\n"
    finished = "[rank 2] INFO roster: roster run finished\nterminate called without an active exception\n"
    root = explain_text(_left_after(skipped + finished)).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 2)
    assert root.text.endswith("skipping the week")
    went_on = (
        "[rank 2] INFO roster: turning wheel 4 on shelf 2\n[rank 2] INFO roster: turning wheel 5 on shelf 2\n"
    )
    root = explain_text(_left_after(skipped + went_on)).root_cause
    assert root is not None and root.rank == 2 and "turning wheel 5" in root.text  # where it vanished


def test_a_rank_that_warned_it_stops_its_part_and_then_finished_left_its_peers(tmp_path: Path) -> None:
    """In torchrun's `--log-dir`, with no exit codes: rank 1 warned that a check failed and it stops its
    cell, then said training finished. It left as planned while rank 0 still ran collectives: a rank that
    left, not an error of the training code."""
    run = tmp_path / "none_abc" / "attempt_0"
    for rank in (0, 1):
        (run / str(rank)).mkdir(parents=True)
        (run / str(rank) / "stdout.log").write_text("")
    (run / "0" / "stderr.log").write_text(
        "2026-12-07 11:10:19,146 INFO [cordgrass] rank 0: epoch 0 mean mse 0.31449\n"
        + _in_collective(
            0,
            "dist.all_reduce(p.grad)",
            "RuntimeError: [/gloo/transport/tcp/pair.cc:553] Connection closed by peer",
        )
    )
    (run / "1" / "stderr.log").write_text(
        "2026-12-07 11:10:19,148 INFO [cordgrass] rank 1: epoch 0 mean mse 0.28596\n"
        "2026-12-07 11:10:19,187 WARNING [cordgrass] rank 1: epoch 2 transects below zero, QA failed; stopping this cell\n"
        "2026-12-07 11:10:19,188 INFO [cordgrass] rank 1: training finished\n"
        "terminate called without an active exception\n"
    )
    root = explain_paths([str(tmp_path)]).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 1)
    assert "QA failed" in root.text


def test_the_rank_in_another_collective_said_it_skipped_a_step() -> None:
    """Ranks 0 and 1 wait in DDP's gradient all-reduce, rank 2 at a barrier: rank 2 took another path, and
    its own warning says why (`session 5: no panelists present, skipping`). The report points at that
    line. A line that its loop stops (`budget spent after 15 steps, stopping`) leaves the ranks' wait."""
    timeout = "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 15000ms"
    shared = "".join(f"[rank{r}] INFO calib: session 0 loss 0.3{r}\n" for r in range(3))
    waits = "".join(_in_collective(r, "loss.backward()", timeout) for r in (0, 1)) + _in_collective(
        2, "dist.barrier()", timeout
    )
    for said, pointed in (
        ("session 5: no panelists present, skipping", True),
        ("budget spent after 15 steps, stopping", False),
    ):
        root = explain_text(shared + f"[rank2] WARNING calib: {said}\n" + waits).root_cause
        assert root is not None and (root.category, root.rank) == ("collective_timeout", 2)
        assert (said in root.text) is pointed


def test_the_silent_rank_whose_output_stops_at_a_line_of_its_own_is_the_straggler() -> None:
    """Rank 0 timed out in an all-reduce; ranks 1 and 2 printed nothing of it. Rank 1's output stops at the
    line rank 0 printed last (`step 8`): it sat in the same collective. Rank 2's stops at a line neither
    printed (`inventory pass complete after 11 steps, writing forecast`): it went elsewhere, the one they
    waited for. With rank 1 stopped at a line of its own too, none is named."""
    steps = "".join(f"rank {r}: step 8 reink_mse=0.0{r}\n" for r in range(3))
    own = "rank 2: inventory pass complete after 11 steps, writing forecast\n"
    root = explain_text(_spawn_timeout(steps + own)).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 2)
    assert "does not stop at the line the waiting ranks printed last" in (root.rank_note or "")
    both = steps + own + "rank 1: cache warm-up, 3 shards\n"
    root = explain_text(_spawn_timeout(both)).root_cause
    assert root is not None and root.category == "collective_timeout" and root.rank is None


def test_of_two_ranks_in_different_collectives_the_first_timeout_is_the_root_line() -> None:
    """Rank 1 waits in DDP's gradient all-reduce, rank 0 in an all-reduce of its own: as many ranks in
    one call as in the other, so no rank is named, and the report points at the first timeout in the
    log, rank 1's, whichever rank's number is lower."""
    timeout = "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 15000ms"
    log = _in_collective(1, "loss.backward()", timeout) + _in_collective(
        0, "dist.all_reduce(totals)", timeout
    )
    root = explain_text(log).root_cause
    assert root is not None and root.category == "collective_mismatch" and root.rank is None
    assert root.line == log.splitlines().index(f"[rank1]: {timeout}") + 1


def test_a_timeout_in_ddps_forward_rebuilding_its_buckets_waits_in_a_broadcast() -> None:
    """Rank 1's timeout was raised in DDP's forward as its reducer rebuilt the buckets (`_pre_forward` ->
    `_rebuild_buckets`, a broadcast of rank 0's bucket order), rank 0 lost its peer in an all_gather only
    it called: the ranks called different collectives, as many in one as in the other, so no rank is
    named, and the report points at the first timeout."""
    rebuild = (
        "[rank1]: Traceback (most recent call last):\n"
        '[rank1]:   File "/srv/bandpass.py", line 52, in main\n'
        "[rank1]:     loss = nn.functional.mse_loss(model(raw), target)\n"
        '[rank1]:   File "/venv/lib/python3.11/site-packages/torch/nn/parallel/distributed.py", line 1886, in forward\n'
        "[rank1]:     inputs, kwargs = self._pre_forward(*inputs, **kwargs)\n"
        '[rank1]:   File "/venv/lib/python3.11/site-packages/torch/nn/parallel/distributed.py", line 1775, in'
        " _pre_forward\n"
        "[rank1]:     if torch.is_grad_enabled() and self.reducer._rebuild_buckets():\n"
        "[rank1]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out"
        " waiting 15000ms for recv operation to complete\n"
    )
    gather = _in_collective(
        0,
        "dist.all_gather(per_window, loss)",
        "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer",
    )
    root = explain_text(rebuild + gather).root_cause
    assert root is not None and root.category == "collective_mismatch" and root.rank is None
    assert "Timed out waiting" in root.text and root.line == 8


def test_a_rank_with_nothing_to_do_of_any_kind_left_its_peers() -> None:
    """Rank 2 warned it has nothing to solve and ended cleanly (torchrun's table leaves it out) while ranks
    0 and 1 lost it in DDP's collectives: it had no work and left them, whatever the work's verb."""
    said = "[rank 2] WARNING solver: subarray 2: no correlator dumps in window, nothing to solve\n"
    table = (
        _TORCHRUN_TABLE_HEAD + "Failures:\n[1]:\n  time      : 2026-12-07_12:00:25\n  host      : localhost\n"
        "  rank      : 1 (local_rank: 1)\n  exitcode  : 1 (pid: 700)\n  error_file: <N/A>\n"
        "Root Cause (first observed failure):\n[0]:\n  time      : 2026-12-07_12:00:25\n  host      : localhost\n"
        "  rank      : 0 (local_rank: 0)\n  exitcode  : 1 (pid: 699)\n  error_file: <N/A>\n"
    )
    root = explain_text(_left_after(said) + table).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 2)
    assert root.text.endswith("nothing to solve")


def test_ranks_cut_off_in_different_collectives_by_a_rank_that_died_are_no_mismatch(tmp_path: Path) -> None:
    """Ranks 0 and 1 lost their peer, one in an all-reduce and one in a broadcast: rank 2 was killed (the
    agent's `exitcode: -9`), and they were cut off wherever they were; no mismatch. So too in torchrun's
    `--log-dir`, with no exit codes, where rank 2's output just stops: every one of them lost a peer rather
    than waited until a timeout, and a rank outside them is in the logs."""
    closed = (
        "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer"
    )
    cut = {
        0: _in_collective(0, "dist.all_reduce(grads)", closed),
        1: _in_collective(1, "dist.broadcast(buffers)", closed),
    }
    killed = _AGENT_FAILED.format(m=0, agent=3547, r=2, pid=3593).replace("exitcode: 1", "exitcode: -9")
    root = explain_text(
        "".join(f"[rank{r}]: step 3 loss 0.4{r}\n" for r in range(3)) + cut[0] + cut[1] + killed
    ).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 2)
    run = tmp_path / "none_abc" / "attempt_0"
    for rank in range(3):
        (run / str(rank)).mkdir(parents=True)
        (run / str(rank) / "stderr.log").write_text(
            f"[rank{rank}]: step 3 loss 0.4{rank}\n" + cut.get(rank, "")
        )
    root = explain_paths([str(tmp_path)]).root_cause
    assert root is not None and root.rank == 2 and root.category != "collective_mismatch"


# --- classes found in the sixty-first session ------------------------------------------------------

_GLOO_RECV_TIMEOUT = (
    "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting"
    " 15000ms for recv operation to complete"
)


@pytest.mark.parametrize("tag", ["[{r}]", "<{r}>", "({r})"])
def test_a_bare_number_in_brackets_that_starts_every_ranks_lines_is_its_rank(tag: str) -> None:
    """A script that prints `[2] ...` (MPICH's `-prepend-rank` too) labels each line with its rank: rank 2
    waited for a file while its peers timed out in the collective it never joined. A bare number that no
    second number (0 among them) starts a line with is not read as a rank (`[80746] ` is a process id)."""
    lines = [
        (0, "loader ready, 40 batches"),
        (1, "loader ready, 40 batches"),
        (2, "shard file missing, waiting 0s"),
        (2, "shard file missing, waiting 5s"),
        (0, _GLOO_RECV_TIMEOUT),
        (1, _GLOO_RECV_TIMEOUT),
    ]
    text = "".join(f"{tag.format(r=r)} {line}\n" for r, line in lines)
    root = explain_text(text).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 2)
    assert root.text.startswith("shard file missing")
    alone = "".join(f"{tag.format(r=r + 5)} {line}\n" for r, line in lines if r)
    root = explain_text(alone).root_cause
    assert root is not None and root.rank is None


def test_a_short_rank_field_before_the_ranks_own_part_of_the_label() -> None:
    """`[fab r2/GC-C]`: the label's `r2` is the rank, before a part of the label of that rank's own (a
    gauge's name), as `[search r2]` is at the label's end. Rank 2 waited for a calibration its peers did
    not need."""
    text = (
        "[fab r2/GC-C] waiting for meter calibration\n"
        "[fab r1/GC-B] waiting for meter calibration\n"
        "[fab r0/GC-A] waiting for meter calibration\n"
        f"[rank0]: {_GLOO_RECV_TIMEOUT}\n"
        f"[rank1]: {_GLOO_RECV_TIMEOUT}\n"
        "[fab r2/GC-C] no calibration after 24s, using factory offsets\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 2)


@pytest.mark.parametrize(
    "tag",
    [
        "<tower{r}>",
        "[team-group {r}]",
        "(worker {r})",
        "[seg{r}]",
        "tower={r}",
        "region[{r}]",
        "<zone {r}:north>",
        "[rebal {r}/3]",
    ],
)
def test_a_tag_of_the_scripts_own_word_and_the_rank_labels_its_lines(tag: str) -> None:
    """A script that tags its lines with a word of its own and the rank (`<tower2> `, `[worker 2] `,
    `tower=2 `, `region[2] `; a part of the rank's own after the number, `<zone 2:north> `, `[rebal 2/3] `)
    labels them, where every rank's lines start with that tag: rank 2 waited for a file while
    its peers timed out. A word that counts steps (`[epoch 2] `) labels nothing."""

    def log(fmt: str) -> str:
        lines = [
            (0, "loader ready, 40 batches"),
            (1, "loader ready, 40 batches"),
            (2, "shard file missing, waiting 0s"),
            (2, "shard file missing, waiting 5s"),
        ]
        text = "".join(f"{fmt.format(r=r)} {line}\n" for r, line in lines)
        return text + f"[rank0]: {_GLOO_RECV_TIMEOUT}\n[rank1]: {_GLOO_RECV_TIMEOUT}\n"

    root = explain_text(log(tag)).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 2)
    assert root.text.endswith("shard file missing, waiting 0s")
    root = explain_text(log("[epoch {r}]")).root_cause
    assert root is not None and root.rank is None


def test_of_three_ranks_the_one_that_only_lost_the_two_that_timed_out_is_the_one_they_waited_for() -> None:
    """Ranks 0 and 2 timed out in a collective; rank 1, which had waited 30 s for a file, then only found
    them gone (`Connection closed by peer`): it was not in the collective while they waited, so it is the
    rank they waited for. Where a rank's line says it counts otherwise than its peers, that is a mismatch
    (see the tests of counts above)."""
    closed = (
        "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer"
    )
    text = (
        "".join(f"[rank{r}]: epoch 0: reading /tmp/desk/group{r}.cleared\n" for r in range(3))
        + "[rank2]: step 0 loss 2.909\n[rank0]: step 0 loss 2.929\n"
        + "[rank0]: RuntimeError: Application timeout caused pair closure\n"
        + f"[rank2]: {_GLOO_RECV_TIMEOUT}\n"
        + "[rank1]: no clearance after 30s, using last sheet\n[rank1]: step 0 loss 2.784\n"
        + f"[rank1]: {closed}\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 1)


def test_a_logger_named_after_the_rank_labels_its_records() -> None:
    """`logging.getLogger(f"frost.rank{rank}")` names every record's rank (`INFO frost.rank2: ...`): rank 2
    polled for a forecast (`not published yet, checking again in 5s`) while its peers timed out in the
    collective it never joined. The first round of its wait is the root line. A logger whose name only
    starts with the word (`myapp.rankings`) names no rank."""
    stamp = "2026-12-07 14:31:01,111 INFO"
    text = (
        "".join(f"{stamp} frost.rank{r}: epoch 2 loss 0.60{r}\n" for r in range(3))
        + "".join(
            f"{stamp} frost.rank2: forecast for plympton_east not published yet, checking again in 5s\n"
            for _ in range(3)
        )
        + f"[rank1]: {_GLOO_RECV_TIMEOUT}\n[rank0]: {_GLOO_RECV_TIMEOUT}\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 2)
    assert root.text.endswith("checking again in 5s")
    root = explain_text(text.replace("frost.rank", "myapp.rankings")).root_cause
    assert root is not None and root.rank != 2


def test_a_line_a_killed_rank_printed_again_and_again_is_not_its_exit_message() -> None:
    """Behind `--tee` labels, rank 1 printed c10d's warning (under torch's own `[rank1]:` label) and then
    its loop's line four times before it was killed (`exitcode: -9`): that line has no such label, but a
    line printed again and again is the loop's, not what Python wrote as the process ended. The agent's
    report of the kill is the root line."""
    warning = (
        "[W1207 14:29:21.674810817 reducer.cpp:1529] Warning: find_unused_parameters=True was specified in DDP"
        " constructor, but did not find any unused parameters in the forward pass.\n"
    )
    text = (
        f"[default1]:[rank1]:{warning}"
        + "".join(f"[default1]:section1 step {s} mosaic tiles {6 * s} ({288 * s} MB)\n" for s in (1, 2))
        + "".join(f"[default0]:section0 step {s} mosaic tiles {6 * s} ({18 * s} MB)\n" for s in range(1, 5))
        + "".join(f"[default1]:section1 step {s} mosaic tiles {6 * s} ({288 * s} MB)\n" for s in (3, 4))
        + _AGENT_FAILED.format(m=0, agent=2875, r=1, pid=2880).replace("exitcode: 1", "exitcode: -9")
    )
    root = explain_text(text).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 1)
    assert "failed (exitcode: -9)" in root.text


def test_a_rank_field_after_other_fields_of_a_logfmt_line() -> None:
    """`wing=night_spa rank=2 slots=15 booked=282`: the rank field of a logfmt line after another field.
    gloo's size check failed on rank 1, but rank 2 is the one that counts 15 slots where its peers count
    12: the rank whose tensor differs."""
    wings = {0: "east_wing", 1: "garden_wing", 2: "night_spa"}
    text = "".join(
        f"wing={wings[r]} rank={r} slots={15 if r == 2 else 12} booked=2{r}4\n" for r in range(3)
    ) + (
        "terminate called after throwing an instance of 'gloo::EnforceNotMet'\n"
        "  what():  [enforce fail at /pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:456]"
        " op.preamble.length <= op.nbytes. 12 vs 8. Received data size doesn't match expected size.\n"
        "torch.multiprocessing.spawn.ProcessExitedException: process 1 terminated with signal SIGABRT\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 2)


def test_a_name_tag_a_line_gave_the_rank_after_stands_for_that_rank() -> None:
    """`<aws_conduit_AG3> rank=2 rows=256` gives the rank once after a name tag of the script's own; the
    lines that tag starts later are rank 2's. Rank 2 waited for a backfill (`retry in 5s`) while ranks 0 and
    1 timed out, and only then lost them. A tag seen with two ranks stands for none, nor does a level."""
    tags = {0: "<tailrace_TG1>", 1: "<forebay_FG2>", 2: "<aws_conduit_AG3>"}
    closed = (
        "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer"
    )

    def log(first: dict[int, str]) -> str:
        return (
            "".join(f"{tags[r]} rank={first_rank} rows=256\n" for r, first_rank in first.items())
            + "".join(f"{tags[r]} epoch 1 train_mse=4{r}.9\n" for r in range(3))
            + f"{tags[2]} gauge telemetry missing, backfill not published yet, retry in 5s\n" * 3
            + f"[rank1]: {_GLOO_RECV_TIMEOUT}\n[rank0]: {_GLOO_RECV_TIMEOUT}\n[rank2]: {closed}\n"
        )

    root = explain_text(log({0: 0, 1: 1, 2: 2})).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 2)
    assert root.text.endswith("retry in 5s")
    assert named_ranks(log({0: 0, 1: 1, 2: 2}).splitlines()) == {tag: r for r, tag in tags.items()}
    assert named_ranks(log({0: 0, 1: 1, 2: 1}).splitlines()) == {}
    assert named_ranks(["[INFO] rank=0 step 1", "[ERROR] rank=1 failed", "[INFO] step 2"]) == {}


def test_a_wait_stated_as_the_lines_last_word_is_the_stragglers_round() -> None:
    """`[kiln-1 r1] probe reading is 3604s old, waiting`: rank 1 says it waits as the line's last word, round
    after round, while rank 0 times out in the collective; its first round is the root line."""
    text = (
        "".join(f"[kiln-1 r1] probe reading is {3604 + 5 * i}s old, waiting\n" for i in range(4))
        + f"[rank0]: {_GLOO_RECV_TIMEOUT}\n"
        + "[rank1]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed"
        " by peer\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 1)
    assert root.text == "probe reading is 3604s old, waiting"


def test_what_an_unlabelled_process_said_after_its_peers_failed_is_not_why_they_waited() -> None:
    """An unlabelled `camera export not ready, polling ...` before ranks 0 and 1 time out, and `gave up on
    camera export after 24s` after: the wait is why they waited (rank 2, which only lost them), the
    giving up its aftermath."""
    closed = (
        "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer"
    )
    text = (
        "sorter2 | camera export not ready, polling /tmp/jam_camera/labels_ready\n"
        "epoch 0 | last loss 0.6125 | belt-wide jam acc 0.745\n"
        f"[rank0]: {_GLOO_RECV_TIMEOUT}\n[rank1]: {_GLOO_RECV_TIMEOUT}\n"
        "sorter2 | gave up on camera export after 24s, using belt labels\n"
        f"[rank2]: {closed}\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 2)
    assert "camera export not ready" in root.text


# --- classes found in the sixty-second session -----------------------------------------------------


def test_a_wait_that_brought_nothing_in_the_time_it_counted_is_the_stragglers_line() -> None:
    """Ranks 0 and 1 time out; rank 2, which went its own way at `loading calibration`, then says
    `no calibration record after 40s`: it waited that long for a thing that never came, the reason its
    peers waited. That line, not their timeout, is the root line."""
    closed = (
        "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer"
    )
    text = (
        "".join(f"[ut {r}/3] strake {'ABC'[r]}: loading calibration\n" for r in range(3))
        + "".join(f"[ut {r}/3] strake {'ABC'[r]}: 96 readings, offset 0.0{r} mm\n" for r in range(2))
        + f"[rank1]: {_GLOO_RECV_TIMEOUT}\n[rank0]: {_GLOO_RECV_TIMEOUT}\n"
        + "[ut 2/3] strake C: no calibration record after 40s, using zero offset\n"
        + f"[rank2]: {closed}\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 2)
    assert root.text == "strake C: no calibration record after 40s, using zero offset"


def test_of_two_ranks_in_a_wait_loop_the_one_that_went_on_longest_is_the_straggler() -> None:
    """Ranks 1 and 2 both wait for an assay file (`not in yet, retrying in 5s`); rank 2 prints one round
    and says no more (it got its file and went into the collective), rank 1 four: rank 0 timed out
    waiting for rank 1, and rank 1's first round is the root line. The peers' shared wait line is no
    sign that they went on past the collective rank 0 timed out in."""

    def wait(rank: int, second: int) -> str:
        return (
            f"[default{rank}]:2026-12-07 16:49:{second:02d},657 INFO [still{rank}] tally: assay for epoch 1"
            f" not in yet (/tmp/assays/assay_e1_still{rank}.csv), retrying in 5s\n"
        )

    text = (
        "".join(
            f"[default{r}]:2026-12-07 16:49:38,650 INFO [still{r}] tally: epoch 1 local fit\n"
            for r in range(3)
        )
        + wait(2, 38)
        + "".join(wait(1, 38 + 5 * i) for i in range(4))
        + f"[default0]:[rank0]: {_GLOO_RECV_TIMEOUT}\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 1)
    assert root.text.startswith("2026-12-07 16:49:38,657 INFO [still1] tally: assay for epoch 1 not in yet")


def test_lists_of_another_length_in_one_statement_make_a_timeout_of_every_rank_a_mismatch() -> None:
    """Two processes print one statement with lists of three and four counts, unlabelled, one after the
    other; then both ranks time out in the collective with nothing naming a rank. Their tensors differed
    in size: a mismatch, the odd rank unknown. A list a rank grew line by line is no such sign."""

    def log(counts: tuple[str, str], between: str = "") -> str:
        return (
            f"still 0: 128 lots, grade counts {counts[0]}\n{between}still 1: 128 lots, grade counts {counts[1]}\n"
            f"[rank1]: {_GLOO_RECV_TIMEOUT}\n[rank0]: {_GLOO_RECV_TIMEOUT}\n"
        )

    root = explain_text(log(("[2.0, 47.0, 79.0]", "[2.0, 60.0, 64.0, 2.0]"))).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", None)
    for same in (
        log(("[2.0, 47.0, 79.0]", "[2.0, 60.0, 64.0]")),
        log(("[2.0, 47.0, 79.0]", "[2.0, 60.0, 64.0, 2.0]"), between="epoch 1: mean mse 0.44940\n"),
    ):
        root = explain_text(same).root_cause
        assert root is not None and root.category == "collective_timeout"


def test_a_tag_whose_word_differs_per_rank_with_the_rank_after_it_labels_the_rank() -> None:
    """`<roman:0> `, `<italic:1> `, `<smallcaps:2> `: a tag of the script's own names each process by a word
    of its own and the rank after it; the line `<smallcaps:2> pooling wear histogram (40 bins)` is rank 2's,
    where its peers pool 32, the odd one of gloo's size check. A word seen with two numbers, or one that
    counts steps, names no rank."""
    tags = {0: "<roman:0>", 1: "<italic:1>", 2: "<smallcaps:2>"}
    text = (
        "".join(f"{tags[r]} step 000 loss 0.{r}582\n" for r in (1, 0, 2))
        + "".join(f"{tags[r]} pooling wear histogram ({40 if r == 2 else 32} bins)\n" for r in range(3))
        + "terminate called after throwing an instance of 'gloo::EnforceNotMet'\n"
        "  what():  [enforce fail at /pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:456] op.preamble.length"
        " <= op.nbytes. 28 vs 24. Received data size doesn't match expected size.\n"
        "torch.multiprocessing.spawn.ProcessExitedException: process 1 terminated with signal SIGABRT\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 2)
    assert named_ranks(text.splitlines()) == {tag: r for r, tag in tags.items()}
    assert named_ranks(["[epoch:0] loss 1", "[fold:1] loss 2"]) == {}
    assert named_ranks(["<conv:0> shape", "<conv:1> shape", "<bn:2> shape"]) == {}


def test_a_line_the_straggler_printed_after_its_peers_timed_out_is_not_why_they_waited() -> None:
    """Ranks 0 and 2 time out; rank 1, the one whose last line parts from theirs, says `no manifest for epoch
    0, logging prediction only` only after their report, then loses them: it is the straggler, but that
    line is how it went on. The first timeout stays the root line, unless the late line says it waited."""
    closed = (
        "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer"
    )

    def log(late: str) -> str:
        return (
            "".join(f"[rank {r}] epoch 0 local loss 15.{r}12\n" for r in range(3))
            + "[rank 0] manifest payload 350 kg\n[rank 2] manifest payload 350 kg\n"
            + f"[rank0]: {_GLOO_RECV_TIMEOUT}\n[rank2]: {_GLOO_RECV_TIMEOUT}\n"
            + f"[rank 1] {late}\n[rank1]: {closed}\n"
        )

    root = explain_text(log("no manifest for epoch 0, logging prediction only")).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 1)
    assert root.text == _GLOO_RECV_TIMEOUT
    root = explain_text(log("no manifest for epoch 0 after 25s, logging prediction only")).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 1)
    assert root.text == "no manifest for epoch 0 after 25s, logging prediction only"


def test_an_unlabelled_wait_loop_before_a_timeout_no_rank_explains_is_the_root_line() -> None:
    """`[station 2] waiting for tare lab results ... (try 1)`, round after round under a tag of the script's
    own that names no rank, then process 0 of a spawn job times out: the wait is why, whoever printed it;
    its first round is the root line and no rank is named. A wait said once with no round counted, or a
    line said twice that is no wait (`Rank 1 initialization finished.`), is no such loop."""
    spawn = (
        "torch.multiprocessing.spawn.ProcessRaisedException: \n\n-- Process 0 terminated with the following error:\n"
        f"Traceback (most recent call last):\n{_GLOO_RECV_TIMEOUT}\n"
    )
    loop = "".join(
        f"[station 2] waiting for tare lab results station2_epoch0.done (try {i})\n" for i in range(1, 5)
    )
    root = explain_text(loop + spawn).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", None)
    assert root.text == "[station 2] waiting for tare lab results station2_epoch0.done (try 1)"
    for said in (
        "[station 2] waiting for tare lab results\n",
        "Rank 1 initialization finished.\n" * 2,
    ):
        root = explain_text(said + spawn).root_cause
        assert root is not None and root.text == _GLOO_RECV_TIMEOUT


def test_the_wait_loop_a_straggler_was_in_when_its_peers_timed_out_is_the_root_line() -> None:
    """Rank 2 polls for its runner sheet (`not there yet, checking again in 2s`) while ranks 0 and 1 time out,
    then gives up and prints the line its peers printed long before (`loaded 4 runner rows`): its last line
    is theirs, but when they reported it was in its loop, whose first round is the root line."""
    closed = (
        "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer"
    )
    wait = "[worker-2] runner sheet 4man_a.csv not there yet, checking again in 2s\n"
    text = (
        "[worker-1] loaded 4 runner rows for 2man_b\n"
        + wait
        + "[worker-0] loaded 4 runner rows for 2man_a\n"
        + wait * 6
        + f"[rank1]: {_GLOO_RECV_TIMEOUT}\n[rank0]: {_GLOO_RECV_TIMEOUT}\n"
        + wait * 3
        + "[worker-2] loaded 4 runner rows for 4man_a\n"
        + f"[rank2]: {closed}\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 2)
    assert root.line == 2 and root.text == wait.removeprefix("[worker-2] ").strip()


def test_an_unlabelled_line_in_a_wait_loops_words_before_a_timeout_is_the_root_line() -> None:
    """`bay 2: racking log not uploaded yet, polling (0s)`, once, then spawn's process 1 times out: a loop's
    round by its words, even where the launcher stopped it after one; the rank stays unknown."""
    text = (
        "bay 2: racking log not uploaded yet, polling (0s)\n"
        "torch.multiprocessing.spawn.ProcessRaisedException: \n\n-- Process 1 terminated with the following error:\n"
        f"Traceback (most recent call last):\n{_GLOO_RECV_TIMEOUT}\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", None)
    assert root.text == "bay 2: racking log not uploaded yet, polling (0s)"


def test_a_round_counted_in_brackets_is_a_wait_loops_round() -> None:
    """`cabinet 2: humidity log for epoch 1 not there yet (poll 0)`, then `(poll 1)` ...: a round counted in
    brackets makes a wait loop, whose first round is the root line of the straggler its peers waited for."""
    closed = (
        "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer"
    )
    text = (
        "".join(f"cabinet {r} epoch 0 local steam loss 0.1{r}65\n" for r in range(3))
        + "".join(f"cabinet 2: humidity log for epoch 1 not there yet (poll {i})\n" for i in range(6))
        + f"[rank1]: {_GLOO_RECV_TIMEOUT}\n[rank0]: {_GLOO_RECV_TIMEOUT}\n[rank2]: {closed}\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 2)
    assert root.text == "cabinet 2: humidity log for epoch 1 not there yet (poll 0)"
    assert message_category("(poll 0)") is None  # (a round's words, not a failure's)


def test_a_rank_that_says_it_is_leaving_before_its_exit_code_is_the_scripts_own_decision() -> None:
    """`[stn-grp 2/3] not enough pre-cutoff days to build windows, leaving`, then spawn reports process 2
    ended with exit code 3: the script ended itself and said why (`user_code`, that line); `leaving` only
    counts as the line's last word (`leaving 10% for validation` goes on)."""

    def log(said: str) -> str:
        return (
            "".join(f"[stn-grp {r}/3] loaded 120 station days\n" for r in range(3))
            + f"[stn-grp 2/3] {said}\n"
            "torch.multiprocessing.spawn.ProcessExitedException: process 2 terminated with exit code 3\n"
        )

    root = explain_text(log("not enough pre-cutoff days to build windows, leaving")).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 2)
    assert root.text == "not enough pre-cutoff days to build windows, leaving"
    root = explain_text(log("leaving 10% of the station days for validation")).root_cause
    assert root is not None and root.rank == 2 and root.text.startswith("torch.multiprocessing")


def test_sigabrt_after_the_runtimes_note_of_threads_left_running_is_the_ranks_own_ending() -> None:
    """Rank 1 says `quarantining lot and stopping`, calls `sys.exit`, and the C++ runtime aborts it because
    gloo's threads still run (`terminate called without an active exception`, then torchrun's `exitcode:
    -6`); rank 0 loses it. That note is how rank 1 ended, not a wait: rank 1 ended itself, and its line says
    why (`user_code`)."""
    closed = (
        "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer"
    )
    text = (
        "[lot 1] epoch 0 blank weight mean 7.4994 g\n[lot 0] epoch 0 blank weight mean 7.5002 g\n"
        "[lot 1] blank weight 7.5497 g outside 7.5±0.03 g, quarantining lot and stopping\n"
        "terminate called without an active exception\n"
        f"[rank0]: {closed}\n"
        "E1207 17:29:59.163000 9540 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -6)"
        " local_rank: 1 (pid: 9616) of binary: /usr/bin/python\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 1)
    assert root.text == "blank weight 7.5497 g outside 7.5±0.03 g, quarantining lot and stopping"


# --- classes found in the sixty-third session ------------------------------------------------------


def test_a_stragglers_error_that_ends_its_own_wait_after_its_peers_timed_out_is_the_wait() -> None:
    """Rank 1 polls for a calibration (`not published yet, waited 0s`, `waited 10s`), rank 0 times out in
    the collective, then rank 1's own `TimeoutError: no calibration ... after 30.0s` ends its wait: rank 0
    waited for rank 1, which waited for its file. The wait is the cause (`collective_timeout`, its first
    round); an error that says nothing of a wait (`KeyError`) stays the rank's own fault."""

    def log(error: str) -> str:
        return (
            "tension[1] calibration for passing_loop not published yet, waited 0s\n"
            "tension[0] top_sheave: offset=0.00 gain=1.00\n"
            "tension[1] calibration for passing_loop not published yet, waited 10s\n"
            f"[rank0]: {_GLOO_RECV_TIMEOUT}\n"
            "tension[1] calibration for passing_loop not published yet, waited 20s\n"
            "[rank1]: Traceback (most recent call last):\n"
            '[rank1]:   File "/srv/calib/train.py", line 41, in wait_for_calibration\n'
            "[rank1]:     raise TimeoutError(msg)\n"
            f"[rank1]: {error}\n"
        )

    root = explain_text(log("TimeoutError: no calibration for passing_loop after 30.0s")).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 1)
    assert root.text == "calibration for passing_loop not published yet, waited 0s"
    root = explain_text(log("KeyError: 'passing_loop'")).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 1)


def test_a_tag_run_into_its_word_at_the_start_of_a_line_labels_the_rank() -> None:
    """`stand0 day 2: loss ...` and `stand2 day 3: waiting for releaser logger re-sync`, then spawn reports
    process 0's gloo timeout: the word run into its number labels the rank as `[stand 2]` would, so the
    straggler is rank 2. A word that counts steps (`epoch0 ...`, `epoch2 ...`) labels none."""

    def log(word: str) -> str:
        return (
            "".join(f"{word}0 day {d}: loss 22.{d}253 bush total 513.0 L\n" for d in range(3))
            + f"{word}2 day 3: waiting for releaser logger re-sync\n" * 2
            + "torch.multiprocessing.spawn.ProcessRaisedException: \n\n"
            "-- Process 0 terminated with the following error:\n"
            "Traceback (most recent call last):\n"
            '  File "/srv/sap/train.py", line 56, in worker\n'
            "    dist.all_reduce(grad)\n"
            f"{_GLOO_RECV_TIMEOUT}\n"
        )

    root = explain_text(log("stand")).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 2)
    assert "waiting for releaser logger re-sync" in root.text
    root = explain_text(log("epoch")).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", None)


def test_a_tag_of_two_words_with_the_rank_after_the_second_labels_the_rank() -> None:
    """`[tg-bench ch1] building pairwise lag table (38.7 GB)` is rank 1's last line before it vanished, and
    rank 0 lost its peer: the tag of two words labels the rank, so that rank was taking a large allocation
    when it went (`oom_host`, that line). A counter as the tag's last word (`[train epoch 1]`) labels none."""

    def log(tag: str) -> str:
        return (
            f"[{tag}1] traces=1536 lag_window=all\n[{tag}1] building pairwise lag table (38.7 GB)\n"
            f"[{tag}0] traces=1536 lag_window=64\n"
            "[rank0]: Traceback (most recent call last):\n"
            "[rank0]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed"
            " by peer [127.0.0.1]:45730\n"
        )

    root = explain_text(log("tg-bench ch")).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 1)
    assert root.text == "building pairwise lag table (38.7 GB)"
    root = explain_text(log("train epoch ")).root_cause
    assert root is not None and root.rank is None and root.category != "oom_host"


# --- classes found in the sixty-fourth session -----------------------------------------------------


def test_a_scripts_tag_behind_torchruns_tee_label_labels_the_rank() -> None:
    """torchrun's `--tee` puts `[default1]:` before the script's own tag (`[lanes 1] materialising ...`):
    that tag is the script's label of the rank there as at the start of a console's line, so the line is
    one of its records, not what Python wrote bare as the SIGKILLed rank ended. The report points at the
    launcher's line of the kill; a line that is bare behind the label stays the rank's last word."""

    def log(last: str) -> str:
        return (
            "[default0]:[rank0]:[W1207 20:32:48.259418400 reducer.cpp:1529] Warning: find_unused_parameters=True\n"
            "[default1]:[rank1]:[W1207 20:32:48.259418400 reducer.cpp:1529] Warning: find_unused_parameters=True\n"
            "[default0]:[lanes 0] materialising timing cache for 3 lanes\n"
            "[default1]:[lanes 1] materialising timing cache for 9 lanes\n"
            f"{last}"
            "[default0]:[rank0]: Traceback (most recent call last):\n"
            "[default0]:[rank0]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553]"
            " Connection closed by peer [127.0.0.1]:45730\n"
            "E1207 20:32:48.771000 12204 torch/distributed/elastic/multiprocessing/api.py:1002] failed"
            " (exitcode: -9) local_rank: 1 (pid: 12235) of binary: /usr/bin/python\n"
        )

    root = explain_text(log("")).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 1)
    assert "failed (exitcode: -9) local_rank: 1" in root.text
    root = explain_text(log("[default1]:lane cache would need 41.2 GiB, aborting\n")).root_cause
    assert root is not None and root.rank == 1
    assert root.text == "lane cache would need 41.2 GiB, aborting"


def test_an_odd_settings_rank_that_timed_out_itself_is_pointed_at_its_own_report() -> None:
    """Rank 2 starts with `skus=5` where its peers say `skus=4`, so its all_reduce has another size; it times
    out, and its peers then lose it (`Connection closed by peer`). The odd rank is the culprit of the
    mismatch, and the report points at its own timeout, not at a peer's report of losing it."""
    text = (
        "[proc 1] sites=['old-mill'] delivery rows=48 skus=4\n"
        "[proc 0] sites=['riverside', 'north-gate'] delivery rows=96 skus=4\n"
        "[proc 2] sites=['harbour-point'] delivery rows=60 skus=5\n"
        "[rank0]: Traceback (most recent call last):\n"
        "[rank0]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by"
        " peer [127.0.0.1]:48017\n"
        "[rank1]: Traceback (most recent call last):\n"
        "[rank1]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by"
        " peer [127.0.0.1]:48017\n"
        "[rank2]: Traceback (most recent call last):\n"
        f"[rank2]: {_GLOO_RECV_TIMEOUT}\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 2)
    assert "Timed out waiting" in root.text and root.line == 9


def test_a_standard_library_call_of_the_users_that_fails_in_a_batch_fetch_is_the_users_code() -> None:
    """The script's collate function calls `datetime.strptime`, which raises from `_strptime.py` on a
    stamp it cannot read, while the DataLoader fetches a batch in the main process: the user's own call
    failed, as `int('n/a')` would (`user_code`). The same error raised inside an installed library the
    collate function called stays the data pipeline's (`dataloader`)."""

    def log(raiser: str) -> str:
        return (
            "[rank1]: Traceback (most recent call last):\n"
            '[rank1]:   File "/srv/rides/train.py", line 80, in main\n'
            "[rank1]:     trainer.train()\n"
            '[rank1]:   File "/usr/lib/python3.11/site-packages/torch/utils/data/dataloader.py", line 785, in _next_data\n'
            "[rank1]:     data = self._dataset_fetcher.fetch(index)  # may raise StopIteration\n"
            '[rank1]:   File "/usr/lib/python3.11/site-packages/torch/utils/data/_utils/fetch.py", line 57, in fetch\n'
            "[rank1]:     return self.collate_fn(data)\n"
            '[rank1]:   File "/srv/rides/train.py", line 44, in minutes_between\n'
            "[rank1]:     start = parse(a, '%H:%M')\n"
            f'[rank1]:   File "{raiser}", line 349, in _strptime\n'
            '[rank1]:     raise ValueError("time data %r does not match format %r" %\n'
            "[rank1]: ValueError: time data '24:03' does not match format '%H:%M'\n"
        )

    root = explain_text(log("/usr/lib/python3.11/_strptime.py")).root_cause
    assert root is not None and (root.category, root.rank) == ("user_code", 1)
    root = explain_text(log("/usr/lib/python3.11/site-packages/dateparse/_strptime.py")).root_cause
    assert root is not None and (root.category, root.rank) == ("dataloader", 1)


def test_ranks_that_list_the_same_names_in_another_order_before_all_timed_out_disagree() -> None:
    """Each rank lists the totals it will reduce, one by one, in its own order (`['petrol', 'diesel']`
    against `['diesel', 'petrol']`), then every rank times out: their collectives did not pair up, a
    mismatch with no one rank at fault. Lists of the same names in the same order say nothing of it."""

    def log(second: str) -> str:
        return (
            "[proc 1] pump totals ready: ['petrol', 'diesel']\n"
            f"[proc 0] pump totals ready: {second}\n"
            "[rank1]: Traceback (most recent call last):\n"
            "[rank1]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:129] Timed out"
            " waiting 15000ms for send operation to complete\n"
            "[rank0]: Traceback (most recent call last):\n"
            f"[rank0]: {_GLOO_RECV_TIMEOUT}\n"
        )

    root = explain_text(log("['diesel', 'petrol']")).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", None)
    root = explain_text(log("['petrol', 'diesel']")).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", None)


def test_the_one_rank_still_in_a_data_collective_that_counts_otherwise_holds_another_size() -> None:
    """Ranks 0 and 1 wait at a barrier, rank 2 is still in the all_reduce before it, and every rank times
    out. Rank 2 alone counts `6 contaminant classes` where they say 5: its peers got through the
    all_reduce it is still in, so their sizes did not pair up (`collective_mismatch`). Without that count
    the ranks are only a step apart (`collective_timeout`); an amount of work that differs (`31 steps`
    where they say 30) is a step apart too."""

    def log(counts: tuple[str, str, str]) -> str:
        timeout = _GLOO_RECV_TIMEOUT
        return (
            "".join(f"bay{rank}: {count}\n" for rank, count in enumerate(counts))
            + _in_collective(0, "dist.barrier()", timeout)
            + _in_collective(1, "dist.barrier()", timeout)
            + _in_collective(2, "dist.all_reduce(per_class)", timeout)
        )

    classes = ("5 contaminant classes", "5 contaminant classes", "6 contaminant classes")
    root = explain_text(log(classes)).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_mismatch", 2)
    root = explain_text(log(("5 contaminant classes",) * 3)).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 2)
    root = explain_text(log(("30 steps per epoch", "30 steps per epoch", "31 steps per epoch"))).root_cause
    assert root is not None and root.category != "collective_mismatch"


def test_the_one_rank_that_went_on_past_where_its_peers_stopped_is_named_in_a_silent_log_dir(
    tmp_path: Path,
) -> None:
    """torchrun --log-dir, no error anywhere: ranks 0 and 2 stop at `loading 40 seating plan versions`,
    rank 1 alone goes on (`version 61 carries an inlined co-occurrence matrix, expanding it`) and ends
    there. It was busy at something of its own when they stopped: most likely the one killed (`oom_host`,
    rank 1, its last line). When every rank stops at the shared line, none is named."""

    def write(folder: Path, extra: str) -> None:
        for rank in range(3):
            own = folder / "attempt_0" / str(rank)
            own.mkdir(parents=True)
            (own / "stdout.log").write_text("")
            (own / "stderr.log").write_text(
                f"2026-12-07 23:04:57,205 rank{rank} INFO seating - process group up, world size 3\n"
                f"2026-12-07 23:04:57,206 rank{rank} INFO seating - loading 40 seating plan versions"
                f" (archive slice {rank}/3)\n" + (extra if rank == 1 else "")
            )

    went_on = "2026-12-07 23:04:57,207 rank1 INFO seating - version 61 carries an inlined co-occurrence matrix, expanding it\n"
    write(tmp_path / "went_on", went_on)
    root = explain_paths([str(tmp_path / "went_on")]).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", 1)
    assert root.text.endswith("expanding it")
    write(tmp_path / "together", "")
    root = explain_paths([str(tmp_path / "together")]).root_cause
    assert root is not None and (root.category, root.rank) == ("oom_host", None)


def test_a_tag_that_ends_in_a_slash_and_the_rank_labels_the_rank() -> None:
    """`[heater dancefloor/2]`, `[heater dining/1]`, `[heater ceremony/0]`: each rank's own tag, its number
    after a slash. Rank 2 says `probe hub resync attempt 1/8` round after round while process 1 times out
    in its collective: the tag names the straggler, rank 2."""
    text = (
        "[heater dancefloor/2] ready\n[heater dining/1] ready\n[heater ceremony/0] ready\n"
        "[heater dining/1] step 0 recon 0.3446\n[heater ceremony/0] step 0 recon 0.3215\n"
        "[heater dancefloor/2] step 0 recon 0.2853\n"
        + "".join(f"[heater dancefloor/2] probe hub resync attempt {n}/8\n" for n in range(1, 5))
        + "torch.multiprocessing.spawn.ProcessRaisedException: \n\n"
        "-- Process 1 terminated with the following error:\n"
        "Traceback (most recent call last):\n"
        f"{_GLOO_RECV_TIMEOUT}\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 2)


def test_a_name_before_a_parenthesized_rank_field_labels_the_rank() -> None:
    """`bench-b (rank 1): logs synced after 0.0s` and `bench-a (rank 0): ...` label ranks 1 and 0; spawn
    stopped two processes and process 0 timed out, so the job had three and rank 2, which printed
    nothing, is the one its peers waited for. An exception's name before such a field
    (`RuntimeError (rank 3): ...`) is a message, not a label."""
    text = (
        "bench-b (rank 1): logs synced after 0.0s\n"
        "bench-a (rank 0): logs synced after 0.0s\n"
        "W1207 23:04:43.715000 8013 torch/multiprocessing/spawn.py:165] Terminating process 8055 via signal SIGTERM\n"
        "W1207 23:04:43.716000 8013 torch/multiprocessing/spawn.py:165] Terminating process 8056 via signal SIGTERM\n"
        "torch.multiprocessing.spawn.ProcessRaisedException: \n\n"
        "-- Process 0 terminated with the following error:\n"
        "Traceback (most recent call last):\n"
        f"{_GLOO_RECV_TIMEOUT}\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and (root.category, root.rank) == ("collective_timeout", 2)
    assert split_prefix("bench-b (rank 1): logs synced").rank == 1
    assert split_prefix("RuntimeError (rank 3): shard manifest is empty").rank is None
