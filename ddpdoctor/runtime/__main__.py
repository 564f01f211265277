"""`python -m ddpdoctor.runtime`: one DDP run in its own process, printing what Burn would print.

Panics and Burn's terminal log go to stderr. Exit status: 0 when training finished, 101 when the
caller's thread panicked (Rust's status for a panicking `main`), 2 for a bad argument, 3 for a bug
in the model itself. A hung run never exits by itself, exactly like Burn: the parent bounds it
with a timeout.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
import warnings
from collections.abc import Sequence
from pathlib import Path

from ddpdoctor.errors import DdpDoctorError
from ddpdoctor.runtime.faults import Fault, OomBackend
from ddpdoctor.runtime.panic import RustPanic, RustStyle
from ddpdoctor.runtime.strategy import BurnVersion, DdpRuntime, RuntimeConfig

PANIC_EXIT = 101
INTERNAL_EXIT = 3


def parse_config(argv: Sequence[str]) -> RuntimeConfig:
    """The run configuration from command-line arguments."""
    parser = argparse.ArgumentParser(prog="python -m ddpdoctor.runtime", description=__doc__)
    parser.add_argument("--devices", default="cpu:0,cpu:1", help="comma-separated devices; the first is main")
    parser.add_argument("--fault", action="append", default=[], help="KIND@DEVICE:STEP[=TEXT|SECONDS]")
    parser.add_argument("--legacy", action="store_true", help="Burn <= 0.21: in-order joins, `Any { .. }`")
    parser.add_argument(
        "--faithful", action="store_true", help="Burn's collective: no timeout, no propagation"
    )
    parser.add_argument(
        "--timeout", type=float, default=5.0, help="collective timeout in seconds (default mode)"
    )
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--items", type=int, default=48)
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--rust", choices=[s.value for s in RustStyle], help="panic format of this Rust version"
    )
    parser.add_argument("--oom-text", choices=[b.value for b in OomBackend], help="whose out-of-memory text")
    parser.add_argument(
        "--banner", action="store_true", help="Burn's `=== PANIC ===` banner (needs --artifact-dir)"
    )
    parser.add_argument("--artifact-dir", type=Path, help="where experiment.log is written")
    args = parser.parse_args(list(argv))
    return RuntimeConfig(
        devices=tuple(d.strip() for d in args.devices.split(",") if d.strip()),
        faults=tuple(Fault.parse(spec) for spec in args.fault),
        burn=BurnVersion.LEGACY if args.legacy else BurnVersion.CURRENT,
        faithful=args.faithful,
        timeout=args.timeout,
        epochs=args.epochs,
        items=args.items,
        batch_size=args.batch_size,
        seed=args.seed,
        rust=RustStyle(args.rust) if args.rust else None,
        banner=args.banner,
        artifact_dir=args.artifact_dir,
        oom_backend=OomBackend(args.oom_text) if args.oom_text else None,
    )


def main(argv: Sequence[str]) -> int:
    """Run once; a panic ends the process at once, leaving hung threads behind as Rust does."""
    try:
        config = parse_config(argv)
    except DdpDoctorError as exc:
        sys.stderr.write(f"ddpdoctor.runtime: error: {exc.message}\n")
        return 2
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Failed to initialize NumPy")
        import torch

    torch.set_num_threads(1)
    runtime = DdpRuntime(config, sys.stderr)
    try:
        runtime.fit()
    except RustPanic:
        _report_bugs(runtime)
        sys.stderr.flush()
        sys.stdout.flush()
        os._exit(PANIC_EXIT)
    _report_bugs(runtime)
    runtime.close()
    return 0


def _report_bugs(runtime: DdpRuntime) -> None:
    """A thread that died of a Python exception is a bug in the model: say so, loudly."""
    for bug in runtime.scope.bugs:
        sys.stderr.write("ddpdoctor.runtime: internal error (a bug in the runtime model):\n")
        traceback.print_exception(bug, file=sys.stderr)
    if runtime.scope.bugs:
        sys.stderr.flush()
        os._exit(INTERNAL_EXIT)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
