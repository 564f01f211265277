"""Findings that repeat per device, folded into one (`cuda:0-3: ...` instead of four identical blocks).

Used by the check report's text forms; JSON keeps one finding per device.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ddpdoctor.findings import Finding

_HOLE = "\x00"


def rank_list(numbers: Iterable[int], *, span_pairs: bool = False) -> str:
    """`0-3, 6` style text for a set of ranks or ordinals; two neighbours stay `0, 1` unless `span_pairs`."""
    ordered = sorted(set(numbers))
    parts: list[str] = []
    start = prev = None
    for n in [*ordered, None]:
        if n is not None and prev is not None and n == prev + 1:
            prev = n
            continue
        if start is not None and prev is not None:
            if start == prev:
                parts.append(str(start))
            else:
                pair = prev == start + 1 and not span_pairs
                parts.append(f"{start}, {prev}" if pair else f"{start}-{prev}")
        start = prev = n
    return ", ".join(parts)


def device_range(labels: Sequence[str]) -> str:
    """`cuda:0-3` for cuda:0..cuda:3, `cuda:0,2` for two apart; labels without an ordinal are listed."""
    by_type: dict[str, list[int]] = {}
    plain: list[str] = []
    for label in labels:
        kind, _, ordinal = label.rpartition(":")
        if kind and ordinal.isascii() and ordinal.isdigit():
            by_type.setdefault(kind, []).append(int(ordinal))
        elif label not in plain:
            plain.append(label)
    parts = [f"{kind}:{rank_list(numbers).replace(', ', ',')}" for kind, numbers in by_type.items()]
    return ", ".join([*parts, *plain])


def _key(f: Finding) -> tuple[object, ...] | None:
    if f.device is None or f.device not in f.title:
        return None
    return (f.id, f.severity, f.category, f.entry, f.title.replace(f.device, _HOLE))


def group_by_device(findings: Sequence[Finding]) -> list[Finding]:
    """Fold findings that differ only in their device into one naming every device, in first-seen order."""
    groups: dict[tuple[object, ...], list[Finding]] = {}
    for f in findings:
        key = _key(f)
        if key is not None:
            groups.setdefault(key, []).append(f)
    out: list[Finding] = []
    for f in findings:
        key = _key(f)
        members = groups.get(key) if key is not None else None
        if members is None or len({m.device for m in members}) < 2:
            out.append(f)
            continue
        if members[0] is not f:
            continue
        labels = [m.device for m in members if m.device is not None]
        where = device_range(labels)
        assert f.device is not None
        same = all(
            m.message.replace(m.device or "", _HOLE) == f.message.replace(f.device, _HOLE) for m in members
        )
        message = (
            f.message.replace(f.device, where)
            if same
            else f"{f.message} The same holds for {device_range(labels[1:])}."
        )
        out.append(
            f._replace(
                title=f.title.replace(f.device, where),
                message=message,
                device=where,
                data={**f.data, "devices": labels},
            )
        )
    return out
