"""Both ranks receive before they send: each waits for the other until gloo's 5 s timeout.

A deadlock of the job's own making: no rank is behind, every rank waits in `recv`. No `@record`.
"""

import tiny_ddp
import torch
import torch.distributed as dist


def exchange(rank: int, tensor: torch.Tensor) -> torch.Tensor:
    """Swap a tensor with the peer rank: receive first, then send (the order is the bug)."""
    peer = 1 - rank
    received = torch.zeros_like(tensor)
    dist.recv(received, src=peer)
    dist.send(tensor, dst=peer)
    return received


def main() -> None:
    """Train one step, then swap the step's loss with the peer."""
    rank = tiny_ddp.start()
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    loss = tiny_ddp.loss_of(model, *tiny_ddp.batch(rank, 1))
    tiny_ddp.update(optimizer, loss)
    tiny_ddp.report(rank, 1, loss)
    exchange(rank, loss.detach().reshape(1))
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
