"""Child processes that never outlive ddpdoctor, and the CPUs it may use.

A forked or started child calls :func:`die_with_parent` first: on Linux the kernel then sends it
SIGKILL when ddpdoctor ends, whatever ends it (SIGTERM, SIGHUP, SIGKILL, a crash), so no worker
is left blocked on a pipe nobody reads. Elsewhere the call does nothing and the callers rely on
their pipes closing.
"""

from __future__ import annotations

import os
import signal
import sys


def die_with_parent(parent_pid: int) -> None:
    """Ask the kernel to SIGKILL this process when its parent ends; exit now if it already has."""
    if sys.platform.startswith("linux"):
        import ctypes

        pr_set_pdeathsig = 1
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(pr_set_pdeathsig, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent_pid:  # the parent died before the request took effect
        os._exit(1)


def usable_cpus() -> int:
    """How many CPUs this process may run on (its affinity mask, else the machine's count)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1
