"""Burn's DDP training strategy, modelled: workers, reapers, the supervisor, and the legacy join.

`DdpRuntime(config, stream).fit()` trains the tiny model on `config.devices` the way
`DdpTrainingStrategy::fit` does (burn_ddp.md sections 1.2-1.3 and 7):

- one unnamed thread per device, in list order; devices[0] is the main worker, which alone emits
  split events, validates and checkpoints, and whose replica is returned;
- every worker trains its contiguous slice of the data (the last device takes the remainder),
  averages real gradients through the collective, and sends a per-item event under one lock;
- one reaper thread per worker reports `join()` results in completion order; the first `Err` makes
  the caller's thread panic at once with `Distributed data parallel main worker failed: {msg}` or
  `Distributed data parallel worker {id} failed: {msg}`, where worker `id` ran on devices[id + 1];
- legacy mode (Burn <= 0.21) joins the secondaries in order, then the main worker, and `.expect`s
  each: `... failed: Any { .. }`, and a hang when an earlier-joined worker is blocked.

The outer panic is raised as :class:`~ddpdoctor.runtime.panic.RustPanic` on the caller's thread
after its block was written to `stream`. :meth:`DdpRuntime.close` (or leaving the `with` block)
releases and joins every thread, which is what the process exit does for real Burn.
"""

from __future__ import annotations

import enum
import queue
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from ddpdoctor.errors import InputError
from ddpdoctor.runtime.collective import Participant, StepAbandoned, SyncServer
from ddpdoctor.runtime.events import (
    LOCK_LOCATIONS,
    STRATEGY_TARGET,
    BurnLog,
    EventProcessor,
    Interrupter,
    TrainEvent,
)
from ddpdoctor.runtime.faults import MODEL_LOCATION, OOM_BYTES, Fault, FaultKind, OomBackend, oom_panic
from ddpdoctor.runtime.model import (
    DatasetFailure,
    TinyRegression,
    batches_of,
    evaluate,
    loss_and_backward,
    parameters_of,
    sgd_step,
    split_items,
)
from ddpdoctor.runtime.panic import PanicHook, RustPanic, RustStyle, crate_location, panic, panic_message
from ddpdoctor.runtime.sync import Halted, JoinHandle, Outcome, PoisonMutex, Scope


class BurnVersion(str, enum.Enum):
    """Which supervisor to model."""

    CURRENT = "0.22.0-pre.2"  # reaper threads, completion order, `failed: {msg}`
    LEGACY = "0.20.1"  # in-order joins, `failed: Any { .. }`


_MAIN_ID = -1
_DDP = "src/learner/supervised/strategies/ddp/strategy.rs"
_OUTER_LOCATIONS = {
    (BurnVersion.CURRENT, "main"): crate_location("burn-train-0.22.0-pre.2", _DDP, 161, 25),
    (BurnVersion.CURRENT, "worker"): crate_location("burn-train-0.22.0-pre.2", _DDP, 163, 25),
    (BurnVersion.LEGACY, "main"): crate_location("burn-train-0.20.1", _DDP, 123, 14),
    (BurnVersion.LEGACY, "worker"): crate_location("burn-train-0.20.1", _DDP, 118, 18),
}
EMPTY_DEVICES_LOCATION = crate_location("burn-train-0.22.0-pre.2", _DDP, 75, 48)
# Device memory of every logical device, for the out-of-memory text.
DEVICE_MEMORY = 24 * (1 << 30)
# Log target of the lines the default supervisor adds (Burn prints nothing there).
SUPERVISOR_TARGET = "ddpdoctor::runtime::supervisor"
# How long the default supervisor waits, after reporting, for the other workers to stop.
STOP_GRACE_S = 1.0


@dataclass(frozen=True)
class RuntimeConfig:
    """Everything a run depends on. `faithful` keeps Burn's no-timeout collective."""

    devices: tuple[str, ...] = ("cpu:0", "cpu:1")
    faults: tuple[Fault, ...] = ()
    burn: BurnVersion = BurnVersion.CURRENT
    faithful: bool = False
    timeout: float = 5.0
    epochs: int = 1
    items: int = 48
    batch_size: int = 4
    seed: int = 0
    rust: RustStyle | None = None
    banner: bool = False
    artifact_dir: Path | None = None
    oom_backend: OomBackend | None = None

    def __post_init__(self) -> None:
        for fault in self.faults:
            if not 0 <= fault.device < max(len(self.devices), 1):
                raise InputError(
                    f"fault {fault.spec()} names devices[{fault.device}], but there are {len(self.devices)} devices"
                )
        if self.timeout <= 0 or self.epochs < 1 or self.items < 1 or self.batch_size < 1:
            raise InputError("timeout, epochs, items and batch size must be positive")
        if self.banner and self.artifact_dir is None:
            raise InputError("the panic banner names the experiment log: give an artifact directory")

    @property
    def rust_style(self) -> RustStyle:
        """The panic format: Rust 1.95 for current Burn, 1.90 for the legacy release."""
        if self.rust is not None:
            return self.rust
        return RustStyle.MODERN_TID if self.burn is BurnVersion.CURRENT else RustStyle.MODERN

    @property
    def oom_text_backend(self) -> OomBackend:
        """Whose out-of-memory text to print: cubecl for current Burn, tch for legacy."""
        if self.oom_backend is not None:
            return self.oom_backend
        return OomBackend.CUBECL if self.burn is BurnVersion.CURRENT else OomBackend.TCH


@dataclass
class TrainingResult:
    """What `fit` returns when every worker succeeded: the main replica and what the metrics saw."""

    model: Any
    steps: dict[int, int]
    items_seen: dict[int, int]
    reduced_rounds: int
    interrupted: str | None
    checkpoints: list[int] = field(default_factory=list)


class DdpRuntime:
    """One DDP training run; use as a context manager so every thread is gone afterwards."""

    def __init__(self, config: RuntimeConfig, stream: TextIO) -> None:
        self.config = config
        self.scope = Scope()
        experiment_log = None
        if config.artifact_dir is not None:
            config.artifact_dir.mkdir(parents=True, exist_ok=True)
            experiment_log = config.artifact_dir / "experiment.log"
        self.hook = PanicHook(
            stream, style=config.rust_style, experiment_log=experiment_log if config.banner else None
        )
        self.log = BurnLog(experiment_log, stream)
        self.still_running: list[str] = []
        self._steps: dict[int, int] = {}
        self._checkpoints: list[int] = []
        self._handles: list[JoinHandle[Any]] = []

    def __enter__(self) -> DdpRuntime:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self, join_timeout: float = 5.0) -> list[str]:
        """Release and join every thread of the run; return the names of any that did not end.

        Raises RuntimeError if a thread died of an exception that is not a modelled panic: that
        is a bug in the runtime, not a reproduced failure.
        """
        left = self.scope.halt(join_timeout)
        if self.scope.bugs:
            raise RuntimeError("a runtime thread failed unexpectedly") from self.scope.bugs[0]
        return left

    # --- the strategy -------------------------------------------------------------------------

    def fit(self) -> TrainingResult:
        """Train; raises the outer panic (a RustPanic, already printed) when a worker failed."""
        config = self.config
        if not config.devices:
            raise panic(self.hook, EMPTY_DEVICES_LOCATION, "called `Option::unwrap()` on a `None` value")
        data = TinyRegression(config.items + config.items // 4, config.seed)
        participants = [Participant(i, d) for i, d in enumerate(config.devices)]
        interrupter = Interrupter()
        server = SyncServer(
            self.scope,
            self.hook,
            participants,
            timeout=None if config.faithful else config.timeout,
            should_stop=None if config.faithful else interrupter.should_stop,
        )
        processor = PoisonMutex(EventProcessor(self.scope, self.hook, config.faults))
        slices = split_items(config.items, len(config.devices))
        valid = range(config.items, config.items + config.items // 4)

        def start(index: int) -> JoinHandle[Any]:
            def body() -> Any:
                return self._worker(
                    data, participants[index], slices[index], valid, server, processor, interrupter
                )

            return self.scope.spawn(body, name=f"ddp-worker-{index}")

        main = start(0)
        secondaries = [start(i) for i in range(1, len(config.devices))]
        self._handles = [main, *secondaries]
        if config.burn is BurnVersion.LEGACY:
            model = self._supervise_in_order(main, secondaries)
        else:
            model = self._supervise(main, secondaries, server)
        server.close()
        processor.value.finish()
        stopped = interrupter.should_stop()
        reason = interrupter.message() if stopped else None
        if stopped:
            self.log.write(
                "INFO" if config.faithful else "WARN",
                STRATEGY_TARGET,
                f"Training interrupted: {reason or 'Reason unknown'}",
                terminal=not config.faithful,
            )
        return TrainingResult(
            model=model,
            steps=dict(self._steps),
            items_seen=dict(processor.value.items_seen),
            reduced_rounds=server.reduced_rounds,
            interrupted=reason,
            checkpoints=list(self._checkpoints),
        )

    def _supervise(
        self, main: JoinHandle[Any], secondaries: list[JoinHandle[Any]], server: SyncServer
    ) -> Any:
        results: queue.SimpleQueue[tuple[int, Outcome[Any] | None]] = queue.SimpleQueue()

        def reaper(worker_id: int, handle: JoinHandle[Any]) -> Callable[[], None]:
            return lambda: results.put((worker_id, handle.join()))

        for worker_id, handle in enumerate(secondaries):
            self.scope.spawn(reaper(worker_id, handle), name=f"ddp-reaper-{worker_id}")
        self.scope.spawn(reaper(_MAIN_ID, main), name="ddp-reaper-main")
        model = None
        for _ in range(len(secondaries) + 1):
            worker_id, outcome = self._next_result(results)
            if outcome is None:
                raise Halted
            if outcome.ok:
                if worker_id == _MAIN_ID:
                    model = outcome.value
                continue
            msg = panic_message(outcome.payload)
            if worker_id == _MAIN_ID:
                text, where = f"Distributed data parallel main worker failed: {msg}", "main"
            else:
                text, where = f"Distributed data parallel worker {worker_id} failed: {msg}", "worker"
            self.scope.record(f"report {text}")
            failure = panic(self.hook, _OUTER_LOCATIONS[(BurnVersion.CURRENT, where)], text)
            if not self.config.faithful:
                self._stop_the_others(server, msg)
            raise failure
        return model

    def _next_result(
        self, results: queue.SimpleQueue[tuple[int, Outcome[Any] | None]]
    ) -> tuple[int, Outcome[Any] | None]:
        while True:
            self.scope.check()
            try:
                return results.get(timeout=0.02)
            except queue.Empty:
                continue

    def _supervise_in_order(self, main: JoinHandle[Any], secondaries: list[JoinHandle[Any]]) -> Any:
        for handle in secondaries:
            self._expect(handle, "worker", "Distributed data parallel worker failed")
        return self._expect(main, "main", "Distributed data parallel main worker failed")

    def _expect(self, handle: JoinHandle[Any], where: str, message: str) -> Any:
        outcome = handle.join()
        if outcome is None:
            raise Halted
        if outcome.ok:
            return outcome.value
        text = f"{message}: Any {{ .. }}"
        self.scope.record(f"report {text}")
        raise panic(self.hook, _OUTER_LOCATIONS[(BurnVersion.LEGACY, where)], text)

    def _stop_the_others(self, server: SyncServer, reason: str) -> None:
        """Default mode: abort the collective, give the others a second, name any still running."""
        server.abort(reason)
        deadline = time.monotonic() + STOP_GRACE_S
        for handle in self._handles:
            handle.join(max(0.0, deadline - time.monotonic()))
        self.still_running = [
            Participant(i, d).label
            for i, (d, h) in enumerate(zip(self.config.devices, self._handles, strict=True))
            if not h.finished
        ]
        self.scope.record("others stopped")
        if self.still_running:
            self.log.write(
                "WARN",
                SUPERVISOR_TARGET,
                f"still running {STOP_GRACE_S:g} s after the failure: {', '.join(self.still_running)}",
                terminal=True,
            )

    # --- one worker ---------------------------------------------------------------------------

    def _worker(
        self,
        data: TinyRegression,
        who: Participant,
        items: range,
        valid: range,
        server: SyncServer,
        processor: PoisonMutex[EventProcessor],
        interrupter: Interrupter,
    ) -> Any:
        config = self.config
        replica = data.fork()
        is_main = who.index == 0
        faults: dict[int, list[Fault]] = {}
        for fault in config.faults:
            if fault.device == who.index:
                faults.setdefault(fault.step, []).append(fault)
        fail_at = min(
            (f.step for f in config.faults if f.device == who.index and f.kind is FaultKind.DATALOADER),
            default=None,
        )
        step = 0
        for epoch in range(1, config.epochs + 1):
            if is_main:
                with processor.lock_unwrap(self.scope, self.hook, LOCK_LOCATIONS["start-split"]) as events:
                    events.process_train(f"start-split {epoch}")
            step = self._train_epoch(
                data, replica, who, items, step, faults, fail_at, server, processor, interrupter
            )
            if is_main:
                with processor.lock_unwrap(self.scope, self.hook, LOCK_LOCATIONS["end-split"]) as events:
                    events.process_train(f"end-split {epoch}")
            if interrupter.should_stop():
                break
            if is_main:
                self._validate(data, replica, valid, processor, epoch)
            if interrupter.should_stop():
                break
            if is_main:
                self._checkpoints.append(epoch)
        self._steps[who.index] = step
        return replica

    def _train_epoch(
        self,
        data: TinyRegression,
        replica: Any,
        who: Participant,
        items: range,
        step: int,
        faults: dict[int, list[Fault]],
        fail_at: int | None,
        server: SyncServer,
        processor: PoisonMutex[EventProcessor],
        interrupter: Interrupter,
    ) -> int:
        local_fail = fail_at - step if fail_at is not None and fail_at > step else None
        for item in data.loader(items, self.config.batch_size, local_fail):
            step += 1
            if isinstance(item, DatasetFailure):
                self.scope.record(f"fault dataloader on devices[{who.index}]")
                interrupter.stop(f"dataset error during training: {item.message}")
                break
            for fault in faults.get(step, ()):
                self._inject(fault, who, step)
            params = parameters_of(replica)
            server.register(who, step, range(len(params)))
            loss = loss_and_backward(replica, item)
            for param_id in reversed(range(len(params))):
                server.submit(who, step, param_id, params[param_id].grad)
            try:
                server.sync(who, step)
            except StepAbandoned:
                break
            sgd_step(replica)
            event = TrainEvent(who.index, step, loss, len(item.items), len(item.items))
            with processor.lock_unwrap(self.scope, self.hook, LOCK_LOCATIONS["item"]) as events:
                events.process_train(event)
            if interrupter.should_stop():
                break
        return step

    def _inject(self, fault: Fault, who: Participant, step: int) -> None:
        where = f"devices[{who.index}]"
        if fault.kind is FaultKind.DELAY:
            self.scope.sleep(fault.seconds)
            return
        if fault.kind in (FaultKind.METRIC, FaultKind.DATALOADER):
            return  # raised by the event processor and by the data loader
        self.scope.record(f"fault {fault.kind.value} on {where}")
        if fault.kind is FaultKind.STALL:
            self.scope.block_forever()
        if fault.kind is FaultKind.OOM:
            location, text = oom_panic(
                self.config.oom_text_backend, who.index, OOM_BYTES, OOM_BYTES // 2, DEVICE_MEMORY
            )
            raise panic(self.hook, location, fault.text or text)
        if fault.kind is FaultKind.PANIC_ANY:
            raise panic(self.hook, MODEL_LOCATION, ("panic_any payload", step))
        raise panic(
            self.hook, MODEL_LOCATION, fault.text or f"the model panicked at step {step} on {who.device}"
        )

    def _validate(
        self,
        data: TinyRegression,
        replica: Any,
        valid: range,
        processor: PoisonMutex[EventProcessor],
        epoch: int,
    ) -> None:
        with processor.lock_unwrap(self.scope, self.hook, LOCK_LOCATIONS["valid-start"]) as events:
            events.process_valid(f"start-split {epoch}")
        with processor.lock_unwrap(self.scope, self.hook, LOCK_LOCATIONS["validation"]) as events:
            for chunk in batches_of(valid, self.config.batch_size):
                events.process_valid(evaluate(replica, data.batch(chunk)))
            events.process_valid(f"end-split {epoch}")


def run(config: RuntimeConfig, stream: TextIO) -> tuple[TrainingResult | None, RustPanic | None, DdpRuntime]:
    """Fit once and close the runtime; returns the result or the outer panic, and the runtime."""
    runtime = DdpRuntime(config, stream)
    with runtime:
        try:
            return runtime.fit(), None, runtime
        except RustPanic as failure:
            return None, failure, runtime
