"""A training script that uses both hooks; the tests run it as a subprocess in several modes."""

from __future__ import annotations

import sys

import torch
import torch.distributed as dist

from ddpdoctor import PreflightError, guard, preflight

MODE = sys.argv[1]
REPORTS = sys.argv[2] if len(sys.argv) > 2 else None
DEVICES = ["cuda:0", "cuda:1"]


def fit(devices: list[str]) -> str:
    """Stands in for a DDP fit: fails the way Burn's strategy reports a main-worker panic."""
    if len(devices) > 1 and MODE in ("burn", "fallback"):
        raise RuntimeError(
            "Distributed data parallel main worker failed: called `Result::unwrap()` on an `Err` value: "
            "out of device memory allocating 1073741824 bytes"
        )
    if MODE == "torch-dist":
        dist.all_reduce(torch.ones(1))
    if MODE == "always-fails":
        raise RuntimeError("Distributed data parallel worker 0 failed: boom")
    return f"trained on {','.join(devices)}"


def main() -> None:
    if MODE == "bad-devices":
        preflight(devices=["cuda:0", "cuda:0"], inventory="builtin:default")
    report = preflight(devices=DEVICES, inventory="builtin:default", min_free="10GiB")
    print(f"preflight ok: {report.summary()}", flush=True)
    if MODE == "fallback":
        with guard(report_dir=REPORTS, fallback=lambda: fit(DEVICES[:1])) as hook:
            fit(DEVICES)
        print(f"fallback result: {hook.fallback_result}", flush=True)
        return
    if MODE == "always-fails":

        @guard(report_dir=REPORTS, fallback=lambda: guarded_fit(DEVICES[:1]))
        def guarded_fit(devices: list[str]) -> str:
            return fit(devices)

        print(guarded_fit(DEVICES))
        return
    with guard(report_dir=REPORTS):
        print(fit(DEVICES), flush=True)


if __name__ == "__main__":
    try:
        main()
    except PreflightError as exc:
        print(f"PREFLIGHT: {exc}", file=sys.stderr)
        print(
            f"errors: {[f.id for f in exc.report.findings if f.severity.value == 'error']}", file=sys.stderr
        )
        sys.exit(3)
