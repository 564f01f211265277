"""Inventory files (`check --inventory FILE`, DDPDOCTOR_INVENTORY): read with limits, validated strictly.

A file is YAML or JSON (`ddpdoctor env --format json` output works too). It is read only when it
is a regular file of at most :data:`MAX_FILE_BYTES`; nesting, GPU counts and every number are
bounded, so that a hostile or broken file ends in one `InputError` (exit 2), never in a
RecursionError, a MemoryError or a hang.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping, Sequence
from typing import Any

from ddpdoctor.errors import InputError
from ddpdoctor.hardware.inventory import (
    BUILTIN_INVENTORIES,
    COMPUTE_MODES,
    KNOWN_BACKENDS,
    Gpu,
    GpuProcess,
    Inventory,
)
from ddpdoctor.units import MAX_SIZE, SizeError, parse_user_size

BUILTIN_PREFIX = "builtin:"
MAX_FILE_BYTES = 4 * 1024**2
# More GPUs than any one machine has; `count:` and list lengths are checked against it.
MAX_GPUS = 4096
MAX_PROCESSES = 4096
MAX_COUNT = 2**20
MAX_PID = 2**22
_SHOWN_CHARS = 60


def _fail(where: str, problem: str, hint: str) -> InputError:
    return InputError(f"inventory {where}: {problem}", hint=hint)


def _shown(value: Any, *, quote: bool = True) -> str:
    """A value from the file as the error quotes it (its repr, or a key as written), cut to a few dozen characters."""
    if isinstance(value, str) and not quote:
        text = value
    elif isinstance(value, (str, int, float, bool)) or value is None:
        text = repr(value)
    else:
        text = type(value).__name__
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 3] + "..."


def _size(value: Any, where: str) -> int:
    hint = "write bytes or a size such as 80GiB"
    if isinstance(value, bool):
        raise _fail(where, "must be a size", hint)
    if isinstance(value, int):
        if not 0 <= value <= MAX_SIZE:
            raise _fail(where, "is not a size between 0 and 1 EiB", hint)
        return value
    if isinstance(value, str):
        try:
            return parse_user_size(value)
        except SizeError:
            pass
    raise _fail(where, f"{_shown(value)} is not a size", hint)


def _int(value: Any, where: str, maximum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= maximum:
        raise _fail(
            where, f"{_shown(value)} is not a whole number from 0 to {maximum}", "write a whole number"
        )
    return value


def _text(value: Any, where: str) -> str:
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return str(value)
    raise _fail(where, "must be a plain value, not a list or mapping", "write it as text")


def _check_keys(data: Mapping[Any, Any], allowed: Sequence[str], where: str) -> None:
    for key in data:
        if key not in allowed:
            raise _fail(
                f"{where}{_shown(key, quote=False)}", "unknown key", f"allowed keys: {', '.join(allowed)}"
            )


_GPU_KEYS = (
    "index",
    "name",
    "uuid",
    "pci_bus_id",
    "memory_total",
    "memory_free",
    "compute_mode",
    "processes",
    "count",
)
_INVENTORY_KEYS = (
    "source",
    "gpus",
    "cuda",
    "cuda_available",
    "mps",
    "xpu_count",
    "cpu_count",
    "shm_total",
    "shm_free",
    "backends",
    "platform",
    "process_info",
    "visible",
    "env",
)


def _processes(value: Any, where: str) -> tuple[GpuProcess, ...]:
    if not isinstance(value, list):
        raise _fail(where, "must be a list", "write `processes: [{pid: 1234, name: python}]`")
    if len(value) > MAX_PROCESSES:
        raise _fail(where, f"lists more than {MAX_PROCESSES} processes", "list the processes of one GPU")
    out = []
    for i, item in enumerate(value):
        if not isinstance(item, dict) or "pid" not in item:
            raise _fail(f"{where}[{i}]", "needs a pid", "write `{pid: 1234, name: python}`")
        _check_keys(item, ("pid", "name", "used_memory"), f"{where}[{i}].")
        used = item.get("used_memory")
        out.append(
            GpuProcess(
                pid=_int(item["pid"], f"{where}[{i}].pid", MAX_PID),
                name=_text(item.get("name", ""), f"{where}[{i}].name"),
                used_memory=None if used is None else _size(used, f"{where}[{i}].used_memory"),
            )
        )
    return tuple(out)


def _gpus(value: Any) -> tuple[Gpu, ...]:
    if not isinstance(value, list):
        raise _fail("gpus", "must be a list", "write `gpus: [{name: ..., memory_total: 80GiB}]`")
    out: list[Gpu] = []
    for i, item in enumerate(value):
        where = f"gpus[{i}]"
        if not isinstance(item, dict):
            raise _fail(where, "must be a mapping", "write `{name: ..., memory_total: 80GiB}`")
        _check_keys(item, _GPU_KEYS, f"{where}.")
        if "memory_total" not in item:
            raise _fail(f"{where}.memory_total", "is missing", "add e.g. `memory_total: 80GiB`")
        count = _int(item.get("count", 1), f"{where}.count", MAX_GPUS)
        if len(out) + count > MAX_GPUS:
            raise _fail("gpus", f"describes more than {MAX_GPUS} GPUs", "describe one machine")
        if count > 1 and any(k in item for k in ("index", "uuid", "pci_bus_id")):
            raise _fail(
                f"{where}.count",
                "cannot be combined with index, uuid or pci_bus_id",
                "list the GPUs one by one",
            )
        total = _size(item["memory_total"], f"{where}.memory_total")
        free_raw = item.get("memory_free", total)
        free = None if free_raw is None else _size(free_raw, f"{where}.memory_free")
        mode = item.get("compute_mode", "default")
        if mode not in COMPUTE_MODES:
            raise _fail(
                f"{where}.compute_mode",
                f"{_shown(mode)} is not allowed",
                f"use one of {', '.join(COMPUTE_MODES)}",
            )
        name = _text(item.get("name", "simulated GPU"), f"{where}.name")
        processes = _processes(item.get("processes", []), f"{where}.processes")
        for _ in range(count):
            n = len(out)
            out.append(
                Gpu(
                    index=_int(item.get("index", n), f"{where}.index", MAX_GPUS - 1),
                    name=name,
                    uuid=_text(item.get("uuid", f"GPU-{n:08x}-0000-4000-8000-5e1f00000000"), f"{where}.uuid"),
                    pci_bus_id=_text(
                        item.get("pci_bus_id", f"00000000:{n + 1:02X}:00.0"), f"{where}.pci_bus_id"
                    ),
                    memory_total=total,
                    memory_free=free,
                    compute_mode=mode,
                    processes=processes,
                )
            )
    indices = [g.index for g in out]
    if len(set(indices)) != len(indices):
        raise _fail("gpus", "two GPUs have the same index", "give each GPU its own `index`")
    return tuple(out)


def _visible(value: Any, gpus: Sequence[Gpu]) -> tuple[int, ...] | None:
    if value is None:
        return None
    if (
        not isinstance(value, list)
        or len(value) > len(gpus)
        or not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < len(gpus) for v in value)
    ):
        raise _fail(
            "visible", "must list positions in `gpus`", "write e.g. `visible: [2, 3]`, or leave it out"
        )
    return tuple(value)


def inventory_from_dict(data: Any, *, source: str = "simulated") -> Inventory:
    """Validate an inventory mapping (the file format, or `ddpdoctor env --format json` output)."""
    from ddpdoctor.hardware.probes import host_cpu_count

    if isinstance(data, dict) and isinstance(data.get("inventory"), dict):
        data = data["inventory"]
    if not isinstance(data, dict):
        raise _fail("file", "is not a mapping", "start the file with `gpus:`")
    _check_keys(data, _INVENTORY_KEYS, "")
    gpus = _gpus(data.get("gpus", []))
    backends = data.get("backends", ["nccl", "gloo"] if gpus else ["gloo"])
    if (
        not isinstance(backends, list)
        or len(backends) > len(KNOWN_BACKENDS) * 4
        or not all(isinstance(b, str) for b in backends)
    ):
        raise _fail(
            "backends",
            "must be a list of names",
            f"write e.g. [nccl, gloo]; known: {', '.join(KNOWN_BACKENDS)}",
        )
    env = data.get("env", {})
    if not isinstance(env, dict):
        raise _fail("env", "must map names to values", "write `env: {CUDA_VISIBLE_DEVICES: '0,1'}`")

    def flag(key: str, default: bool) -> bool:
        value = data.get(key, default)
        if not isinstance(value, bool):
            raise _fail(key, f"{_shown(value)} is not true or false", "write true or false")
        return value

    shm_total = data.get("shm_total")
    shm_free = data.get("shm_free", shm_total)
    return Inventory(
        source=_text(data.get("source", source), "source"),
        gpus=gpus,
        cuda=flag("cuda", True),
        cuda_available=flag("cuda_available", flag("cuda", True) and bool(gpus)),
        mps=flag("mps", False),
        xpu_count=_int(data.get("xpu_count", 0), "xpu_count", MAX_GPUS),
        cpu_count=max(1, _int(data.get("cpu_count", host_cpu_count()), "cpu_count", MAX_COUNT)),
        shm_total=None if shm_total is None else _size(shm_total, "shm_total"),
        shm_free=None if shm_free is None else _size(shm_free, "shm_free"),
        backends=tuple(backends),
        platform=_text(data.get("platform", "linux"), "platform"),
        process_info=flag("process_info", True),
        visible=_visible(data.get("visible"), gpus),
        simulated=True,
        env={_text(k, "env"): _text(v, f"env.{k}") for k, v in env.items()},
    )


def read_limited(path: str, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; InputError for anything else.

    The file is opened without blocking and checked after opening, so that a FIFO, a device such
    as /dev/zero, or a file swapped for one in between, is refused rather than read.
    """
    hint = "pass a YAML or JSON inventory file, or builtin:default"
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise InputError(f"cannot read inventory file {path}: {exc.strerror or exc}", hint=hint) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InputError(f"inventory file {path} is not a regular file", hint=hint)
        chunks: list[bytes] = []
        size = 0
        while chunk := os.read(fd, 1 << 16):
            size += len(chunk)
            if size > limit:
                raise InputError(
                    f"inventory file {path} is larger than {limit // 1024**2} MiB",
                    hint="describe one machine",
                )
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as exc:
        raise InputError(f"cannot read inventory file {path}: {exc.strerror or exc}", hint=hint) from None
    finally:
        os.close(fd)


def parse_inventory_text(raw: bytes, where: str) -> Any:
    """YAML or JSON data from the file's bytes; InputError for bad syntax, encoding or nesting."""
    import yaml

    try:
        text = raw.decode("utf-8")
        return yaml.safe_load(text)  # JSON is YAML too
    except UnicodeDecodeError:
        raise InputError(
            f"inventory file {where} is not UTF-8 text", hint="write it as YAML or JSON"
        ) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f"line {mark.line + 1}" if mark is not None else "the file"
        raise InputError(
            f"inventory file {where}: invalid YAML/JSON at {line}", hint="fix the syntax"
        ) from None
    except RecursionError:
        raise InputError(
            f"inventory file {where} is nested too deeply", hint="an inventory is a few levels deep"
        ) from None
    except ValueError:  # e.g. an integer with thousands of digits
        raise InputError(
            f"inventory file {where} holds a value that cannot be read (a number too long?)",
            hint="write sizes such as 80GiB and small whole numbers",
        ) from None


def load_inventory(spec: str) -> Inventory:
    """An inventory from `builtin:NAME` or a YAML/JSON file; InputError naming the problem otherwise."""
    if spec.startswith(BUILTIN_PREFIX):
        name = spec[len(BUILTIN_PREFIX) :]
        try:
            return BUILTIN_INVENTORIES[name]()
        except KeyError:
            raise InputError(
                f"no built-in inventory {_shown(name)}",
                hint=f"use one of: {', '.join(BUILTIN_PREFIX + n for n in BUILTIN_INVENTORIES)}",
            ) from None
    data = parse_inventory_text(read_limited(spec), spec)
    try:
        return inventory_from_dict(data, source=f"file:{spec}")
    except InputError as exc:
        raise InputError(f"{spec}: {exc.message}", hint=exc.hint) from None
    except RecursionError:
        raise InputError(
            f"inventory file {spec} is nested too deeply", hint="an inventory is a few levels deep"
        ) from None
