"""Logs a terminal hard-wrapped at its width: the width is found, the pieces are joined, and the
report keeps the input's own line numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from ddpdoctor.explain import explain_paths, explain_text
from ddpdoctor.explain.wrap import terminal_width

LOGS = Path(__file__).resolve().parent / "fixtures" / "logs"
WIDTH = 80


def hard_wrap(text: str, width: int = WIDTH) -> str:
    """The text as a terminal of `width` columns copies it: every longer line cut into pieces."""
    out = []
    for line in text.splitlines():
        out += [line[i : i + width] for i in range(0, max(len(line), 1), width)]
    return "\n".join(out) + "\n"


RANKED = (
    "[rank0]:[W1201 10:00:00.000 ProcessGroupNCCL.cpp:4115] [PG ID 0 PG GUID 0 Rank 0] using GPU 0 as device\n"
    "[rank1]: Traceback (most recent call last):\n"
    '[rank1]:   File "/home/user/project/train.py", line 41, in <module>\n'
    "[rank1]:     loss = model(batch).sum()\n"
    '[rank1]:   File "/opt/conda/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1751, in _call\n'
    "[rank1]:     return forward_call(*args, **kwargs)\n"
    "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total "
    "capacity of 79.10 GiB of which 1.05 GiB is free.\n"
    "E1201 10:00:05.000000 7 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: 1) "
    "local_rank: 1 (pid: 12) of binary: /opt/conda/bin/python\n"
)


def test_the_width_of_a_wrapped_paste_is_found() -> None:
    assert terminal_width(hard_wrap(RANKED).encode()) == WIDTH
    assert terminal_width(RANKED.encode()) is None


def test_records_of_one_length_printed_by_every_rank_are_not_pieces() -> None:
    same = "".join(
        f"node1:{100 + r}:{200 + r} [{r}] NCCL WARN Cuda failure 2 'out of memory' at enqueue.cc:{300 + r}\n"
        for r in range(4)
    )
    assert terminal_width(same.encode()) is None
    again = "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:957, unhandled system error, NCCL 2.19.3\n" * 4
    assert terminal_width(again.encode()) is None


def test_lines_padded_with_spaces_to_the_width_are_not_pieces() -> None:
    padded = "".join(f"{line:<{WIDTH}}\n" for line in RANKED.splitlines() if len(line) < WIDTH)
    assert terminal_width(padded.encode()) is None


def test_a_piece_cut_at_a_word_break_keeps_its_one_space() -> None:
    # Every line is cut right after a space: each piece ends in the one space of its word break.
    words = "".join(
        f"[rank{r}]:[E1201 10:00:0{r}.000 ProcessGroupNCCL.cpp:1785] [PG ID 0 Rank {r}] Exception (either an "
        f"error or timeout) detected by watchdog at work: 41, last enqueued work: 4{r}.\n"
        for r in range(3)
    )
    width = words.index("an ") + 3
    wrapped = hard_wrap(words, width)
    assert all(line.endswith("an ") for line in wrapped.splitlines()[::2])
    assert terminal_width(wrapped.encode()) == width


def test_a_wrapped_log_gets_the_verdict_of_the_unwrapped_one_at_the_inputs_line_numbers() -> None:
    plain = explain_text(RANKED).root_cause
    wrapped_text = hard_wrap(RANKED)
    wrapped = explain_text(wrapped_text).root_cause
    assert plain is not None and wrapped is not None
    assert (wrapped.category, wrapped.rank) == (plain.category, plain.rank) == ("oom_gpu", 1)
    assert wrapped.text == plain.text  # the pieces joined again
    lines = wrapped_text.splitlines()
    assert lines[wrapped.line - 1].startswith("[rank1]: torch.OutOfMemoryError: CUDA out of memory")
    assert wrapped.user_frame is not None and wrapped.user_frame.file == "/home/user/project/train.py"


@pytest.mark.parametrize(
    "name",
    [
        "d4-openclip-eval-allgather-watchdog-ranks",
        "gloo-ci-barrier-peer-exited",
        "llama-recipes-fsdp-allgather-watchdog-terminated",
        "nccl-watchdog-broadcast-vs-allreduce",
        "probe-sys-exit-tee",
        "torch-barrier-mismatch-debug-detail-table",
    ],
)
def test_real_logs_wrapped_by_a_terminal_keep_their_verdict(name: str, tmp_path: Path) -> None:
    log = LOGS / f"{name}.log"
    plain = explain_paths([str(log)]).root_cause
    copy = tmp_path / log.name
    copy.write_text(hard_wrap(log.read_text(encoding="utf-8"), 120), encoding="utf-8")
    wrapped = explain_paths([str(copy)]).root_cause
    assert plain is not None and wrapped is not None
    assert (wrapped.category, wrapped.rank, wrapped.entry) == (plain.category, plain.rank, plain.entry)


def test_pieces_that_hold_no_anchor_alone_are_joined_before_they_are_read() -> None:
    """A terminal cut a frame's `File "...", line` from its number: neither piece is a frame or an
    error line by itself, so the scan hands every piece over and the joined frames make a verdict."""
    frames = "".join(
        f'[rank1]:   File "/opt/conda/envs/train/lib/python3.11/site-packages/torch/nn/modules/{name}.py", '
        f"line {line}, in {func}\n[rank1]:     return {call}\n"
        for name, line, func, call in (
            ("module", 1751, "_wrapped_call_impl", "self._call_impl(*args, **kwargs)"),
            ("sparse", 190, "forward", "F.embedding("),
        )
    )
    width = frames.index(", line") + len(", line")
    wrapped = hard_wrap(frames, width)
    assert wrapped.splitlines()[1].startswith(" 1751, in ")  # the number went onto the next line
    root = explain_text(wrapped).root_cause
    plain = explain_text(frames).root_cause
    assert root is not None and plain is not None
    assert root.rank == plain.rank == 1 and root.text == plain.text
    assert "sparse.py:190" in root.text


def test_a_rust_panic_whose_location_was_cut_keeps_its_message() -> None:
    text = (
        "thread 'fusion::tensor::multi_threads' (48652) panicked at ~\\crates\\burn-ir\\src\n"
        "\\handle.rs:88:32:\n"
        "Should have handle for tensor TensorId { value: 11514 }\n"
    )
    root = explain_text(text).root_cause
    assert root is not None and root.text == "Should have handle for tensor TensorId { value: 11514 }"
    assert root.frame is not None and root.frame.startswith("~\\crates\\burn-ir\\src\\handle.rs:88 ")


def _exactly(prefix: str, suffix: str, width: int) -> str:
    """A line of exactly `width` characters: `prefix`, a filler path, `suffix`."""
    return prefix + "x" * (width - len(prefix) - len(suffix)) + suffix


def test_a_line_that_filled_the_width_is_not_joined_with_the_labelled_line_after_it() -> None:
    """A frame line exactly as wide as the terminal is a line of its own: the next one starts with
    the same `[rank0]:` label, which a terminal never repeats on the rest of a cut line."""
    width = 100
    frame = _exactly('[rank0]:   File "/home/user/', '/train.py", line 31, in <module>', width)
    text = (
        "[rank0]: Traceback (most recent call last):\n"
        f"{frame}\n"
        "[rank0]:     for step, batch in enumerate(loader):\n"
        '[rank0]:   File "/opt/conda/lib/python3.11/site-packages/torch/utils/data/_utils/collate.py", '
        "line 212, in default_collate\n"
        "[rank0]:     return torch.stack(batch, 0, out=out)\n"
        "[rank0]: TypeError: expected Tensor as element 0 in argument 0, but got str while the loader collated "
        "the batch of documents for step 3\n"
        "[rank1]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer "
        "[127.0.0.1]:18341 while rank 1 waited in its all_reduce of the gradients\n"
    )
    wrapped = hard_wrap(text, width)
    assert terminal_width(wrapped.encode()) == width
    root = explain_text(wrapped).root_cause
    assert root is not None and root.rank == 0
    assert root.user_frame is not None and root.user_frame.function == "<module>"
    assert root.user_frame.line == 31


def test_many_cut_lines_show_the_width_though_some_full_width_lines_were_whole() -> None:
    """Lines that were exactly the width, and pieces whose rest starts with a bracket, do not read
    as going on; many pieces that do still show the terminal's width."""
    width = 90
    cut = [f"[rank{r}]: RuntimeError: Connection closed by peer " for r in range(4)]
    lines = [
        _exactly(head, " ", width) + "[127.0.0.1]:2466. This is typically caused by a remote worker"
        for head in cut
    ]
    lines += [_exactly(f"[rank{r}]: step 12 loss 0.{r}31 ", " tokens", width) for r in range(4)]
    lines += [
        _exactly(f"[rank{r}]: WARNING: the input pipeline fell behind by ", " batches", width)
        + f" on shard {r} of 4"
        for r in range(8)
    ]
    text = "\n".join(lines) + "\n"
    wrapped = hard_wrap(text, width)
    assert terminal_width(wrapped.encode()) == width
