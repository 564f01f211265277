"""Expected failures and the exit codes every command shares.

Exit codes (documented in README.md; outside tools depend on them):

====  =====================================================================
code  meaning
====  =====================================================================
0     healthy: no problem found (check), no failure in the logs (explain)
1     a problem was found (an error finding, a failure in the logs)
2     usage, input or knowledge-base error: the command could not do its job
3     internal bug in ddpdoctor; one line plus the path of a crash report
130   interrupted (Ctrl-C)
====  =====================================================================
"""

from __future__ import annotations

import enum


class ExitCode(enum.IntEnum):
    """Process exit codes shared by every command."""

    OK = 0
    PROBLEM = 1
    USAGE = 2
    INTERNAL = 3
    INTERRUPTED = 130


class DdpDoctorError(Exception):
    """Root of every expected failure: one line of message, an optional hint, exit code 2."""

    exit_code: ExitCode = ExitCode.USAGE

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message


class KnowledgeError(DdpDoctorError):
    """A knowledge-base file is invalid; the message names the file, the key and the fix."""

    def __init__(self, path: str, key: str | None, problem: str, *, fix: str | None = None) -> None:
        where = f"{path}: {key}" if key else path
        super().__init__(f"{where}: {problem}", hint=fix)
        self.path = path
        self.key = key
        self.problem = problem


class InputError(DdpDoctorError):
    """The user's input (a path, a log, an argument value) cannot be used."""


class DeviceError(DdpDoctorError):
    """A device specification cannot be read or a device cannot be probed."""
