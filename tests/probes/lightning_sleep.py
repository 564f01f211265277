"""Lightning's DDP: rank 1 stalls in training_step, so rank 0's gradient all-reduce times out.

The culprit is rank 1, the straggler, which prints nothing; Lightning's launcher ends it after rank
0 has failed.
"""

import time

import tiny_lightning


def failure(batch: int) -> None:
    """Stall far longer than the collective timeout."""
    time.sleep(45)


if __name__ == "__main__":
    tiny_lightning.fit(failure)
