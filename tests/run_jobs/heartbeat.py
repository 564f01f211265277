"""A torchrun job (gloo, CPU) whose training loop stops while a thread keeps printing.

`python heartbeat.py MODE`: every rank starts a thread that prints a line twice a second and trains
inside `ddpdoctor.guard()`. With `stack` (progress seen from the guarded thread's stack) and
`steps` (progress from `ddpdoctor.heartbeat()` once per step) rank 1 stops at step 3 and rank 0
waits in all_reduce; `healthy` trains for a while and ends, beating every step.
"""

from __future__ import annotations

import datetime
import sys
import threading
import time

import torch
import torch.distributed as dist

import ddpdoctor

MODES = ("stack", "steps", "healthy")


def chatter(rank: int) -> None:
    """A logging thread: output never stops, whatever the training loop does."""
    while True:
        print(f"rank {rank} still here", flush=True)
        time.sleep(0.5)


def train(mode: str) -> None:
    """Train until rank 1 stops at step 3 (or, healthy, for about eight seconds)."""
    torch.set_num_threads(1)
    dist.init_process_group("gloo", timeout=datetime.timedelta(minutes=10))
    rank = dist.get_rank()
    threading.Thread(target=chatter, args=(rank,), daemon=True).start()
    weights = torch.zeros(64, 64)
    ends = time.monotonic() + 8
    with ddpdoctor.guard():
        for step in range(1, 100_000):
            if mode != "healthy" and rank == 1 and step == 3:
                time.sleep(3600)  # rank 1 stops here
            grad = torch.randn(64, 64) @ torch.randn(64, 64)
            dist.all_reduce(grad)  # rank 0 waits here for rank 1
            weights -= 1e-3 * grad
            if mode != "stack":
                ddpdoctor.heartbeat()
            if mode == "healthy":
                done = torch.tensor([float(time.monotonic() > ends)])
                dist.all_reduce(done)  # the ranks stop at the same step
                if done.item() > 0:
                    break
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in MODES:
        sys.exit(f"usage: heartbeat.py {{{','.join(MODES)}}}")
    train(sys.argv[1])
