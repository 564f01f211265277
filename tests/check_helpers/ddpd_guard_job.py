"""A torchrun job guarded by `guard()`; the tests start it with 2 CPU ranks (gloo).

Modes:
- `unused`: the real DDP unused-parameter failure of `ddpdoctor reproduce torch-unused-parameters`
  (rank 1 fails; rank 0 is left with a closed connection);
- `fallback`: the same, with a single-device `fallback=` on every rank;
- `keyerror`: an ordinary error in user code, for a run without a launcher.
"""

from __future__ import annotations

import sys

from ddpdoctor import guard


def fallback() -> str:
    print("FALLBACK RAN", flush=True)
    return "single device"


def main() -> None:
    mode = sys.argv[1]
    if mode == "keyerror":
        with guard():
            batch: dict[str, int] = {"inputs": 1}
            print(batch["labels"])
        return
    from ddpdoctor.scenarios.jobs.unused_parameters import main as unused_parameters

    with guard(fallback=fallback if mode == "fallback" else None):
        unused_parameters()


if __name__ == "__main__":
    main()
