"""Reading what guard() printed in a multi-rank job's stderr (shared by the guard and integration tests)."""

from __future__ import annotations


def ddpdoctor_blocks(stderr: str) -> dict[str, list[str]]:
    """The lines guard printed, by rank: each `ddpdoctor: rank N:` line and the indented lines after it."""
    blocks: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in stderr.splitlines():
        if line.startswith("ddpdoctor: rank "):
            current = blocks.setdefault(line.split(":")[1].strip(), [])
            current.append(line)
        elif current is not None and line.startswith("  "):
            current.append(line)
        else:
            current = None
    return blocks
