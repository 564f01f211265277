"""Lightning's DDP: rank 1's training_step raises a ValueError from the user's own check.

Rank 0's next all-reduce loses its peer (gloo's `Connection closed by peer`): a consequence.
"""

import tiny_lightning


def failure(batch: int) -> None:
    """The user's own argument check fails."""
    raise ValueError(f"label smoothing must be in [0, 1), got 1.5 at batch {batch}")


if __name__ == "__main__":
    tiny_lightning.fit(failure)
