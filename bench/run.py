"""Run the benchmarks under bench/ (`make bench`), or the ones named: `python bench/run.py explain runtime`.

Each `bench_<name>.py` measures ddpdoctor against a baseline in the same run, prints the
comparison and exits non-zero when it misses a target; this runner exits non-zero when any of them did.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    """Run each named benchmark (all of them by default) in its own process."""
    available = sorted(p.stem.removeprefix("bench_") for p in HERE.glob("bench_*.py"))
    names = argv or available
    unknown = [n for n in names if n not in available]
    if unknown:
        print(
            f"unknown benchmark(s): {', '.join(unknown)}; choose from {', '.join(available)}", file=sys.stderr
        )
        return 2
    missed = []
    for name in names:
        print(f"=== bench_{name}.py", flush=True)
        if subprocess.run([sys.executable, str(HERE / f"bench_{name}.py")], check=False).returncode:
            missed.append(name)
    if missed:
        print(f"missed a target or failed: {', '.join(missed)}", file=sys.stderr)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
