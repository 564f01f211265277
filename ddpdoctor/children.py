"""Process lifetime: nothing ddpdoctor starts outlives it, and the CPUs it may use.

Every starter of processes (explain's scan workers, the data-loader probe, the backtracking
probe, scenario runs, `run`'s supervised job) relies on this module, on Linux:

- A started child calls :func:`die_with_parent` first (or gets it as `preexec_fn`): the kernel
  then sends it SIGKILL when ddpdoctor ends, whatever ends it, even SIGKILL.
- The command line calls :func:`adopt_descendants` once: ddpdoctor becomes a child subreaper, so
  a grandchild whose parent died (one that called `setsid` to leave its session included) is
  re-parented to ddpdoctor instead of init and stays findable; at a normal end, and on SIGTERM or
  SIGHUP, every descendant is killed (a walk of /proc) before ddpdoctor ends the way it was asked.
  Ctrl-C ends the command normally (exit 130), so the same clean-up runs. Only SIGKILL of
  ddpdoctor itself leaves grandchildren behind (the direct children still die with it).
- :func:`kill_tree` kills one child with all its descendants, for a starter that stops its child
  before ddpdoctor ends; a child that may start processes of its own calls
  :func:`become_subreaper`, so that its orphans stay in its tree until then.

The library entry points (`preflight()`, `guard()`) run inside the user's process: they never
adopt its descendants or change its signal handlers; their children die with their own starter.
Elsewhere than Linux these calls do nothing and the starters rely on process groups and pipes.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import sys
import threading
import time
from types import FrameType

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
# Signals that end ddpdoctor by default and can be caught: the descendants die first.
ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
# How long kill_tree keeps finding and killing processes (a descendant may fork meanwhile).
KILL_WAIT_S = 5.0
_adopted_by: int | None = None  # the pid that called adopt_descendants (a fork is not it)


def _prctl(option: int, value: int) -> None:
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)


def die_with_parent(parent_pid: int) -> None:
    """Ask the kernel to SIGKILL this process when its parent ends; exit now if it already has."""
    _prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL))
    if os.getppid() != parent_pid:  # the parent died before the request took effect
        os._exit(1)


def become_subreaper() -> None:
    """Make orphaned descendants of this process its children instead of init's (Linux)."""
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)


def descendants(root: int) -> list[int]:
    """Pids of every live process below `root`, parents first (Linux /proc; empty elsewhere)."""
    from ddpdoctor.supervise.procfs import descendants as walk

    return walk(root)


def kill_tree(root: int, *, include_root: bool = True) -> None:
    """SIGKILL `root` (unless told not to) and every process below it, until none is left or
    KILL_WAIT_S has passed. Children of this process that die are left for their starter to reap."""
    from ddpdoctor.supervise.procfs import alive  # lazily, like descendants(): supervise imports this module

    deadline = time.monotonic() + KILL_WAIT_S
    while True:
        targets = descendants(root)
        if include_root and alive([root]):
            targets.insert(0, root)
        if not targets or time.monotonic() > deadline:
            return
        for pid in targets:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)


def _has_children() -> bool:
    """Whether this process has any child, without reaping one (no child: nothing to clean up)."""
    try:
        os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return False
    except (AttributeError, OSError):
        return True
    return True


def kill_descendants() -> None:
    """Kill every descendant of this process (adopted orphans included); a no-op without children."""
    if _has_children():
        kill_tree(os.getpid(), include_root=False)


def adopt_descendants() -> None:
    """For the command line: every process ddpdoctor starts, and theirs, ends when ddpdoctor ends.

    Becomes a child subreaper, kills the descendants at exit, and (from the main thread) on
    SIGTERM or SIGHUP unless a handler is already set; such a signal then ends ddpdoctor as by
    default. Calling it again does nothing.
    """
    global _adopted_by
    if _adopted_by == os.getpid() or not sys.platform.startswith("linux"):
        return
    _adopted_by = os.getpid()
    become_subreaper()
    atexit.register(_kill_at_exit)
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in ENDING_SIGNALS:
        if signal.getsignal(signum) is signal.SIG_DFL:
            signal.signal(signum, _end_on_signal)


def _kill_at_exit() -> None:
    if _adopted_by == os.getpid():  # not in a forked worker that inherited the registration
        kill_descendants()


def _end_on_signal(signum: int, _frame: FrameType | None) -> None:
    """Kill the descendants, then end by the same signal as the default handler would."""
    if _adopted_by == os.getpid():
        kill_descendants()
    signal.signal(signum, signal.SIG_DFL)
    signal.raise_signal(signum)  # to this thread: the process ends before this returns


def usable_cpus() -> int:
    """How many CPUs this process may run on (its affinity mask, else the machine's count)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1
