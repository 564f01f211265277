"""Every scenario `ddpdoctor reproduce` knows, as data; importing this never imports torch.

A scenario names the failure it provokes, how to provoke it (arguments for the Burn-model
runtime, or a torchrun job), what the run must do (panic, stop, hang, fail under torchrun) and the
diagnosis `explain` must give for its log: the knowledge-base entry, the category and the rank.
"""

from __future__ import annotations

import difflib
import enum
from dataclasses import dataclass

from ddpdoctor.errors import InputError


class Runtime(str, enum.Enum):
    """What runs the scenario."""

    BURN = "burn"  # `python -m ddpdoctor.runtime`, the model of Burn's DDP strategy
    TORCH = "torch"  # `python -m torch.distributed.run` with gloo on CPU


class Expect(str, enum.Enum):
    """How the run ends when the scenario reproduces its failure."""

    PANIC = "panic"  # the caller's thread panicked: exit status 101
    INTERRUPTED = "interrupted"  # training stopped early and said why: exit status 0
    HANG = "hang"  # never returns; stopped at the scenario's time bound
    JOB_FAILED = "job-failed"  # torchrun reported a failed worker: exit status 1
    LAUNCH_FAILED = "launch-failed"  # torchrun failed before starting workers: exit status 1
    # Hangs under `ddpdoctor run`, whose hang report names the scenario's rank; run stops it (124).
    HANG_REPORT = "hang-report"


@dataclass(frozen=True)
class Scenario:
    """One reproducible failure and the diagnosis its log must get.

    `args` are the runtime's arguments, or the job script and its arguments; `{workdir}` in them
    stands for the run's working folder. With `occupy_port`, torchrun is pointed at a port that
    ddpdoctor already listens on.
    """

    name: str
    summary: str
    description: str
    runtime: Runtime
    expect: Expect
    args: tuple[str, ...]
    entry: str | None
    category: str | None
    rank: int | None
    any_rank: bool = False
    bound_s: float = 45.0
    env: tuple[tuple[str, str], ...] = ()
    occupy_port: bool = False

    @property
    def diagnosis(self) -> str:
        """The expected diagnosis in words, e.g. `cuda-out-of-memory (oom_gpu), rank 2`."""
        if self.category is None:
            return "no failure line in the log (nothing to diagnose)"
        rank = (
            "any failing rank" if self.any_rank else ("no rank" if self.rank is None else f"rank {self.rank}")
        )
        return f"{self.entry or 'no entry'} ({self.category}), {rank}"


# Every torch scenario runs this many ranks (`--nproc-per-node`).
TORCH_WORLD_SIZE = 2
# Hang scenarios: `ddpdoctor run --hang-after` this long, and the bound of the whole run.
HANG_AFTER_S = 5.0
HANG_BOUND_S = 60.0
# Stands for the run's working folder in a scenario's `args`.
WORKDIR = "{workdir}"
_BURN_OOM = "burn-cubecl-out-of-device-memory"

SCENARIOS: dict[str, Scenario] = {
    s.name: s
    for s in (
        Scenario(
            name="main-oom",
            summary="Burn DDP: the main device (devices[0]) runs out of memory at step 2.",
            description=(
                "Two devices. cubecl's allocator fails on the main worker; the worker thread panics, "
                "its reaper reports first and the caller's thread panics with "
                "`Distributed data parallel main worker failed: {msg}`. Burn's logger banner is on. "
                "The default collective then releases the other worker within a second."
            ),
            runtime=Runtime.BURN,
            expect=Expect.PANIC,
            args=(
                "--devices",
                "cpu:0,cpu:1",
                "--fault",
                "oom@0:2",
                "--banner",
                "--artifact-dir",
                WORKDIR + "/artifacts",
            ),
            entry=_BURN_OOM,
            category="oom_gpu",
            rank=0,
        ),
        Scenario(
            name="worker-oom",
            summary="Burn DDP: devices[2] runs out of memory; Burn reports it as `worker 1`.",
            description=(
                "Three devices. The third device's worker panics on an allocation failure. Burn numbers "
                "the secondary workers from 0, so the supervisor says `worker 1 failed`; the device index, "
                "and the rank explain reports, is 2."
            ),
            runtime=Runtime.BURN,
            expect=Expect.PANIC,
            args=("--devices", "cpu:0,cpu:1,cpu:2", "--fault", "oom@2:2"),
            entry=_BURN_OOM,
            category="oom_gpu",
            rank=2,
        ),
        Scenario(
            name="main-dataloader",
            summary="Burn DDP: the main worker's data loader returns an error at step 3.",
            description=(
                "Burn does not panic on a data-loader error: the worker calls "
                '`interrupter.stop("dataset error during training: {err}")` and leaves the epoch. '
                "Its peers are already waiting in the step's all-reduce; with Burn's collective they "
                "wait forever. The default collective lets them give the step up, training ends, and "
                "`Training interrupted: dataset error during training: ...` is shown (Burn writes it "
                "only to experiment.log). The message does not say which worker failed."
            ),
            runtime=Runtime.BURN,
            expect=Expect.INTERRUPTED,
            args=("--devices", "cpu:0,cpu:1", "--fault", "dataloader@0:3"),
            entry="burn-dataset-error-interrupt",
            category="dataloader",
            rank=None,
        ),
        Scenario(
            name="main-metric",
            summary="Burn DDP: a metric panics on the event-processor thread `train-worker`.",
            description=(
                "Three devices share one event processor, which the main worker owns. A metric's "
                "assertion fails on thread 'train-worker'; the next worker to send an event panics with "
                "`SendError(..)` while holding the shared lock, the others then panic with "
                "`PoisonError { .. }`, and the supervisor reports one of these symptoms. The cause is "
                "the first panic block, on 'train-worker'."
            ),
            runtime=Runtime.BURN,
            expect=Expect.PANIC,
            args=("--devices", "cpu:0,cpu:1,cpu:2", "--fault", "metric@0:2"),
            entry=None,
            category="user_code",
            rank=None,
        ),
        Scenario(
            name="duplicate-devices",
            summary="Burn DDP: the devices list names cpu:1 twice; the sync server drops a callback.",
            description=(
                "Devices cpu:0,cpu:1,cpu:1. Burn's gradient sync server keeps one callback per device "
                "id, so when both cpu:1 workers wait for the same all-reduce the second replaces the "
                "first, which panics with `Can receive callback: RecvError`. The main worker is made "
                "slow at step 1 (and devices[2] a little slow) so that both cpu:1 workers are waiting: "
                "worker 0 (devices[1]) is the one dropped."
            ),
            runtime=Runtime.BURN,
            expect=Expect.PANIC,
            args=(
                "--devices",
                "cpu:0,cpu:1,cpu:1",
                "--fault",
                "delay@0:1=0.8",
                "--fault",
                "delay@2:1=0.3",
            ),
            entry="burn-sync-callback-recv-error",
            category="duplicate_device",
            rank=1,
        ),
        Scenario(
            name="worker-hang",
            summary="Burn DDP: devices[1] stalls at step 2; the default collective times out and names it.",
            description=(
                "Three devices, collective timeout 2 s. The worker on devices[1] blocks forever before "
                "its backward pass. Burn would hang silently; the default collective makes the waiting "
                "workers panic with a report naming `worker 0 (devices[1] = cpu:1)`, and the supervisor "
                "then says which worker is still running."
            ),
            runtime=Runtime.BURN,
            expect=Expect.PANIC,
            args=("--devices", "cpu:0,cpu:1,cpu:2", "--fault", "stall@1:2", "--timeout", "2"),
            entry="burn-ddp-worker-stalled",
            category="collective_timeout",
            rank=1,
        ),
        Scenario(
            name="worker-hang-faithful",
            summary="Burn DDP, Burn's own collective: devices[1] stalls and the job hangs without a word.",
            description=(
                "The same stall as worker-hang with `--faithful`: nothing times out, nothing is printed, "
                "the process never ends (ddpdoctor stops it after 6 s). This is what Burn does today."
            ),
            runtime=Runtime.BURN,
            expect=Expect.HANG,
            args=("--devices", "cpu:0,cpu:1,cpu:2", "--fault", "stall@1:2", "--faithful"),
            entry=None,
            category=None,
            rank=None,
            bound_s=6.0,
        ),
        Scenario(
            name="legacy-worker-oom",
            summary="Burn 0.20 DDP: devices[1] runs out of memory (tch); the report says only `Any { .. }`.",
            description=(
                "Burn <= 0.21 joins the workers in order and `.expect`s the result, so the supervisor's "
                "message is `Distributed data parallel worker failed: Any { .. }`: the cause survives "
                "only in the worker's own panic block, libtorch's CUDA out-of-memory text inside tch's "
                '`Torch("...")`. Rust 1.90 format (no thread ids).'
            ),
            runtime=Runtime.BURN,
            expect=Expect.PANIC,
            args=("--devices", "cpu:0,cpu:1", "--fault", "oom@1:2", "--legacy", "--faithful"),
            entry="cuda-out-of-memory",
            category="oom_gpu",
            rank=None,
        ),
        Scenario(
            name="legacy-main-oom-hang",
            summary="Burn 0.20 DDP: the main device runs out of memory and the process hangs.",
            description=(
                "Burn <= 0.21 joins worker 0 first. It is blocked in the all-reduce waiting for the dead "
                "main worker, so the join never returns: the only output is the main worker's panic "
                "and the process hangs (ddpdoctor stops it after 8 s)."
            ),
            runtime=Runtime.BURN,
            expect=Expect.HANG,
            args=("--devices", "cpu:0,cpu:1,cpu:2", "--fault", "oom@0:2", "--legacy", "--faithful"),
            entry="cuda-out-of-memory",
            category="oom_gpu",
            rank=None,
            bound_s=8.0,
        ),
        Scenario(
            name="empty-devices",
            summary="Burn DDP with an empty devices list: `Option::unwrap()` on `None` in the strategy.",
            description=(
                "`DdpTrainingStrategy::fit` takes the main device with `self.devices.first().unwrap()`, "
                "so an empty list panics on the caller's thread at strategy.rs:75:48 before any worker "
                "starts."
            ),
            runtime=Runtime.BURN,
            expect=Expect.PANIC,
            args=("--devices", ""),
            entry="burn-ddp-empty-device-list",
            category="invalid_device",
            rank=None,
        ),
        Scenario(
            name="torch-unused-parameters",
            summary="PyTorch DDP: rank 1 never uses the auxiliary head, so DDP's reducer fails.",
            description=(
                "torchrun, two ranks, gloo on CPU. Rank 1's batches have no auxiliary target, its "
                "auxiliary head gets no gradient, and its next forward raises `Expected to have finished "
                "reduction in the prior iteration ...`; rank 0 waits in the gradient all-reduce and dies "
                "of `Connection closed by peer` or torchrun's SIGTERM."
            ),
            runtime=Runtime.TORCH,
            expect=Expect.JOB_FAILED,
            args=("unused_parameters.py",),
            entry="ddp-unused-parameters",
            category="unused_parameters",
            rank=1,
        ),
        Scenario(
            name="torch-collective-mismatch",
            summary="PyTorch: only rank 0 all-reduces a logging metric; DETAIL debug names the mismatch.",
            description=(
                "torchrun, two ranks, TORCH_DISTRIBUTED_DEBUG=DETAIL. Rank 0 calls an extra all_reduce "
                "that rank 1 skips, so the ranks' next collectives differ; the debug wrapper raises "
                "`Detected mismatch between collectives on ranks` on both ranks. The message names "
                "both ranks, so no single rank is the culprit: both are suspects."
            ),
            runtime=Runtime.TORCH,
            expect=Expect.JOB_FAILED,
            args=("collective_mismatch.py",),
            entry="collective-mismatch-detected",
            category="collective_mismatch",
            rank=None,
            env=(("TORCH_DISTRIBUTED_DEBUG", "DETAIL"),),
        ),
        Scenario(
            name="torch-rank-killed",
            summary="PyTorch: rank 1 is killed with SIGKILL at step 2, as the host's OOM killer does.",
            description=(
                "torchrun, two ranks. Rank 1 receives SIGKILL and prints nothing; torchrun reports "
                "`exitcode: -9` and `Signal 9 (SIGKILL) received by PID ...` for it and SIGTERMs rank 0. "
                "On a real host, `dmesg` would show the OOM killer's line."
            ),
            runtime=Runtime.TORCH,
            expect=Expect.JOB_FAILED,
            args=("rank_killed.py",),
            entry="torchelastic-signal-sigkill",
            category="oom_host",
            rank=1,
        ),
        Scenario(
            name="torch-port-in-use",
            summary="PyTorch: the rendezvous port is already taken, so torchrun cannot start.",
            description=(
                "ddpdoctor listens on a free port and starts torchrun with `--master-port` set to it; "
                "the launcher's TCPStore fails with `EADDRINUSE` before any worker starts."
            ),
            runtime=Runtime.TORCH,
            expect=Expect.LAUNCH_FAILED,
            args=("healthy.py",),
            entry="address-already-in-use",
            category="rendezvous",
            rank=None,
            occupy_port=True,
        ),
        Scenario(
            name="torch-main-exception",
            summary="PyTorch: rank 0 raises while saving a checkpoint; rank 1 is left waiting.",
            description=(
                "torchrun, two ranks. Only rank 0 saves checkpoints, into a folder that does not exist: "
                "`RuntimeError: Parent directory ... does not exist.`. Rank 1 waits in the next "
                "all-reduce and dies of `Connection closed by peer` or torchrun's SIGTERM: a victim."
            ),
            runtime=Runtime.TORCH,
            expect=Expect.JOB_FAILED,
            args=("main_exception.py", WORKDIR + "/missing/checkpoints"),
            entry=None,
            category="user_code",
            rank=0,
        ),
        Scenario(
            name="torch-rank-hang",
            summary="PyTorch: rank 1 sleeps before its all_reduce; rank 0 waits in it forever.",
            description=(
                "torchrun, two ranks, gloo with a ten-minute collective timeout. At step 3 rank 1 "
                "sleeps instead of reaching the gradient all_reduce; nothing is printed. `ddpdoctor "
                "run --hang-after 5` sees the silence, takes both ranks' stacks and names rank 1, "
                "outside any collective, at its line in hang.py."
            ),
            runtime=Runtime.TORCH,
            expect=Expect.HANG_REPORT,
            args=("hang.py", "sleep"),
            entry=None,
            category=None,
            rank=1,
            bound_s=HANG_BOUND_S,
        ),
        Scenario(
            name="torch-dataloader-hang",
            summary="PyTorch: rank 1's data-loader worker blocks; rank 1 waits for a batch.",
            description=(
                "torchrun, two ranks, one data-loader worker each. Rank 1's worker never finishes "
                "batch 3, so rank 1 waits in the loader's `__next__` while rank 0 waits in "
                "all_reduce. The hang report names rank 1, the loop line that asked for the batch, "
                "and the worker's line in `__getitem__`."
            ),
            runtime=Runtime.TORCH,
            expect=Expect.HANG_REPORT,
            args=("hang.py", "dataloader"),
            entry=None,
            category=None,
            rank=1,
            bound_s=HANG_BOUND_S,
        ),
        Scenario(
            name="torch-collective-hang",
            summary="PyTorch: rank 1 calls broadcast while rank 0 calls all_reduce.",
            description=(
                "torchrun, two ranks. At step 3 rank 1 broadcasts the weights while rank 0 "
                "all-reduces the gradient: the same sequence number, two different collectives, and "
                "gloo waits forever. The hang report shows both collectives and the Flight Recorder's"
                " first disagreement."
            ),
            runtime=Runtime.TORCH,
            expect=Expect.HANG_REPORT,
            args=("hang.py", "broadcast"),
            entry=None,
            category=None,
            rank=1,
            bound_s=HANG_BOUND_S,
        ),
        Scenario(
            name="torch-early-exit-hang",
            summary="PyTorch: rank 1 leaves the loop early and waits in barrier.",
            description=(
                "torchrun, two ranks. Rank 1 breaks out of the loop at step 3 (as with uneven "
                "batches) and waits in the final barrier while rank 0 waits in the step's all_reduce."
                " The hang report names rank 1 at the barrier."
            ),
            runtime=Runtime.TORCH,
            expect=Expect.HANG_REPORT,
            args=("hang.py", "early-exit"),
            entry=None,
            category=None,
            rank=1,
            bound_s=HANG_BOUND_S,
        ),
    )
}


def scenario_names() -> list[str]:
    """Every scenario name, in catalog order."""
    return list(SCENARIOS)


def get_scenario(name: str) -> Scenario:
    """The scenario called `name`; an InputError listing the names otherwise."""
    try:
        return SCENARIOS[name]
    except KeyError:
        spelled = name.replace("_", "-").lower()
        close = (
            [spelled]
            if spelled in SCENARIOS
            else difflib.get_close_matches(spelled, list(SCENARIOS), cutoff=0.6)
        )
        hint = (
            f"did you mean: {', '.join(close)}?"
            if close
            else f"use one of: {', '.join(SCENARIOS)} (see `ddpdoctor reproduce --list`)"
        )
        raise InputError(f"no scenario {name!r}", hint=hint) from None
