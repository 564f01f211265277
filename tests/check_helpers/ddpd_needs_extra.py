"""A model module whose own import fails: it needs `ddpd`, a package that is not installed."""

from __future__ import annotations

import ddpd  # noqa: F401


def mlp():
    raise AssertionError("never reached: the import above fails")
