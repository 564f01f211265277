"""Which frame of a stack is the user's own code, and which one waits in a collective: the rules
explain, guard and the hang report share."""

from __future__ import annotations

import re

# Path fragments of installed libraries, the interpreter and Rust's toolchain and registry (matched
# with `/` separators: Windows paths are turned around first).
_LIBRARY_MARKERS = (
    "site-packages",
    "dist-packages",
    "/torch/",
    "<frozen",
    "/lib/python",
    "<string>",
    "<eval_with_key>",  # the code torch.fx generates for a traced or exported module
    "/.cargo/registry/",
    "/rustc/",
    "/library/std/",
    "/library/core/",
    # Rust framework crates met as relative paths (a Burn checkout, a vendored workspace).
    "crates/burn-",
    "cubecl",
)


# The standard library's modules as `py-spy dump` shortens their paths (`threading.py`, `multiprocessing/`).
_SHORTENED_STANDARD_LIBRARY = frozenset(
    {
        "threading.py",
        "queue.py",
        "selectors.py",
        "socket.py",
        "subprocess.py",
        "runpy.py",
        "contextlib.py",
        "multiprocessing",
        "concurrent",
        "asyncio",
        "importlib",
    }
)


# Top-level packages and modules of libraries and of the standard library, as `py-spy dump` shortens
# their paths (`torch/distributed/distributed_c10d.py`, `threading.py`).
_SHORTENED_LIBRARIES = _SHORTENED_STANDARD_LIBRARY | frozenset(
    {
        "torch",
        "torchvision",
        "torchaudio",
        "deepspeed",
        "accelerate",
        "transformers",
        "datasets",
        "lightning",
        "lightning_fabric",
        "pytorch_lightning",
        "ray",
        "apex",
        "numpy",
        "triton",
        "tqdm",
        "safetensors",
    }
)


# Scripts a library writes into the user's folders, run from there: DeepSpeed copies `zero_to_fp32.py`
# into every checkpoint folder it saves.
_COPIED_LIBRARY_SCRIPTS = frozenset({"zero_to_fp32.py"})


def posix_path(path: str) -> str:
    """A frame's file with `/` separators (a Windows traceback prints `\\`), for matching library paths."""
    return path.replace("\\", "/")


def is_user_frame(path: str) -> bool:
    """A frame from the user's code, not from an installed library, the interpreter or the toolchain.

    An installed console script (`.../bin/torchrun`, `.../bin/accelerate`: no `.py`, in a `bin`
    folder) is a launcher, not the user's code; nor is a library's script it copied into the user's
    folders (DeepSpeed's `zero_to_fp32.py`).
    """
    path = posix_path(path)
    if not path or any(marker in path for marker in _LIBRARY_MARKERS):
        return False
    if not path.startswith(("/", ".")) and path.split("/", 1)[0] in _SHORTENED_LIBRARIES:
        return False
    folder, _, name = path.rpartition("/")
    if name in _COPIED_LIBRARY_SCRIPTS:
        return False
    return not (folder.endswith("/bin") and "." not in name)


def in_standard_library(path: str) -> bool:
    """A frame of Python's standard library (`threading.py` waiting on a lock, `queue.py`): the place a
    stuck thread waits is the first frame above it."""
    path = posix_path(path)
    if not path.startswith(("/", ".")) and path.split("/", 1)[0] in _SHORTENED_STANDARD_LIBRARY:
        return True
    # (`/usr/lib/python3.8/`, a Windows install's `C:/Python311/Lib/`), not an installed package under it
    return ("/lib/python" in path or "/Lib/" in path) and "-packages/" not in path


# torch.distributed (and DeepSpeed/Accelerate wrappers) functions a waiting rank sits in.
_COLLECTIVES = frozenset(
    {
        "all_reduce",
        "all_gather",
        "all_gather_into_tensor",
        "all_gather_object",
        "all_to_all",
        "all_to_all_single",
        "barrier",
        "batch_isend_irecv",
        "broadcast",
        "broadcast_object_list",
        "gather",
        "gather_object",
        "irecv",
        "isend",
        "monitored_barrier",
        "recv",
        "reduce",
        "reduce_scatter",
        "reduce_scatter_tensor",
        "scatter",
        "scatter_object_list",
        "send",
    }
)
# Where collectives live: a `recv` elsewhere (a socket, an HTTP client) is not one.
_COMM_LIBRARIES = (
    "torch/distributed/",
    "deepspeed/comm/",
    "accelerate/",
    "lightning/",
)


# Distributed training's own code beyond its collectives: a thread stuck there waits on its peers.
_DISTRIBUTED_LIBRARIES = (
    *_COMM_LIBRARIES,
    "deepspeed/runtime/zero/",
    "deepspeed/runtime/pipe/",
    "megatron/core/",
    "horovod/",
)


# Collectives whose names other code uses too (`x.gather(1, index)`, `functools.reduce`, a socket's `recv`),
# and a barrier by the name Accelerate gives it.
_COMMON_NAMES = frozenset({"broadcast", "gather", "irecv", "isend", "recv", "reduce", "scatter", "send"})
_BARRIER_ALIASES = frozenset({"wait_for_everyone"})
_CALLED = r"\b(\w{1,40})\("  # a call on a line of code, by its name (`dist.all_reduce(`, `barrier(`)


def called_collective(code: str, *, into_library: bool) -> str | None:
    """The collective a line of the script calls (`dist.all_reduce(grads)`: `all_reduce`;
    `accelerator.wait_for_everyone()`: `wait_for_everyone`), or None. A name other code uses too
    counts only `into_library`: when the stack goes on from that line into the collective's own code."""
    for call in re.finditer(_CALLED, code):
        name = call.group(1)
        if name in _BARRIER_ALIASES or (name in _COLLECTIVES and (into_library or name not in _COMMON_NAMES)):
            return name
    return None


def in_distributed_library(file: str) -> bool:
    """Whether a frame is in distributed training's code (torch.distributed, DeepSpeed's ZeRO and
    communication, Megatron's core, Horovod, Accelerate, Lightning)."""
    path = posix_path(file)
    return any(library in path for library in _DISTRIBUTED_LIBRARIES)


def collective_name(function: str, file: str) -> str | None:
    """The collective a frame is (`all_reduce` in `torch/distributed/distributed_c10d.py`), or None:
    a function of that name elsewhere (a socket's `recv`) is not one."""
    name = function.rsplit(".", 1)[-1]
    path = posix_path(file)
    if name in _COLLECTIVES and any(library in path for library in _COMM_LIBRARIES):
        return name
    return None
