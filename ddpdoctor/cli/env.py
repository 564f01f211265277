"""`ddpdoctor env`: the versions and devices a bug report needs."""

from __future__ import annotations

import os

from ddpdoctor.cli.common import SETTINGS, FormatOption, handle_errors
from ddpdoctor.errors import ExitCode
from ddpdoctor.present.render import OutputFormat, emit


@handle_errors
def env(fmt: FormatOption = OutputFormat.AUTO) -> int:
    """Print ddpdoctor, Python, torch, CUDA, cuDNN, NCCL and driver versions, the devices and launch variables.

    The JSON form's `inventory` can be saved and replayed elsewhere with `ddpdoctor check --inventory FILE`.
    """
    from ddpdoctor.environment import collect_environment
    from ddpdoctor.present.env import env_document

    report = collect_environment(dict(os.environ))
    emit(env_document(report), report.to_dict(), fmt, color=SETTINGS.color)
    return ExitCode.OK
