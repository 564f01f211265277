"""The shared pieces every worker touches: the interrupter, the event processor and Burn's log.

Burn runs metrics on an event-processor thread named `train-worker`, fed through a bounded(1)
channel; the DDP workers share it behind one `Arc<Mutex<..>>`. If a metric panics on that
thread the channel closes, the next worker to send panics with `SendError(..)` while holding the
mutex, and every later locker panics with `PoisonError { .. }`: the reported failure is a
symptom and the cause is the first block on `train-worker`.
"""

from __future__ import annotations

import datetime as _dt
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from ddpdoctor.runtime.faults import METRIC_LOCATION, Fault, FaultKind, metric_panic_text
from ddpdoctor.runtime.panic import PanicHook, crate_location, panic
from ddpdoctor.runtime.sync import BoundedChannel, Disconnected, Scope

_TRAIN = "burn-train-0.22.0-pre.2"
_DDP = "src/learner/supervised/strategies/ddp"
SEND_ERROR_LOCATIONS = {
    "train": crate_location(_TRAIN, "src/metric/processor/async_wrapper.rs", 109, 58),
    "valid": crate_location(_TRAIN, "src/metric/processor/async_wrapper.rs", 113, 58),
}
# `.lock().unwrap()` sites of the shared event processor (worker.rs, epoch.rs at 0.22.0-pre.2).
LOCK_LOCATIONS = {
    "start-split": crate_location(_TRAIN, f"{_DDP}/worker.rs", 81, 22),
    "end-split": crate_location(_TRAIN, f"{_DDP}/worker.rs", 99, 22),
    "valid-start": crate_location(_TRAIN, f"{_DDP}/worker.rs", 114, 26),
    "validation": crate_location(_TRAIN, f"{_DDP}/worker.rs", 120, 71),
    "item": crate_location(_TRAIN, f"{_DDP}/epoch.rs", 142, 54),
}
STRATEGY_TARGET = "burn_train::learner::supervised::strategies::ddp::strategy"


class Interrupter:
    """Burn's `Interrupter`: a shared stop flag with an optional reason."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stopped = False
        self._message: str | None = None

    def stop(self, message: str | None = None) -> None:
        """Ask every worker to stop after its current step."""
        with self._lock:
            self._stopped = True
            if message is not None:
                self._message = message

    def should_stop(self) -> bool:
        """True once `stop` was called."""
        with self._lock:
            return self._stopped

    def message(self) -> str | None:
        """The reason given to `stop`, if any."""
        with self._lock:
            return self._message


@dataclass(frozen=True)
class TrainEvent:
    """`LearnerEvent::ProcessedItem` for one training batch of one device."""

    device: int
    step: int
    loss: float
    predictions: int
    targets: int


class EventProcessor:
    """The async event processor: a `train-worker` thread fed through a bounded(1) channel.

    It counts the training items each device reports (the run's `items_seen`). Split and
    validation events are only passed through: what matters about them is that sending one can
    block on the full channel or fail once the thread is gone.
    """

    def __init__(self, scope: Scope, hook: PanicHook, faults: tuple[Fault, ...]) -> None:
        self._scope = scope
        self._hook = hook
        self._faults = {(f.device, f.step): f for f in faults if f.kind is FaultKind.METRIC}
        self._channel: BoundedChannel[object] = BoundedChannel(1)
        # What the metrics have seen: training items per device index.
        self.items_seen: dict[int, int] = {}
        self._handle = scope.spawn(self._run, name="train-worker", rust_name="train-worker")

    def _run(self) -> None:
        try:
            while True:
                try:
                    event = self._channel.recv(self._scope)
                except Disconnected:
                    return
                self._handle_event(event)
        except BaseException:
            self._channel.drop_receiver()
            raise

    def _handle_event(self, event: object) -> None:
        if isinstance(event, TrainEvent):
            fault = self._faults.get((event.device, event.step))
            if fault is not None:
                self._scope.record(f"fault metric on devices[{event.device}]")
                text = fault.text or metric_panic_text(event.predictions, event.targets - 1)
                raise panic(self._hook, METRIC_LOCATION, text)
            self.items_seen[event.device] = self.items_seen.get(event.device, 0) + event.predictions

    def _send(self, kind: str, event: object) -> None:
        try:
            self._channel.send(self._scope, event)
        except Disconnected:
            raise panic(
                self._hook,
                SEND_ERROR_LOCATIONS[kind],
                "called `Result::unwrap()` on an `Err` value: SendError(..)",
            ) from None

    def process_train(self, event: object) -> None:
        """`process_train`: hand a training event to the `train-worker` thread."""
        self._send("train", event)

    def process_valid(self, event: object) -> None:
        """`process_valid`: hand a validation event to the `train-worker` thread."""
        self._send("valid", event)

    def finish(self) -> None:
        """Close the channel and wait for the thread to drain it (`renderer()` at the end of training)."""
        self._channel.drop_senders()
        self._handle.join()


class BurnLog:
    """Burn's application log: tracing-formatted lines in `experiment.log`, optionally on a terminal."""

    def __init__(self, path: Path | None, terminal: TextIO | None) -> None:
        self._path = path
        self._terminal = terminal
        self._lock = threading.Lock()

    def write(self, level: str, target: str, message: str, *, terminal: bool = False) -> None:
        """Log one record; with `terminal` it is also shown on the terminal stream."""
        stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        line = f"{stamp} {level:>5} {target}: {message}\n"
        with self._lock:
            if self._path is not None:
                with self._path.open("a", encoding="utf-8") as log:
                    log.write(line)
            if terminal and self._terminal is not None:
                self._terminal.write(line)
                self._terminal.flush()
