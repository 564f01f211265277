"""A faithful Python model of Burn's DDP runtime, to reproduce its failures on CPU.

See :mod:`ddpdoctor.runtime.strategy` for the training strategy, :mod:`.collective` for the
all-reduce, :mod:`.panic` for the terminal output, and :mod:`.faults` for fault injection.
torch is imported only when a run starts.
"""

from ddpdoctor.runtime.faults import Fault, FaultKind, OomBackend
from ddpdoctor.runtime.panic import RustPanic, RustStyle, panic_message
from ddpdoctor.runtime.strategy import BurnVersion, DdpRuntime, RuntimeConfig, TrainingResult, run

__all__ = [
    "BurnVersion",
    "DdpRuntime",
    "Fault",
    "FaultKind",
    "OomBackend",
    "RuntimeConfig",
    "RustPanic",
    "RustStyle",
    "TrainingResult",
    "panic_message",
    "run",
]
