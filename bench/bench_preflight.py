"""How much does `preflight()` add to reading the machine? Its cost against the bare device probe.

`preflight(devices=...)` in a training script (torch already imported) reads the machine and runs
every device, memory, backend and launch check. The baseline, in the same process, is the probe
alone (:class:`ddpdoctor.hardware.probes.TorchProbe`), which any check must pay. Target: the
median preflight takes at most RATIO_TARGET times the median probe, plus a small constant for the
knowledge-base links, on the real machine and on the simulated reference machine.

    python bench/bench_preflight.py
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable

ROUNDS = 15
RATIO_TARGET = 3.0
# The first links load the knowledge base once; later calls reuse it. Allow this much on top.
SLACK_S = 0.05


def median_seconds(action: Callable[[], object]) -> float:
    """Median wall time of `action` over ROUNDS calls, after one warm-up call."""
    action()
    times = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    """Print preflight against the probe for two machines; exit 1 when a ratio misses the target."""
    import torch  # noqa: F401  (a training script has imported torch already)

    import ddpdoctor
    from ddpdoctor.hardware.inventory import SimulatedProbe, default_simulated_inventory
    from ddpdoctor.hardware.probes import TorchProbe

    simulated = SimulatedProbe(default_simulated_inventory())
    cases = [
        ("this machine, cpu", TorchProbe(), lambda: ddpdoctor.preflight(devices="cpu", raise_on_error=False)),
        (
            "reference machine, cuda:0-3, --min-free",
            simulated,
            lambda: ddpdoctor.preflight(
                devices="cuda:0,cuda:1,cuda:2,cuda:3", probe=simulated, min_free="10GiB"
            ),
        ),
    ]
    missed = False
    for name, probe, check in cases:
        baseline = median_seconds(probe.inventory)
        measured = median_seconds(check)
        ratio = (measured - SLACK_S) / max(baseline, 1e-4)
        ok = measured <= SLACK_S or ratio <= RATIO_TARGET
        missed |= not ok
        print(
            f"{name:45s} probe {baseline * 1000:8.2f} ms  preflight {measured * 1000:8.2f} ms  "
            f"{'ok' if ok else 'MISSED'} (target: at most {RATIO_TARGET:g}x the probe + {SLACK_S * 1000:.0f} ms)"
        )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
