"""Lightning's DDP: rank 1 leaves with `os._exit(3)` and prints nothing.

Rank 0's next all-reduce fails (gloo's `Connection reset by peer`); Lightning announced both ranks
(`Initializing distributed: GLOBAL_RANK: 1, MEMBER: 2/2`), so the rank it lost is rank 1.
"""

import os

import tiny_lightning


def failure(batch: int) -> None:
    """End the process at once, as a native crash or a stray exit would."""
    os._exit(3)


if __name__ == "__main__":
    tiny_lightning.fit(failure)
