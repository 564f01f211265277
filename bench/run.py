"""Run the benchmarks (`make bench`): currently `explain` (see bench/bench_explain.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_explain import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
