"""Wording helpers for distributed findings (rank lists); importing this module never imports torch.

The distributed check ids themselves (`dist.*`, `collective.*`) are registered in
:mod:`ddpdoctor.check.registry` by the modules that make their findings.
"""

from __future__ import annotations

from collections.abc import Sequence

from ddpdoctor.check.grouping import rank_list


def ranks_phrase(ranks: Sequence[int]) -> str:
    """`rank 1` or `ranks 1, 3-5`."""
    return ("rank " if len(set(ranks)) == 1 else "ranks ") + rank_list(ranks)
