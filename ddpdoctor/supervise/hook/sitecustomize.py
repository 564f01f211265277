"""ddpdoctor run's startup hook: makes every rank of a supervised job diagnosable without code changes.

`ddpdoctor run` puts this folder first on `PYTHONPATH`, so every Python process of the job imports
this module at start-up. In a process that a launcher gave a rank (`RANK`, ...) it:

- registers the fault handler to write all thread stacks to a file on a signal (SIGUSR2 unless
  the process already handles it), for when no external tool can attach;
- points `TORCHELASTIC_ERROR_FILE` at a per-rank file in the run folder when no launcher set one;
- sends its standard output and error through the supervisor, which shows them unchanged and
  keeps a copy per rank;
- answers the supervisor's request for a Flight Recorder dump from a small background thread.

It never raises: a hook that cannot do its work leaves the process as it was. Afterwards it runs
the user's own `sitecustomize`, if there is one further down the path.
"""

from __future__ import annotations

import os
import sys
from typing import IO, Any

_KEEP: list[Any] = []  # objects that must live as long as the process (files, sockets, threads)
_RANK_VARIABLES = ("RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID")


def _rank() -> str | None:
    for name in _RANK_VARIABLES:
        value = os.environ.get(name, "").strip()
        if value.isdigit():
            return value
    return None


def _register_stack_signal() -> None:
    import faulthandler
    import signal

    folder = os.environ.get("DDPDOCTOR_STACK_DIR")
    signum = getattr(signal, os.environ.get("DDPDOCTOR_STACK_SIGNAL", "SIGUSR2"), None)
    if not folder or signum is None or signal.getsignal(signum) is not signal.SIG_DFL:
        return
    # The name `pid<PID>.stack` is what ddpdoctor.supervise.stacks reads back (instrument.SIGNAL_DUMP_SUFFIX).
    stream: IO[str] = open(os.path.join(folder, f"pid{os.getpid()}.stack"), "a")  # noqa: SIM115
    _KEEP.append(stream)
    faulthandler.register(signum, file=stream, all_threads=True, chain=False)


def _set_error_file(run_dir: str, rank: str) -> None:
    if os.environ.get("TORCHELASTIC_ERROR_FILE"):
        return
    folder = os.path.join(run_dir, "errors", f"rank{rank}")
    os.makedirs(folder, exist_ok=True)
    os.environ["TORCHELASTIC_ERROR_FILE"] = os.path.join(folder, "error.json")


def _connect(path: str, header: str) -> Any:
    import socket

    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    sock.sendall(header.encode() + b"\n")
    return sock


def _capture_output(path: str, rank: str) -> None:
    for fd, stream, name in ((1, sys.stdout, "stdout"), (2, sys.stderr, "stderr")):
        sock = _connect(path, f"{name} {rank} {os.getpid()}")
        if stream is not None:
            stream.flush()
        os.dup2(sock.fileno(), fd)
        sock.close()


def _dump_flight_recorder(rank: str) -> str:
    prefix = os.environ.get("TORCH_FR_DUMP_TEMP_FILE") or os.environ.get("TORCH_NCCL_DEBUG_INFO_TEMP_FILE")
    dist = sys.modules.get("torch.distributed")
    if not prefix or dist is None or not dist.is_available() or not dist.is_initialized():
        return "no process group"
    import importlib

    # Without stack traces: symbolising them takes seconds, and `run` takes the stacks itself.
    data = importlib.import_module("torch._C._distributed_c10d")._dump_fr_trace(includeStackTraces=False)
    target = f"{prefix}{rank}"
    with open(target + ".tmp", "wb") as out:
        out.write(data)
    os.replace(target + ".tmp", target)
    return "written"


def _serve_requests(path: str, rank: str) -> None:
    import threading

    sock = _connect(path, f"control {rank} {os.getpid()}")
    reader = sock.makefile("rb")

    def serve() -> None:
        for line in reader:
            if line.strip() == b"flight-recorder":
                try:
                    answer = _dump_flight_recorder(rank)
                except Exception as exc:  # the hook must never take the rank down
                    answer = f"failed: {type(exc).__name__}"
                sock.sendall(answer.encode() + b"\n")

    thread = threading.Thread(target=serve, name="ddpdoctor-hook", daemon=True)
    thread.start()
    _KEEP.extend((sock, reader, thread))


def _install() -> None:
    run_dir = os.environ.get("DDPDOCTOR_RUN_DIR")
    rank = _rank()
    if not run_dir or rank is None:
        return
    # Each step stands alone: one that cannot be done must not stop the others.
    for step in (
        _register_stack_signal,
        lambda: _set_error_file(run_dir, rank),
        lambda: _capture_output(os.environ["DDPDOCTOR_RUN_SOCKET"], rank),
        lambda: _serve_requests(os.environ["DDPDOCTOR_RUN_SOCKET"], rank),
    ):
        try:
            step()
        except Exception:
            continue


def _chain_user_sitecustomize() -> None:
    """Import the next `sitecustomize` on the path (the user's), as if this one did not exist."""
    import importlib

    here = os.path.dirname(os.path.abspath(__file__))
    ours = sys.modules.pop("sitecustomize", None)
    saved = list(sys.path)
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    try:
        importlib.import_module("sitecustomize")
    except ImportError:
        if ours is not None:
            sys.modules["sitecustomize"] = ours
    finally:
        sys.path[:] = saved


_install()
_chain_user_sitecustomize()
