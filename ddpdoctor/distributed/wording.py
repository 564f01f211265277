"""Wording helpers for distributed findings (rank lists); importing this module never imports torch.

The distributed check ids themselves (`dist.*`, `collective.*`) live in the one check catalog,
:mod:`ddpdoctor.check.catalog`.
"""

from __future__ import annotations

from collections.abc import Sequence


def rank_list(ranks: Sequence[int]) -> str:
    """`0-3, 6` style text for a set of ranks."""
    ordered = sorted(set(ranks))
    parts: list[str] = []
    start = prev = None
    for r in [*ordered, None]:
        if r is not None and prev is not None and r == prev + 1:
            prev = r
            continue
        if start is not None and prev is not None:
            if start == prev:
                parts.append(str(start))
            else:
                parts.append(f"{start}, {prev}" if prev == start + 1 else f"{start}-{prev}")
        start = prev = r
    return ", ".join(parts)


def ranks_phrase(ranks: Sequence[int]) -> str:
    """`rank 1` or `ranks 1, 3-5`."""
    return ("rank " if len(set(ranks)) == 1 else "ranks ") + rank_list(ranks)
