"""Rank 1 reads through a null pointer with ctypes before step 3 and dies of SIGSEGV.

No `@record`; faulthandler is not enabled, so the process prints nothing before it dies.
"""

import ctypes

import tiny_ddp

HEADER = ctypes.create_string_buffer(b"tiny-ddp v1")


def read_native_header(rank: int, step: int) -> bytes:
    """Read the NUL-terminated header of a native buffer (rank 1's pointer is null at step 3)."""
    address = 0 if rank == 1 and step == 3 else ctypes.addressof(HEADER)
    return ctypes.string_at(address)


def main() -> None:
    """Train a few steps, reading a native header first."""
    rank = tiny_ddp.start()
    model = tiny_ddp.tiny_model()
    optimizer = tiny_ddp.optimizer_for(model)
    for step in range(1, tiny_ddp.STEPS + 1):
        read_native_header(rank, step)
        loss = tiny_ddp.loss_of(model, *tiny_ddp.batch(rank, step))
        tiny_ddp.update(optimizer, loss)
        tiny_ddp.report(rank, step, loss)
    tiny_ddp.finish()


if __name__ == "__main__":
    main()
